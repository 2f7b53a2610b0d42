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
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from caim.agent.surfaces.errors import error_line
from caim.core.errors import CaimError, ConfigError, InputError, StorageError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from typer._click.core import Command, Context

    from caim.agent.facade import CaimAgent
    from caim.core.models import Models
    from caim.core.settings import Settings
    from caim.memory.chat_exports import Said as Chat
    from caim.memory.records import MemoryBrief
    from caim.memory.storage.db import RecordDB
    from caim.memory.storage.store import MemoryStore

#: Entry-point group of sub-command groups that other packages add (``caim eval`` from ``caim.eval``).
PLUGINS = "caim.cli"

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _flags_plain(params: list[Any]) -> list[Any]:
    """``params``, each flag (``--json``, ``--help``) shown in help as its name alone, not as an
    option taking a ``<bool>`` value."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


def _plain_flags(command: Command, ctx: Context) -> None:
    """``_flags_plain`` for ``command`` and every command under it."""
    _flags_plain(command.get_params(ctx))
    for sub in getattr(command, "commands", {}).values():
        _plain_flags(sub, ctx)


def _source_of(module: str) -> Path | None:
    """The source file of ``module``, found as the import system would find it but importing
    nothing (not even its parent packages); ``None`` when it has none."""
    path: list[str] | None = None
    origin: str | None = None
    parts = module.split(".")
    for i in range(len(parts)):
        name = ".".join(parts[: i + 1])
        loaded = sys.modules.get(name)
        spec = getattr(loaded, "__spec__", None) if loaded is not None else None
        for finder in sys.meta_path if spec is None else ():
            find = getattr(finder, "find_spec", None)
            if find is not None and (spec := find(name, path)) is not None:
                break
        if spec is None:
            return None
        path, origin = spec.submodule_search_locations, spec.origin
    return Path(origin) if origin and origin.endswith(".py") else None


def _plugin_help(ep: EntryPoint) -> str:
    """A plugin group's one-line help without importing it (importing ``caim models`` takes seconds):
    the ``help=`` its module gives the ``typer.Typer`` the entry point names, else the first line of
    the module's docstring, read from the source."""
    import ast

    module, _, attr = ep.value.partition(":")
    fallback = f"More commands ({ep.name}; `caim {ep.name} --help` lists them)."
    try:
        source = _source_of(module.strip())
        tree = ast.parse(source.read_text(encoding="utf-8")) if source is not None else None
    except (ImportError, OSError, SyntaxError, ValueError):
        return fallback
    if tree is None:
        return fallback
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in node.targets):
            for kw in node.value.keywords if isinstance(node.value, ast.Call) else []:
                if kw.arg == "help" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    return kw.value.value
    doc = ast.get_docstring(tree)
    return doc.strip().splitlines()[0] if doc and doc.strip() else fallback


class CaimGroup(TyperGroup):
    """The top command group. A ``CaimError`` from any command is one line on standard error and
    exit code 2. Plugin groups (entry points in ``caim.cli``) are listed by name and imported only
    when invoked: the agent layer never imports them, and help stays fast. Help shows flags as
    their names alone (``_plain_flags``)."""

    def get_params(self, ctx: Context) -> list[Any]:
        """The group's options, flags shown without a value."""
        return _flags_plain(super().get_params(ctx))

    def invoke(self, ctx: Context) -> Any:
        """Run the command; a ``CaimError`` or an argument the command does not take (a missing
        option, a value of the wrong kind, an unknown command) becomes one red line and exit code 2."""
        from typer._click.exceptions import NoArgsIsHelpError, UsageError

        try:
            return super().invoke(ctx)
        except CaimError as exc:
            err.print(f"caim: {error_line(exc)}", style="red", markup=False, highlight=False)
            raise typer.Exit(2) from None
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else ctx.command_path
            line = " ".join(exc.format_message().split())
            err.print(f"caim: {line} ('{where} --help' says what it takes)", style="red", markup=False, highlight=False)
            raise typer.Exit(2) from None

    def _plugins(self) -> dict[str, EntryPoint]:
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group=PLUGINS) if ep.name not in self.commands}

    def list_commands(self, ctx: Context) -> list[str]:
        """The built-in commands, then the plugins' (entry points), sorted."""
        return [*super().list_commands(ctx), *sorted(self._plugins())]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        """The built-in command ``cmd_name``, else the plugin of that name without loading it, else None."""
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        ep = self._plugins().get(cmd_name)
        if ep is None:
            return None
        # listed in help without importing it; ``resolve_command`` loads it to run it
        return TyperCommand(cmd_name, help=_plugin_help(ep))

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        """Load the plugin named by ``args[0]`` (if it is one) before resolving the command.

        Raises:
            ConfigError: The plugin cannot be imported (an optional extra that is not installed).
        """
        if args and args[0] not in self.commands and (ep := self._plugins().get(args[0])) is not None:
            try:
                sub = ep.load()
            except ImportError as exc:  # an optional extra that is not installed
                raise ConfigError(f"caim {ep.name} is not available: {exc}") from None
            self.add_command(typer.main.get_command(sub) if isinstance(sub, typer.Typer) else sub, ep.name)
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            _plain_flags(command, ctx)
        return name, command, rest


