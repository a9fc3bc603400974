"""Who is looking: the signed-in key behind a page, seen through its scopes.

``Viewer`` is a page's caller: the session's key, looked up again on every request (a
revoked key ends its sessions at once), and ``brain``, the shared brain seen through that
key's principal, the same as an HTTP or MCP caller with that key. A page shows only what
``viewer.brain`` returns, so what a key cannot see, a page cannot show.

A form that changes something passes ``checked(viewer, token)``: the session's CSRF
token must match, and a browser's ``Origin``, when sent, must be this server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from ...brain import Brain
from ...errors import Forbidden
from ...keys import ApiKey, Permission
from ..auth import context_of
from .render import Renderer
from .session import SESSION_COOKIE, Session, Sessions

__all__ = [
    "CSRF_HEADER",
    "SignInNeeded",
    "UiState",
    "Viewer",
    "Viewing",
    "check_origin",
    "checked",
    "ui_state",
]

CSRF_HEADER = "x-csrf-token"


class SignInNeeded(Exception):
    """No session, or one that ended: the page sends the browser to the sign-in form
    (``HtmlRoute`` turns it into that redirect; it never reaches the app's handlers)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class UiState:
    sessions: Sessions
    renderer: Renderer


@dataclass(frozen=True, slots=True)
class Viewer:
    key: ApiKey
    brain: Brain
    session: Session
    csrf: str

    @property
    def may_write(self) -> bool:
        return self.key.allows("write")

    @property
    def may_review(self) -> bool:
        # Principal.may_decide, for the key's own proposals
        return self.key.allows("review") or (self.key.allows("write") and not self.key.agent)

    def require(self, permission: Permission) -> None:
        self.key.require(permission)


def ui_state(request: Request) -> UiState:
    state = request.app.state.orgbrain_ui
    assert isinstance(state, UiState)
    return state


def _viewer(request: Request) -> Viewer:
    ui = ui_state(request)
    session = ui.sessions.read(request.cookies.get(SESSION_COOKIE))
    if session is None:
        raise SignInNeeded("sign in with an API key")
    keys = context_of(request).keys
    if keys.session_ended(session.id):
        raise SignInNeeded("this session was signed out: sign in again")
    found = keys.find(session.key_id)
    if found is None or not found.key.active:
        raise SignInNeeded("this key was revoked: sign in with another")
    key = found.key
    if not key.allows("read"):
        raise SignInNeeded("this key cannot read")
    request.state.key_id = key.id  # for the access log: who, never what they sent
    request.state.workspace = key.workspace
    # Its searches count as the web UI's (docs/loop.md, "Surfaces").
    brain = context_of(request).brain.for_principal(key.principal).via("ui")
    return Viewer(key, brain, session, ui.sessions.csrf(session))


Viewing = Annotated[Viewer, Depends(_viewer)]


def check_origin(request: Request) -> None:
    """A browser names the page a form came from: it must be this server."""
    origin = request.headers.get("origin")
    if origin is None:
        return
    host = request.headers.get("host", "")
    if origin.split("://", 1)[-1] != host:
        raise Forbidden("this form came from another site")


def checked(request: Request, viewer: Viewer, token: str | None) -> Viewer:
    """``viewer`` once the form's CSRF token (or the ``X-CSRF-Token`` header) matches."""
    check_origin(request)
    sent = token or request.headers.get(CSRF_HEADER)
    if not ui_state(request).sessions.check_csrf(viewer.session, sent):
        raise Forbidden("the form's security token is missing or stale: reload the page")
    return viewer
