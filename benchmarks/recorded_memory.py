"""Today's retrieval and routing code over a memory an earlier evaluation run built - no model calls.

A bundled-model LoCoMo run spends most of its time building the memory (post-thinking with a small
model); this re-measures the parts that code decides on that same memory, in seconds:

- **route**: the plan decisions the run recorded for each question, combined with today's code
  signals (``caim.graph.retrieval.combine`` under ``route_rule``; the signals include the names the
  memory knows and the closest stored record);
- **candidate evidence recall@k**: the share of a question's evidence turns that the top ``k``
  records of today's ranked search stem from (LoCoMo's evidence ids; ``caim.eval.metrics``);
- the ceiling: the share the whole memory holds.

With ``--ask`` each question is also asked again, whole, through the ``caim`` graph with a model (the
configured one: the bundled model unless ``CAIM_PROVIDER``/``CAIM_BASE_URL`` say otherwise) over that
same memory: the live route, the evidence recall of the candidates and of the records kept after
the relevance filter, LoCoMo's answer F1 and the model calls per question - the question half of
``caim eval locomo`` in minutes, without replaying the conversation into memory again.

The run's folder gives ``memory.jsonl`` (the stored records of the ``caim`` system) and
``results.jsonl`` (its questions, times, evidence and recorded decisions); the LoCoMo file gives
the turns' text. Records are loaded as the run stored them (id, thought, tags, time, session,
sources). Run::

    python benchmarks/recorded_memory.py --run eval-out/locomo-bundled \
        --data ../shared/data/locomo-dev/locomo_dev.json [--system caim] [--k 10] [--ask]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from langchain_core.messages import HumanMessage

from caim.core.settings import Settings
from caim.core.trace import llm_calls
from caim.eval.metrics import covered_turns, evidence_recall, locomo_f1
from caim.eval.runner import describe_models
from caim.eval.systems import CaimSystem
from caim.eval.tables import markdown_table
from caim.graph.env import Env
from caim.graph.policies import get_policy
from caim.graph.policies.caim import _ROUTES
from caim.graph.retrieval import combine, search
from caim.graph.services import Services
from caim.graph.state import Context, Plan, State
from caim.memory.records import MemoryRecord
from caim.memory.text import memory_signals

USER = "recorded"


def lines(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a kill
    return out


def turn_texts(data: Path) -> dict[str, dict[str, str]]:
    """Per LoCoMo sample: dia id -> the turn's text."""
    out: dict[str, dict[str, str]] = {}
    for sample in json.loads(data.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        out[sample["sample_id"]] = {
            t["dia_id"]: t["text"]
            for key, turns in conv.items()
            if key.startswith("session_") and isinstance(turns, list)
            for t in turns
        }
    return out


def recorded_plan(decisions: dict) -> Plan | None:
    key = (decisions.get("needs_memory"), decisions.get("memory"))
    if key not in _ROUTES:
        return None  # the run's plan call failed: code signals alone
    return {"route": _ROUTES[key], "decisions": decisions, "tags": [], "time_expressions": [], "model": True}


def measure(run: Path, data: Path, system: str, k: int) -> dict:
    memory = [m for m in lines(run / "memory.jsonl") if m["system"] == system]
    rows = [r for r in lines(run / "results.jsonl") if r["system"] == system and r.get("evidence")]
    texts = turn_texts(data)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]  # pydantic-settings' init option: mypy sees the fields only
    svc = Services.create(settings, persist=False)
    policy = get_policy("caim")
    users: dict[str, list[MemoryRecord]] = {}
    for m in memory:  # the last line of a (system, user) pair counts
        users[m["user"]] = [MemoryRecord(user_id=f"{USER}-{m['user']}", **r) for r in m["records"]]
    for recs in users.values():
        svc.store.add(recs)
    svc.store.flush()
    per: list[dict] = []
    for r in rows:
        if r["user"] not in users:
            continue
        uid = f"{USER}-{r['user']}"
        env = Env(svc, settings, Context(user_id=uid), datetime.fromisoformat(r["asked_at"]), "search")
        state: State = {"messages": [HumanMessage(r["prompt"])]}
        found = search(state, env, policy)
        signals = {**asdict(memory_signals(r["prompt"])), **found["found_signals"]}
        route = combine(recorded_plan((r.get("extra") or {}).get("decisions") or {}), signals, settings.route_rule)
        top = found["found"][:k] if "ltm" in route else []
        by_id = {rec.id: rec.model_dump(mode="json") for rec in users[r["user"]]}
        held = covered_turns([by_id[f["id"]] for f in top], texts[r["user"]])
        whole = covered_turns(list(by_id.values()), texts[r["user"]])
        ev = r["evidence"]
        per.append(
            {
                "question": r["question"],
                "recorded_route": r["route"],
                "route": route,
                "recall": sum(e in held for e in ev) / len(ev),
                "ceiling": sum(e in whole for e in ev) / len(ev),
                "recorded_candidate_recall": (r.get("metrics") or {}).get("candidate_evidence_recall"),
            }
        )
    n = len(per)
    recorded = [p["recorded_candidate_recall"] for p in per if p["recorded_candidate_recall"] is not None]
    return {
        "run": str(run),
        "system": system,
        "k": k,
        "questions": n,
        "records": sum(len(v) for v in users.values()),
        "memory_route_rate": sum("ltm" in p["route"] or "stm" in p["route"] for p in per) / n if n else 0.0,
        "ltm_route_rate": sum("ltm" in p["route"] for p in per) / n if n else 0.0,
        "recorded_memory_route_rate": sum(p["recorded_route"] != "none" for p in per) / n if n else 0.0,
        "recorded_ltm_route_rate": sum("ltm" in p["recorded_route"] for p in per) / n if n else 0.0,
        "candidate_evidence_recall": statistics.mean(p["recall"] for p in per) if n else 0.0,
        "recorded_candidate_evidence_recall": statistics.mean(recorded) if recorded else None,
        "ceiling": statistics.mean(p["ceiling"] for p in per) if n else 0.0,
        "per_question": per,
    }


