"""How fast memory is written: remembering conversations, exporting, importing, importing a chat history.

Every phase writes a fresh data directory on disk, as a user's would be, with the default embedder,
and runs in a process of its own (its peak memory is its own):

- **remember**: ``Memory.remember`` of LoCoMo conversations (``--data``; ``--conversations`` of them,
  the first ``--sessions`` sessions of each), session by session, LLM-free (every judged role on code:
  ``CAIM_USE_MODEL_FOR='[]'``): turns/s over the whole run and over its first and last tenth of the
  turns, records stored, and where the time went (embedding, searching, database writes, model
  calls, the rest). What a process loads once (the embedder, the ontology's index, the reader's
  models, the intent catalogue's vectors and the language and entity tables, read on a first use) is
  loaded by a warm-up before the clock starts (a search, a two-turn session remembered for another
  user, the catalogue's vectors and the entity tables): its seconds are given apart;
- **bundled model**: post-thinking of a 20-turn session (the first 20 turns of the first session that
  long) with the bundled model deciding its probed roles as shipped (the model's
  load not counted);
- **export**: ``Memory.export`` of the remembered user to a file (format 2, vectors included);
- **import**: that file into a fresh data directory (``read_export``, ``Memory.import_``): records/s
  over the whole import and its first and last tenth; the same file imported again (nothing to
  write); the export without its vectors (as an export of format 1 is: every record embedded);
- **import-chat**: a WhatsApp history made from the first conversation (its first speaker is the
  user) through ``caim memories import-chat``, LLM-free, in a child process: messages/s and the
  child's CPU seconds including the command's start, and the same history imported again (every
  session skipped: about what the command's start costs). Both speakers are people there, so the
  other speaker's words are kept as theirs too: it stores more records than remember does.

The rates depend on the machine's load: each phase gives the load average at its start and end, and
its process's CPU seconds (``time.process_time``: all its threads, the embedder's included) with the
rate per CPU second beside the rate per wall second (on a machine whose cores other jobs share, the
CPU-based rate is the one that compares across runs).

Usage::

    python benchmarks/ingest.py --data ../shared/data/locomo-dev/locomo_dev.json --doc docs/scale.md

``--doc`` rewrites the ``Ingestion`` section of that Markdown file (``benchmarks/store_scale.py``'s
format: its other sections and notes are kept). The last line reads ``remember <x> turns/s, import
<y> records/s``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
HEADING = "Ingestion"
USER = "ingest"
SESSION_TURNS = 20


def _store_scale() -> Any:
    """``benchmarks/store_scale.py`` (its doc writer and run line)."""
    spec = importlib.util.spec_from_file_location("caim_bench_store_scale", HERE / "store_scale.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def peak_mb() -> float:
    """This process's peak resident memory (MB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sessions_of(data: str, conversations: int) -> list[list[list[dict]]]:
    """Per LoCoMo conversation, its sessions as role/content/time messages (the first speaker is the user)."""
    from caim.eval.locomo import load_locomo

    out = []
    for conv in load_locomo(data).conversations[:conversations]:
        sessions = []
        for s in conv.sessions:
            msgs = []
            for ex in s.exchanges:
                when = ex.time.isoformat()
                if ex.user:
                    msgs.append({"role": "user", "content": conv.user_text(ex), "time": when})
                if ex.assistant:
                    msgs.append({"role": "assistant", "content": conv.assistant_text(ex), "time": when})
            sessions.append(msgs)
        out.append(sessions)
    return out


