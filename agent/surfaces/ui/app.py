"""The memory browser's app: pages and actions under ``/ui`` (see ``caim.agent.surfaces.ui`` for the contracts).

``create_ui`` builds the app to mount at ``/ui`` (``caim serve`` mounts it there); ``create_ui_app``
is ``caim ui``'s whole server: that app at ``/ui``, ``/`` redirecting to it, and ``/health``.
Every page and action goes through ``caim.Memory`` - the same methods as the library - for the
caller's user only.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeAlias
from urllib.parse import urlencode

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined
from langchain_core.messages import BaseMessage
from starlette.exceptions import HTTPException as StarletteHTTPException

from caim.agent.memory import Memory, SessionTurn, session_turns
from caim.agent.surfaces.errors import ARGUMENT_STATUS, error_line, http_status
from caim.agent.surfaces.tokens import Verify, bearer_user, is_bearer
from caim.agent.surfaces.ui.charts import categories, weekly
from caim.agent.surfaces.ui.session import COOKIE, Signer, bound, ui_secret
from caim.agent.surfaces.web import (
    ASGIApp,
    Guard,
    HostGuard,
    Message,
    Receive,
    Scope,
    Send,
    body_limit,
    default_verify,
    one_line,
    served_hosts,
)
from caim.core.checks import check_user, lookup_id
from caim.core.errors import CaimError, InputError, argument_error
from caim.memory.answer import said
from caim.memory.records import POLARITIES, MemoryBrief, MemoryRecord, as_aware
from caim.memory.search.relevance import explain
from caim.ontology import Ontology

log = logging.getLogger("caim.ui")

#: Memories per page of the timeline and of a term's list.
PER_PAGE = 50
#: Hits a search shows.
SEARCH_K = 20
#: The user of a browser served without authentication, unless told otherwise.
DEFAULT_USER = "default"
#: Largest request body (an import's file, mostly) when neither the caller nor ``CAIM_MAX_BODY_BYTES`` says.
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
#: A value a URL path segment holds as it is (``_segment``).
PLAIN = re.compile(r"[A-Za-z0-9_.:-]+")
#: The answer for a memory the caller does not have: another user's, or none at all.
NO_SUCH = "no such memory"
#: Longest token the sign-in form takes.
MAX_TOKEN = 4096
#: The search signals each column of "why it ranked" sums; every other signal is "other".
SIGNAL_GROUPS: dict[str, tuple[str, ...]] = {
    "lexical": ("bm25",),
    "dense": ("dense",),
    "time": ("date", "range", "timex", "recency", "decay"),
    "tag": ("tag",),
}
#: Each signal of the ranked search in words a person reads: what it measures. A part above zero
#: raised a memory's rank, below zero lowered it.
SIGNAL_WORDS: dict[str, str] = {
    "bm25": "words it shares with your search",
    "dense": "how close its meaning is to your search",
    "neighbour": "the turns said just before or after it match your search too",
    "speaker": "said by the person your search names",
    "name": "it names someone or something your search names",
    "timex": "your search asks when, and it holds a time",
    "date": "said on a date your search names",
    "range": "said in the period your search speaks of",
    "tag": "filed under a topic of your search",
    "prior": "how much it says (names, numbers and details count)",
    "recency": "how recent it is",
    "session": "from a conversation that matches your search well",
    "decay": "its age (your search asks about recent things)",
}
#: What an action did, shown on the page it leads to (``?done=<key>&n=<count>``).
NOTICES = {
    "corrected": "Corrected: this is the new version; the old one is kept in its history.",
    "forgot": "Forgotten: that memory is gone everywhere.",
    "forgot-all": "Forgot {n} memories.",
    "denied": "Denied: {n} memories under it were forgotten, and nothing under it will be stored for you.",
    "allowed": "Allowed again: memories under it may be stored from now on.",
    "imported": "Imported: {n} added, {updated} updated, {unchanged} unchanged (already there), {refused} left out "
    "(their categories are outside your privacy bounds).",
}
#: Security headers of every answer (no script runs, nothing is framed or loaded from elsewhere).
HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        b"frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),  # forms send their origin (the host guard checks it), other sites nothing
)

MemorySource: TypeAlias = Memory | Callable[[], Memory]
#: A user's open chat session: its messages (``CaimAgent.state``), for the session page.
OpenSession: TypeAlias = Callable[[str], Sequence[BaseMessage]]
#: Longest pending-session id the session page takes.
MAX_JOB = 256


class SignIn(Exception):
    """A page asked for without a session or token: answered with a redirect to the sign-in page."""


class UIError(Exception):
    """An answer with HTTP ``status`` and a one-line ``message`` (an error page)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = one_line(message)[:300]


