"""A model's judgement is used only where it beats code: ``caim models probe`` measures each role
against its code fallback, records it beside the data dir, and a role the model loses skips it."""

from __future__ import annotations

import json
import re

import pytest

from caim import CaimAgent
from caim.core.errors import ConfigError
from caim.core.llm import LLM
from caim.core.model_roles import RECORD, SHIPPED, read, role_uses, write
from caim.core.models import Models
from caim.core.scripted import scripted_models
from caim.core.settings import Settings
from caim.core.trace import CodeRoleStep, steps
from caim.eval.models import PROBES, probe
from caim.graph.services import Services
from tests.scripts import STRING, user_message

PROBED_DATA = json.loads(PROBES.read_text(encoding="utf-8"))
_ROUTE = {"none": ("no", "past"), "ltm": ("yes", "past"), "stm": ("yes", "current"), "ltm+stm": ("yes", "both")}


def _item(section: str, key: str, messages) -> dict:
    text = user_message(messages)
    return next(p for p in PROBED_DATA[section] if p[key] == text)


def _oracle() -> dict:
    """A model that answers every probe as labelled: what a strong endpoint does."""

    def plan(messages, rf):
        needs, memory = _ROUTE[_item("plan", "message", messages)["route"]]
        return {"needs_memory": needs, "memory": memory, "tags": [], "time_expressions": []}

    def key_events(messages, rf):
        turns = {int(n) for n in re.findall(r"Turn (\d+)\n", str(messages[-1].content))}
        found = [{"turn": t, "event": f"Fact: {' '.join(w)}"} for t, w in PROBED_DATA["facts"] if t in turns]
        return {"events": found}

    def thoughts(messages, rf):
        tag = rf["json_schema"]["schema"]["$defs"]["Thought"]["properties"]["tags"]["items"]["enum"][0]
        said = [
            {"event": i, "thought": f"The user's fact concerns {p['keep']}.", "tags": [tag]}
            for i, p in enumerate(PROBED_DATA["thoughts"], 1)
        ]
        return {"thoughts": said, "new_terms": []}

    def maintain(messages, rf):
        new = re.search(r"New \[1\] \(\S+\) " + STRING, str(messages[-1].content))
        assert new is not None
        p = next(p for p in PROBED_DATA["maintain"] if p["new"] == json.loads(new.group(1)))
        target = p["target"] + 1 if p["target"] else 0
        return {"decisions": [{"memory": 1, "decision": p["decision"], "target": target}]}

    def respond(messages, rf):
        return " ".join(g.split("|")[0] for g in _item("answer", "message", messages)["expect"])

    def profile(messages, rf):
        if "backgrounds" in rf["json_schema"]["schema"]["properties"]:
            said = [
                {"aspect": b["aspect"], "text": f"The user: {', '.join(w[0] for w in b['keep'])}."}
                for b in PROBED_DATA["profile"]["backgrounds"]
            ]
            return {"backgrounds": said}
        named = [
            {"group": i, "requirement": g["kinds"][0], "summary": f"The user: {', '.join(w[0] for w in g['keep'])}."}
            for i, g in enumerate(PROBED_DATA["profile"]["principles"], 1)
        ]
        return {"principles": named}

    return {
        "plan": plan,
        "relevance": lambda messages, rf: {"relevant": _item("relevance", "message", messages)["relevant"]},
        "key_events": key_events,
        "thoughts": thoughts,
        "maintain": maintain,
        "respond": respond,
        "summarize": " ".join(w for _, words in PROBED_DATA["facts"] for w in words),
        "profile": profile,
    }


#: A model that answers every structured role validly and says nothing useful.
SILENT = {
    "plan": {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []},
    "relevance": {"relevant": []},
    "key_events": {"events": []},
    "thoughts": {"thoughts": [], "new_terms": []},
    "maintain": {"decisions": []},
    "respond": "OK",
    "summarize": "",
    "profile": {"backgrounds": [], "principles": []},
}


def _services(settings: Settings, script: dict) -> tuple[Services, list]:
    models, calls = scripted_models(script)
    return Services.create(settings, models=Models(settings, overrides=models), persist=False), calls


def test_a_model_that_beats_code_on_every_role_keeps_every_role(settings):
    services, _ = _services(settings, _oracle())
    results = probe(services).results()
    assert {r: v["use"] for r, v in results.items()} == dict.fromkeys(results, "model")
    for role, v in results.items():
        assert v["model"] == v["items"], role  # the oracle answers every probe as labelled