class Clock:
    """Seconds spent in the embedder, the searches and the database writes (``MemoryStore.add``, its
    embedding apart)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {"embedding": 0.0, "searching": 0.0, "database writes": 0.0}

    def wrap(self, owner: Any, method: str, bucket: str, apart: str | None = None) -> None:
        """Count the time of ``owner.method`` (an instance's own copy) in ``bucket``, less the time
        counted meanwhile in ``apart`` (a write that embeds: the embedding is counted once)."""
        real = getattr(owner, method)

        def timed(*args: Any, **kw: Any) -> Any:
            t, before = time.perf_counter(), self.spent.get(apart or "", 0.0)
            try:
                return real(*args, **kw)
            finally:
                inside = self.spent.get(apart or "", 0.0) - before
                self.spent[bucket] += time.perf_counter() - t - inside

        setattr(owner, method, timed)

    def watch(self, memory: Any) -> None:
        """Time ``memory``'s embedder, searches and writes."""
        svc = memory.services
        self.wrap(svc.store.embedder, "embed", "embedding")
        self.wrap(svc.retriever, "search", "searching", apart="embedding")
        self.wrap(svc.store, "add", "database writes", apart="embedding")


def tenths(marks: list[tuple[float, int]]) -> tuple[float, float]:
    """Rates over the first and the last tenth of the work, from (seconds since the start, done) marks
    taken after each piece of work (the pieces that reach a tenth, at least one)."""
    if not marks:
        return 0.0, 0.0
    total = marks[-1][1]
    first = next(m for m in marks if m[1] >= total / 10)
    start = next((m for m in reversed(marks) if m[1] <= total - total / 10), (0.0, 0))
    last = (total - start[1]) / max(marks[-1][0] - start[0], 1e-9)
    return first[1] / max(first[0], 1e-9), last


def watched(path: Path, warm_up: list[dict] | None = None) -> tuple[Any, Clock, float]:
    """An LLM-free memory at ``path``, warmed up (the embedder and the ontology's index loaded; with
    ``warm_up``, those messages remembered for another user, the intent catalogue's vectors and the
    entity tables: the reader's models and the language tables loaded), the clock timing it, and the
    warm-up's seconds."""
    from caim.memory.text.entities import entities

    t = time.perf_counter()
    memory = memory_at(path, llm_free=True)
    memory.search("warm up the model and the ontology's index", user_id="nobody")
    if warm_up:
        memory.remember(warm_up, user_id="warm-up", background=False)
        # what a process reads once that those two turns may not reach: the intent catalogue's vectors,
        # and the entity tables of English and of the languages a short English text is read in too
        svc = memory.services
        svc.intents.by_meaning(svc.embedder.embed_query("warm up"), svc.embedder.embed)
        entities("Hello there.")
    warm_s = time.perf_counter() - t
    clock = Clock()
    clock.watch(memory)
    return memory, clock, warm_s


def memory_at(path: Path, *, llm_free: bool) -> Any:
    from caim.agent.memory import Memory
    from caim.core.settings import Settings

    settings = Settings.load(data_dir=path, use_model_for=[] if llm_free else None)
    return Memory(settings, background=False)


def phase_remember(data: str, conversations: int, root: str, most: int = 0) -> dict:
    """Remember the conversations (the first ``most`` sessions of each; 0: all) into ``root``/remember,
    LLM-free (a user each); export each user to ``root``/export-N.json."""
    from caim.memory.transfer import export_lines

    convs = [c[:most] if most else c for c in sessions_of(data, conversations)]
    memory, clock, warm_s = watched(Path(root) / "remember", convs[0][0][:2])
    marks: list[tuple[float, int]] = []
    turns = 0
    start, cpu = time.perf_counter(), time.process_time()
    for c, sessions in enumerate(convs):
        for msgs in sessions:
            memory.remember(msgs, user_id=f"{USER}{c}", background=False)
            turns += len(msgs)
            marks.append((time.perf_counter() - start, turns))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    store = memory.services.store
    records = sum(store.count(f"{USER}{c}") for c in range(len(convs)))
    first, last = tenths(marks)
    t = time.perf_counter()
    size = 0
    for c in range(len(convs)):  # one user per conversation, each exported to a file of its own
        user = f"{USER}{c}"
        path = Path(root) / f"export-{c}.json"
        with path.open("w", encoding="utf-8") as f:
            f.writelines(export_lines(store.iter_vectors(user), user, store.profile(user), store.embedder.name))
        size += path.stat().st_size
    export_s = time.perf_counter() - t
    memory.close()
    spent = {k: round(v, 1) for k, v in clock.spent.items()}
    spent["the rest"] = round(seconds - sum(clock.spent.values()), 1)
    return {
        "conversations": len(convs),
        "sessions": sum(map(len, convs)),
        "turns": turns,
        "records": records,
        "seconds": round(seconds, 1),
        "turns_per_s": round(turns / seconds, 1),
        "cpu_s": round(cpu, 1),
        "turns_per_cpu_s": round(turns / max(cpu, 1e-9), 1),
        "warm_up_s": round(warm_s, 1),
        "first_tenth_per_s": round(first, 1),
        "last_tenth_per_s": round(last, 1),
        "spent_s": spent,
        "export_s": round(export_s, 2),
        "export_mb": round(size / 1e6, 1),
        "peak_mb": round(peak_mb(), 1),
    }


def exports(root: str, strip_vectors: bool) -> list[Path]:
    """The remember phase's export files, or copies of them without their vectors (as format 1 had)."""
    paths = sorted(Path(root).glob("export-*.json"))
    if not strip_vectors:
        return paths
    out = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        for item in data["memories"]:
            item.pop("vector", None)
        data.pop("embedder", None)
        data["format"] = 1
        copy = path.with_name("bare-" + path.name)
        copy.write_text(json.dumps(data), encoding="utf-8")
        out.append(copy)
    return out


def phase_import(root: str, strip_vectors: bool) -> dict:
    """Import each export into a fresh data dir (streamed), then each again; without vectors if asked."""
    from caim.memory.transfer import read_export

    sources = exports(root, strip_vectors)
    memory, clock, _ = watched(Path(tempfile.mkdtemp(dir=root, prefix="import-")))
    marks: list[tuple[float, int]] = []
    n = 0
    start, cpu = time.perf_counter(), time.process_time()
    for c, source in enumerate(sources):

        def mark(done: int, _: int | None, before: int = n) -> None:
            marks.append((time.perf_counter() - start, before + done))

        n += memory.import_(read_export(source, stream_from=0), user_id=f"{USER}{c}", progress=mark).total
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    t = time.perf_counter()
    memory.services.store.flush()
    indexed_s = time.perf_counter() - t
    first, last = tenths(marks)
    t = time.perf_counter()
    for c, source in enumerate(sources):
        memory.import_(read_export(source, stream_from=0), user_id=f"{USER}{c}")
    again_s = time.perf_counter() - t
    memory.close()
    spent = {k: round(v, 2) for k, v in clock.spent.items() if k != "searching"}
    spent["the rest"] = round(seconds - sum(spent.values()), 2)
    return {
        "exports": len(sources),
        "records": n,
        "seconds": round(seconds, 2),
        "records_per_s": round(n / seconds, 1),
        "cpu_s": round(cpu, 2),
        "records_per_cpu_s": round(n / max(cpu, 1e-9), 1),
        "first_tenth_per_s": round(first, 1),
        "last_tenth_per_s": round(last, 1),
        "vector_index_after_s": round(indexed_s, 2),
        "again_s": round(again_s, 2),
        "again_records_per_s": round(n / again_s, 1),
        "spent_s": spent,
        "peak_mb": round(peak_mb(), 1),
    }


def phase_model_session(data: str) -> dict:
    """Post-thinking of a 20-turn session with the bundled model (its load and a first run not counted)."""
    from caim.core.trace import usage

    every = [msgs for conv in sessions_of(data, 5) for msgs in conv]
    session = next((m for m in every if len(m) >= SESSION_TURNS), max(every, key=len))[:SESSION_TURNS]
    with tempfile.TemporaryDirectory() as tmp:
        memory = memory_at(Path(tmp), llm_free=False)
        memory.search("warm up the model and the ontology's index", user_id="nobody")
        memory.remember(session[:2], user_id="warm-up", background=False)  # the model loaded before the clock
        t = time.perf_counter()
        summary = memory.remember(session, user_id=USER, background=False)
        seconds = time.perf_counter() - t
        roles = sorted(memory.services.llm.code_roles)
        memory.close()
    calls = usage(summary.trace)
    return {
        "turns": len(session),
        "seconds": round(seconds, 2),
        "records": len(summary.stored),
        "model_calls": calls["llm_calls"],
        "roles_on_code": roles,
        "peak_mb": round(peak_mb(), 1),
    }


def whatsapp(data: str, path: Path) -> tuple[str, int]:
    """The first LoCoMo conversation as a WhatsApp export (day-first times); the user's name and the messages."""
    from caim.eval.locomo import load_locomo

    conv = load_locomo(data).conversations[0]
    lines, n = [], 0
    for s in conv.sessions:
        for ex in s.exchanges:
            for who, text in ((conv.user_label, ex.user), (conv.assistant_label, ex.assistant)):
                for part in text.splitlines() if text else []:
                    lines.append(f"[{ex.time:%d/%m/%Y, %H:%M:%S}] {who}: {part}")
                    n += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return conv.user_label, n


#: Runs ``caim`` with the arguments given, then prints the process's peak resident memory (kB) as
#: the last line of stderr (``ru_maxrss`` of the children would be the largest of every child so far).
_CLI_PEAK = """
import runpy, sys
sys.argv = ["caim", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("caim.agent.surfaces.cli", run_name="__main__")
except SystemExit as stop:
    code = stop.code if isinstance(stop.code, int) else 1
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")), file=sys.stderr)
sys.exit(code)
"""


def phase_import_chat(data: str, root: str) -> dict:
    """``caim memories import-chat`` of a WhatsApp history, LLM-free, in a child process; then again."""
    chat = Path(root) / "chat.txt"
    me, messages = whatsapp(data, chat)
    env = {**os.environ, "CAIM_USE_MODEL_FOR": "[]", "CAIM_DATA_DIR": str(Path(root) / "chat")}
    cmd = [
        sys.executable,
        "-c",
        _CLI_PEAK,
        "memories",
        "import-chat",
        str(chat),
        "--format",
        "whatsapp",
    ]
    cmd += ["--user", USER, "--me", me, "--day-first"]
    out: dict[str, Any] = {"messages": messages, "peak_mb": 0.0}
    for run in ("first", "again"):
        t, used = time.perf_counter(), _children_cpu()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t
        out[f"{run}_cpu_s"] = round(_children_cpu() - used, 1)
        if done.returncode:
            raise SystemExit(f"import-chat failed: {done.stderr.strip()[-400:]}")
        out[f"{run}_s"] = round(seconds, 1)
        out[f"{run}_messages_per_s"] = round(messages / seconds, 1)
        out[f"{run}_said"] = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        out["peak_mb"] = max(out["peak_mb"], round(int(done.stderr.strip().splitlines()[-1]) / 1024, 1))
    return out


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's children that have ended."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


PHASES: dict[str, Callable[..., dict]] = {}


def in_child(name: str, *args: Any) -> dict:
    """Phase ``name`` with ``args`` in a fresh process running this file (its own peak memory and caches)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--phase", name, "--phase-args", json.dumps(args)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE.parent)
    if done.returncode:
        raise SystemExit(f"phase {name} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="", help="LoCoMo JSON (e.g. ../shared/data/locomo-dev/locomo_dev.json)")
    ap.add_argument("--conversations", type=int, default=5, help="LoCoMo conversations remembered")
    ap.add_argument("--sessions", type=int, default=0, help="remember the first N sessions of each (0: all)")
    ap.add_argument("--no-model", action="store_true", help="leave out the bundled model's session")
    ap.add_argument("--no-chat", action="store_true", help="leave out import-chat")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--doc", type=Path, default=None, help="also write the Ingestion section of this Markdown file")
    ap.add_argument("--phase", default=None, help=argparse.SUPPRESS)  # run one phase (in a child process)
    ap.add_argument("--phase-args", default="[]", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.phase:
        print(json.dumps(PHASES[args.phase](*json.loads(args.phase_args))))
        return 0
    if not args.data:
        raise SystemExit("--data: a LoCoMo JSON file is needed")
    scale = _store_scale()
    run = scale.RunInfo(datetime.now(UTC), os.getloadavg()[0], sys.argv[1:] if argv is None else argv)
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="caim-ingest-") as root:
        for name, fargs, wanted in (
            ("remember", (args.data, args.conversations, root, args.sessions), True),
            ("import", (root, False), True),
            ("import without vectors", (root, True), True),
            ("bundled model session", (args.data,), not args.no_model),
            ("import-chat", (args.data, root), not args.no_chat),
        ):
            if not wanted:
                continue
            start = os.getloadavg()[0]
            figures[name] = in_child(name, *fargs) if name != "import-chat" else phase_import_chat(*fargs)
            figures[name]["load"] = [round(start, 1), round(os.getloadavg()[0], 1)]
            print(name, json.dumps(figures[name]), flush=True)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if args.doc:
        line = run.line().replace("benchmarks/store_scale.py", "benchmarks/ingest.py")
        scale.write_doc(args.doc, HEADING, section(figures, line))
    r, i = figures["remember"], figures["import"]
    print(
        f"remember {r['turns_per_s']:.1f} turns/s ({r['turns_per_cpu_s']:.1f} per CPU s), "
        f"import {i['records_per_s']:.0f} records/s ({i['records_per_cpu_s']:.0f} per CPU s)"
    )
    return 0


PHASES.update(
    {
        "remember": phase_remember,
        "import": phase_import,
        "import without vectors": phase_import,
        "bundled model session": phase_model_session,
    }
)


def _spent(spent: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:,} s" for k, v in spent.items())


def section(f: dict, line: str) -> str:
    """The Markdown section of one run."""
    r, i = f["remember"], f["import"]
    rows = [
        (
            "remember, LLM-free",
            f"**{r['turns_per_s']} turns/s**: {r['turns']:,} turns of {r['conversations']} conversation(s) "
            f"({r['sessions']} sessions) in {r['seconds']} s ({r['cpu_s']} s of CPU: {r['turns_per_cpu_s']} turns per "
            f"CPU s), {r['records']:,} records; "
            "first / last tenth "
            f"{r['first_tenth_per_s']} / {r['last_tenth_per_s']} turns/s; peak RSS {r['peak_mb']} MB; "
            f"load {r['load'][0]} / {r['load'][1]}; warm-up before the clock {r['warm_up_s']} s",
        ),
        ("remember: where the time went", _spent(r["spent_s"])),
        (
            "export of each user (format 2, vectors included)",
            f"{r['export_s']} s, {r['export_mb']} MB in all",
        ),
        (
            "import of those exports",
            f"**{i['records_per_s']} records/s**: {i['records']:,} records in {i['seconds']} s ({i['cpu_s']} s of "
            f"CPU: {i['records_per_cpu_s']} records per CPU s); first / last tenth "
            f"{i['first_tenth_per_s']} / {i['last_tenth_per_s']} records/s; vector index caught up "
            f"{i['vector_index_after_s']} s later; peak RSS {i['peak_mb']} MB; load {i['load'][0]} / {i['load'][1]}",
        ),
        ("import: where the time went", _spent(i["spent_s"])),
        ("the same import again (nothing to write)", f"{i['again_s']} s ({i['again_records_per_s']} records/s)"),
    ]
    if "import without vectors" in f:
        w = f["import without vectors"]
        rows.append(
            (
                "import of the export without its vectors (format 1)",
                f"{w['records_per_s']} records/s: {w['seconds']} s ({w['cpu_s']} s of CPU: {w['records_per_cpu_s']} "
                f"records per CPU s); where the time went: {_spent(w['spent_s'])}",
            )
        )
    if "bundled model session" in f:
        m = f["bundled model session"]
        rows.append(
            (
                f"post-thinking of a {m['turns']}-turn session, bundled model",
                f"**{m['seconds']} s**, {m['records']} records, {m['model_calls']} model calls (roles on code: "
                f"{', '.join(m['roles_on_code']) or 'none'}); load {m['load'][0]} / {m['load'][1]}",
            )
        )
    if "import-chat" in f:
        c = f["import-chat"]
        rows.append(
            (
                "import-chat of a WhatsApp history, LLM-free",
                f"{c['first_messages_per_s']} messages/s: {c['messages']:,} messages in {c['first_s']} s "
                f"({c.get('first_cpu_s', '?')} s of CPU; the command's start included); {c['first_said']}; again "
                f"{c['again_s']} s ({c.get('again_cpu_s', '?')} s of CPU); peak RSS {c['peak_mb']} MB; "
                f"load {c['load'][0]} / {c['load'][1]}",
            )
        )
    return "\n".join([f"{line}.", "", "| figure | value |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)])


if __name__ == "__main__":
    sys.exit(main())
