"""The caim command line, driven as a user would (piped input), with the scripted provider.

Commands run in-process through typer's ``CliRunner`` (the ``cli`` fixture); a test starts a real
``caim`` process only where the process is what it checks: the whole standard error of a start that
fails, a queued session that the next process drains, what ``--help`` imports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = {
    "plan": {"needs_memory": "no", "memory": "past", "tags": [], "time_expressions": []},
    "key_events": {"events": [{"turn": 1, "event": "The user's favourite food is pizza."}]},
    "thoughts": {
        "thoughts": [{"event": 1, "thought": "favourite food is pizza", "tags": ["favorite"]}],
        "new_terms": [],
    },
    "maintain": {"decisions": []},
    "respond": "Nice to meet you!",
}


def run(args, env_extra, stdin=""):
    """``caim`` with ``args`` in a process of its own, in this environment less CAIM_/OPENAI_ settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "caim.agent.surfaces.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def env(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    return {"CAIM_PROVIDER": "scripted", "CAIM_SCRIPT": str(script), "CAIM_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture
def cli(env, monkeypatch):
    """Run the app in-process (typer's CliRunner) with the scripted provider on a temporary data dir."""
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    for var in [v for v in os.environ if v.startswith(("CAIM_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    for k, v in env.items():
        monkeypatch.setenv(k, v)

    def invoke(args, stdin="", **extra_env):
        return CliRunner().invoke(app, args, input=stdin, env=extra_env, catch_exceptions=False)

    return invoke


def test_piped_chat_ends_session_and_shows_what_was_stored(cli):
    res = cli(["chat", "--user", "x"], "my favourite food is pizza\n/end\n")
    assert res.exit_code == 0, res.output
    assert "Nice to meet you!" in res.stdout
    assert "stored 1 memories" in res.stdout and "favourite food is pizza" in res.stdout
    listed = cli(["memories", "list", "--user", "x", "--json"])
    records = json.loads(listed.stdout)
    assert [r["thought"] for r in records] == ["favourite food is pizza"]
    assert records[0]["sources"][0]["text"] == "my favourite food is pizza"
    assert json.loads(cli(["memories", "list", "--user", "y", "--json"]).stdout) == []
    other = cli(["memories", "forget", "--user", "y", "--id", records[0]["id"][:8]])  # not y's record
    assert other.exit_code == 2 and other.stderr.startswith("caim: no record")
    assert "forgot 1 record" in cli(["memories", "forget", "--user", "x", "--id", records[0]["id"][:8]]).stdout
    assert json.loads(cli(["memories", "list", "--user", "x", "--json"]).stdout) == []


def test_memories_profile_shows_what_post_thinking_wrote(cli):
    assert "no profile for x yet" in cli(["memories", "profile", "--user", "x"]).stdout
    assert cli(["chat", "--user", "x"], "I love Italian food, especially fresh pasta\n/end\n").exit_code == 0
    shown = json.loads(cli(["memories", "profile", "--user", "x", "--json"]).stdout)
    (bg,) = shown["backgrounds"].values()
    assert "pasta" in bg["text"] and len(bg["members"]) == 1
    assert "pasta" in cli(["memories", "profile", "--user", "x"]).stdout
    exported = json.loads(cli(["memories", "export", "--user", "x"]).stdout)
    assert exported["profile"]["backgrounds"] == shown["backgrounds"]


def test_end_of_input_also_ends_the_session(cli):
    res = cli(["chat", "--user", "x", "--verbose"], "my favourite food is pizza\n")
    assert res.exit_code == 0, res.output
    assert "stored 1 memories" in res.stdout
    assert "LLM calls" in res.stdout  # verbose per-turn cost


def test_chat_shows_the_memories_each_answer_used(cli):
    assert cli(["chat", "--user", "x"], "my favourite food is pizza\n/end\n").exit_code == 0
    ask = "What is my favourite food? Do you remember?\n/quit\n"
    shown = cli(["chat", "--user", "x"], ask).stdout
    _, _, after = shown.partition("caim> Nice to meet you!")
    assert after, shown
    assert "memory: you said (" in after and '"favourite food is pizza"' in after  # the memory, dated, under it
    assert "route" not in after and "relevance" not in after
    quiet = cli(["chat", "--user", "x", "--quiet"], ask).stdout
    assert "Nice to meet you!" in quiet and "  memory: " not in quiet
    verbose = cli(["chat", "--user", "x", "--verbose"], ask).stdout
    assert "route ltm" in verbose and "relevance 0." in verbose and "LLM calls" in verbose  # route, scores, timings


def test_ontology_show_json(cli):
    res = cli(["ontology", "show", "--json"])
    data = json.loads(res.stdout)
    assert data["version"] == 0 and "food" in data["ontology"]


@pytest.mark.parametrize(
    "extra,needle",
    [
        ({"CAIM_PROVIDER": "openai"}, "no model configured"),
        ({"CAIM_PROVIDER": "openai", "CAIM_BASE_URL": "http://127.0.0.1:9/v1"}, "cannot reach the model endpoint"),
        ({"CAIM_DATA_DIR": "/proc/caim-not-writable"}, "not writable"),
        ({"CAIM_PROVIDER": "local", "CAIM_LOCAL_MODEL": "/nonexistent/model.gguf"}, "/nonexistent/model.gguf"),
    ],
)
def test_misconfiguration_is_one_line_without_traceback(env, extra, needle):
    """A real process: all it writes to standard error (logging, warnings, native libraries) is one line."""
    res = run(["chat", "--user", "x"], {**env, **extra}, "hello\n/end\n")
    assert res.returncode == 2
    assert needle in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_export_import_history_reindex_and_doctor(cli, tmp_path):
    assert cli(["chat", "--user", "x"], "my favourite food is pizza\n/end\n").exit_code == 0
    dump = tmp_path / "x.json"
    assert cli(["memories", "export", "--user", "x", "--out", str(dump)]).exit_code == 0
    data = json.loads(dump.read_text())
    [rec] = data["memories"]
    res = cli(["memories", "history", "--user", "x", "--id", rec["id"][:8], "--json"])
    assert [e["change"] for e in json.loads(res.stdout)] == ["created"]
    first = cli(["memories", "import", str(dump), "--user", "y"])
    assert f"1 record in {dump} for y: 1 added, 0 updated, 0 unchanged" in first.stdout, first.output
    again = cli(["memories", "import", str(dump), "--user", "y"])  # importing twice adds nothing
    assert f"1 record in {dump} for y: 0 added, 0 updated, 1 unchanged (already there)." in again.stdout
    assert len(json.loads(cli(["memories", "list", "--user", "y", "--json"]).stdout)) == 1
    assert "reindexed 2 records" in cli(["memories", "reindex"]).stdout
    doctor = cli(["doctor"])
    assert doctor.exit_code == 0, doctor.output
    assert "records:" in doctor.stdout and "2 records" in doctor.stdout and "model:" in doctor.stdout
    bad = cli(["doctor"], CAIM_PROVIDER="openai", CAIM_BASE_URL="http://127.0.0.1:9/v1")
    assert bad.exit_code == 1 and "FAIL  model" in bad.stdout


def test_deferred_session_end_is_processed_by_the_next_start(env):
    """Real processes: the one that queued the session exits; the next one to start drains the queue."""
    res = run(["chat", "--user", "z", "--defer"], env, "my favourite food is pizza\n")
    assert "session queued for post-thinking" in res.stdout, res.stderr
    assert (
        "z:" in run(["memories", "pending"], env).stdout
        or run(["memories", "list", "--user", "z", "--json"], env).stdout
    )
    run(["chat", "--user", "other"], env, "/quit\n")  # any start drains the queue
    assert len(json.loads(run(["memories", "list", "--user", "z", "--json"], env).stdout)) == 1


def test_export_reads_the_record_database_alone(tmp_path, monkeypatch):
    """An export needs no embedding model and no vector index (so it stays small at any size)."""
    from datetime import UTC, datetime

    import chromadb
    from typer.testing import CliRunner

    import caim.graph.services
    from caim.agent.surfaces.cli import app
    from caim.core.embeddings import MiniLMEmbedder
    from caim.memory.capture import raw_record
    from caim.memory.storage.store import MemoryStore

    store = MemoryStore(tmp_path, MiniLMEmbedder.shared())
    store.add(
        [
            raw_record(
                user_id="ann",
                session_id="s",
                turn=i,
                text=f"My locker number is {i}07.",
                when=datetime(2023, 4, i + 1, tzinfo=UTC),
                tags=["work"],
            )
            for i in range(3)
        ]
    )
    store.close()

    def refuse(*args, **kwargs):
        raise AssertionError("the export opened a model or the vector index")

    monkeypatch.setattr(caim.graph.services, "default_embedder", refuse)
    monkeypatch.setattr(chromadb, "PersistentClient", refuse)
    result = CliRunner().invoke(app, ["memories", "export", "--user", "ann", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    dump = json.loads(result.stdout)
    assert dump["user_id"] == "ann" and [m["thought"] for m in dump["memories"]] == [
        f"My locker number is {i}07." for i in range(3)
    ]


# ---- one-line errors, damaged stores, file modes, light imports ------------------------------------


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


@pytest.mark.parametrize(
    "variable,value",
    [
        ("CAIM_PROVIDER", "bogus"),
        ("CAIM_ROLE_MODELS", "notjson"),
        ("CAIM_REQUEST_TIMEOUT", "abc"),
        ("CAIM_NAMESPACE", "Bad-NS"),
    ],
)
@pytest.mark.parametrize("command", [["chat", "--user", "x"], ["memories", "list", "--user", "x"]])
def test_a_setting_that_is_not_valid_is_one_line_naming_it(cli, variable, value, command):
    res = cli(command, "hello\n/end\n", **{variable: value})
    assert res.exit_code == 2
    line = one_line(res)
    assert variable in line and ("unset" in line or "set it" in line)
    assert "caim>" not in res.stdout


def test_a_bad_option_value_is_one_line_naming_the_option_and_its_setting(cli):
    res = cli(["chat", "--user", "x", "--provider", "bogus"], "hello\n")
    assert res.exit_code == 2
    line = one_line(res)
    assert "provider='bogus'" in line and "CAIM_PROVIDER" in line and "'local'" in line


def test_an_unknown_policy_is_refused_before_the_first_prompt(cli, monkeypatch):
    import caim.agent.facade

    def no_agent(*args, **kwargs):
        raise AssertionError("the session started")

    monkeypatch.setattr(caim.agent.facade, "CaimAgent", no_agent)
    for args, extra in ((["--policy", "bogus"], {}), ([], {"CAIM_POLICY": "bogus"})):
        res = cli(["chat", "--user", "x", *args], "hello\n", **extra)
        assert res.exit_code == 2
        assert "unknown memory policy 'bogus'" in one_line(res) and "single-call" in one_line(res)
        assert res.stdout == ""


def test_a_missing_record_id_is_exit_2_for_every_command_that_takes_one(cli, tmp_path):
    assert cli(["chat", "--user", "x"], "my favourite food is pizza\n/end\n").exit_code == 0
    for command in (["memories", "forget"], ["memories", "history"]):
        res = cli([*command, "--user", "x", "--id", "0000dead"])
        assert res.exit_code == 2, command
        assert one_line(res).startswith("caim: no record 0000dead for x")
    listed = json.loads(cli(["memories", "list", "--user", "x", "--json"]).stdout)
    assert len(listed) == 1  # nothing was forgotten


def test_a_damaged_checkpoint_file_is_one_line_naming_it(cli, env):
    data = Path(env["CAIM_DATA_DIR"])
    data.mkdir(parents=True)
    (data / "checkpoints.sqlite").write_bytes(b"not a database at all" * 500)
    res = cli(["chat", "--user", "x"], "hello\n/end\n")
    assert res.exit_code == 2
    line = one_line(res)
    assert f"checkpoints.sqlite in {data} is damaged" in line and "move it away" in line


def _store_three(data: Path) -> None:
    from datetime import UTC, datetime

    from caim.core.embeddings import MiniLMEmbedder
    from caim.memory.capture import raw_record
    from caim.memory.storage.store import MemoryStore

    store = MemoryStore(data, MiniLMEmbedder.shared())
    when = datetime(2023, 4, 1, tzinfo=UTC)
    texts = ["My locker number is 107.", "My sister lives in Lisbon.", "I play the cello on Sundays."]
    store.add(
        [
            raw_record(user_id="ann", session_id="s", turn=i, text=t, when=when, tags=["work"])
            for i, t in enumerate(texts)
        ]
    )
    store.close()


def test_reindex_rebuilds_a_damaged_vector_directory(cli, env):
    from caim.core.embeddings import MiniLMEmbedder
    from caim.memory.storage.store import MemoryStore

    data = Path(env["CAIM_DATA_DIR"])
    _store_three(data)
    (data / "chroma" / "chroma.sqlite3").write_bytes(b"garbage" * 5000)
    broken = cli(["chat", "--user", "ann"], "hello\n/end\n")
    assert broken.exit_code == 2
    line = one_line(broken)
    assert f"chroma in {data} is damaged" in line and "caim memories reindex" in line
    res = cli(["memories", "reindex"])
    assert res.exit_code == 0, res.output
    assert "reindexed 3 records" in res.stdout
    store = MemoryStore(data, MiniLMEmbedder.shared())
    try:
        [(found, _)] = store.similar("ann", "where does my sister live", 1)
        assert found.thought == "My sister lives in Lisbon."
    finally:
        store.close()


def test_doctor_reports_records_and_vectors_out_of_step(cli, env):
    data = Path(env["CAIM_DATA_DIR"])
    _store_three(data)
    for name in ("memory.sqlite-wal", "memory.sqlite-shm"):
        (data / name).unlink(missing_ok=True)
    (data / "memory.sqlite").write_bytes(b"")  # emptied: the vectors remain
    res = cli(["doctor", "--no-model"])
    assert res.exit_code == 1
    [vectors] = [ln for ln in res.stdout.splitlines() if "vectors:" in ln]
    assert "FAIL" in vectors and "0 records, 3 vectors" in vectors and "3 vectors have no record" in vectors
    assert cli(["memories", "reindex"]).exit_code == 0  # the fix it names
    res = cli(["doctor", "--no-model"])
    assert res.exit_code == 0, res.stdout
    assert "0 vectors, one per record" in res.stdout


def test_data_files_are_private(cli, env):
    import stat

    def mode(p: Path) -> int:
        return stat.S_IMODE(p.stat().st_mode)

    old = os.umask(0o022)
    try:
        assert cli(["chat", "--user", "x"], "my favourite food is pizza\n/end\n").exit_code == 0
    finally:
        os.umask(old)
    data = Path(env["CAIM_DATA_DIR"])
    assert mode(data) == 0o700 and mode(data / "chroma") == 0o700
    assert mode(data / "memory.sqlite") == 0o600 and mode(data / "checkpoints.sqlite") == 0o600


HEAVY = ("chromadb", "langgraph", "langchain_core", "onnxruntime", "tokenizers", "caim.eval")


def test_help_and_reading_records_import_no_model_graph_or_vector_stack(env, tmp_path):
    """`caim --help` and `caim memories list` must start fast: they import none of the heavy stacks."""
    probe = f"""
import json, sys
from typer.testing import CliRunner
from caim.agent.surfaces.cli import app
loaded = lambda: sorted({{m.split('.')[0] if not m.startswith('caim.') else m for m in sys.modules
                         if m.split('.')[0] in {list(HEAVY)!r} or m in {list(HEAVY)!r}}})
after_import = loaded()
help_out = CliRunner().invoke(app, ["--help"]).output
after_help = loaded()
listed = CliRunner().invoke(app, ["memories", "list", "--user", "x"]).output
print(json.dumps([after_import, after_help, "eval" in help_out, listed, loaded()]))
"""
    envs = {k: v for k, v in os.environ.items() if not k.startswith(("CAIM_", "OPENAI_"))}
    envs["CAIM_DATA_DIR"] = env["CAIM_DATA_DIR"]
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=envs, timeout=120)
    assert res.returncode == 0, res.stderr
    after_import, after_help, lists_eval, listed, after_list = json.loads(res.stdout)
    assert after_import == [] and after_help == [] and after_list == []
    assert lists_eval  # the plugin is listed without being imported
    assert "no memories for x" in listed


def test_the_memory_api_loads_no_sdk_of_a_provider_it_is_not_configured_for(env):
    """Opening the memory (`caim memories import-chat`, `remember`) does not import the anthropic SDK:
    its exceptions are classified only once a client has loaded it."""
    probe = "import sys, caim.agent.memory, caim.core.llm; print('anthropic' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"


def test_a_plugin_group_runs_when_invoked(cli):
    res = cli(["eval", "--help"])
    assert res.exit_code == 0 and "benchmarks" in res.stdout


def _commands(command, path=()):
    """Every command under ``command``, with the words that run it."""
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _commands(sub, (*path, name))


def test_help_describes_every_command_and_option_in_words(cli):
    """Each command and option has a description; plugin groups are described, not named by module;
    flags are shown as flags (no ``<bool>`` value); help texts are paragraphs, not broken lines."""
    from importlib.metadata import entry_points

    import typer

    from caim.agent.surfaces.cli import app

    top = cli(["--help"]).stdout
    assert "Commands from" not in top and "<bool>" not in top
    assert "Reproducible memory benchmarks" in top and "judgement against code" in top
    for group in ("eval", "models"):  # load the plugins, as running them does
        assert cli([group, "--help"]).exit_code == 0
    root = typer.main.get_command(app)
    for ep in entry_points(group="caim.cli"):
        root.add_command(typer.main.get_command(ep.load()), ep.name)
    undescribed = []
    for path, command in _commands(root):
        if path and not (command.help or "").strip():
            undescribed.append(" ".join(path))
        for param in command.params:
            if not (getattr(param, "help", None) or "").strip():
                undescribed.append(f"{' '.join(path)} {param.opts[0]}")
        if path and not getattr(command, "commands", None):
            text = cli([*path, "--help"]).stdout
            assert "<bool>" not in text and "--install-completion" not in text, path
    assert undescribed == [], undescribed


def test_forget_all_asks_on_a_terminal_and_takes_yes_in_scripts(cli, monkeypatch):
    from caim.agent.surfaces import cli as cli_module

    assert cli(["chat", "--user", "x"], "my favourite food is pizza\n/end\n").exit_code == 0
    count = lambda: len(json.loads(cli(["memories", "list", "--user", "x", "--json"]).stdout))  # noqa: E731
    refused = cli(["memories", "forget", "--user", "x", "--all"])  # a script: no terminal to ask on
    assert refused.exit_code == 2 and "add --yes" in refused.stderr and "all 1 memories of x" in refused.stderr
    assert count() == 1
    monkeypatch.setattr(cli_module, "_on_terminal", lambda: True)
    kept = cli(["memories", "forget", "--user", "x", "--all"], "n\n")
    assert kept.exit_code == 1 and "Forget all 1 memories of x" in kept.stdout and "nothing forgotten" in kept.stdout
    assert count() == 1
    asked = cli(["memories", "forget", "--user", "x", "--all"], "y\n")
    assert asked.exit_code == 0 and "forgot 1 memory of x" in asked.stdout and count() == 0
    monkeypatch.setattr(cli_module, "_on_terminal", lambda: False)
    assert cli(["chat", "--user", "x"], "my favourite food is pizza\n/end\n").exit_code == 0
    scripted = cli(["memories", "forget", "--user", "x", "--all", "--yes"])
    assert scripted.exit_code == 0 and "forgot 1 memory of x" in scripted.stdout and count() == 0
