"""The ``caim`` command line: chat with memory, inspect memories and the ontology, run evaluations.

Errors a person can fix (a setting that is not valid, no model, unreachable endpoint, unwritable
data dir, a damaged store, an unknown record id) are printed as one line with exit code 2, never as a
traceback. Commands import what they need when they run (the model stack, LangGraph and Chroma take
seconds to import): ``caim --help`` and the record-reading commands (``memories list``, ``history``,
``export``, ``pending``) open the record database alone.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperCommand, TyperGroup

from caim.core.errors import CaimError, ConfigError, InputError, StorageError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from typer._click.core import Command, Context

    from caim.agent.facade import CaimAgent
    from caim.core.settings import Settings
    from caim.memory.db import RecordDB
    from caim.memory.store import MemoryStore

#: Entry-point group of sub-command groups that other packages add (``caim eval`` from ``caim.eval``).
PLUGINS = "caim.cli"

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class CaimGroup(TyperGroup):
    """The top command group. A ``CaimError`` from any command is one line on standard error and
    exit code 2. Plugin groups (entry points in ``caim.cli``) are listed by name and imported only
    when invoked: the agent layer never imports them, and help stays fast."""

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except CaimError as exc:
            err.print(f"caim: {exc}", style="red", markup=False, highlight=False)
            raise typer.Exit(2) from None

    def _plugins(self) -> dict[str, EntryPoint]:
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group=PLUGINS) if ep.name not in self.commands}

    def list_commands(self, ctx: Context) -> list[str]:
        return [*super().list_commands(ctx), *sorted(self._plugins())]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        ep = self._plugins().get(cmd_name)
        if ep is None:
            return None
        # listed in help without importing it; ``resolve_command`` loads it to run it
        return TyperCommand(cmd_name, help=f"Commands from {ep.value.split(':')[0]}.")

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] not in self.commands and (ep := self._plugins().get(args[0])) is not None:
            try:
                sub = ep.load()
            except ImportError as exc:  # an optional extra that is not installed
                raise ConfigError(f"caim {ep.name} is not available: {exc}") from None
            self.add_command(typer.main.get_command(sub) if isinstance(sub, typer.Typer) else sub, ep.name)
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=CaimGroup,
    add_completion=False,
    no_args_is_help=True,
    help="caim: a LangGraph agent with a cognitive long-term memory.",
)
memories_app = typer.Typer(no_args_is_help=True, help="Inspect and manage stored memories.")
ontology_app = typer.Typer(no_args_is_help=True, help="Show the tag ontology.")
app.add_typer(memories_app, name="memories")
app.add_typer(ontology_app, name="ontology")

DataDir = typer.Option(
    None, "--data-dir", help="Where memories live (default: CAIM_DATA_DIR or the per-user data folder)."
)


def _settings(data_dir: Path | None = None, **over: Any) -> Settings:
    """Settings from the options given, ``CAIM_*`` variables and ``.env``; one line when not valid."""
    from caim.core.settings import Settings

    return Settings.load(data_dir=data_dir, **over)


def _agent(settings: Settings) -> CaimAgent:
    """An agent for memory administration: no worker, no model loaded."""
    from caim.agent.facade import CaimAgent

    return CaimAgent(settings, background=False)


def _store(settings: Settings, **options: Any) -> MemoryStore:
    """The memory store alone (no agent, no checkpoints), with the configured embedder, open to
    records another model embedded (``options``: more arguments of ``MemoryStore``)."""
    from caim.graph.services import check_data_dir, default_embedder
    from caim.memory.store import MemoryStore

    if not (settings.database_url or settings.chroma_url):
        check_data_dir(settings)
    return MemoryStore(
        settings.data_dir,
        default_embedder(settings),
        chroma_url=settings.chroma_url,
        chroma_headers=settings.chroma_headers,
        database_url=settings.database_url,
        namespace=settings.namespace,
        check_embedder=False,
        **options,
    )


@contextlib.contextmanager
def _records(settings: Settings) -> Iterator[RecordDB | None]:
    """The record database alone - no model, no vector index - to read records; ``None`` when the
    data dir holds none. A data dir of caim 0.1 (records in Chroma only) is migrated by opening the
    full store once."""
    from caim.memory.db import DB_FILE, RecordDB

    db_file = settings.data_dir / DB_FILE
    if not settings.database_url and not db_file.exists():
        if not (settings.data_dir / "chroma").is_dir():
            yield None
            return
        store = _store(settings)  # migrates caim 0.1 records into the database
        try:
            yield store.db
        finally:
            store.close()
        return
    db = RecordDB(None if settings.database_url else db_file, url=settings.database_url, namespace=settings.namespace)
    try:
        yield db
    finally:
        db.close()


def _resolve_id(db: RecordDB | None, user: str, record_id: str) -> str:
    """A full record id from an id or a unique prefix (as ``memories list`` shows them); an id that
    names no record of the user is a one-line ``InputError``."""
    if db is not None and db.get(user, [record_id]):
        return record_id
    matches = db.ids_starting(user, record_id) if db is not None and record_id else []
    if len(matches) > 1:
        raise InputError(f"id prefix {record_id!r} matches several records of {user}; give more characters")
    if not matches:
        raise InputError(f"no record {record_id} for {user}; `caim memories list --user {user}` shows the ids")
    return matches[0]


def _check_policy(name: str) -> None:
    """A known memory policy, or a one-line ``ConfigError`` naming the choices."""
    from caim.graph.policies import POLICIES

    if name not in POLICIES:
        raise ConfigError(
            f"unknown memory policy {name!r} (--policy or CAIM_POLICY); choose one of: {', '.join(sorted(POLICIES))}"
        )


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
    _check_policy(settings.policy)  # before the model loads and the first prompt
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
    from caim.core.trace import llm_calls, usage

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


@memories_app.command("list")
def memories_list(
    user: str = typer.Option(..., "--user", "-u"),
    as_json: bool = typer.Option(False, "--json", help="Full records as a JSON list (with sources and history)."),
    data_dir: Path | None = DataDir,
) -> None:
    """List a user's memories, oldest first."""
    with _records(_settings(data_dir)) as db:
        found = db.iter_user(user) if db is not None else iter(())
        if as_json:  # streamed record by record
            sys.stdout.write("[")
            for i, rec in enumerate(found):
                sys.stdout.write(("," if i else "") + "\n" + rec.model_dump_json())
            sys.stdout.write("\n]\n")
            return
        records = [r.brief() for r in found]
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
    if not everything and not record_id:
        raise InputError("say what to forget: --id RECORD_ID or --all")
    with _agent(_settings(data_dir)) as agent:
        if everything:
            out.print(f"forgot {agent.forget_user(user)} records of {user}.")
            return
        assert record_id is not None
        full = _resolve_id(agent.services.store.db, user, record_id)
        if not agent.forget(user, full):  # forgotten by another process meanwhile
            raise InputError(f"no record {record_id} for {user}")
        out.print("forgot 1 record.")


