"""Tests of the memory benchmark (``caim.eval``), offline with the scripted chat model.

GVD and LoCoMo data are tiny synthetic files in the real formats, written to ``tmp_path`` (nothing
of either data set is vendored); the real GVD folder is only used, if present, to check the loader.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from caim.core.errors import ConfigError
from caim.core.scripted import scripted_models
from caim.eval import metrics as M
from caim.eval.files import JsonlLog, checkout
from caim.eval.gvd import load_gvd
from caim.eval.judge import Judge, clip_history, clip_memories
from caim.eval.locomo import SHORT_ANSWER, load_locomo, parse_locomo_datetime
from caim.eval.runner import DEFAULT_SYSTEMS, EvalConfig, run_benchmark
from caim.eval.systems import CaimSystem, FullContextSystem
from caim.prompts import judge as judge_prompt
from tests.scripts import SCRIPT

# ---- synthetic data ---------------------------------------------------------------------------
PERSONA = "PERSONA-MARKER-never-said"

GVD_BANK = {
    "Emily": {
        "name": "Emily",
        "summary": {},
        "personality": {},
        "overall_history": {},
        "meta_information": {"name": "Emily", "hobbies": PERSONA},
        "history": {
            "2023-04-27": [
                {
                    "query": "Hello, my name is Emily. I love painting landscapes.",
                    "response": "Nice to meet you, Emily!",
                },
                {"query": "My favourite tea is jasmine tea.", "response": "Jasmine tea is lovely."},
            ],
            "2023-04-28": [
                {
                    "query": "I went to the museum and saw an impressionist exhibition.",
                    "response": "That sounds wonderful.",
                },
                {"query": "Can you recommend a science fiction movie?", "response": "I recommend Interstellar."},
            ],
            "2023-04-29": [{"query": "I am reading a novel called The Little Prince.", "response": "A classic."}],
        },
    },
    " Frank ": {
        "name": "Frank",
        "summary": {},
        "personality": {},
        "overall_history": {},
        "meta_information": {"name": "Frank", "hobbies": PERSONA},
        "history": {
            "2023-04-27": [{"query": "I'm Frank and I like running in the park.", "response": "Running is great."}],
            "2023-04-28": [],
            "2023-04-29": [{"query": "My favourite music is jazz.", "response": "Jazz is timeless."}],
        },
    },
}
GVD_QUESTIONS = [
    {
        "Emily": [
            "Do you remember my favourite tea?",
            "What movie did you recommend to me?",
            '"What exhibition did I see?"',
        ]
    },
    {" Frank": ["Do you remember what music I like?", "Where do I like running?", "What did I tell you yesterday?"]},
]

LOCOMO = [
    {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Melanie", "dia_id": "D1:1", "text": "Hey Caroline, long time no see!"},
                {"speaker": "Caroline", "dia_id": "D1:2", "text": "Hi Mel! I went to a painting class yesterday."},
                {"speaker": "Caroline", "dia_id": "D1:3", "text": "My painting was a sunset over the lake."},
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:4",
                    "text": "Beautiful. I love camping with my kids.",
                    "img_url": ["http://example.invalid/x.jpg"],
                    "blip_caption": "a photo of a tent by a lake",
                },
            ],
            "session_2_date_time": "10:15 am on 20 May, 2023",
            "session_2": [
                {"speaker": "Caroline", "dia_id": "D2:1", "text": "I am adopting a dog named Rex."},
                {"speaker": "Melanie", "dia_id": "D2:2", "text": "Congratulations on Rex!"},
            ],
        },
        "qa": [
            {
                "question": "Do you remember what Caroline painted?",
                "answer": "a sunset over the lake",
                "evidence": ["D1:3"],
                "category": 4,
            },
            {
                "question": "Do you remember the name of the dog Caroline is adopting?",
                "answer": "Rex",
                "evidence": ["D2:1"],
                "category": 1,
            },
            {
                "question": "When did Caroline go to a painting class?",
                "answer": "7 May 2023",
                "evidence": ["D1:2"],
                "category": 2,
            },
            {
                "question": "Do you remember what Melanie painted at the class?",
                "adversarial_answer": "a sunset",
                "evidence": ["D1:3; D1:2"],
                "category": 5,
            },
        ],
    }
]


def write_gvd(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "memory_bank_en.json").write_text(json.dumps(GVD_BANK), encoding="utf-8")
    (root / "probing_questions_en.jsonl").write_text(
        "\n".join(json.dumps(q) for q in GVD_QUESTIONS) + "\n", encoding="utf-8"
    )
    return root


def write_locomo(path: Path) -> Path:
    path.write_text(json.dumps(LOCOMO), encoding="utf-8")
    return path


JUDGE_SCORES = {"RetrievalAccuracy": 1, "ResponseCorrectness": 0.5, "ContextualCoherence": 1, "MemoryStorage": 0}


def scripted_judge(messages, rf):
    name = rf["json_schema"]["name"]
    return {"reason": f"scripted {name}", "score": JUDGE_SCORES[name]}


def script(**over):
    table = dict(SCRIPT)
    table["judge"] = scripted_judge
    table.update(over)
    return table


def read_jsonl(path: Path) -> list[dict]:
    return JsonlLog(path).read()


def run_gvd(data, out, settings, *, models, systems=None, **options):
    config = EvalConfig(systems=systems or list(DEFAULT_SYSTEMS), progress=False, **options)
    return run_benchmark(load_gvd(data), out, settings, config=config, models=models)


# ---- GVD end to end -------------------------------------------------------------------------
def test_gvd_smoke_writes_every_output_and_resumes(tmp_path, settings):
    data = write_gvd(tmp_path / "gvd")
    out = tmp_path / "out"
    models, calls = scripted_models(script())
    summary = run_gvd(data, out, settings, models=models, limit=2)

    for name in ("run.json", "results.jsonl", "memory.jsonl", "results.json", "report.md", "report.png"):
        assert (out / name).is_file(), name
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    rows = read_jsonl(out / "results.jsonl")
    assert len(rows) == 2 * 2 * len(DEFAULT_SYSTEMS)
    assert {r["system"] for r in rows} == set(DEFAULT_SYSTEMS)
    assert {r["user"] for r in rows} == {"Emily", "Frank"}  # stray spaces stripped
    assert len({(r["system"], r["user"], r["qid"]) for r in rows}) == len(rows)
    for r in rows:
        assert r["asked_at"] == "2023-04-30T09:00:00+00:00"  # the day after the last day
        assert r["llm_calls"] >= 1 and r["input_tokens"] > 0 and r["latency_ms"] >= 0
        assert set(r["calls_by_role"]) <= {"plan", "controller", "tags", "time", "relevance", "respond", "summarize"}
        memory_system = r["system"] not in ("none", "full-context")
        assert ("retrieval_accuracy" in r["judge"]) == memory_system
        assert ("memory_storage" in r["judge"]) == memory_system
        assert r["judge"]["response_correctness"] == {"score": 0.5, "reason": "scripted ResponseCorrectness"}
        for rec in r["retrieved"]:
            assert {"id", "thought", "tags", "event_time", "sources"} <= set(rec)
    full = [r for r in rows if r["system"] == "full-context"]
    assert all(r["route"] == "full-context" and r["extra"]["context_lines"] > 0 for r in full)
    caim_tea = next(r for r in rows if r["system"] == "caim" and r["user"] == "Emily" and r["qid"] == "0")
    assert caim_tea["route"] == "ltm" and any("jasmine" in m["thought"] for m in caim_tea["retrieved"])
    assert caim_tea["retrieved"][0]["sources"][0]["text"] == "My favourite tea is jasmine tea."

    mem = read_jsonl(out / "memory.jsonl")
    assert {(m["system"], m["user"]) for m in mem} == {(s, u) for s in DEFAULT_SYSTEMS for u in ("Emily", "Frank")}
    caim_emily = next(m for m in mem if m["system"] == "caim" and m["user"] == "Emily")
    assert (
        caim_emily["replay"]["sessions"] == 3 and caim_emily["memory_size"]["entries"] == len(caim_emily["records"]) > 0
    )
    times = sorted(r["event_time"] for r in caim_emily["records"])
    assert times[0].startswith("2023-04-27T09:00") and all("T09:0" in t for t in times)
    assert next(m for m in mem if m["system"] == "none")["memory_size"] is None

    # the persona (meta_information) never reaches a prompt; the judge saw the history
    assert not any(PERSONA in str(m.content) for c in calls for m in c["messages"])
    assert any("jasmine tea" in str(c["messages"][-1].content) for c in calls if c["role"] == "judge")

    assert summary["judged"]["response_correctness"]["caim"] == {"mean": 0.5, "n": 4, "failed": 0}
    assert summary["judged"]["memory_storage"]["caim"]["mean"] == 0.0
    assert summary["judged"]["retrieval_accuracy"]["none"]["n"] == 0
    assert summary["memory"]["caim"]["users"] == 2 and "none" not in summary["memory"]
    stored_sessions = {(m["user"], r["session_id"]) for m in mem if m["system"] == "caim" for r in m["records"]}
    assert summary["replay"]["caim"]["sessions_with_records"] == len(stored_sessions) > 0
    assert summary["replay"]["none"]["sessions_with_records"] == 0
    assert json.loads((out / "results.json").read_text())["systems"] == list(DEFAULT_SYSTEMS)
    report = (out / "report.md").read_text()
    assert "| metric | " + " | ".join(DEFAULT_SYSTEMS) + " |" in report
    assert "## Memory size" in report and "report.png" in report and "sessions that left a record" in report
    calls_per_session = summary["replay"]["caim"]["llm_calls"] / summary["replay"]["caim"]["sessions"]
    per_session = next(line for line in report.splitlines() if line.startswith("| post-thinking per session"))
    assert per_session.split(" | ")[list(DEFAULT_SYSTEMS).index("caim") + 1].startswith(f"{calls_per_session:.1f} / ")
    added = next(line for line in report.splitlines() if line.startswith("| ontology terms added"))
    assert added.split(" | ")[list(DEFAULT_SYSTEMS).index("caim") + 1] == str(
        len(summary["replay"]["caim"]["ontology_added"])
    )
    routed = next(line for line in report.splitlines() if line.startswith("Routed to memory"))
    caim_routes = summary["routes"]["caim"]
    share = 100 * sum(n for r, n in caim_routes.items() if r != "none") / sum(caim_routes.values())
    assert f"`caim` {share:.1f}%" in routed and "`none` 0.0%" in routed and "full-context`" not in routed
    run = json.loads((out / "run.json").read_text())
    assert run["judge"]["prompt_version"] == judge_prompt.VERSION
    assert run["judge"]["prompt_hash"] == judge_prompt.prompt_hash()

    # second run: nothing to do - no replay, no model call, no new line
    before = len(calls)
    run_gvd(data, out, settings, models=models, limit=2)
    assert len(read_jsonl(out / "results.jsonl")) == len(rows)
    assert len(calls) == before
    # a larger limit adds only the missing questions
    run_gvd(data, out, settings, models=models, limit=3, systems="caim,none")
    rows3 = read_jsonl(out / "results.jsonl")
    assert len(rows3) == len(rows) + 2 * 2
    assert json.loads((out / "results.json").read_text())["answered"] == {"caim": 6, "none": 6}


def test_gvd_resumes_after_a_kill(tmp_path, settings):
    data = write_gvd(tmp_path / "gvd")
    out = tmp_path / "out"
    state = {"n": 0}

    def dying_respond(messages, rf):
        state["n"] += 1
        if state["n"] == 6:
            raise RuntimeError("killed")
        return SCRIPT["respond"](messages, rf)

    models, _ = scripted_models(script(respond=dying_respond))
    with pytest.raises(RuntimeError, match="killed"):
        run_gvd(data, out, settings, models=models, systems="none,caim", limit=3, judge=False, plot=False)
    partial = read_jsonl(out / "results.jsonl")
    assert 0 < len(partial) < 12
    with (out / "results.jsonl").open("a") as f:  # a line cut short by the kill
        f.write('{"system": "caim", "user": "Emily", "qi')

    models, _ = scripted_models(script())
    summary = run_gvd(data, out, settings, models=models, systems="none,caim", limit=3, judge=False, plot=False)
    rows = read_jsonl(out / "results.jsonl")
    keys = [(r["system"], r["user"], r["qid"]) for r in rows]
    assert len(keys) == len(set(keys)) == 12
    assert [(r["system"], r["user"], r["qid"]) for r in rows[: len(partial)]] == [
        (r["system"], r["user"], r["qid"]) for r in partial
    ]
    assert summary["answered"] == {"none": 6, "caim": 6}
    assert not (out / "report.png").exists()


# ---- systems --------------------------------------------------------------------------------
def test_probing_does_not_write_memory_and_sessions_are_fresh(tmp_path, settings):
    conv = load_gvd(write_gvd(tmp_path / "gvd"), users=["Emily"]).conversations[0]
    models, _ = scripted_models(script())
    system = CaimSystem("caim", settings, models)
    try:
        stats = system.replay(conv)
        assert stats["sessions"] == 3 and stats["failed_sessions"] == 0 and stats["llm_calls"] > 0
        n = system.agent.services.store.count(system.uid)
        assert n == len(system.memory()) > 0
        for q in conv.questions:
            answer = system.ask(q.prompt, conv.probe_time)
            assert answer.trace and not system.agent.state(system.uid).get("messages")
        assert system.agent.services.store.count(system.uid) == n
        uid = system.uid
        store, close_agent, left = system.agent.services.store, system.agent.close, []
        system.agent.close = lambda: (left.append(store.count(uid)), close_agent())  # type: ignore[method-assign]
    finally:
        system.close()
    assert left == [0]  # forgotten on close, before the agent (and its in-memory store) closed


def test_live_replay_lets_the_agent_answer(tmp_path, settings):
    conv = load_gvd(write_gvd(tmp_path / "gvd"), users=["Frank"]).conversations[0]
    models, calls = scripted_models(script())
    system = CaimSystem("caim", settings, models)
    try:
        stats = system.replay(conv, mode="live")
        assert stats["mode"] == "live" and stats["sessions"] == 2
        assert sum(1 for c in calls if c["role"] == "respond") == 2  # one reply per user turn
        assert sum(1 for c in calls if c["role"] == "plan") == 2
        sources = [s for r in system.memory() for s in r["sources"] if s["role"] == "assistant"]
        assert sources and not {s["text"] for s in sources} & {
            "Running is great.",
            "Jazz is timeless.",
        }  # its own replies
    finally:
        system.close()
    with pytest.raises(ConfigError):
        CaimSystem("caim", settings, models).replay(conv, mode="dreamed")


def test_full_context_window_keeps_the_newest_history(tmp_path, settings):
    conv = load_gvd(write_gvd(tmp_path / "gvd"), users=["Emily"]).conversations[0]
    models, calls = scripted_models(script())
    system = FullContextSystem(settings, models, context_tokens=40)
    system.replay(conv)
    answer = system.ask("What am I reading?", conv.probe_time)
    assert answer.route == "full-context" and 0 < answer.extra["context_lines"] < answer.extra["history_lines"]
    assert answer.extra["context_tokens"] <= 40
    prompt = str(calls[-1]["messages"][-1].content)
    assert "The Little Prince" in prompt and "jasmine" not in prompt
    big = FullContextSystem(settings, models, context_tokens=100_000)
    big.replay(conv)
    assert big.ask("Hi", conv.probe_time).extra["context_lines"] == 10


# ---- loaders ----------------------------------------------------------------------------------
def test_gvd_loader(tmp_path):
    bench = load_gvd(write_gvd(tmp_path / "gvd"), spacing_minutes=5)
    emily, frank = bench.conversations
    assert (emily.user, frank.user) == ("Emily", "Frank")
    assert [s.label for s in frank.sessions] == ["2023-04-27", "2023-04-29"]  # empty day skipped
    ex = emily.sessions[0].exchanges
    assert [e.time.isoformat() for e in ex] == ["2023-04-27T09:00:00+00:00", "2023-04-27T09:05:00+00:00"]
    assert emily.sessions[0].end.isoformat() == "2023-04-27T09:10:00+00:00"
    assert emily.questions[2].text == "What exhibition did I see?"  # stray quotes removed
    assert [q.qid for q in emily.questions] == ["0", "1", "2"]
    short = load_gvd(tmp_path / "gvd", users=["Emily"], days=1)
    assert (
        len(short.conversations) == 1 and short.conversations[0].probe_time.isoformat() == "2023-04-28T09:00:00+00:00"
    )
    with pytest.raises(ConfigError, match="unknown GVD user"):
        load_gvd(tmp_path / "gvd", users=["Nobody"])
    with pytest.raises(ConfigError, match="not found"):
        load_gvd(tmp_path / "missing")


def test_gvd_labels_score_keyword_correct_and_evidence_recall(tmp_path, settings):
    data = write_gvd(tmp_path / "gvd")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps({"user": "Frank", "qid": "0", "keywords": ["jazz"], "evidence": ["2023-04-29#0"]}) + "\n",
        encoding="utf-8",
    )
    bench = load_gvd(data, users=["Frank"], labels=labels)
    [frank] = bench.conversations
    assert frank.questions[0].keywords == ["jazz"] and frank.questions[0].evidence == ["2023-04-29#0"]
    assert frank.turn_text["2023-04-29#0"] == "My favourite music is jazz."
    assert frank.turn_text["2023-04-29#0a"] == "Jazz is timeless."  # the reply is found by its words
    assert frank.sessions[-1].exchanges[0].user_ids == ["2023-04-29#0"]
    models, _ = scripted_models(script())
    config = EvalConfig(systems=["none", "caim"], progress=False, judge=False)
    summary = run_benchmark(bench, tmp_path / "out", settings, config=config, models=models)
    rows = {r["system"]: r for r in read_jsonl(tmp_path / "out" / "results.jsonl") if r["qid"] == "0"}
    assert rows["caim"]["metrics"]["evidence_recall"] == 1.0  # a kept memory stems from the labelled turn
    assert rows["none"]["metrics"] == {"keyword_correct": rows["none"]["metrics"]["keyword_correct"]}
    assert "keyword_correct" in summary["code_metrics"]
    unlabelled = {r["system"]: r for r in read_jsonl(tmp_path / "out" / "results.jsonl") if r["qid"] != "0"}
    assert all(r["metrics"] == {} for r in unlabelled.values())


REAL_GVD = [
    Path(p)
    for p in (os.environ.get("CAIM_GVD_DIR", ""), "shared/data/gvd", "../shared/data/gvd", "/work/shared/data/gvd")
    if p
]


@pytest.mark.skipif(not any((p / "memory_bank_en.json").is_file() for p in REAL_GVD), reason="GVD data not present")
def test_real_gvd_counts():
    root = next(p for p in REAL_GVD if (p / "memory_bank_en.json").is_file())
    bench = load_gvd(root)
    assert len(bench.conversations) == 15 and bench.n_questions == 100
    assert sum(c.n_exchanges for c in bench.conversations) == 566
    assert all(c.user == c.user.strip() for c in bench.conversations)
    assert {c.probe_time.date().isoformat() for c in bench.conversations} == {"2023-05-07"}


def test_locomo_loader(tmp_path):
    bench = load_locomo(write_locomo(tmp_path / "locomo.json"))
    conv = bench.conversations[0]
    assert conv.user == "conv-1" and (conv.user_label, conv.assistant_label) == ("Caroline", "Melanie")
    s1 = conv.sessions[0]
    assert s1.start.isoformat() == "2023-05-08T13:56:00+00:00"
    first, second = s1.exchanges
    assert first.user == "" and first.assistant_ids == ["D1:1"]  # Melanie spoke first
    assert second.user_ids == ["D1:2", "D1:3"] and second.message_id == "D1:2+D1:3"
    assert "sunset over the lake" in second.user and second.assistant_ids == ["D1:4"]
    assert "[shared an image: a photo of a tent by a lake]" in conv.turn_text["D1:4"]
    assert conv.user_text(second).startswith("Caroline: ") and conv.assistant_text(second).startswith("Melanie: ")
    assert conv.probe_time.isoformat() == "2023-05-21T09:00:00+00:00"
    qs = {q.qid: q for q in conv.questions}
    assert qs["3"].category == 5 and qs["3"].reference is None and qs["3"].evidence == ["D1:3", "D1:2"]
    assert qs["0"].prompt == f"Do you remember what Caroline painted? {SHORT_ANSWER}"
    only = load_locomo(tmp_path / "locomo.json", categories=[5], short_answers=False, speaker_names=False)
    assert [q.qid for q in only.conversations[0].questions] == ["3"]
    assert only.conversations[0].questions[0].prompt == "Do you remember what Melanie painted at the class?"
    assert parse_locomo_datetime("10:37 AM on 27 June, 2023").isoformat() == "2023-06-27T10:37:00+00:00"
    assert parse_locomo_datetime("not a date") is None


# ---- LoCoMo end to end ----------------------------------------------------------------------------
def test_locomo_run_scores_f1_evidence_and_adversarial(tmp_path, settings):
    data = write_locomo(tmp_path / "locomo.json")
    out = tmp_path / "out"
    models, calls = scripted_models(script())
    config = EvalConfig(systems="caim,none,full-context", progress=False)
    summary = run_benchmark(load_locomo(data), out, settings, config=config, models=models)
    rows = read_jsonl(out / "results.jsonl")
    assert len(rows) == 3 * 4
    for r in rows:
        m = r["metrics"]
        if r["category"] == 5:
            assert "f1" not in m and m["adversarial_correct"] == float(M.is_abstention(r["answer"]))
        else:
            assert m["f1"] == pytest.approx(M.locomo_f1(r["answer"], r["reference"], r["category"]))
        assert ("evidence_recall" in m) == (r["system"] == "caim")
        assert "Reference answer" in str(next(c for c in calls if c["role"] == "judge")["messages"][-1].content)
    painted = next(r for r in rows if r["system"] == "caim" and r["qid"] == "0")
    assert painted["metrics"]["evidence_recall"] == 1.0  # retrieved record's source is D1:2+D1:3
    assert any(s.get("turn_id") == "D1:2+D1:3" for rec in painted["retrieved"] for s in rec["sources"])
    # evidence turns are shown to the judge with speaker and time
    judge_prompts = [str(c["messages"][-1].content) for c in calls if c["role"] == "judge"]
    assert any(
        "[D1:3] (2023-05-08 13:57) Caroline: My painting was a sunset over the lake." in p for p in judge_prompts
    )
    assert set(summary["code_metrics"]) == {
        "f1",
        "adversarial_correct",
        "evidence_recall",
        "candidate_evidence_recall",
        "keyword_correct",
    }
    assert summary["code_metrics"]["evidence_recall"]["none"]["n"] == 0
    report = (out / "report.md").read_text()
    assert "### Token F1 by category" in report and "overall (1-4)" in report
    # faithfulness of what was stored: per conversation in memory.jsonl, per system in the report
    faithful = {m["system"]: m["faithfulness"] for m in read_jsonl(out / "memory.jsonl")}
    assert faithful["none"] is None and faithful["caim"]["memories"] > 0
    assert faithful["caim"]["invented"] == 0.0 and faithful["caim"]["evidence_coverage"] > 0
    assert summary["memory"]["caim"]["faithfulness"]["invented"] == 0.0
    assert "memories with an invented specific (share)" in report and "evidence turns covered by a memory" in report


# ---- metrics ----------------------------------------------------------------------------------
def test_locomo_normalisation_and_f1():
    assert M.normalize_answer("The Cat, and a Dog!") == "cat dog"
    assert M.normalize_answer("  An   apple; THE end. ") == "apple end"
    assert M.f1_score("the cat sat", "A cat sat.") == 1.0
    assert M.f1_score("blue car", "red car") == pytest.approx(0.5)
    assert M.f1_score("", "anything") == 0.0
    assert M.f1_score("walked home", "walk home") == pytest.approx(0.5)
    assert M.f1_score("walked home", "walk home", stem=lambda w: w[:-2] if w.endswith("ed") else w) == 1.0
    # multi-hop: each reference sub-answer takes its best predicted part, then the mean
    assert M.multi_answer_f1("London, Paris", "Paris, Berlin") == pytest.approx(0.5)
    assert M.locomo_f1("Paris, Berlin", "Berlin, Paris", 1) == 1.0
    # open-domain keeps the reference's part before ';'
    assert M.locomo_f1("likely yes", "likely yes; because she said so", 3) == 1.0
    assert M.locomo_f1("likely yes", "likely yes; because she said so", 4) < 1.0
    assert M.locomo_f1("no info", "x", 5) is None


def test_adversarial_abstention():
    for text in (
        "That was not mentioned in our conversations.",
        "I don’t remember that.",
        "There is no information available.",
        "I do not know.",
        "Sorry, I don't have any information about that.",
    ):
        assert M.is_abstention(text), text
    for text in ("She painted a sunset.", "Rex", "Yes, she mentioned it on May 8."):
        assert not M.is_abstention(text), text


def test_evidence_recall_through_ids_and_text():
    turn_text = {
        "D1:1": "Hey there",
        "D1:2": "I went to a class.",
        "D1:3": "My painting was a sunset.",
        "D1:4": "Nice tent!",
    }
    records = [
        {
            "sources": [
                {
                    "role": "user",
                    "text": "Caroline: I went to a class.\nMy painting was a sunset.",
                    "turn_id": "D1:2+D1:3",
                },
                {"role": "assistant", "text": "Melanie: Nice tent!", "turn_id": None},
            ]
        }
    ]
    assert M.covered_turns(records, turn_text) == {"D1:2", "D1:3", "D1:4"}
    assert M.evidence_recall(["D1:3", "D1:4"], records, turn_text) == 1.0
    assert M.evidence_recall(["D1:1", "D1:3"], records, turn_text) == 0.5
    assert M.evidence_recall([], records, turn_text) is None
    assert M.evidence_recall(["D1:3"], [], turn_text) == 0.0
    assert M.evidence_ids(["D8:6; D9:17", "D1:2", "D1:2"]) == ["D8:6", "D9:17", "D1:2"]


def test_memory_size_and_stats():
    assert M.memory_size([{"thought": "likes jasmine tea"}, {"thought": "name is Emily"}]) == {
        "entries": 2,
        "words": 6,
        "words_per_entry": 3.0,
    }
    assert M.memory_size([]) == {"entries": 0, "words": 0, "words_per_entry": 0.0}
    assert M.mean([1, None, 0]) == 0.5 and M.mean([None]) is None
    assert M.percentile([5, 1, 3, None], 50) == 3 and M.percentile([], 95) is None


# ---- judge ------------------------------------------------------------------------------------
def test_judge_schemas_are_enumerated():
    assert judge_prompt.RetrievalAccuracy(reason="r", score=1).score == 1
    with pytest.raises(ValidationError):
        judge_prompt.RetrievalAccuracy(reason="r", score=0.5)
    for model in (judge_prompt.ResponseCorrectness, judge_prompt.ContextualCoherence, judge_prompt.MemoryStorage):
        assert model(reason="r", score=0.5).score == 0.5
        with pytest.raises(ValidationError):
            model(reason="r", score=0.7)
    from caim.core.llm import strict_schema

    assert strict_schema(judge_prompt.ResponseCorrectness)["properties"]["score"]["enum"] == [0, 0.5, 1]
    assert strict_schema(judge_prompt.RetrievalAccuracy)["properties"]["score"]["enum"] == [0, 1]
    h = judge_prompt.prompt_hash()
    assert len(h) == 12 and h == judge_prompt.prompt_hash()
    with pytest.raises(ValueError):
        judge_prompt.messages("fluency", question="q", answer="a", reference="r")
    text = str(
        judge_prompt.messages(
            "retrieval_accuracy",
            question="q?",
            answer="a",
            reference="REF",
            retrieved=[{"thought": "likes tea", "event_time": "2023-04-27T09:00:00+00:00"}],
        )[1].content
    )
    assert "REF" in text and '- (2023-04-27) "likes tea"' in text and "RETRIEVAL ACCURACY" in text


def test_judge_failures_are_recorded_not_guessed(tmp_path, settings):
    conv = load_gvd(write_gvd(tmp_path / "gvd"), users=["Emily"]).conversations[0]
    models, calls = scripted_models(script(judge={"reason": "hm", "score": 0.7}))
    judge = Judge(models["judge"], settings)
    verdicts, usage = judge.rate(
        ["response_correctness", "memory_storage"],
        conv=conv,
        question=conv.questions[0],
        answer="jasmine",
        reference_kind="history",
        stored=[{"thought": "likes jasmine tea"}],
    )
    assert (
        verdicts["response_correctness"]["score"] is None and "malformed" in verdicts["response_correctness"]["error"]
    )
    assert usage["calls"] == 2 and len(calls) == 2 * (settings.max_retries + 1)


def test_judge_material_is_clipped(tmp_path):
    conv = load_gvd(write_gvd(tmp_path / "gvd"), users=["Emily"]).conversations[0]
    assert "Interstellar" in clip_history(conv, 10_000)
    tight = clip_history(conv, 100)
    assert "Interstellar" not in tight and "jasmine tea" in tight and "only the user's messages" in tight
    tiniest = clip_history(conv, 20)
    assert "oldest are omitted" in tiniest and "Little Prince" in tiniest
    records = [{"thought": f"fact number {i} about nothing"} for i in range(50)] + [
        {"thought": "favourite tea is jasmine"}
    ]
    shown, note = clip_memories(records, "Do you remember my favourite tea?", 40)
    assert note and {"thought": "favourite tea is jasmine"} in shown and len(shown) < len(records)
    assert clip_memories(records[:2], "q", 1000) == (records[:2], "")


def test_token_budgets_follow_the_model_window(settings):
    from caim.eval.runner import EvalConfig, local_budget

    local = EvalConfig()
    local.resolve(settings.model_copy(update={"local_ctx": 4096}))
    assert local.context_tokens == local_budget(4096) < 4096
    assert local.judge_history_tokens + local.judge_memory_tokens == local_budget(4096)
    hosted = EvalConfig(judge_memory_tokens=123)
    hosted.resolve(settings, models={"respond": object()})
    assert (hosted.context_tokens, hosted.judge_memory_tokens) == (100_000, 123)
    with pytest.raises(ConfigError):
        EvalConfig(systems="caim,nope").validate()
    with pytest.raises(ConfigError):
        EvalConfig(limit=0).validate()


# ---- CLI --------------------------------------------------------------------------------------
def test_cli_gvd_and_report(tmp_path, settings, monkeypatch):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    table = {
        "controller": {"answer": "A"},
        "tags": {"tags": ["personal"]},
        "time": {"expressions": []},
        "relevance": {"relevant": [1]},
        "respond": "I remember.",
        "summarize": "s",
        "key_events": {"events": [{"turn": 1, "event": "The user shared something."}]},
        "thoughts": {"thought": "shared something", "tags": ["personal"]},
        "merge": {"groups": []},
        "ontology": {"covered": "yes", "new_terms": []},
        "single_call": {"route": "ltm", "tags": ["personal"], "time_expressions": []},
        "judge": {"reason": "fine", "score": 1},
    }
    (tmp_path / "script.json").write_text(json.dumps(table))
    monkeypatch.setenv("CAIM_SCRIPT", str(tmp_path / "script.json"))
    data = write_gvd(tmp_path / "gvd")
    out = tmp_path / "out"
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "eval",
            "gvd",
            "--data",
            str(data),
            "--out",
            str(out),
            "--provider",
            "scripted",
            "--systems",
            "caim,full-context",
            "--limit",
            "1",
            "--users",
            "Frank",
            "--quiet",
        ],
    )
    assert res.exit_code == 0, res.output
    rows = read_jsonl(out / "results.jsonl")
    assert {(r["system"], r["user"]) for r in rows} == {("caim", "Frank"), ("full-context", "Frank")}
    assert rows[0]["judge"]["response_correctness"]["score"] == 1.0
    (out / "report.md").unlink()
    res = runner.invoke(app, ["eval", "report", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "report.md").is_file()
    res = runner.invoke(app, ["eval", "gvd", "--data", str(data), "--out", str(out), "--systems", "caim,bogus"])
    assert res.exit_code == 2 and "bogus" in res.output and len(res.output.strip().splitlines()) == 1


def test_cli_eval_names_a_bad_setting_and_its_fix(tmp_path, monkeypatch):
    """A bad ``CAIM_*`` value stops ``caim eval`` with the settings' one line: the variable, the fix."""
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    monkeypatch.setenv("CAIM_USE_MODEL_FOR", "thoughts")  # a list setting given as a bare word
    data = write_gvd(tmp_path / "gvd")
    res = CliRunner().invoke(app, ["eval", "gvd", "--data", str(data), "--out", str(tmp_path / "out")])
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "CAIM_USE_MODEL_FOR" in lines[0] and '["plan", "relevance"]' in lines[0]
    assert not (tmp_path / "out" / "results.jsonl").exists()


