"""The ``caim`` command line: chat with memory, inspect memories and the ontology, run evaluations.

Errors a person can fix (no model, unreachable endpoint, unwritable data dir) are printed as one
line with a non-zero exit code, never as a traceback.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from caim.core.errors import CaimError
from caim.core.settings import Settings
from caim.core.trace import llm_calls, usage

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="caim: a LangGraph agent with a cognitive long-term memory."
)
memories_app = typer.Typer(no_args_is_help=True, help="Inspect and manage stored memories.")
ontology_app = typer.Typer(no_args_is_help=True, help="Show the tag ontology.")
app.add_typer(memories_app, name="memories")
app.add_typer(ontology_app, name="ontology")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

DataDir = typer.Option(
    None, "--data-dir", help="Where memories live (default: CAIM_DATA_DIR or the per-user data folder)."
)


def _settings(data_dir: Path | None = None, **over) -> Settings:
    kwargs = {k: v for k, v in over.items() if v is not None}
    if data_dir is not None:
        kwargs["data_dir"] = data_dir
    return Settings(**kwargs)


def _store(settings: Settings):
    from caim.graph.services import Services

    return Services.create(settings).store


def _show_records(records: list[dict], title: str) -> None:
    table = Table(title=title, show_lines=False)
    table.add_column("date")
    table.add_column("tags")
    table.add_column("thought")
    table.add_column("id", style="dim")
    for r in records:
        table.add_row(str(r["event_time"])[:10], ", ".join(r["tags"]), r["thought"], r["id"][:8])
    out.print(table)


@app.command()
def chat(
    user: str = typer.Option(..., "--user", "-u", help="Whose memory to use."),
    policy: str | None = typer.Option(
        None, help="Memory policy: caim, caim-cascade, always, no-filter, single-call, dense, none."
    ),
    provider: str | None = typer.Option(None, help="local, openai (any OpenAI-compatible endpoint)."),
    model: str | None = typer.Option(None, help="Model name (OpenAI-compatible provider)."),
    base_url: str | None = typer.Option(None, help="OpenAI-compatible endpoint URL."),
    local_model: str | None = typer.Option(None, help="GGUF file (or 'smollm2' / 'gemma3') for the local provider."),
    data_dir: Path | None = DataDir,
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Show model load time, tokens/s, per-turn LLM calls and tokens."
    ),
    defer: bool = typer.Option(
        False,
        "--defer",
        help="At the end, queue the session for post-thinking and quit at once (done at the next start).",
    ),
) -> None:
    """Chat with memory. Type /end (or end the input) to close the session and store what matters."""
    from caim.agent.facade import CaimAgent

    settings = _settings(
        data_dir, policy=policy, provider=provider, model=model, base_url=base_url, local_model=local_model
    )
    agent = CaimAgent(settings)
    interactive = sys.stdin.isatty()
    out.print(
        f"[bold]caim[/bold] - user [cyan]{user}[/cyan], model: {agent.services.models.describe()}, "
        f"policy: {settings.policy}"
    )
    out.print(
        "Type /end to finish the session (post-thinking stores what matters), /quit to leave without it.", style="dim"
    )
    t0 = time.perf_counter()
    agent.services.models.for_role("respond")  # load the model now, not inside the first turn
    server = agent.services.models.local_server
    if verbose and server is not None:
        out.print(f"model load: {server.load_seconds:.2f}s", style="dim")
    elif verbose:
        out.print(f"model client ready in {time.perf_counter() - t0:.2f}s", style="dim")
    ended = False
    try:
        while True:
            try:
                line = input("you> " if interactive else "")
            except EOFError:
                break
            if line.strip() in ("/end", "/quit", "/exit"):
                ended = line.strip() != "/end"
                break
            if not interactive:
                out.print(f"you> {line}")
            start = time.perf_counter()
            reply = agent.chat(line, user_id=user)
            out.print(f"[green]caim>[/green] {reply.text}")
            if verbose:
                _verbose_turn(reply.trace, reply.route, time.perf_counter() - start)
        if not ended and defer:
            job = agent.end_session(user_id=user, background=True).job
            out.print(f"session queued for post-thinking ({job or 'nothing to remember'}).", style="dim")
        elif not ended:
            out.print("Ending the session: extracting what to remember…", style="dim")
            summary = agent.end_session(user_id=user)
            if summary.stored:
                _show_records(summary.stored, f"stored {len(summary.stored)} memories")
            else:
                out.print("nothing new to remember.")
            for m in summary.merged:
                out.print(f"merged {len(m['removed']) + 1} records into: {m['thought']}", style="dim")
            for c in summary.changes:
                out.print(f"{c['change']}: {c['thought']}", style="dim")
            if summary.ontology_added:
                out.print(f"ontology extended: {', '.join(summary.ontology_added)}", style="dim")
            if summary.denied:
                out.print(
                    f"{summary.denied} facts not stored: their categories are outside the privacy bounds", style="dim"
                )
            if not summary.complete:
                raw = sum(1 for r in summary.stored if r.get("kind") == "raw")
                kept = (
                    f"{raw} turns stored in your words, to be refined at a later session end"
                    if raw
                    else "turns that state a fact are captured by code instead"
                )
                out.print(f"the model could not extract key events; {kept}", style="yellow")
            if verbose:
                _verbose_turn(summary.trace, "post-thinking", None)
    finally:
        agent.close()


def _verbose_turn(trace: list[dict], route: str, seconds: float | None) -> None:
    calls = llm_calls(trace)
    u = usage(trace)
    tin, tout, ms = u["input_tokens"], u["output_tokens"], u["llm_ms"]
    tps = f", {tout / (ms / 1000):.1f} output tokens/s" if ms else ""
    took = f" in {seconds:.2f}s" if seconds is not None else ""
    out.print(f"  [{route}] {len(calls)} LLM calls, {tin} in / {tout} out tokens{tps}{took}", style="dim")
    for e in calls:
        flag = " (fallback)" if e.get("fallback") else ""
        out.print(
            f"    {e['node']}/{e['role']}: {e['input_tokens']}+{e['output_tokens']} tok, {e['ms']:.0f} ms{flag}",
            style="dim",
        )


def _agent(data_dir: Path | None):
    """An agent for memory administration: no worker, no model loaded."""
    from caim.agent.facade import CaimAgent

    return CaimAgent(_settings(data_dir), background=False)


def _resolve_id(agent, user: str, record_id: str) -> str | None:
    """A full record id from an id or a unique prefix (as ``memories list`` shows them)."""
    if agent.memory(user, record_id):
        return record_id
    matches = [r.id for r in agent.services.store.iter(user) if r.id.startswith(record_id)]
    if len(matches) > 1:
        raise CaimError(f"id prefix {record_id!r} matches {len(matches)} records of {user}; give more characters")
    return matches[0] if matches else None


@memories_app.command("list")
def memories_list(
    user: str = typer.Option(..., "--user", "-u"),
    as_json: bool = typer.Option(False, "--json", help="Full records as a JSON list (with sources and history)."),
    data_dir: Path | None = DataDir,
) -> None:
    """List a user's memories, oldest first."""
    with _agent(data_dir) as agent:
        if as_json:  # streamed record by record
            sys.stdout.write("[")
            for i, rec in enumerate(agent.services.store.iter(user)):
                sys.stdout.write(("," if i else "") + "\n" + rec.model_dump_json())
            sys.stdout.write("\n]\n")
            return
        records = [r.brief() for r in agent.services.store.iter(user)]
    if not records:
        out.print(f"no memories for {user}.")
    else:
        _show_records(records, f"{len(records)} memories of {user}")