@memories_app.command("history")
def memories_history(
    user: str = typer.Option(..., "--user", "-u"),
    record_id: str = typer.Option(..., "--id", help="The record (its id, or a unique prefix)."),
    as_json: bool = typer.Option(False, "--json"),
    data_dir: Path | None = DataDir,
) -> None:
    """Show a record's chain: what it superseded, merged or extended, when, from which session."""
    with _records(_settings(data_dir)) as db:
        full = _resolve_id(db, user, record_id)
        assert db is not None  # an id was found in it
        chain = db.history(user, full)
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
    from caim.core.checks import check_user
    from caim.memory.transfer import export_lines

    user = check_user(user)
    with _records(_settings(data_dir)) as db:
        records = db.iter_user(user) if db is not None else iter(())
        lines = export_lines(records, user)
        if to is None:
            for piece in lines:
                sys.stdout.write(piece)
            return
        with to.open("w", encoding="utf-8") as f:
            f.writelines(lines)
        out.print(f"exported {db.count(user) if db is not None else 0} records of {user} to {to}.", style="dim")


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
        raise InputError(f"cannot read {file}: {exc.strerror}") from None
    except ValueError as exc:
        raise InputError(f"{file} is not JSON: {exc}") from None
    with _agent(_settings(data_dir)) as agent:
        out.print(f"imported {agent.import_user(user, data)} records into {user}.")


@memories_app.command("reindex")
def memories_reindex(data_dir: Path | None = DataDir) -> None:
    """Rebuild the vector index (Chroma) from the record database; a damaged Chroma directory is
    replaced by a new one."""
    store = _store(_settings(data_dir), replace_damaged_index=True)
    try:
        n = store.reindex()
    finally:
        store.close()
    out.print(f"reindexed {n} records.")


@memories_app.command("reembed")
def memories_reembed(data_dir: Path | None = DataDir) -> None:
    """Embed every record again with the configured embedding model (after switching models)."""
    from rich.progress import Progress

    store = _store(_settings(data_dir))
    try:
        with Progress(transient=False) as bar:
            task = bar.add_task("re-embedding", total=None)
            n = store.reembed(lambda done, total: bar.update(task, completed=done, total=total))
    finally:
        store.close()
    out.print(f"re-embedded {n} records with {store.embedder.name}.")


@memories_app.command("pending")
def memories_pending(data_dir: Path | None = DataDir) -> None:
    """Sessions ended in the background and not yet post-thought (processed by the next caim start)."""
    with _records(_settings(data_dir)) as db:
        jobs = db.jobs() if db is not None else []
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

    def in_step() -> str:
        records, vectors = store.in_step()
        if vectors > records:
            raise StorageError(
                f"{records} records, {vectors} vectors: {vectors - records} vectors have no record "
                "(memory.sqlite was emptied or replaced?); restore memory.sqlite from a backup, "
                "or run `caim memories reindex` to drop them"
            )
        if records > vectors:
            raise StorageError(
                f"{records} records, {vectors} vectors: {records - vectors} records have no vector; "
                "run `caim memories reindex`"
            )
        return f"{vectors} vectors, one per record"

    report("vectors", f"Chroma {store.vectors.where}", in_step)
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


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app()  # CaimGroup turns a CaimError into one line and exit code 2
    except KeyboardInterrupt:
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