app = typer.Typer(
    cls=CaimGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",  # a help text's lines are one paragraph, wrapped to the terminal
    help="caim: a LangGraph agent with a cognitive long-term memory.",
)
memories_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="See, export, import and forget stored memories; import chat histories.",
)
ontology_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode="markdown", help="Show the ontology (the tags memories are filed under)."
)
app.add_typer(memories_app, name="memories")
app.add_typer(ontology_app, name="ontology")

DataDir = typer.Option(
    None, "--data-dir", help="Where memories live (default: CAIM_DATA_DIR or the per-user data folder)."
)
#: The user a memory command reads or changes.
UserOption = typer.Option(..., "--user", "-u", help="Whose memories (the user id, as `caim chat --user` gave it).")


def _count(n: int, noun: str, plural: str = "") -> str:
    """``n`` and the noun, singular for one: "1 record", "3 records", "2 memories" (``plural``)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


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
    from caim.memory.storage.store import MemoryStore

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
    from caim.memory.storage.db import DB_FILE, RecordDB

    db_file = settings.data_dir / DB_FILE
    if not settings.database_url and not db_file.exists():
        if not (settings.data_dir / "chroma").is_dir():
            yield None
            return
        _store(settings).close()  # migrates caim 0.1 records into the database
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
    return _one_id(db.ids_starting(user, record_id) if db is not None and record_id else [], user, record_id)


def _one_id(matches: list[str], user: str, record_id: str) -> str:
    """The one id of ``matches`` (the ids an id prefix names); none or several is a one-line ``InputError``."""
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


def _data(*values: object) -> tuple[Text, ...]:
    """Table cells of stored text, as data: no Rich markup read from them, control characters (a
    terminal's escape sequences, line breaks) shown as ``\\x..`` escapes."""
    return tuple(
        Text("".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in str(v))) for v in values
    )


def _show_records(records: Sequence[MemoryBrief], title: str) -> None:
    table = Table(title=title, show_lines=False)
    table.add_column("date")
    table.add_column("said by")
    table.add_column("tags")
    table.add_column("thought")
    table.add_column("preference")
    table.add_column("id", style="dim")
    for r in records:
        held = f"{r.get('polarity', '')} (held by {r['holder']})" if r.get("holder") else r.get("polarity", "")
        pref = " \u2014 ".join(x for x in (held, r.get("reason", "")) if x)
        who = r.get("speaker") or "you"  # a brief names its speaker when it is not the user
        table.add_row(*_data(str(r["event_time"])[:10], who, ", ".join(r["tags"]), r["thought"], pref, r["id"][:8]))
    out.print(table)


def _load_model(agent: CaimAgent, verbose: bool) -> None:
    """Load the respond model now, not inside the first turn; with ``verbose``, say how long it took."""
    t0 = time.perf_counter()
    agent.services.models.for_role("respond")
    server = agent.services.models.local_server
    if verbose and server is not None:
        out.print(f"model load: {server.load_seconds:.2f}s", style="dim")
    elif verbose:
        out.print(f"model client ready in {time.perf_counter() - t0:.2f}s", style="dim")