# ---- retrieval only ------------------------------------------------------------------------------
def test_retrieval_eval_captures_verbatim_and_scores_each_system(tmp_path):
    from caim.core.embeddings import MiniLMEmbedder
    from caim.eval import retrieval

    data = write_locomo(tmp_path / "locomo.json")
    seen = []
    summary = retrieval.run(
        data,
        tmp_path / "out",
        MiniLMEmbedder.shared(),
        plot=True,
        progress=lambda stage, done, total: seen.append(stage),
    )
    assert {"capture", "questions"} <= set(seen)
    assert summary["info"]["turns"] == 6 and summary["questions"]["all"] == 3  # category 5 is left out
    for name in retrieval.SYSTEMS:
        entry = summary["systems"][name]
        for k in (5, 10, 20):
            assert set(entry[f"recall@{k}"]) == {"all", "multi-hop", "temporal", "open-domain", "single-hop"}
        assert {"p50", "p95"} == set(entry["latency_ms"])
    # six turns, top 5: the ranked systems find every evidence turn
    assert summary["systems"]["caim"]["recall@5"]["all"] == 1.0
    assert json.loads((tmp_path / "out" / "results.json").read_text())["systems"].keys() == summary["systems"].keys()
    assert (tmp_path / "out" / "report.png").read_bytes()[:4] == b"\x89PNG"
    assert "## recall@10" in (tmp_path / "out" / "report.md").read_text()
    # one line per question and system, agreeing with the summary, with each evidence turn's rank
    rows = [json.loads(x) for x in (tmp_path / "out" / "questions.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * len(retrieval.SYSTEMS)
    for name in retrieval.SYSTEMS:
        mine = [r for r in rows if r["system"] == name]
        for k in (5, 10, 20):
            assert round(sum(r[f"recall@{k}"] for r in mine) / 3, 4) == summary["systems"][name][f"recall@{k}"]["all"]
    caim_rows = [r for r in rows if r["system"] == "caim"]
    assert all(rank is not None and rank < 5 for r in caim_rows for rank in r["evidence_rank"].values())


def test_retrieval_eval_cli(tmp_path):
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    data = write_locomo(tmp_path / "locomo.json")
    res = CliRunner().invoke(
        app,
        [
            "eval",
            "retrieval",
            "--data",
            str(data),
            "--out",
            str(tmp_path / "o"),
            "--systems",
            "bm25,caim",
            "--no-plot",
            "--quiet",
        ],
    )
    assert res.exit_code == 0, res.output
    assert set(json.loads((tmp_path / "o" / "results.json").read_text())["systems"]) == {"bm25", "caim"}
    bad = CliRunner().invoke(app, ["eval", "retrieval", "--data", str(data), "--systems", "nope", "--no-plot"])
    assert bad.exit_code != 0


def test_a_run_names_the_commit_it_was_made_at(tmp_path):
    import re

    root = Path(__file__).resolve().parents[1]
    assert re.fullmatch(r"[0-9a-f]{7,}(-dirty)?", checkout(root))
    assert checkout(tmp_path) == "unknown"  # no git checkout there
