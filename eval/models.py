"""``caim models probe``: each model-judged role of the configured model beside its code fallback.

The labelled probes (``probes/local_models.json``) go through the ``caim`` policy's own functions
(``plan``, ``filter``, ``key_events``, ``thoughts``, ``maintain``), the summary and the answer
prompts; the same probes go through the code each role falls back to. Points per role, for model
and code alike:

- plan: 1 for the labelled route, 0.5 for the right "needs memory?" with the wrong kind
  (code: the route from the code signals alone);
- relevance: per probe, the share of relevant candidates kept times the share of the others
  dropped (code: keeps every candidate, up to the cap);
- key_events: 1 per fact found at its turn (a keyword in an event), less 1 per event at a chatter
  turn (code: verbatim capture of fact-stating turns and of replies that give something);
- thoughts: 1 per memory sentence that keeps the fact's keyword, invents no name, number or date,
  and speaks of the user or the assistant rather than in their first person (code: the words as
  said);
- maintain: 1 per right decision and target (code: "same" at cosine similarity
  ``DUPLICATE``, else "new");
- summarize: 1 per fact the summary names (code: no summary);
- profile: 1 per aspect background that names every fact of the aspect's memories, holds no name,
  number or date they (or the paragraph before) do not hold, and takes at most three sentences, as
  its prompt asks (code: the aspect's newest memories listed, ``caim.memory.profile.listed``); 1 per
  preference group whose requirement (at most four words) names its kind and whose one-sentence,
  grounded summary names each of its likes and dislikes (code: the group's most common tag and its
  central memories, ``caim.memory.profile.principle``);
- answer: 1 per answer to a memory question that holds each expected word (whole words; "a|b":
  either) and none of the words of the memories that do not answer it (code: the answer composed
  from the memories, ``caim.memory.answer.compose``).

``caim models probe`` writes the result to ``<data dir>/model_roles.json``; from then on a role
the model does not beat code on skips the model (``caim.core.model_roles``).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import typer
from langchain_core.messages import AIMessage, HumanMessage

from caim.core.errors import ConfigError
from caim.core.model_roles import RECORD, RoleResult, decide, role_uses, write
from caim.core.trace import llm_calls
from caim.core.types import PROBED, SERVED_BY, Role
from caim.eval.tables import markdown_table
from caim.graph.env import Env
from caim.graph.policies.caim import CaimPolicy
from caim.graph.retrieval import combine
from caim.graph.services import Services
from caim.graph.state import Context, KeyEvent, Plan, State
from caim.memory.answer import compose
from caim.memory.build import ASSISTANT_SAID
from caim.memory.capture import captures
from caim.memory.maintenance import DUPLICATE, MaintainGroup, StoredMemory
from caim.memory.profile import grounded_text, listed, principle, requirement_of
from caim.memory.records import MemoryBrief, MemoryRecord
from caim.memory.stm import TIME_KEY, transcript, turns
from caim.memory.text import memory_signals, unsupported
from caim.prompts import respond as respond_prompt
from caim.prompts import summarize as summarize_prompt
from caim.prompts.profile import AspectUpdate

PROBES = Path(__file__).with_name("probes") / "local_models.json"
ROLES: tuple[Role, ...] = PROBED
#: Most sentences a background may take (its prompt asks for at most three), and a principle's summary.
BACKGROUND_SENTENCES = 3
#: Most words a principle's requirement type may take (its prompt asks for at most four).
REQUIREMENT_WORDS = 4
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
#: A memory sentence in the speaker's own first person (what a rewrite is for).
_FIRST_PERSON = re.compile(r"\bI\b|\bI'(?:m|ve|d|ll)\b|(?i:\b(?:my|me|mine)\b)")


@dataclass
class RoleScore:
    """One role's tallies in a probe: calls, valid outputs, model and code scores, items, time and tokens."""

    calls: int = 0
    valid: int = 0
    model: float = 0.0
    code: float = 0.0
    items: int = 0
    ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass
class ProbeRun:
    """One model's probe: its description and each role's scores."""

    describe: str
    roles: dict[Role, RoleScore] = field(default_factory=lambda: {r: RoleScore() for r in ROLES})

    def total(self, key: str) -> float:
        """The sum of the ``RoleScore`` field ``key`` over the roles."""
        return sum(getattr(r, key) for r in self.roles.values())

    def results(self) -> dict[str, RoleResult]:
        """Per probed role: both scores and which one the deployment should use."""
        return {
            role: {"model": s.model, "code": s.code, "items": s.items, "use": decide(s.model, s.code)}
            for role, s in self.roles.items()
        }


