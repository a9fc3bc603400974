"""Sign in with an API key, sign out; ``/`` and ``/ui`` lead to the search page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import RedirectResponse, Response

from ....errors import OrgBrainError
from ....keys import authenticate
from ...auth import context_of
from ..access import Viewing, check_origin, checked, ui_state
from ..routing import HtmlRoute
from ..session import LOGIN_COOKIE, SESSION_COOKIE

__all__ = ["router", "safe_next"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)
HOME = "/ui/search"


def safe_next(target: str | None) -> str:
    """Where to go after signing in: a page of this UI, never another site."""
    if not target or not target.startswith("/ui/") or target.startswith("//") or "\\" in target:
        return HOME
    return target


def set_cookie(response: Response, request: Request, name: str, value: str, max_age: float) -> None:
    """HttpOnly, SameSite=Strict, for the UI's paths only; Secure over HTTPS."""
    response.set_cookie(
        name,
        value,
        max_age=int(max_age),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/ui",
    )


@router.get("/")
def root() -> Response:
    return RedirectResponse(HOME, status_code=307)


@router.get("/ui")
@router.get("/ui/")
def home() -> Response:
    return RedirectResponse(HOME, status_code=307)


def _login_page(
    request: Request, *, next_page: str, error: str | None = None, status: int = 200
) -> Response:
    ui = ui_state(request)
    nonce, token = ui.sessions.login_nonce()
    response = ui.renderer.html(
        "login.html",
        {"viewer": None, "csrf": token, "next": safe_next(next_page), "error": error},
        status=status,
    )
    set_cookie(response, request, LOGIN_COOKIE, nonce, ui.sessions.config.login_s)
    return response


@router.get("/ui/login")
def login_form(
    request: Request, next: Annotated[str | None, Query(max_length=2000)] = None
) -> Response:
    return _login_page(request, next_page=next or HOME)


@router.post("/ui/login")
def login(
    request: Request,
    key: Annotated[str, Form(max_length=200)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
    next: Annotated[str, Form(max_length=2000)] = HOME,
) -> Response:
    ui = ui_state(request)
    check_origin(request)
    if not ui.sessions.check_login(request.cookies.get(LOGIN_COOKIE), csrf):
        return _login_page(
            request,
            next_page=next,
            error="The sign-in form expired (or cookies are off): try again.",
            status=403,
        )
    try:
        api_key = authenticate(context_of(request).keys, key.strip())
        api_key.require("read")
    except OrgBrainError as exc:
        # Never echo what was typed: it may be most of a real key.
        return _login_page(request, next_page=next, error=exc.message, status=401)
    _, cookie = ui.sessions.issue(api_key.id)
    response = RedirectResponse(safe_next(next), status_code=303)
    set_cookie(response, request, SESSION_COOKIE, cookie, ui.sessions.config.session_s)
    response.delete_cookie(LOGIN_COOKIE, path="/ui")
    return response


@router.post("/ui/logout")
def logout(
    request: Request, viewer: Viewing, csrf: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    checked(request, viewer, csrf)
    # In the key store, so every server process over it refuses the session from now on.
    session = viewer.session
    until = ui_state(request).sessions.expires(session)
    context_of(request).keys.end_session(session.id, session.key_id, until)
    response = RedirectResponse("/ui/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/ui")
    return response