def _chat_loop(agent: CaimAgent, user: str, *, interactive: bool, verbose: bool, quiet: bool = False) -> bool:
    """Answer input lines until ``/end``, ``/quit``, ``/exit`` or the end of the input: each answer
    streamed as it is produced, then (dim, unless ``quiet``) the memories it used.

    Returns:
        True when the user left without ending the session (``/quit`` or ``/exit``).
    """
    from caim.agent.facade import Used

    while True:
        try:
            line = input("you> " if interactive else "")
        except EOFError:
            return False
        if line.strip() in ("/end", "/quit", "/exit"):
            return line.strip() != "/end"
        if not interactive:
            out.print(f"you> {line}", markup=False, highlight=False)
        start = time.perf_counter()
        out.print("[green]caim>[/green] ", end="")
        used: Used | None = None
        first: float | None = None
        for piece in agent.stream(line, user_id=user):
            if isinstance(piece, Used):
                used = piece
            elif piece:
                first = first if first is not None else time.perf_counter() - start
                out.print(piece, end="", markup=False, highlight=False)
        out.print()
        if used is not None and not quiet:
            _show_used(used.used, verbose)
        if verbose:
            route = used.route if used is not None else "none"
            _verbose_turn(agent.state(user).get("trace") or [], route, time.perf_counter() - start, first)


def _show_used(used: Sequence[MemoryBrief], verbose: bool) -> None:
    """The memories an answer used, dim, one a line: who said it and when, the words (clipped), its id
    (as ``caim memories`` takes it); with ``verbose``, its relevance and the signals behind it."""
    from caim.memory.answer import said
    from caim.memory.search.relevance import explain

    for m in used:
        why = explain(m) if verbose else ""
        line = f"  memory: {said(m, 100)} [{m['id'][:8]}]" + (f" - {why}" if why else "")
        out.print(line, style="dim", markup=False, highlight=False)


def _show_summary(summary: Any) -> None:
    """Print what post-thinking stored, merged, changed and left out at the end of a session."""
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
        out.print(f"{summary.denied} facts not stored: their categories are outside the privacy bounds", style="dim")
    if not summary.complete:
        raw = sum(1 for r in summary.stored if r.get("kind") == "raw")
        kept = (
            f"{raw} turns stored in your words, to be refined at a later session end"
            if raw
            else "turns that state a fact are captured by code instead"
        )
        out.print(f"the model could not extract key events; {kept}", style="yellow")


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
        False,
        "--verbose",
        "-v",
        help="Also show each turn's route, the memories' relevance and signals, timings, LLM calls and tokens.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Show answers only, not the memories they used."),
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
    _load_model(agent, verbose)
    try:
        ended = _chat_loop(agent, user, interactive=interactive, verbose=verbose, quiet=quiet)
        if not ended and defer:
            job = agent.end_session(user_id=user, background=True).job
            out.print(f"session queued for post-thinking ({job or 'nothing to remember'}).", style="dim")
        elif not ended:
            out.print("Ending the session: extracting what to remember…", style="dim")
            summary = agent.end_session(user_id=user)
            _show_summary(summary)
            if verbose:
                _verbose_turn(summary.trace, "post-thinking", None)
    finally:
        agent.close()


def _url(host: str, port: int, path: str) -> str:
    """The address a serving command listens at, as a browser or client takes it."""
    return f"http://{f'[{host}]' if ':' in host else host}:{port}{path}"


def _token_users() -> str:
    """Who may use a server that authenticates each request: the users ``CAIM_AUTH_TOKENS`` names."""
    import os

    from caim.agent.surfaces.tokens import parse_tokens

    users = set(parse_tokens(os.environ.get("CAIM_AUTH_TOKENS", "")).values())
    return f"for the {_count(len(users), 'user')} CAIM_AUTH_TOKENS names (a bearer token each)"


