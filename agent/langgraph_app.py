"""The LangGraph deployment's HTTP guards: ``deploy/langgraph.json`` loads ``app`` (``http.app``), whose
middleware the LangGraph server puts around every route, its own API included.

- The hosts served: ``caim.agent.web.HostGuard``, the guard of every server caim starts - with
  ``CAIM_ALLOWED_HOSTS`` set, a request for another ``Host`` is a 421 and one from another site's page
  (``Origin``) a 403 (LangGraph Studio's page is another site: list its host to use Studio with this
  deployment); unset, any host (the tokens guard the deployment). ``/ok`` (the server's health) passes.
- One-line refusals: the server's own 4xx answers (its request validation) are cut to their first
  paragraph on one line (``caim.agent.web.OneLineErrors``).

Who may do what is ``caim.agent.auth``'s (the auth handlers).
"""

from __future__ import annotations

from starlette.applications import Starlette

from caim.agent.web import HostGuard, OneLineErrors, served_hosts


def create_app() -> Starlette:
    """The app the LangGraph server takes its middleware from (no routes of its own)."""
    app = Starlette()
    app.add_middleware(OneLineErrors)
    app.add_middleware(HostGuard, hosts=served_hosts(auth=True), public=frozenset({"/ok", "/health"}))
    return app


#: What ``deploy/langgraph.json`` names (``http.app``); built when the server loads this module.
app = create_app()