class _Probe:
    """One probe run: the policy, an ``Env`` whose trace is counted per role, the labelled probes."""

    def __init__(self, services: Services, probes: dict[str, Any]):
        self.svc = services
        self.probes = probes
        self.today = probes["today"]
        self.trace: list = []
        now = datetime.fromisoformat(f"{self.today}T12:00:00+00:00")
        self.env = Env(services, services.settings, Context(user_id="probe"), now, "probe", self.trace)
        self.policy = CaimPolicy()
        self.run = ProbeRun(services.models.describe())

    def score(self, role: Role, model: float, code: float = 0.0, items: int = 1) -> None:
        calls = llm_calls(self.trace)
        s = self.run.roles[role]
        s.calls += len(calls)
        s.valid += sum(1 for c in calls if not c.get("fallback"))
        s.model += model
        s.code += code
        s.items += items
        s.ms += sum(float(c["ms"]) for c in calls)
        s.tokens_in += sum(int(c["input_tokens"]) for c in calls)
        s.tokens_out += sum(int(c["output_tokens"]) for c in calls)
        self.trace.clear()

    def brief(self, i: int, thought: str) -> MemoryBrief:
        return {"id": str(i), "thought": thought, "tags": ["personal"], "event_time": f"{self.today}T10:00:00+00:00"}

    def messages(self, message: str, recent: list[list[str]]) -> State:
        msgs: list[Any] = []
        for user, reply in recent:
            msgs += [HumanMessage(user), AIMessage(reply)]
        return {"messages": [*msgs, HumanMessage(message)]}

    def conversation(self) -> list[Any]:
        msgs: list[Any] = []
        for i, (user, reply) in enumerate(self.probes["conversation"]):
            when = {TIME_KEY: f"{self.today}T10:{2 * i:02d}:00+00:00"}
            msgs += [HumanMessage(user, additional_kwargs=when), AIMessage(reply, additional_kwargs=when)]
        return msgs


def _route_points(route: str | None, label: str) -> float:
    if route == label:
        return 1.0
    return 0.5 if route is not None and (route == "none") == (label == "none") else 0.0


def _plan(p: _Probe) -> None:
    for item in p.probes["plan"]:
        state = p.messages(item["message"], item["recent"])
        vec = p.svc.embedder.embed_query(item["message"])
        shortlist = [t for t, _ in p.svc.tagger.nearest(p.svc.ontology.current, vec, 8)[0]]
        plan: Plan | None = p.policy.plan(state, p.env, shortlist)
        signals = {**asdict(memory_signals(item["message"])), "first_turn": not item["recent"]}
        code = combine(None, signals, p.svc.settings.route_rule)
        model = _route_points(plan["route"] if plan else None, item["route"])
        p.score("plan", model, _route_points(code, item["route"]))


def _kept_points(kept: set[str], relevant: set[str], shown: list[str]) -> float:
    """Share of the relevant kept, times share of the others dropped (keeping all or none: 0)."""
    others = [c for c in shown if c not in relevant]
    found = len(kept & relevant) / max(len(relevant), 1)
    return found * (1 - len(kept - relevant) / max(len(others), 1))


def _relevance(p: _Probe) -> None:
    cap = p.svc.settings.max_kept
    for item in p.probes["relevance"]:
        cands = [p.brief(i, t) for i, t in enumerate(item["candidates"], 1)]
        kept = p.policy.filter(p.messages(item["message"], []), p.env, cands)
        relevant = {str(n) for n in item["relevant"]}
        shown = [c["id"] for c in cands]
        model = _kept_points({k["id"] for k in kept}, relevant, shown) if kept is not None else 0.0
        p.score("relevance", model, _kept_points(set(shown[:cap]), relevant, shown))


def _found(p: _Probe, events: list[tuple[int, str]]) -> float:
    facts = p.probes["facts"]
    hits = sum(1 for turn, words in facts if any(t == turn and any(w in e.lower() for w in words) for t, e in events))
    chatter = sum(1 for t, _ in events if t in set(p.probes.get("chatter", [])))
    return float(max(hits - chatter, 0))


def _key_events(p: _Probe) -> None:
    said = turns(p.conversation())
    events = p.policy.key_events(p.env, said) or []
    code = [(c.turn, c.text) for c in captures(said, persona=p.svc.settings.persona)]
    model = [(e["turn"], e["event"]) for e in events]
    p.score("key_events", _found(p, model), _found(p, code), len(p.probes["facts"]))


def _sentence_points(thought: str, item: dict[str, Any]) -> float:
    kept = item["keep"] in thought.lower()
    return float(kept and not unsupported(thought, item["source"]) and not _FIRST_PERSON.search(thought))