def ask(run: Path, data: Path, system: str) -> dict:
    """Each question asked again through the ``caim`` graph with the configured model, over the
    memory the run stored for ``system``."""
    memory = [m for m in lines(run / "memory.jsonl") if m["system"] == system]
    rows = [r for r in lines(run / "results.jsonl") if r["system"] == system and r.get("evidence")]
    texts = turn_texts(data)
    records: dict[str, list[dict]] = {m["user"]: m["records"] for m in memory}
    settings = Settings()
    per: list[dict] = []
    for user, recs in records.items():
        sys_ = CaimSystem("caim", settings)
        try:
            sys_.uid = f"{USER}-{user}"
            sys_.agent.import_user(sys_.uid, recs)
            for r in (r for r in rows if r["user"] == user):
                a = sys_.ask(r["prompt"], datetime.fromisoformat(r["asked_at"]))
                per.append(
                    {
                        "question": r["question"],
                        "recorded_route": r["route"],
                        "route": a.route,
                        "kept_recall": evidence_recall(r["evidence"], a.retrieved, texts[user]) or 0.0,
                        "candidate_recall": evidence_recall(r["evidence"], a.candidates, texts[user]) or 0.0,
                        "kept": len(a.retrieved),
                        "f1": locomo_f1(a.text, r["reference"], r.get("category") or 4) or 0.0,
                        "recorded_f1": (r.get("metrics") or {}).get("f1"),
                        "recorded_kept_recall": (r.get("metrics") or {}).get("evidence_recall"),
                        "calls": len(llm_calls(a.trace)),
                        "seconds": a.latency_ms / 1000,
                    }
                )
        finally:
            sys_.close()
    n = len(per)

    def avg(key: str) -> float | None:
        vals = [p[key] for p in per if p[key] is not None]
        return statistics.mean(vals) if vals else None

    return {
        "model": describe_models(settings, None),
        "questions": n,
        "memory_route_rate": sum(p["route"] != "none" for p in per) / n if n else 0.0,
        "ltm_route_rate": sum("ltm" in p["route"] for p in per) / n if n else 0.0,
        "kept_evidence_recall": avg("kept_recall"),
        "candidate_evidence_recall": avg("candidate_recall"),
        "recorded_kept_evidence_recall": avg("recorded_kept_recall"),
        "f1": avg("f1"),
        "recorded_f1": avg("recorded_f1"),
        "kept_per_question": avg("kept"),
        "calls_per_question": avg("calls"),
        "seconds_per_question": avg("seconds"),
        "per_question": per,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=Path, required=True, help="an eval output folder (memory.jsonl, results.jsonl)")
    ap.add_argument("--data", type=Path, required=True, help="the LoCoMo JSON file the run used")
    ap.add_argument("--system", default="caim")
    ap.add_argument("--k", type=int, default=10, help="candidates counted (the relevance filter sees candidate_cap)")
    ap.add_argument("--ask", action="store_true", help="also ask each question again with the configured model")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--doc", type=Path, default=None, help="also write Markdown (docs/recorded-memory.md)")
    args = ap.parse_args(argv)
    res = measure(args.run, args.data, args.system, args.k)
    rec = res["recorded_candidate_evidence_recall"]
    summary = (
        f"{res['questions']} questions over {res['records']} recorded records ({res['system']}):\n"
        f"  route to memory   {res['memory_route_rate']:.1%} (long-term {res['ltm_route_rate']:.1%}); "
        f"the run recorded {res['recorded_memory_route_rate']:.1%} (long-term {res['recorded_ltm_route_rate']:.1%})\n"
        f"  candidate evidence recall@{res['k']} {res['candidate_evidence_recall']:.3f}; the run recorded "
        f"{'n/a' if rec is None else f'{rec:.3f}'}; the whole memory holds {res['ceiling']:.3f}"
    )
    if args.ask:
        res["asked"] = asked = ask(args.run, args.data, args.system)
        summary += "\n" + asked_summary(asked)
    print(summary)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))
    if args.doc:
        args.doc.write_text(markdown(res, args, summary))
    return 0


