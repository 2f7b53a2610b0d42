"""The memory browser: see, search, correct and forget what caim remembers, in a web page.

``caim ui`` serves it (``create_ui_app``); ``caim serve`` mounts the same app (``create_ui``) at
``/ui``. Pages are server-rendered Jinja2 templates (installed with the package), plain HTML forms,
inline SVG charts, no script and nothing loaded from elsewhere. Every page and action goes through
``caim.Memory``, for the caller's user only.

Routes (under ``/ui``):
    GET  /signin, POST /signin (form ``token``), POST /signout
    GET  /                        timeline, newest first, ``?page=N`` (50 a page); charts per week and per category
    GET  /ontology                the ontology tree, memories per term; GET /ontology/{term} lists them (paged)
    POST /ontology/{term}/deny    deny the subtree for this user: its memories are forgotten, none stored later
    POST /ontology/{term}/allow   lift that denial
    GET  /search?q=...            ranked search; each hit with its lexical, dense, time, tag and other scores
    GET  /memories/{id}           thought, dates, tags, source turns, links, history
    POST /memories/{id}/correct   form ``thought``: a new version supersedes it (kept in its history)
    POST /memories/{id}/forget    forgotten everywhere
    POST /forget-all              form ``confirm=yes``: every memory and pending session of the user
    GET  /export                  a JSON download (``Memory.export``)
    GET  /import, POST /import    form file ``file`` (at most the body limit): ``Memory.import_``
    GET  /pending                 the user's sessions waiting for post-thinking

Contracts:

- **Who.** ``POST /signin`` checks the token with ``verify`` (``caim.agent.surfaces.auth.verify`` over
  ``CAIM_AUTH_TOKENS``, as ``caim serve``) and sets the cookie ``caim_session``: a signed value naming
  the user, never the token (HttpOnly, SameSite=Strict, Secure on https, 12 hours;
  ``caim.agent.surfaces.ui.session``). A bad token is a 401 page. Pages also take ``Authorization: Bearer
  <token>`` (scripts). Without either, a page redirects (303) to the sign-in page and an action is a
  401. With ``auth=False`` one local user is served without sign-in, to loopback ``Host`` names only.
- **Hosts.** A request for a host the browser does not serve is a 421, one from another site's page
  (``Origin``) a 403 (``caim.agent.surfaces.web.HostGuard``, the guard of every server caim starts).
- **CSRF.** Every state-changing request is a POST whose form carries ``csrf``, an HMAC of the session
  under the browser's secret; without it (or with another session's) the answer is 403 and nothing
  changes. Bearer-token requests need none (another site cannot send the header).
- **Input.** Ids, terms, page numbers, query text and files are checked before anything is read or
  stored: a bad one is a 4xx page with one line (400; 404 for a memory or term the user does not
  have - another user's memory included; 413 for a body over the limit or a write past the user's
  limits). An import is all or nothing (``caim.memory.transfer``). Templates autoescape; a record id
  that is not plain travels in URLs as ``~`` and its base64, so every stored record opens.
- **Paging.** Lists are paged (50 a page) and each page is one query; the charts and per-term counts
  come from one pass over the user's event times and tags (``Memory.overview``).
"""

from __future__ import annotations

from caim.agent.surfaces.ui.app import DEFAULT_USER, create_ui, create_ui_app

__all__ = ["DEFAULT_USER", "create_ui", "create_ui_app"]