def test_a_model_that_loses_to_code_gives_those_roles_to_code(settings):
    services, calls = _services(settings, dict(SILENT))
    run = probe(services)
    results = run.results()
    # verbatim capture finds the stated facts; the silent model finds none
    assert results["key_events"]["code"] > 0 and results["key_events"]["use"] == "code"
    assert results["relevance"]["use"] == "code" and results["maintain"]["use"] == "code"
    assert results["thoughts"] == {"model": 0, "code": 0, "items": 4, "use": "code"}  # a tie goes to code
    # code's background lists an aspect's newest memories: it names the facts of a small aspect
    assert results["profile"]["code"] > 0 and results["profile"]["use"] == "code"
    # code quotes the memory that answers; it cannot reckon ("how many years") or say yes or no
    assert 0 < results["answer"]["code"] < results["answer"]["items"] and results["answer"]["use"] == "code"
    assert run.roles["answer"].calls == len(PROBED_DATA["answer"]) and calls


def test_a_role_on_code_never_calls_the_model(settings):
    models, calls = scripted_models(dict(SILENT))
    llm = LLM(Models(settings, overrides=models), code_roles=frozenset({"key_events", "summarize"}))
    trace: list = []
    from caim.prompts import key_events as events_prompt

    schema, messages = events_prompt.schema([1]), events_prompt.messages([(1, "hi", "")])
    got = llm.structured("key_events", schema, messages, trace=trace, node="n")
    assert got is None and calls == []
    assert llm.text("summarize", [], trace=trace, node="n", fallback="") == ""
    assert [e["kind"] for e in trace] == ["step", "step"]  # no model call
    on_code = [{"role": "key_events", "use": "code"}, {"role": "summarize", "use": "code"}]
    assert steps(trace, "n", CodeRoleStep) == on_code


def test_a_session_with_extraction_on_code_keeps_the_users_words(settings, scripted):
    models, calls, script = scripted
    script["key_events"] = {"events": [{"turn": 1, "event": "Mara's Surf Day"}]}
    script["respond"] = "Try Matosinhos beach, it is gentle for beginners."
    said = "Hi! I'm Marta. I just moved to Porto and I'm learning to surf with my friend Joana."
    on_code = settings.model_copy(update={"use_model_for": ["plan", "relevance", "summarize"]})
    with CaimAgent(on_code, models=models) as agent:
        agent.chat(said, user_id="marta")
        summary = agent.end_session(user_id="marta")
        stored = [r.thought for r in agent.memories("marta")]
    assert summary.complete  # code serving extraction is no failed extraction
    assert said in stored and not any("Mara's" in s for s in stored)
    assert not {c["role"] for c in calls} & {"key_events", "thoughts", "maintain"}


def test_the_data_dirs_record_comes_before_the_shipped_one_and_the_setting_before_both(tmp_path):
    shipped = read(SHIPPED)
    bundled = next(iter(shipped))  # the record shipped for a bundled model
    ids = {"plan": bundled}.get
    uses = role_uses(lambda r: bundled, tmp_path, None)
    assert {r: u for r, (u, _) in uses.items()} == {r: v["use"] for r, v in shipped[bundled]["roles"].items()}
    assert {w for _, w in uses.values()} == {"shipped probe record"}
    write(tmp_path / RECORD, bundled, {"plan": {"model": 3, "code": 1, "items": 4, "use": "model"}})
    assert role_uses(lambda r: bundled, tmp_path, None)["plan"] == ("model", "probe record")
    assert role_uses(lambda r: bundled, tmp_path, ["key_events"])["plan"] == ("code", "CAIM_USE_MODEL_FOR")
    assert role_uses(lambda r: "openai:gpt-x@example", tmp_path, None)["thoughts"] == ("model", "not probed")
    assert ids("plan") == bundled


def test_an_unknown_role_in_the_setting_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("CAIM_USE_MODEL_FOR", '["plan", "answers"]')
    with pytest.raises(ConfigError, match=r"CAIM_USE_MODEL_FOR.*unknown role 'answers'") as err:
        Settings.load(data_dir=tmp_path)
    assert "\n" not in str(err.value)


def test_probe_command_records_the_result_and_doctor_shows_it(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    script = tmp_path / "script.json"
    script.write_text(json.dumps(SILENT))
    for var in [v for v in __import__("os").environ if v.startswith(("CAIM_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    env = {"CAIM_PROVIDER": "scripted", "CAIM_SCRIPT": str(script), "CAIM_DATA_DIR": str(tmp_path / "data")}
    res = CliRunner().invoke(app, ["models", "probe"], env=env, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "| key_events | 0/6 |" in res.output and "roles on code: " in res.output
    recorded = read(tmp_path / "data" / RECORD)["scripted"]["roles"]
    assert recorded["key_events"]["use"] == "code" and recorded["key_events"]["code"] > 0
    res = CliRunner().invoke(app, ["doctor", "--no-model"], env=env, catch_exceptions=False)
    [line] = [ln for ln in res.output.splitlines() if "roles:" in ln]
    assert "code for" in line and "key_events" in line and "(probe record)" in line
    res = CliRunner().invoke(app, ["models", "show"], env={**env, "CAIM_USE_MODEL_FOR": '["plan"]'})
    assert "plan        model  (CAIM_USE_MODEL_FOR)" in res.output
    assert "thoughts    code   (CAIM_USE_MODEL_FOR)" in res.output