@dataclass(frozen=True)
class Caller:
    """Who a request is for: the ``user``, and the ``session`` value (None for a bearer-token request,
    which needs no CSRF token); ``fresh``: a session issued by this request, to be set as a cookie."""

    user: str
    session: str | None
    fresh: bool = False


@dataclass
class TermNode:
    """One ontology term as the ontology page shows it: its memories (the term's or below it), its
    state (``open``, ``denied`` by the user, ``inherited`` from a denied term above, or ``deployment``:
    outside the deployment's bounds) with the reason, and the terms below it."""

    term: str
    count: int
    state: str
    reason: str = ""
    children: list[TermNode] = field(default_factory=list)


class Shield:
    """ASGI middleware: adds ``HEADERS`` to every answer (a refusal of ``HostGuard`` within included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on with the headers added to its answer."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


# ---- formatting ---------------------------------------------------------------------------------
def _when(value: datetime | str | None) -> str:
    """A time as people read it: ``7 May 2024, 10:00 UTC`` ("" for none)."""
    if value is None or value == "":
        return ""
    dt = as_aware(datetime.fromisoformat(value) if isinstance(value, str) else value)
    return f"{dt.day} {dt.strftime('%B %Y, %H:%M')} {dt.tzname() or ''}".rstrip()


def _day(value: datetime | str) -> str:
    dt = as_aware(datetime.fromisoformat(value) if isinstance(value, str) else value)
    return f"{dt.strftime('%A')} {dt.day} {dt.strftime('%B %Y')}"


def _segment(value: str) -> str:
    """A value as one URL path segment: as it is when it is plain (letters, digits, ``_.:-``), else
    ``~`` and its UTF-8 in URL-safe base64 - a record id stored before ids were checked may hold a
    ``/`` or a line break, which no route would match (``record_id`` reads the form back)."""
    text = str(value)
    if PLAIN.fullmatch(text):
        return text
    return "~" + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def templates() -> Environment:
    """The browser's Jinja2 templates (installed with the package), autoescaped, strict about names."""
    env = Environment(
        loader=PackageLoader("caim.agent.surfaces.ui", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        when=_when,
        day=_day,
        segment=_segment,
        score=lambda x: f"{float(x):.3f}",
        signed=lambda x: f"{float(x):+.3f}",
        said=said,
    )
    return env


def signal_groups(scores: Mapping[str, float]) -> dict[str, float]:
    """A hit's score parts summed per ``SIGNAL_GROUPS`` column, every other part in ``other``, and ``total``.

    >>> signal_groups({"total": 2.5, "bm25": 1.0, "dense": 1.2, "range": 0.2, "prior": 0.1})
    {'lexical': 1.0, 'dense': 1.2, 'time': 0.2, 'tag': 0.0, 'other': 0.1, 'total': 2.5}
    """
    grouped = {name: sum(float(scores.get(s, 0.0)) for s in parts) for name, parts in SIGNAL_GROUPS.items()}
    known = {s for parts in SIGNAL_GROUPS.values() for s in parts} | {"total"}
    grouped["other"] = sum(float(v) for k, v in scores.items() if k not in known)
    grouped["total"] = float(scores.get("total", sum(grouped.values())))
    return {k: round(v, 3) for k, v in grouped.items()}


def reasons(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """A hit's score parts in words (``SIGNAL_WORDS``), the largest first, parts of zero left out.

    >>> for words, part in reasons({"total": 1.1, "bm25": -0.4, "dense": 1.2, "prior": 0.3, "tag": 0.0}):
    ...     print(f"{part:+.1f} {words}")
    +1.2 how close its meaning is to your search
    -0.4 words it shares with your search
    +0.3 how much it says (names, numbers and details count)
    """
    parts = [(SIGNAL_WORDS.get(name, name), round(float(v), 3)) for name, v in scores.items() if name != "total"]
    return sorted((p for p in parts if p[1]), key=lambda p: -abs(p[1]))


def by_day(records: Iterable[MemoryRecord]) -> list[tuple[str, list[MemoryRecord]]]:
    """Records (newest first) grouped under the day they were said, in their order."""
    days: list[tuple[str, list[MemoryRecord]]] = []
    for rec in records:
        day = _day(rec.event_time)
        if not days or days[-1][0] != day:
            days.append((day, []))
        days[-1][1].append(rec)
    return days


def page_number(raw: str) -> int:
    """A ``page`` query value as a number, or a 400 ``UIError``."""
    if not raw.isdigit() or len(raw) > 7 or int(raw) < 1:
        raise UIError(400, "page must be a whole number from 1")
    return int(raw)


def from_segment(raw: str) -> str | None:
    """The value a URL path segment holds (as ``_segment`` wrote it), or None when it is no such segment."""
    if not raw.startswith("~"):
        return raw
    try:
        return base64.urlsafe_b64decode(raw[1:] + "=" * (-len(raw[1:]) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None


def record_id(raw: str) -> str:
    """A record id from a URL (as ``_segment`` wrote it), or a 404 ``UIError`` "no such memory" when it
    can name none (``caim.core.checks.lookup_id``) - the answer for another user's id, and for an id
    that exists nowhere."""
    text = from_segment(raw)
    found = lookup_id(text) if text is not None else None
    if found is None:
        raise UIError(404, NO_SUCH)
    return found


def notice(done: str, n: str, **counts: str) -> str:
    """The line an action's ``?done=<key>&n=<count>`` (and more ``counts``) stands for ("" for an unknown key)."""

    def count(v: str) -> str:
        return v if v.isdigit() and len(v) <= 9 else "some"

    return NOTICES.get(done, "").format(n=count(n), **{k: count(v) for k, v in counts.items()})


def term_tree(
    ontology: Ontology, counts: Mapping[str, int], denied: list[str], deployment: list[str], allowed: list[str]
) -> list[TermNode]:
    """The ontology as ``TermNode`` trees, each term with its memories and its state for this user."""

    def node(term: str, children: list[TermNode]) -> TermNode:
        state, reason = term_state(ontology, term, denied, deployment, allowed)
        return TermNode(term, counts.get(term, 0), state, reason, children)

    return [
        node(cat, [node(sub, [node(a, []) for a in attrs]) for sub, attrs in subs.items()])
        for cat, subs in ontology.tree.items()
    ]


def term_state(
    ontology: Ontology, term: str, denied: list[str], deployment: list[str], allowed: list[str]
) -> tuple[str, str]:
    """(state, reason) of ``term`` for a user who denied ``denied``, under a deployment that denies
    ``deployment`` and (when set) allows only ``allowed``; see ``TermNode``."""
    if term in denied:
        return "denied", "denied by you"
    above = next((d for d in denied if ontology.under(term, [d])), None)
    if above is not None:
        return "inherited", f"denied by you with {above}"
    if deployment and ontology.under(term, deployment):
        return "deployment", "never stored by this deployment"
    if allowed and not ontology.under(term, allowed):
        return "deployment", "outside what this deployment stores"
    return "open", ""


# ---- the app ------------------------------------------------------------------------------------
class Browser:
    """What the routes share: the memory, who may call, the session signer, the templates, and where
    a user's open chat session is read (``open_session``; ``None`` beside no chat)."""

    def __init__(
        self,
        memory: MemorySource,
        verify: Verify | None,
        user: str,
        signer: Signer,
        max_body: int,
        open_session: OpenSession | None = None,
    ) -> None:
        self._memory = memory
        self.open_session = open_session
        self.verify = verify
        self.local_user = check_user(user)
        self.signer = signer
        self.max_body = max_body
        self.env = templates()

    @property
    def auth(self) -> bool:
        """Whether callers sign in (False: one local user, no sign-in)."""
        return self.verify is not None

    @property
    def memory(self) -> Memory:
        """The memory every page reads and every action changes."""
        return self._memory if isinstance(self._memory, Memory) else self._memory()

    # ---- who calls ----------------------------------------------------------------------------
    def caller(self, request: Request) -> Caller | None:
        """The request's caller: a bearer token's user, else the session cookie's, else None; with
        authentication off, the local user (with a session issued now when the request has none)."""
        cookie = request.cookies.get(COOKIE)
        if self.verify is None:
            if cookie and self.signer.user_of(cookie) == self.local_user:
                return Caller(self.local_user, cookie)
            return Caller(self.local_user, self.signer.issue(self.local_user), fresh=True)
        header = request.headers.get("authorization", "")
        if is_bearer(header):  # a script's request: its token or nothing
            user = bearer_user(header, self.verify)
            if user is None:
                raise UIError(401, "missing or invalid bearer token")
            return Caller(check_user(user), None)
        user = self.signer.user_of(cookie)
        return Caller(check_user(user), cookie) if user else None

    def page_caller(self, request: Request) -> Caller:
        """The caller of a page; ``SignIn`` (a redirect to the sign-in page) without one."""
        caller = self.caller(request)
        if caller is None:
            raise SignIn()
        return caller

    def action_caller(self, request: Request, csrf: str) -> Caller:
        """The caller of an action (a POST): 401 without a session or token, 403 when a session's
        request lacks its CSRF token (a bearer-token request needs none)."""
        caller = self.caller(request)
        if caller is None:
            raise UIError(401, "sign in first: this action needs a session or a bearer token")
        if caller.session is not None and not self.signer.csrf_ok(caller.session, csrf):
            raise UIError(403, "this form is stale or came from another site (missing or wrong CSRF token)")
        return caller

    # ---- answers ------------------------------------------------------------------------------
    @staticmethod
    def base(request: Request) -> str:
        """Where the browser is mounted (``/ui``; "" when served at the root)."""
        return str(request.scope.get("root_path", "")).rstrip("/")

    def set_session(self, request: Request, response: Response, value: str) -> None:
        """Set the session cookie: HttpOnly, SameSite=Strict, Secure on https, for the browser's paths."""
        response.set_cookie(
            COOKIE,
            value,
            max_age=int(self.signer.max_age),
            path=self.base(request) or "/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    def render(self, request: Request, caller: Caller | None, name: str, status: int = 200, **ctx: Any) -> Response:
        """A page from template ``name`` for ``caller`` (its CSRF token in every form)."""
        html = self.env.get_template(name).render(
            base=self.base(request),
            user=caller.user if caller else "",
            csrf=self.signer.csrf(caller.session) if caller and caller.session else "",
            auth=self.auth,
            title=ctx.pop("title", ""),
            notice=ctx.pop("notice", ""),
            **ctx,
        )
        response = HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})
        if caller is not None and caller.fresh and caller.session:
            self.set_session(request, response, caller.session)
        return response

    def redirect(self, request: Request, path: str, **query: object) -> RedirectResponse:
        """A 303 to ``path`` of the browser, with ``query``."""
        fragment = str(query.pop("fragment", ""))
        url = (
            self.base(request) + path + (f"?{urlencode(query)}" if query else "") + (f"#{fragment}" if fragment else "")
        )
        return RedirectResponse(url, status_code=303)

    def error(self, request: Request, status: int, message: str) -> Response:
        """An error page: ``status`` and one line."""
        headers = {"www-authenticate": "Bearer"} if status == 401 else {}
        response = self.render(request, None, "error.html", status, title=f"Error {status}", message=one_line(message))
        response.headers.update(headers)
        return response


def create_ui(
    memory: MemorySource,
    *,
    verify: Verify | None = None,
    auth: bool = True,
    user: str = DEFAULT_USER,
    secret: bytes | None = None,
    max_body_bytes: int | None = None,
    open_session: OpenSession | None = None,
    bind: str | None = None,
) -> FastAPI:
    """The memory browser, to mount at ``/ui`` (see ``caim.agent.surfaces.ui``).

    Args:
        memory: The ``Memory`` every page uses, or a function returning it (when it is built later,
            e.g. at a server's startup).
        verify: Maps a token to its user id or None (default ``caim.agent.surfaces.auth.verify`` over
            ``CAIM_AUTH_TOKENS``, which must then be set; sessions are then signed under those tokens
            too, so removing or reassigning a token ends every session at the next start).
        auth: False serves one local ``user`` without sign-in, to loopback ``Host`` names only
            (``caim ui --no-auth`` also listens on a loopback address only).
        user: The local user when ``auth`` is False.
        secret: Signs sessions and CSRF tokens (default ``CAIM_UI_SECRET``, else random per process).
        max_body_bytes: Largest request body, an import's file included (default ``CAIM_MAX_BODY_BYTES``, else 16 MiB).
        open_session: Reads a user's open chat session (``caim serve``'s agent), for the session page.
        bind: The address the server listens on, when known: the hosts it answers follow from it and
            ``auth`` (``caim.agent.surfaces.web.served_hosts``; a request for another is a 421).

    Returns:
        The app.
    """
    check = (verify or default_verify("caim ui")) if auth else None
    limit = body_limit(max_body_bytes) if max_body_bytes is not None or _env_limit() else DEFAULT_MAX_BODY_BYTES
    signing = secret or ui_secret()
    if auth and verify is None:  # the deployment's tokens: their sessions end when the tokens change
        from caim.agent.surfaces.auth import tokens_fingerprint

        signing = bound(signing, tokens_fingerprint())
    browser = Browser(memory, check, user, Signer(signing), limit, open_session)
    app = FastAPI(title="caim memory browser", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(Guard, verify=None, max_body=limit)
    app.add_middleware(HostGuard, hosts=served_hosts(auth=auth, bind=bind))
    app.add_middleware(Shield)
    _errors(app, browser)
    _session_routes(app, browser)
    _page_routes(app, browser)
    _memory_routes(app, browser)
    _term_routes(app, browser)
    _data_routes(app, browser)
    return app


def _env_limit() -> bool:
    import os

    return bool(os.environ.get("CAIM_MAX_BODY_BYTES", "").strip())


def create_ui_app(
    memory: MemorySource,
    *,
    verify: Verify | None = None,
    auth: bool = True,
    user: str = DEFAULT_USER,
    secret: bytes | None = None,
    max_body_bytes: int | None = None,
    bind: str | None = None,
) -> FastAPI:
    """``caim ui``'s server: the browser (``create_ui``, same arguments) at ``/ui``, ``/`` redirecting
    there and ``GET /health``; every path behind the same host check (``HostGuard``)."""
    ui = create_ui(memory, verify=verify, auth=auth, user=user, secret=secret, max_body_bytes=max_body_bytes, bind=bind)
    app = FastAPI(title="caim ui", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(HostGuard, hosts=served_hosts(auth=auth, bind=bind))

    @app.get("/")
    def root() -> RedirectResponse:
        return RedirectResponse("/ui/", status_code=303)

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    app.mount("/ui", ui)
    return app


def _errors(app: FastAPI, browser: Browser) -> None:
    @app.exception_handler(SignIn)
    def sign_in(request: Request, _exc: SignIn) -> Response:
        response = browser.redirect(request, "/signin")
        if request.cookies.get(COOKIE):
            response.delete_cookie(COOKIE, path=browser.base(request) or "/")
        return response

    @app.exception_handler(UIError)
    def ui_error(request: Request, exc: UIError) -> Response:
        return browser.error(request, exc.status, exc.message)

    @app.exception_handler(CaimError)
    def refused(request: Request, exc: CaimError) -> Response:
        return browser.error(request, http_status(exc), error_line(exc))

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError) -> Response:
        line = argument_error(exc.errors(), skip=("body", "query", "path", "form"))
        return browser.error(request, ARGUMENT_STATUS, line)

    @app.exception_handler(StarletteHTTPException)
    def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        return browser.error(request, exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    def fault(request: Request, exc: Exception) -> Response:
        log.exception("caim ui: unexpected fault", exc_info=exc)
        return browser.error(request, http_status(exc), error_line(exc))


# ---- routes ----------------------------------------------------------------------------------------
def _session_routes(app: FastAPI, browser: Browser) -> None:
    @app.get("/style.css")
    def style() -> Response:
        css = browser.env.loader.get_source(browser.env, "style.css")[0]  # type: ignore[union-attr]
        return Response(css, media_type="text/css", headers={"cache-control": "max-age=3600"})

    @app.get("/signin")
    def signin_page(request: Request) -> Response:
        if not browser.auth:
            return browser.redirect(request, "/")
        return browser.render(request, None, "signin.html", title="Sign in", error="")

    @app.post("/signin")
    def signin(request: Request, token: str = Form("")) -> Response:
        if not browser.auth:
            return browser.redirect(request, "/")
        assert browser.verify is not None
        user = browser.verify(token) if token and len(token) <= MAX_TOKEN else None
        if user is None:
            return browser.render(request, None, "signin.html", 401, title="Sign in", error="That token is not valid.")
        response = browser.redirect(request, "/")
        browser.set_session(request, response, browser.signer.issue(check_user(user)))
        return response

    @app.post("/signout")
    def signout(request: Request, csrf: str = Form("")) -> Response:
        caller = browser.action_caller(request, csrf)
        if caller.session:
            browser.signer.end(caller.session)
        response = browser.redirect(request, "/signin" if browser.auth else "/")
        response.delete_cookie(COOKIE, path=browser.base(request) or "/")
        return response


def _page_routes(app: FastAPI, browser: Browser) -> None:
    @app.get("/")
    def timeline(request: Request, page: str = "1", done: str = "", n: str = "") -> Response:
        caller = browser.page_caller(request)
        memory = browser.memory
        number = page_number(page)
        got = memory.page(user_id=caller.user, page=number, per_page=PER_PAGE)
        if number > got.pages:
            raise UIError(404, f"no page {number}: there are {got.pages}")
        overview = memory.overview(user_id=caller.user)
        return browser.render(
            request,
            caller,
            "timeline.html",
            title="Timeline",
            notice=notice(done, n),
            page=got,
            days=by_day(got.records),
            weekly=weekly(overview.per_week),
            categories=categories(overview.per_category),
        )

    @app.get("/search")
    def search(request: Request, q: str = "", polarity: str = "") -> Response:
        caller = browser.page_caller(request)
        wanted = polarity or None
        hits: list[MemoryBrief] = (
            browser.memory.search(q, user_id=caller.user, k=SEARCH_K, polarity=wanted) if q.strip() else []
        )
        rows = [(h, signal_groups(h.get("scores", {})), reasons(h.get("scores", {}))) for h in hits]
        return browser.render(
            request,
            caller,
            "search.html",
            title="Search",
            q=q,
            rows=rows,
            relevance=[explain(h) for h in hits],
            polarity=polarity,
            polarities=POLARITIES,
        )

    @app.get("/pending")
    def pending(request: Request) -> Response:
        caller = browser.page_caller(request)
        sessions = browser.memory.pending_sessions(user_id=caller.user)
        return browser.render(request, caller, "pending.html", title="Pending sessions", sessions=sessions)

    @app.get("/pending/{job}")
    def pending_session(request: Request, job: str) -> Response:
        caller = browser.page_caller(request)
        job_id = from_segment(job[: 2 * MAX_JOB])
        turns = browser.memory.pending_turns(job_id[:MAX_JOB], user_id=caller.user) if job_id is not None else None
        if turns is None:
            raise UIError(404, "no such pending session")
        intro = "A session waiting for post-thinking; under each answer, the memories it used."
        return browser.render(request, caller, "session.html", title="Session", intro=intro, turns=turns)

    @app.get("/session")
    def open_session(request: Request) -> Response:
        caller = browser.page_caller(request)
        if browser.open_session is None:
            turns: list[SessionTurn] = []
            intro = "This browser runs beside no chat: the open session is shown where caim serve runs it."
        else:
            turns = session_turns(browser.open_session(caller.user))
            intro = "Your open session; under each answer, the memories it used."
        return browser.render(request, caller, "session.html", title="This session", intro=intro, turns=turns)

    @app.get("/profile")
    def profile(request: Request) -> Response:
        caller = browser.page_caller(request)
        found = browser.memory.profile(user_id=caller.user)
        backgrounds = sorted(found.backgrounds.values(), key=lambda b: b.aspect)
        return browser.render(
            request, caller, "profile.html", title="Profile", backgrounds=backgrounds, principles=found.principles
        )


def _memory_routes(app: FastAPI, browser: Browser) -> None:
    def owned(caller: Caller, rid: str) -> MemoryRecord:
        rec = browser.memory.get(record_id(rid), user_id=caller.user)
        if rec is None:
            raise UIError(404, NO_SUCH)
        return rec

    @app.get("/memories/{rid}")
    def memory_page(request: Request, rid: str, done: str = "", n: str = "") -> Response:
        caller = browser.page_caller(request)
        rec = owned(caller, rid)
        memory = browser.memory
        related = [*rec.links, *rec.supersedes, *([rec.superseded_by] if rec.superseded_by else [])]
        known = {r.id: r for r in memory.get_many(related, user_id=caller.user)}
        return browser.render(
            request,
            caller,
            "memory.html",
            title="Memory",
            notice=notice(done, n),
            rec=rec,
            history=memory.history(rec.id, user_id=caller.user),
            known=known,
            ontology=memory.ontology(user_id=caller.user),
        )

    @app.post("/memories/{rid}/correct")
    def correct(request: Request, rid: str, thought: str = Form(""), csrf: str = Form("")) -> Response:
        caller = browser.action_caller(request, csrf)
        rec = owned(caller, rid)
        new = browser.memory.correct(rec.id, thought, user_id=caller.user)
        return browser.redirect(request, f"/memories/{_segment(new.id)}", done="corrected")

    @app.post("/memories/{rid}/forget")
    def forget(request: Request, rid: str, csrf: str = Form("")) -> Response:
        caller = browser.action_caller(request, csrf)
        if not browser.memory.forget(record_id(rid), user_id=caller.user):
            raise UIError(404, NO_SUCH)
        return browser.redirect(request, "/", done="forgot")

    @app.post("/forget-all")
    def forget_all(request: Request, confirm: str = Form(""), csrf: str = Form("")) -> Response:
        caller = browser.action_caller(request, csrf)
        if confirm != "yes":
            raise UIError(400, "forgetting everything needs confirm=yes (tick the box)")
        n = browser.memory.forget_all(user_id=caller.user)
        return browser.redirect(request, "/", done="forgot-all", n=n)


def _term_routes(app: FastAPI, browser: Browser) -> None:
    def known(caller: Caller, term: str) -> str:
        try:
            return browser.memory.check_term(term, user_id=caller.user)
        except InputError as exc:
            raise UIError(404, str(exc)) from None

    def state(caller: Caller, term: str) -> tuple[str, str]:
        memory = browser.memory
        s = memory.settings
        return term_state(
            memory.ontology(user_id=caller.user),
            term,
            memory.denied(user_id=caller.user),
            s.deny_categories,
            s.allow_categories,
        )

    @app.get("/ontology")
    def ontology(request: Request, done: str = "", n: str = "") -> Response:
        caller = browser.page_caller(request)
        memory = browser.memory
        onto = memory.ontology(user_id=caller.user)
        overview = memory.overview(user_id=caller.user)
        s = memory.settings
        tree = term_tree(
            onto, overview.per_term, memory.denied(user_id=caller.user), s.deny_categories, s.allow_categories
        )
        others = sorted((t, c) for t, c in overview.per_term.items() if t not in onto)
        return browser.render(
            request,
            caller,
            "ontology.html",
            title="Ontology",
            notice=notice(done, n),
            tree=tree,
            others=others,
            total=overview.total,
        )

    @app.get("/ontology/{term}")
    def term_page(request: Request, term: str, page: str = "1") -> Response:
        caller = browser.page_caller(request)
        term = known(caller, term)
        number = page_number(page)
        got = browser.memory.page(user_id=caller.user, page=number, per_page=PER_PAGE, under=term)
        if number > got.pages:
            raise UIError(404, f"no page {number}: there are {got.pages}")
        status, reason = state(caller, term)
        return browser.render(
            request,
            caller,
            "term.html",
            title=f"Ontology: {term}",
            term=term,
            path=browser.memory.ontology(user_id=caller.user).path(term),
            page=got,
            days=by_day(got.records),
            state=status,
            reason=reason,
        )

    @app.post("/ontology/{term}/deny")
    def deny(request: Request, term: str, csrf: str = Form("")) -> Response:
        caller = browser.action_caller(request, csrf)
        n = browser.memory.deny(known(caller, term), user_id=caller.user)
        return browser.redirect(request, "/ontology", done="denied", n=n, fragment=f"term-{term}")

    @app.post("/ontology/{term}/allow")
    def allow(request: Request, term: str, csrf: str = Form("")) -> Response:
        caller = browser.action_caller(request, csrf)
        if not browser.memory.allow(term, user_id=caller.user):
            raise UIError(400, f"{term[:64]!r} is not among the terms you denied")
        return browser.redirect(request, "/ontology", done="allowed", fragment=f"term-{term}")


def _data_routes(app: FastAPI, browser: Browser) -> None:
    @app.get("/export")
    def export(request: Request) -> Response:
        caller = browser.page_caller(request)
        data = browser.memory.export(user_id=caller.user)
        return Response(
            json.dumps(data, ensure_ascii=False),
            media_type="application/json",
            headers={"content-disposition": 'attachment; filename="caim-memories.json"', "cache-control": "no-store"},
        )

    @app.get("/import")
    def import_page(
        request: Request, done: str = "", n: str = "", updated: str = "0", unchanged: str = "0", refused: str = "0"
    ) -> Response:
        caller = browser.page_caller(request)
        said = notice(done, n, updated=updated, unchanged=unchanged, refused=refused)
        return browser.render(request, caller, "data.html", title="Your data", notice=said, max_bytes=browser.max_body)

    @app.post("/import")
    def import_(request: Request, file: UploadFile | None = File(None), csrf: str = Form("")) -> Response:
        caller = browser.action_caller(request, csrf)
        if file is None:
            raise UIError(400, "choose an export file to import (form field file)")
        raw = file.file.read(browser.max_body + 1)
        if len(raw) > browser.max_body:
            raise UIError(413, f"the file is over {browser.max_body} bytes")
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise UIError(400, f"the file is not JSON ({str(exc).splitlines()[0][:120]})") from None
        if not isinstance(data, dict | list):
            raise UIError(400, "the file is not a caim export (a JSON object with memories)")
        try:
            did = browser.memory.import_(data, user_id=caller.user)
        except CaimError as exc:
            if type(exc) is not CaimError:  # storage or configuration failing: not the file's fault
                raise
            raise UIError(400, str(exc)) from None  # not an export, a malformed record, another user's id
        return browser.redirect(
            request,
            "/import",
            done="imported",
            n=did.added,
            updated=did.updated,
            unchanged=did.unchanged,
            refused=did.refused,
        )
