"""The web UI, served by ``orgbrain serve`` beside the HTTP API and MCP: server-rendered
pages over the same facade, the same views and the same API keys and scopes.

``install_ui(app)`` adds its routes (under ``/ui``, and ``/`` leading there) to an app
made by ``create_app``; templates and static assets (the vendored Cytoscape.js among
them) are package data, so every page works with no network.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request
from starlette.responses import RedirectResponse, Response

from .access import UiState, Viewer
from .pages import PAGES
from .render import STATIC_PREFIX, Assets, Renderer
from .routing import HtmlRoute, not_found
from .session import Sessions, UiConfig

__all__ = ["Assets", "Renderer", "Sessions", "UiConfig", "UiState", "Viewer", "install_ui"]


def install_ui(app: FastAPI, config: UiConfig | None = None) -> UiState:
    """Serve the UI from ``app`` (whose ``state.orgbrain`` is the server's context)."""
    state = UiState(Sessions(config or UiConfig()), Renderer())
    app.state.orgbrain_ui = state
    static = APIRouter(include_in_schema=False)

    @static.get(STATIC_PREFIX + "/{version}/{name:path}")
    def asset(version: str, name: str) -> Response:
        return state.renderer.assets.response(version, name)

    @static.get("/favicon.ico")
    def favicon() -> Response:
        # Asked for by browsers (and on pages that are not ours: raw files, JSON).
        return RedirectResponse(state.renderer.assets.url("favicon.svg"), status_code=302)

    app.include_router(static)
    for router in PAGES:
        app.include_router(router)
    fallback = APIRouter(route_class=HtmlRoute, include_in_schema=False)

    @fallback.get("/ui/{rest:path}")
    def missing(request: Request) -> Response:
        return not_found(request)

    app.include_router(fallback)
    return state