def _thoughts(p: _Probe) -> None:
    items = p.probes["thoughts"]
    facts: list[KeyEvent] = []
    for i, item in enumerate(items, 1):
        said = ASSISTANT_SAID + item["source"] if item.get("speaker") == "assistant" else item["source"]
        facts.append({"turn": i, "event": said, "time": f"{p.today}T10:00:00+00:00"})
    ontology = p.svc.ontology.current
    rows = p.svc.tagger.nearest(ontology, p.svc.store.embed([f["event"] for f in facts]), 4)
    tags = list(dict.fromkeys(t for row in rows for t, _ in row))
    parents = [x for x in dict.fromkeys(ontology.parent_of(t) for t in tags) if x]
    answer = p.policy.thoughts(p.env, facts, tags, parents or ontology.parents()[:1])
    written = {th.event: th.thought for th in (answer.thoughts if answer else [])}
    model = sum(_sentence_points(written.get(i, ""), item) for i, item in enumerate(items, 1))
    code = sum(_sentence_points(item["source"], item) for item in items)
    p.score("thoughts", model, code, len(items))


def _maintain(p: _Probe) -> None:
    for item in p.probes["maintain"]:
        stored = [StoredMemory(i + 2, p.today, t) for i, t in enumerate(item["stored"])]
        got = p.policy.maintain(p.env, [MaintainGroup(1, p.today, item["new"], stored)])
        d = next(iter(got.decisions), None) if got else None
        target = item["target"] + 1 if item["target"] else 0
        model = d is not None and d.decision == item["decision"] and (not target or d.target == target)
        sims = p.svc.embedder.similarity([item["new"], *item["stored"]])[0, 1:]
        best = int(sims.argmax())
        code_decision, code_target = ("same", best + 1) if sims[best] >= DUPLICATE else ("new", 0)
        code = code_decision == item["decision"] and code_target == item["target"]
        p.score("maintain", float(model), float(code))


def _says(text: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word.strip())}\b", text, re.I) is not None


def _answer_points(text: str, item: dict[str, Any]) -> float:
    """1 when the answer holds each expected word (``"a|b"``: either) and no word it must avoid."""
    expected = all(any(_says(text, w) for w in group.split("|")) for group in item["expect"])
    return float(expected and not any(_says(text, w) for w in item.get("avoid", [])))


def _answers(p: _Probe) -> None:
    for item in p.probes["answer"]:
        memories = [p.brief(i, t) for i, t in enumerate(item["memories"], 1)]
        text = p.env.answer(respond_prompt.messages(item["message"], p.today, [], memories, "", True))
        p.score("answer", _answer_points(text, item), _answer_points(compose(item["message"], memories).text, item))
    summary = p.env.text("summarize", summarize_prompt.messages("", transcript(p.conversation())), fallback="").lower()
    named = sum(1 for _, words in p.probes["facts"] if any(w in summary for w in words))
    p.score("summarize", float(named), 0.0, len(p.probes["facts"]))


def _records(p: _Probe, thoughts: list[str]) -> list[MemoryRecord]:
    """The probe's memories as records, a minute apart in the given order, tagged by meaning."""
    ontology = p.svc.ontology.current
    rows = p.svc.tagger.nearest(ontology, p.svc.store.embed(thoughts), 1) if thoughts else []
    day = datetime.fromisoformat(f"{p.today}T10:00:00+00:00")
    return [
        MemoryRecord(
            id=f"m{i}",
            user_id="probe",
            thought=t,
            tags=[row[0][0]] if row else ["personal"],
            event_time=day.replace(minute=i),
        )
        for i, (t, row) in enumerate(zip(thoughts, rows, strict=True))
    ]


def _names_all(text: str, keep: list[list[str]]) -> bool:
    low = text.lower()
    return all(any(w in low for w in words) for words in keep)


def _sentences(text: str) -> int:
    return max(len(_SENTENCE_END.findall(text.strip())), 1)


def _background_points(text: str, item: dict[str, Any], members: list[MemoryRecord]) -> float:
    ok = grounded_text(text, members, item["current"]) and _names_all(text, item["keep"])
    return float(ok and _sentences(text) <= BACKGROUND_SENTENCES)


def _principle_points(requirement: str, summary: str, item: dict[str, Any], members: list[MemoryRecord]) -> float:
    named = len(requirement.split()) <= REQUIREMENT_WORDS and any(k in requirement.lower() for k in item["kinds"])
    said = f"{requirement}. {summary}"
    return float(
        named and grounded_text(said, members) and _names_all(summary, item["keep"]) and _sentences(summary) == 1
    )


