"""How a UI route answers when something goes wrong, and how long it took.

Every UI route is an ``HtmlRoute``: an error from the exception tree becomes an HTML page
with the status the HTTP API would give it (a JSON problem for the few routes a script
calls), a missing or ended session sends the browser to the sign-in form, and every
answer carries ``Server-Timing: app;dur=<ms>`` (what bench/ui.py reads).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import RedirectResponse, Response

from ...errors import InvalidRequest, NotFound, OrgBrainError
from ..problems import error_response, problem_response, status_for
from .access import SignInNeeded, ui_state

__all__ = ["HtmlRoute", "wants_json"]

log = logging.getLogger("orgbrain.ui")


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return request.url.path.endswith(".json") or (
        "application/json" in accept and "text/html" not in accept
    )


class HtmlRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            t0 = time.perf_counter()
            try:
                response = await handler(request)
            except SignInNeeded as exc:
                response = _sign_in(request, exc)
            except OrgBrainError as exc:
                response = _error(request, status_for(exc), exc.code, exc.message)
            except RequestValidationError as exc:
                first = exc.errors()[0] if exc.errors() else {}
                where = ".".join(str(p) for p in first.get("loc", ()))
                detail = f"{where}: {first.get('msg', 'invalid')}" if first else "invalid request"
                response = _error(request, 422, InvalidRequest.code, detail)
            except StarletteHTTPException as exc:
                detail = exc.detail if isinstance(exc.detail, str) else "error"
                response = _error(request, exc.status_code, "http_error", detail)
            ms = (time.perf_counter() - t0) * 1000
            response.headers["Server-Timing"] = f"app;dur={ms:.1f}"
            return response

        return route


def _sign_in(request: Request, exc: SignInNeeded) -> Response:
    if wants_json(request) or request.method != "GET":
        return problem_response(401, "unauthenticated", exc.message)
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/ui/login?next={quote(target, safe='')}", status_code=303)


def _error(request: Request, status: int, code: str, message: str) -> Response:
    if wants_json(request):
        return problem_response(status, code, message)
    if status >= 500:
        log.error("a UI page failed: %s %s", code, message)
        return error_page(request, 500, "internal", "internal error")
    return error_page(request, status, code, message)


def error_page(request: Request, status: int, code: str, message: str) -> Response:
    return ui_state(request).renderer.html(
        "error.html",
        {"status": status, "code": code, "message": message, "viewer": None},
        status=status,
    )


def not_found(request: Request) -> Response:
    exc = NotFound(f"no page {request.url.path}")
    if wants_json(request):
        return error_response(exc)
    return error_page(request, 404, exc.code, exc.message)