def _f(x: float | None, fmt: str = ".3f") -> str:
    return "n/a" if x is None else format(x, fmt)


def asked_summary(a: dict) -> str:
    return (
        f"asked again through the caim graph ({a['model']}), {a['questions']} questions:\n"
        f"  route to memory   {a['memory_route_rate']:.1%} (long-term {a['ltm_route_rate']:.1%})\n"
        f"  evidence recall   kept {_f(a['kept_evidence_recall'])} (the run recorded "
        f"{_f(a['recorded_kept_evidence_recall'])}), candidates {_f(a['candidate_evidence_recall'])}; "
        f"{_f(a['kept_per_question'], '.1f')} records kept per question\n"
        f"  answer F1         {_f(a['f1'])} (the run recorded {_f(a['recorded_f1'])})\n"
        f"  model calls       {_f(a['calls_per_question'], '.1f')} per question, "
        f"{_f(a['seconds_per_question'], '.1f')} s per question"
    )


def markdown(res: dict, args: argparse.Namespace, summary: str) -> str:
    table = markdown_table(
        ["question", "recorded route", "route today", f"evidence recall@{args.k}", "held by the memory"],
        [
            [p["question"], p["recorded_route"], p["route"], f"{p['recall']:.2f}", f"{p['ceiling']:.2f}"]
            for p in res["per_question"]
        ],
    )
    return (
        "# Today's routing and ranking over a memory a bundled-model run built\n\n"
        f"Generated on {datetime.now().date().isoformat()} by `python benchmarks/recorded_memory.py --run "
        f"{args.run} --data {args.data} --system {args.system} --k {args.k}{' --ask' if args.ask else ''}` (first "
        "without model calls: the run's recorded plan decisions, today's code signals and ranked search over the "
        "records it stored).\n\n"
        f"```\n{summary}\n```\n\n" + "\n".join(table) + "\n" + (asked_markdown(res["asked"]) if "asked" in res else "")
    )


def asked_markdown(a: dict) -> str:
    headers = ["question", "route", "kept", "evidence recall (kept)", "evidence recall (candidates)", "F1"]
    table = markdown_table(
        [*headers, "model calls"],
        [
            [
                p["question"],
                p["route"],
                p["kept"],
                f"{p['kept_recall']:.2f}",
                f"{p['candidate_recall']:.2f}",
                f"{p['f1']:.2f}",
                p["calls"],
            ]
            for p in a["per_question"]
        ],
    )
    return (
        "\n## Asked again with a model\n\n"
        "Each question through the whole `caim` graph (plan, search, relevance filter, answer) over the same "
        f"memory, with {a['model']}.\n\n" + "\n".join(table) + "\n"
    )


if __name__ == "__main__":
    sys.exit(main())