def _profile(p: _Probe) -> None:
    items = p.probes["profile"]["backgrounds"]
    members = [_records(p, [*item["older"], *item["new"]]) for item in items]
    updates = [AspectUpdate(item["aspect"], item["current"], item["new"]) for item in items]
    answer = p.policy.backgrounds(p.env, updates)
    written = {b.aspect: b.text.strip() for b in (answer.backgrounds if answer else [])}
    model = sum(_background_points(written.get(i["aspect"], ""), i, m) for i, m in zip(items, members, strict=True))
    code = sum(_background_points(listed(m), i, m) for i, m in zip(items, members, strict=True))
    groups = p.probes["profile"]["principles"]
    records = [_records(p, g["members"]) for g in groups]
    named = p.policy.principles(p.env, [g["members"] for g in groups])
    by_group = {x.group: x for x in (named.principles if named else [])}
    for n, (group, recs) in enumerate(zip(groups, records, strict=True), 1):
        got = by_group.get(n)
        model += _principle_points(got.requirement, got.summary, group, recs) if got else 0.0
        vectors = np.asarray(p.svc.embedder.embed([r.thought for r in recs]), dtype=np.float32)
        own = principle(recs, vectors, requirement_of(recs))
        code += _principle_points(own.requirement, own.summary, group, recs)
    p.score("profile", model, code, len(items) + len(groups))


def probe(services: Services, probes: dict[str, Any] | None = None) -> ProbeRun:
    """Every role on every probe, model and code, with ``services``' models (none skipped)."""
    services.llm.code_roles = frozenset()
    p = _Probe(services, probes or json.loads(PROBES.read_text(encoding="utf-8")))
    for step in (_plan, _relevance, _key_events, _thoughts, _maintain, _answers, _profile):
        step(p)
    return p.run


def table(run: ProbeRun) -> list[str]:
    """The run as a Markdown table: per role the model's and code's points and which one is used."""
    results = run.results()
    rows = []
    for role, s in run.roles.items():
        per = max(s.calls, 1)
        used = results[role]["use"]
        code = f"{s.code:g}/{s.items}"
        rows.append(
            [
                role,
                f"{s.model:g}/{s.items}",
                code,
                used,
                s.calls,
                f"{s.valid}/{s.calls}",
                f"{s.ms / per / 1000:.2f}",
                f"{s.tokens_in // per}/{s.tokens_out // per}",
            ]
        )
    headers = ["role", "model", "code", "used", "calls", "valid", "s/call", "tokens in/out per call"]
    return markdown_table(headers, rows)


models_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
    help="Measure the configured model's judgement against code.",
)


@models_app.command("probe")
def probe_command(
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Where caim keeps memory (default: CAIM_DATA_DIR)."),
    record: bool = typer.Option(True, "--record/--no-record", help="Write the result beside the data dir."),
) -> None:
    """Put each role of the configured model beside its code fallback on labelled probes; record
    which roles the model keeps (those where it scores above code)."""
    from caim.core.models import Models
    from caim.core.settings import Settings
    from caim.graph.services import check_data_dir

    settings = Settings.load(data_dir=data_dir)
    models = Models(settings)
    # by role name, as results(); a role another's model serves is recorded under that model
    ids: dict[str, str | None] = {role: models.model_id(SERVED_BY.get(role, role)) for role in PROBED}
    if record and None in ids.values():
        raise ConfigError("the configured model cannot be named in a record; run with --no-record")
    services = Services.create(settings, models=models, persist=False)
    typer.echo(f"probing {models.describe()} ...", err=True)
    run = probe(services)
    typer.echo("\n".join(table(run)))
    if record:
        check_data_dir(settings)
        path = settings.data_dir / RECORD
        for model_id in dict.fromkeys(ids.values()):
            write(path, str(model_id), {r: v for r, v in run.results().items() if ids[r] == model_id})
        uses = role_uses(models.model_id, settings.data_dir, settings.use_model_for)
        code = [r for r, (use, _) in uses.items() if use == "code"]
        typer.echo(f"recorded in {path}; roles on code: {', '.join(code) or 'none'}")


@models_app.command("show")
def show_command(
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Where caim keeps memory (default: CAIM_DATA_DIR)."),
) -> None:
    """Which roles of the configured model use its judgement and which code, and what said so."""
    from caim.core.models import Models
    from caim.core.settings import Settings

    settings = Settings.load(data_dir=data_dir)
    models = Models(settings)
    typer.echo(f"model: {models.describe()}")
    for role, (use, why) in role_uses(models.model_id, settings.data_dir, settings.use_model_for).items():
        typer.echo(f"{role:<11} {use:<6} ({why})")