@memories_app.command("forget")
def memories_forget(
    user: str = typer.Option(..., "--user", "-u"),
    record_id: str | None = typer.Option(
        None, "--id", help="Forget one record (its id, or a unique prefix as listed)."
    ),
    everything: bool = typer.Option(
        False, "--all", help="Forget every record, open session and pending session of the user."
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """Forget one record (--id) or everything of a user (--all), leaving no trace in the data dir."""
    with _agent(data_dir) as agent:
        if everything:
            out.print(f"forgot {agent.forget_user(user)} records of {user}.")
        elif record_id:
            full = _resolve_id(agent, user, record_id)
            out.print("forgot 1 record." if full and agent.forget(user, full) else f"no record {record_id} for {user}.")
        else:
            raise CaimError("say what to forget: --id RECORD_ID or --all")


@memories_app.command("history")
def memories_history(
    user: str = typer.Option(..., "--user", "-u"),
    record_id: str = typer.Option(..., "--id", help="The record (its id, or a unique prefix)."),
    as_json: bool = typer.Option(False, "--json"),
    data_dir: Path | None = DataDir,
) -> None:
    """Show a record's chain: what it superseded, merged or extended, when, from which session."""
    with _agent(data_dir) as agent:
        full = _resolve_id(agent, user, record_id)
        if full is None:
            raise CaimError(f"no record {record_id} for {user}")
        chain = agent.history(user, full)
    if as_json:
        typer.echo(json.dumps(chain, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"history of {full[:8]}")
    for col in ("when", "change", "record", "thought", "others", "session"):
        table.add_column(col)
    for e in chain:
        table.add_row(
            str(e["at"])[:19],
            str(e["change"]),
            str(e["record"])[:8],
            str(e["thought"]),
            ", ".join(str(o)[:8] for o in e["others"]),
            str(e["session_id"]),
        )
    out.print(table)


@memories_app.command("export")
def memories_export(
    user: str = typer.Option(..., "--user", "-u"),
    to: Path | None = typer.Option(None, "--out", "-o", help="Write to this file instead of standard output."),
    data_dir: Path | None = DataDir,
) -> None:
    """Export a user's memories as JSON (streamed: any number of records in constant memory)."""
    from caim.agent.facade import check_user
    from caim.memory.db import RecordDB
    from caim.memory.store import DB_FILE
    from caim.memory.transfer import export_lines

    settings = _settings(data_dir)
    user = check_user(user)
    db_file = settings.data_dir / DB_FILE
    with contextlib.ExitStack() as stack:
        if settings.database_url or db_file.exists():
            # the record database alone: an export needs no embedding model and no vector index
            db = RecordDB(
                None if settings.database_url else db_file, url=settings.database_url, namespace=settings.namespace
            )
            stack.callback(db.close)
            records, count = db.iter_user(user), db.count
        else:  # no records yet, or a data dir of caim 0.1 that the store migrates on opening
            store = stack.enter_context(_agent(data_dir)).services.store
            records, count = store.iter(user), store.count
        lines = export_lines(records, user)
        if to is None:
            for piece in lines:
                sys.stdout.write(piece)
            return
        with to.open("w", encoding="utf-8") as f:
            f.writelines(lines)
        out.print(f"exported {count(user)} records of {user} to {to}.", style="dim")


@memories_app.command("import")
def memories_import(
    file: Path = typer.Argument(..., help="A file written by `caim memories export`."),
    user: str = typer.Option(..., "--user", "-u", help="Whose memories they become."),
    data_dir: Path | None = DataDir,
) -> None:
    """Import an export: ids, times, validity, links and history are kept; importing twice adds nothing."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CaimError(f"cannot read {file}: {exc.strerror}") from None
    except ValueError as exc:
        raise CaimError(f"{file} is not JSON: {exc}") from None
    with _agent(data_dir) as agent:
        out.print(f"imported {agent.import_user(user, data)} records into {user}.")


@memories_app.command("reindex")
def memories_reindex(data_dir: Path | None = DataDir) -> None:
    """Rebuild the vector index (Chroma) from the record database, e.g. after its directory was damaged."""
    with _agent(data_dir) as agent:
        out.print(f"reindexed {agent.services.store.reindex()} records.")


@memories_app.command("reembed")
def memories_reembed(data_dir: Path | None = DataDir) -> None:
    """Embed every record again with the configured embedding model (after switching models)."""
    from rich.progress import Progress

    from caim.graph.services import default_embedder
    from caim.memory.store import MemoryStore

    settings = _settings(data_dir)
    store = MemoryStore(
        settings.data_dir,
        default_embedder(settings),
        chroma_url=settings.chroma_url,
        chroma_headers=settings.chroma_headers,
        check_embedder=False,
    )
    with Progress(transient=False) as bar:
        task = bar.add_task("re-embedding", total=None)
        n = store.reembed(lambda done, total: bar.update(task, completed=done, total=total))
    out.print(f"re-embedded {n} records with {store.embedder.name}.")


@memories_app.command("pending")
def memories_pending(data_dir: Path | None = DataDir) -> None:
    """Sessions ended in the background and not yet post-thought (processed by the next caim start)."""
    with _agent(data_dir) as agent:
        jobs = agent.services.store.db.jobs()
    if not jobs:
        out.print("no pending sessions.")
    for job_id, user, _payload, state, attempts, error in jobs:
        out.print(f"{job_id}  user {user}  {state}  attempts {attempts}  {error}")


@app.command()
def doctor(
    data_dir: Path | None = DataDir,
    model_check: bool = typer.Option(
        True, "--model/--no-model", help="Also check that the model endpoint answers (starts the local model)."
    ),
) -> None:
    """Show which stores and model caim uses and check that each answers."""
    settings = _settings(data_dir)
    failed = False

    def report(name: str, what: str, check) -> None:
        nonlocal failed
        try:
            detail = check()
            out.print(f"[green]ok[/green]    {name}: {what}" + (f" - {detail}" if detail else ""))
        except Exception as exc:  # every failure is reported, none stops the others
            failed = True
            msg = " ".join(str(exc).split()) or type(exc).__name__
            out.print(f"[red]FAIL[/red]  {name}: {what} - {msg}", highlight=False)

    from caim.agent.facade import CaimAgent

    agent = None

    def open_agent() -> str:
        nonlocal agent
        agent = CaimAgent(settings, background=False)
        return f"{len(agent.services.store.users())} users"

    report("data dir", str(settings.data_dir), open_agent)
    if agent is None:
        raise typer.Exit(1)
    store = agent.services.store
    report(
        "records",
        str(store.db.path),
        lambda: (
            f"{sum(store.count(u) for u in store.users())} records, "
            f"{len(store.db.jobs())} pending sessions, embedder {store.embedder.name}"
        ),
    )
    report("vectors", f"Chroma {store.vectors.where}", lambda: f"{store.vectors.count()} vectors")
    where = settings.checkpoint_url or str(settings.data_dir / "checkpoints.sqlite")
    report(
        "checkpoints",
        f"{type(agent.checkpointer).__name__} {where.split('@')[-1]}",
        lambda: agent.checkpointer.get_tuple({"configurable": {"thread_id": "caim:doctor"}}) and "",
    )
    models = agent.services.models
    if model_check:
        report("model", models.describe(), lambda: models.check())
    else:
        out.print(f"-     model: {models.describe()} (not checked)")
    agent.close()
    if failed:
        raise typer.Exit(1)


@ontology_app.command("show")
def ontology_show(as_json: bool = typer.Option(False, "--json"), data_dir: Path | None = DataDir) -> None:
    """Show the current ontology (the default plus any extensions in the data dir)."""
    from caim.ontology import OntologyStore

    onto = OntologyStore(_settings(data_dir).data_dir).current
    if as_json:
        typer.echo(json.dumps({"version": onto.version, "ontology": onto.tree}, indent=2))
        return
    out.print(f"ontology version {onto.version}, {len(onto.tags)} tags")
    for cat, subs in onto.tree.items():
        out.print(f"[bold]{cat}[/bold]")
        for sub, attrs in subs.items():
            out.print(f"  {sub}: {', '.join(attrs)}")


def _mount_plugins() -> None:
    """Mount sub-command groups that other packages register under the ``caim.cli`` entry-point
    group (``caim eval`` comes from ``caim.eval`` this way: the agent layer never imports it)."""
    for ep in entry_points(group="caim.cli"):
        try:
            sub = ep.load()
        except ImportError as exc:  # an optional extra that is not installed
            logging.getLogger(__name__).debug("caim %s not available: %s", ep.name, exc)
            continue
        app.add_typer(sub, name=ep.name)


_mount_plugins()


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app()
    except CaimError as exc:
        err.print(f"caim: {exc}", style="red", markup=False, highlight=False)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