def _check_access(command: str, host: str, no_auth: bool, *, open_to: str) -> None:
    """A serving command's access, checked before anything starts: ``--no-auth`` on a loopback host
    only (``open_to``: what anyone who can connect would get), else the deployment's tokens are set.

    Raises:
        ConfigError: One line saying which and how to fix it.
    """
    import os

    from caim.agent.surfaces.web import loopback

    if no_auth and not loopback(host):
        raise ConfigError(
            f"--no-auth {open_to}: allowed on a loopback host only (127.0.0.1, ::1, localhost), not {host!r}; "
            "set CAIM_AUTH_TOKENS instead"
        )
    if not no_auth and not os.environ.get("CAIM_AUTH_TOKENS", "").strip():
        raise ConfigError(
            f'{command} authenticates every request: set CAIM_AUTH_TOKENS=\'{{"<token>": "<user id>"}}\' '
            "(or use --no-auth on 127.0.0.1)"
        )


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="The port to listen on."),
    no_auth: bool = typer.Option(
        False, "--no-auth", help="No bearer tokens: the user is each request's `user` field (loopback hosts only)."
    ),
    idle_minutes: float = typer.Option(
        30.0, "--idle-minutes", min=0.0, help="End a user's session after this many quiet minutes (0: never)."
    ),
    turn_timeout: float = typer.Option(
        300.0, "--turn-timeout", min=1.0, help="Seconds before a client gets a 504 (the turn is still kept)."
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """Serve an OpenAI-compatible chat endpoint with memory at http://HOST:PORT/v1; each bearer token
    (CAIM_AUTH_TOKENS, a JSON object token -> user id) names its user."""
    _check_access("caim serve", host, no_auth, open_to="lets anyone who can connect choose a user")
    try:
        import uvicorn

        from caim.agent.surfaces.openai_server import create_app
    except ImportError as exc:
        raise ConfigError(f"caim serve needs the server extra: pip install 'caim[server]' ({exc})") from None
    from caim.agent.facade import CaimAgent

    settings = _settings(data_dir)
    _check_policy(settings.policy)
    idle = idle_minutes * 60 if idle_minutes > 0 else None
    agent = CaimAgent(settings)
    try:
        app = create_app(agent, auth=not no_auth, idle_seconds=idle, turn_timeout=turn_timeout, bind=host)
        who = "for the user each request's `user` field names (no auth)" if no_auth else _token_users()
        out.print(
            f"[bold]caim serve[/bold] - {_url(host, port, '/v1')}, model {agent.services.models.describe()}, {who}",
            highlight=False,
        )
        uvicorn.run(app, host=host, port=port, log_level="info")
    finally:
        agent.close()


@app.command()
def ui(
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on."),
    port: int = typer.Option(8080, "--port", min=1, max=65535, help="The port to listen on."),
    no_auth: bool = typer.Option(
        False, "--no-auth", help="No sign-in: serve one local user (--user) on a loopback host only."
    ),
    user: str = typer.Option("default", "--user", help="--no-auth: the local user whose memories are shown."),
    data_dir: Path | None = DataDir,
) -> None:
    """Serve the memory browser at http://HOST:PORT/ui: see, search, correct and forget memories; each
    person signs in with their token (CAIM_AUTH_TOKENS, a JSON object token -> user id)."""
    from caim.core.checks import check_user

    check_user(user)
    _check_access("caim ui", host, no_auth, open_to="serves one user's memories to anyone who can connect")
    try:
        import uvicorn

        from caim.agent.surfaces.ui import create_ui_app
    except ImportError as exc:
        raise ConfigError(f"caim ui needs the server extra: pip install 'caim[server]' ({exc})") from None
    from caim.agent.memory import Memory

    settings = _settings(data_dir)
    with Memory(settings, background=False) as memory:  # queued sessions stay for the chat's worker
        app = create_ui_app(memory, auth=not no_auth, user=user, bind=host)
        who = f"the memories of the local user {user!r} (no sign-in)" if no_auth else _token_users()
        out.print(f"[bold]caim ui[/bold] - {_url(host, port, '/ui/')}, {who}", highlight=False)
        uvicorn.run(app, host=host, port=port, log_level="info")


def _verbose_turn(trace: list[dict], route: str, seconds: float | None, first: float | None = None) -> None:
    from caim.core.trace import llm_calls, usage

    calls = llm_calls(trace)
    u = usage(trace)
    tin, tout, ms = u["input_tokens"], u["output_tokens"], u["llm_ms"]
    tps = f", {tout / (ms / 1000):.1f} output tokens/s" if ms else ""
    took = f" in {seconds:.2f}s" if seconds is not None else ""
    began = f" (first words after {first:.2f}s)" if first is not None else ""
    out.print(
        f"  route {route}: {len(calls)} LLM calls, {tin} in / {tout} out tokens{tps}{took}{began}",
        style="dim",
        markup=False,
        highlight=False,
    )
    for e in calls:
        flag = " (fallback)" if e.get("fallback") else ""
        out.print(
            f"    {e['node']}/{e['role']}: {e['input_tokens']}+{e['output_tokens']} tok, {e['ms']:.0f} ms{flag}",
            style="dim",
        )


@memories_app.command("list")
def memories_list(
    user: str = UserOption,
    as_json: bool = typer.Option(False, "--json", help="Full records as a JSON list (with sources and history)."),
    polarity: str | None = typer.Option(
        None, "--polarity", help="Only preferences of this polarity: like, dislike or neutral."
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """List a user's memories, oldest first."""
    from caim.memory.records import check_polarity

    wanted = check_polarity(polarity)
    with _records(_settings(data_dir)) as db:
        found = db.iter_user(user) if db is not None else iter(())
        if wanted is not None:
            found = (r for r in found if r.polarity == wanted and not r.holder)
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


@memories_app.command("profile")
def memories_profile(
    user: str = UserOption,
    as_json: bool = typer.Option(False, "--json", help="The whole profile as JSON (members and earlier versions)."),
    data_dir: Path | None = DataDir,
) -> None:
    """Show a user's profile: a background per aspect of their life and their preference principles."""
    from caim.core.checks import check_user
    from caim.memory.profile import parse_profile, principle_line, profile_key

    user = check_user(user)
    with _records(_settings(data_dir)) as db:
        profile = parse_profile(db.get_meta(profile_key(user)) if db is not None else None, user)
    if as_json:
        typer.echo(profile.model_dump_json(indent=2))
        return
    if profile.empty:
        out.print(f"no profile for {user} yet (post-thinking writes it after a session).")
        return
    table = Table(title=f"profile of {user}")
    for col in ("aspect", "what is known", "memories", "by"):
        table.add_column(col)
    for b in sorted(profile.backgrounds.values(), key=lambda b: b.aspect):
        table.add_row(*_data(b.aspect, b.text, len(b.members), b.source))
    for p in profile.principles:
        table.add_row(*_data(f"prefers: {p.requirement}", principle_line(p), len(p.members), p.source))
    out.print(table)


def _on_terminal() -> bool:
    """Whether a person at a terminal can answer a question (standard input is a terminal)."""
    return sys.stdin.isatty()


def _confirm_forget_all(agent: CaimAgent, user: str, yes: bool) -> None:
    """Go on only when ``yes`` or when the person at the terminal confirms forgetting all of ``user``.

    Raises:
        InputError: Not confirmed: the input is not a terminal and ``--yes`` was not given.
        typer.Exit: The person at the terminal said no (exit code 1, nothing forgotten).
    """
    if yes:
        return
    count = agent.services.store.count(user)
    if not _on_terminal():
        raise InputError(
            f"forget --all deletes all {count} memories of {user} and their open and pending sessions: "
            "add --yes to confirm (the input is not a terminal to ask on)"
        )
    asked = f"Forget all {count} memories of {user}, and their open and pending sessions? This cannot be undone."
    if not typer.confirm(asked, default=False):
        out.print("nothing forgotten.")
        raise typer.Exit(1)


@memories_app.command("forget")
def memories_forget(
    user: str = UserOption,
    record_id: str | None = typer.Option(
        None, "--id", help="Forget one record (its id, or a unique prefix as listed)."
    ),
    everything: bool = typer.Option(
        False, "--all", help="Forget every record, open session and pending session of the user."
    ),
    yes: bool = typer.Option(
        False, "--yes", "-y", help="--all: do not ask for confirmation (needed when the input is not a terminal)."
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """Forget one record (--id) or everything of a user (--all), leaving no trace in the data dir.

    --all asks for confirmation on a terminal; in a script, add --yes.
    """
    if not everything and not record_id:
        raise InputError("say what to forget: --id RECORD_ID or --all")
    with _agent(_settings(data_dir)) as agent:
        if everything:
            _confirm_forget_all(agent, user, yes)
            out.print(f"forgot {_count(agent.forget_user(user), 'memory', 'memories')} of {user}.")
            return
        assert record_id is not None
        full = _one_id(agent.services.store.matching_ids(user, record_id), user, record_id)
        if not agent.forget(user, full):  # forgotten by another process meanwhile
            raise InputError(f"no record {record_id} for {user}")
        out.print("forgot 1 record.")


@memories_app.command("history")
def memories_history(
    user: str = UserOption,
    record_id: str = typer.Option(..., "--id", help="The record (its id, or a unique prefix)."),
    as_json: bool = typer.Option(False, "--json", help="The chain as JSON."),
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
            *_data(
                str(e["at"])[:19],
                e["change"],
                str(e["record"])[:8],
                e["thought"],
                ", ".join(str(o)[:8] for o in cast("list[str]", e["others"])),  # a history entry's record ids
                e["session_id"],
            )
        )
    out.print(table)


@memories_app.command("export")
def memories_export(
    user: str = UserOption,
    to: Path | None = typer.Option(None, "--out", "-o", help="Write to this file instead of standard output."),
    data_dir: Path | None = DataDir,
) -> None:
    """Export a user's memories as JSON (streamed: any number of records in constant memory)."""
    from caim.core.checks import check_user
    from caim.memory.profile import parse_profile, profile_key
    from caim.memory.storage.terms import TermBook
    from caim.memory.transfer import export_lines

    user = check_user(user)
    with _records(_settings(data_dir)) as db:
        records = db.iter_vectors(user) if db is not None else iter(())
        profile = parse_profile(db.get_meta(profile_key(user)), user) if db else None
        terms = TermBook(db).terms(user) if db else ()
        lines = export_lines(records, user, profile, db.get_meta("embedder") if db else None, terms=terms)
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
    """Import an export: ids, times, validity, links and history are kept; importing twice adds nothing
    (an import stopped half way is finished by running it again). Its vectors are reused when this
    data dir embeds with the same model. It says how many records it added, updated, found unchanged
    and left out."""
    from caim.agent.surfaces.progress import ingest_progress
    from caim.memory.transfer import read_export

    data = read_export(file)
    with _agent(_settings(data_dir)) as agent, ingest_progress(out, "checking", data.total, "records") as shown:
        done = agent.memory.import_(data, user_id=user, progress=partial(shown, what="importing"), checking=shown)
    parts = [f"{done.added} added", f"{done.updated} updated", f"{done.unchanged} unchanged (already there)"]
    if done.refused:
        parts.append(f"{done.refused} left out (their categories are outside {user}'s privacy bounds)")
    out.print(f"{_count(done.total, 'record')} in {file} for {user}: {', '.join(parts)}.")


@memories_app.command("import-chat")
def memories_import_chat(
    file: Path = typer.Argument(..., help="The export (file, folder or .zip, as the format takes)."),
    fmt: str = typer.Option(
        ..., "--format", "-f", help="whatsapp, telegram, slack, imessage, chatgpt or claude (their data exports)."
    ),
    user: str = typer.Option(..., "--user", "-u", help="Whose memories they become."),
    me: str | None = typer.Option(
        None, "--me", help="The sender whose messages are the user's (as the export names them; chat apps only)."
    ),
    gap_hours: float = typer.Option(
        6.0, "--gap-hours", min=0.0, help="A longer silence starts a new session (chat apps; a conversation is one)."
    ),
    day_first: bool | None = typer.Option(
        None, "--day-first/--month-first", help="WhatsApp: how its dates are written (default: read from them)."
    ),
    data_dir: Path | None = DataDir,
) -> None:
    """Remember a chat history: a chat app's export (WhatsApp, Telegram, Slack, iMessage) or another
    assistant's data export (ChatGPT, Claude).

    It is cut into sessions (an assistant's conversation is one) and each is post-thought now, the
    messages' dates becoming the memories' dates. It says what it read, what it left out and why. A
    session already remembered (same messages, same --me and --gap-hours) is skipped, so importing the
    same export again stores nothing twice. Times without a zone (WhatsApp, Telegram) are read as UTC."""
    from caim.core.checks import check_user
    from caim.memory.chats import ASSISTANT_FORMATS, CHAT_FORMATS, chat_sessions, cut, mine, read_chats, senders

    user = check_user(user)
    seen: Counter[str] = Counter()
    chats = read_chats(fmt, file, day_first, seen)
    counts = senders(chats)
    if not any(said.text for chat in chats for said in chat):
        raise InputError(f"no messages found in {file}: is it {CHAT_FORMATS[fmt]}?")
    found = ", ".join(f"{name} ({n})" for name, n in list(counts.items())[:12])
    more = f" and {len(counts) - 12} more" if len(counts) > 12 else ""
    if counts and me is None:
        raise InputError(f"say which sender is {user} with --me NAME; senders in {file}: {found}{more}")
    if counts and me not in counts:
        raise InputError(f"no messages from {me!r} in {file}; senders: {found}{more}")

    from caim.agent.memory import MAX_MESSAGES, Memory
    from caim.agent.surfaces.progress import ingest_progress

    settings = _settings(data_dir)
    gap = timedelta.max if fmt in ASSISTANT_FORMATS else timedelta(hours=gap_hours)  # a conversation is a session
    sessions = chat_sessions(chats, me, gap, MAX_MESSAGES, settings.max_message_chars)
    if not sessions:
        raise InputError(f"no session in {file} has a message of {me or 'yours'}")
    cuts = [piece for chat in chats for piece in cut(chat, me, gap, MAX_MESSAGES, settings.max_message_chars)]
    others = [piece for piece in cuts if not any(mine(said, me) for said in piece)]
    seen.update(empty=sum(not said.text for chat in chats for said in chat), others=sum(map(len, others)))
    out.print(_chat_read(file, chats, me or user, seen, len(others)), highlight=False)
    with Memory(settings, background=False) as memory:
        store = memory.services.store
        before = store.count(user)
        with ingest_progress(out, "post-thinking", sum(map(len, sessions)), "messages") as shown:
            skipped = memory.remember_sessions(sessions, user_id=user, progress=shown)
        after = store.count(user)
    change = f"{after - before:+d} memories" if after != before else "no memory added"
    out.print(
        f"{_count(len(sessions), 'session')} with a message of {me or user}: "
        f"{len(sessions) - skipped} post-thought now, {skipped} remembered before (skipped): "
        f"{change}, {after} in all for {user}.",
        highlight=False,
    )


def _chat_read(file: Path, chats: list[list[Chat]], me: str, seen: Counter[str], others: int) -> str:
    """What ``memories import-chat`` read of an export and what it leaves out, and why: the
    messages with text and their dates, the reader's counts (``seen``: ``_whatsapp``'s lines and
    omitted messages; ``empty``: messages without text; ``others``: messages of sessions where
    ``me`` wrote nothing, in ``others`` sessions)."""
    said = sorted((s for chat in chats for s in chat if s.text), key=lambda s: s.when)
    days = f" from {said[0].when:%Y-%m-%d} to {said[-1].when:%Y-%m-%d}" if said else ""
    lines = f"{_count(seen['lines'], 'line')}, " if seen["lines"] else ""
    why = {
        "continued": "continuing a message",
        "omitted": "left out: media omitted, deleted messages or WhatsApp's notice",
        "notices": "left out: notices without a sender (added, left, changed the subject)",
        "empty": "left out: without text (media, stickers, calls, service messages)",
        "branches": "left out: on branches the conversation left (edited questions, regenerated answers)",
        "parts": "left out: hidden, system and tool messages, tool calls and results, code runs, reasoning",
        "instructions": "left out: custom instructions",
        "attachments": "left out: attached files",
    }
    notes = "; ".join(f"{seen[k]} {reason}" for k, reason in why.items() if seen[k])
    text = f"{file}: {lines}{_count(len(said), 'message')}{days}" + (f" ({notes})." if notes else ".")
    if seen["others"]:
        text += (
            f" {_count(seen['others'], 'message')} in {_count(others, 'session')} without a message of {me}: left out."
        )
    return text


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
    from caim.agent.surfaces.progress import ingest_progress

    store = _store(_settings(data_dir))
    try:
        with ingest_progress(out, "re-embedding", None, "records") as shown:
            n = store.reembed(shown)
    finally:
        store.close()
    out.print(f"re-embedded {n} records with {store.embedder.name}.")


@memories_app.command("pending")
def memories_pending(data_dir: Path | None = DataDir) -> None:
    """Sessions ended in the background and not yet post-thought (processed by the next caim start)."""
    from caim.memory.storage.jobs import JobQueue

    with _records(_settings(data_dir)) as db:
        jobs = JobQueue(db).pending() if db is not None else []
    if not jobs:
        out.print("no pending sessions.")
    for job in jobs:
        out.print(f"{job.job_id}  user {job.user_id}  {job.state}  attempts {job.attempts}  {job.error}")


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
        store.records_at,
        lambda: (
            f"{sum(store.count(u) for u in store.users())} records, "
            f"{len(store.queue.pending())} pending sessions, embedder {store.embedder.name}"
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

    report("vectors", f"Chroma {store.vectors_at}", in_step)
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
    out.print(f"-     roles: {_role_uses(settings, models)}", highlight=False)
    agent.close()
    if failed:
        raise typer.Exit(1)


@app.command()
def mcp(
    user: str | None = typer.Option(None, "--user", help="stdio: the user whose memory every tool reads and changes."),
    http: bool = typer.Option(
        False, "--http", help="Serve streamable HTTP at /mcp; each request's bearer token names its user."
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="--http: the address to listen on."),
    port: int = typer.Option(8765, "--port", help="--http: the port to listen on."),
    data_dir: Path | None = DataDir,
) -> None:
    """Serve memory to MCP hosts: over stdio for one user, or over HTTP with bearer tokens (CAIM_AUTH_TOKENS)."""
    import os

    if http and user is not None:
        raise InputError("over HTTP the user comes from each request's bearer token; drop --user")
    if not http and user is None:
        raise InputError("over stdio name the user whose memory the tools use: caim mcp --user <id>")
    if user is not None:
        from caim.core.checks import check_user

        check_user(user)
    if http and not os.environ.get("CAIM_AUTH_TOKENS", "").strip():
        raise ConfigError(
            'caim mcp --http authenticates every request: set CAIM_AUTH_TOKENS=\'{"<token>": "<user id>"}\''
        )
    settings = _settings(data_dir)
    if http:  # said at once: loading the memory stack takes seconds, then uvicorn says it is running
        out.print(
            f"[bold]caim mcp[/bold] - streamable HTTP at {_url(host, port, '/mcp')}, {_token_users()}; starting…",
            highlight=False,
        )
    else:  # standard output is the protocol's; MCP hosts log standard error
        err.print(f"caim mcp - stdio: every tool reads and changes the memory of {user!r}", highlight=False)
    try:
        from caim.agent.surfaces import mcp_server
    except ImportError as exc:
        raise ConfigError(f"caim mcp needs the MCP SDK: pip install 'caim[server]' ({exc})") from None
    from caim.agent.memory import Memory

    if http:
        import uvicorn

        from caim.agent.surfaces.auth import verify
        from caim.agent.surfaces.web import body_limit

        body_limit()  # a bad CAIM_MAX_BODY_BYTES stops the server before it starts
        with Memory(settings) as memory:
            app = mcp_server.create_http_app(memory, verify=verify, host=host)
            uvicorn.run(app, host=host, port=port, log_level="info")  # its address, then a line per request
        return
    import anyio

    with Memory(settings) as memory:
        anyio.run(mcp_server.create_server(memory, user=user).run_stdio_async)


def _role_uses(settings: Settings, models: Models) -> str:
    """Which probed roles use the model and which code, and what said so (``caim models probe``)."""
    from caim.core.model_roles import role_uses

    uses = role_uses(models.model_id, settings.data_dir, settings.use_model_for)
    parts = []
    for use in ("model", "code"):
        named = [r for r, (u, _) in uses.items() if u == use]
        if named:
            why = sorted({w for r, (u, w) in uses.items() if u == use})
            parts.append(f"{use} for {', '.join(named)} ({'; '.join(why)})")
    return "; ".join(parts) + "; the answer always uses the model"


@ontology_app.command("show")
def ontology_show(
    as_json: bool = typer.Option(False, "--json", help="The ontology as JSON (its version, tree and learned terms)."),
    user: str | None = typer.Option(None, "--user", "-u", help="Add the terms learned from this user's words."),
    data_dir: Path | None = DataDir,
) -> None:
    """Show the current ontology (the default plus any extensions in the data dir; with --user, that
    user's view, with the terms learned from their words)."""
    from caim.core.checks import check_user
    from caim.memory.storage.terms import TermBook
    from caim.ontology import OntologyStore

    settings = _settings(data_dir)
    onto = OntologyStore(settings.data_dir).current
    if user is not None:
        with _records(settings) as db:
            onto = onto.with_learned(TermBook(db).terms(check_user(user)) if db is not None else [])
    if as_json:
        typer.echo(json.dumps({"version": onto.version, "ontology": onto.tree, "learned": onto.learned}, indent=2))
        return
    learned = f"; learned from {user}'s words: {', '.join(onto.learned)}" if onto.learned else ""
    out.print(f"ontology version {onto.version}, {len(onto.tags)} tags{learned}", markup=False)
    for cat, subs in onto.tree.items():
        out.print(f"[bold]{cat}[/bold]")
        for sub, attrs in subs.items():
            out.print(f"  {sub}: {', '.join(attrs)}")


def main() -> None:
    """The ``caim`` console script: run the CLI; Ctrl-C exits with code 130."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app()  # CaimGroup turns a CaimError into one line and exit code 2
    except KeyboardInterrupt:
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
