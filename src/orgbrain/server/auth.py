"""Bearer API keys to a caller: the key decides the workspace, the principal and what it
may do; a client never sends a scope to read with.

Routes take ``Reader``, ``Writer``, ``Reviewer`` or ``Admin``: each authenticates the
key, checks its permission (``Reviewer``: ``review`` or ``write``; the proposals a key may
decide are then narrowed by ``Principal.may_review``), and hands the route
``caller.brain`` — the shared brain seen and written through the key's principal. Other
transports mounted in the app (MCP) authenticate with ``caller_for(context,
authorization_header)``.

``ServerContext`` (``app.state.orgbrain``) is what requests are served from: the shared
brain, the key store, the job workers and the ``ServerConfig``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..brain import Brain
from ..errors import Forbidden
from ..keys import ApiKey, KeyStore, Permission, authenticate
from ..settings import Settings
from .worker import WorkerPool

__all__ = [
    "Admin",
    "Authenticated",
    "Caller",
    "Reader",
    "Reviewer",
    "ServerConfig",
    "ServerContext",
    "Writer",
    "bearer_token",
    "caller_for",
    "context_of",
    "require",
]

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="ApiKey",
    bearerFormat="ob_<id>_<secret>",
    description="An orgbrain API key: `Authorization: Bearer ob_...`",
)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How the server behaves; read once by ``orgbrain serve`` and passed in."""

    deadline_s: float = 30.0
    max_file_bytes: int = Settings().max_file_bytes
    max_json_bytes: int = 2 * 1024 * 1024
    index_threads: int = 2
    """Two, so one workspace's slow file never holds another's (a claim is one workspace's)."""
    stream_max_s: float = 3600.0
    """The longest a following event stream stays open, whatever it asked for."""
    job_lease_s: float = 60.0

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: object) -> ServerConfig:
        values: dict[str, object] = {"max_file_bytes": settings.max_file_bytes}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


@dataclass(slots=True)
class ServerContext:
    """What every request is served from: one brain for all workspaces, the key store,
    the job workers and the config."""

    brain: Brain
    keys: KeyStore
    worker: WorkerPool
    config: ServerConfig = field(default_factory=ServerConfig)
    ready: bool = False


@dataclass(frozen=True, slots=True)
class Caller:
    key: ApiKey
    brain: Brain


def context_of(request: Request) -> ServerContext:
    ctx = request.app.state.orgbrain
    assert isinstance(ctx, ServerContext)
    return ctx


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header value, else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def caller_for(
    ctx: ServerContext, authorization: str | None, permission: Permission = "read"
) -> Caller:
    """Authenticate a header value and check one permission (for non-FastAPI transports)."""
    key = authenticate(ctx.keys, bearer_token(authorization))
    key.require(permission)
    return Caller(key, ctx.brain.for_principal(key.principal))


def require(permission: Permission | tuple[Permission, ...] | None) -> Any:
    """A dependency: the caller of a valid key holding ``permission`` (one of them, for a
    tuple; None: any key)."""

    def dependency(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> Caller:
        ctx = context_of(request)
        key = authenticate(ctx.keys, credentials.credentials if credentials else None)
        # For the access log: who, never what they sent.
        request.state.key_id = key.id
        request.state.workspace = key.workspace
        if isinstance(permission, tuple):
            if not any(key.allows(p) for p in permission):
                raise Forbidden(f"this key lacks the {' or '.join(permission)} permission")
        elif permission is not None:
            key.require(permission)
        return Caller(key, ctx.brain.for_principal(key.principal))

    return Depends(dependency)


Authenticated = Annotated[Caller, require(None)]
Reader = Annotated[Caller, require("read")]
Writer = Annotated[Caller, require("write")]
Admin = Annotated[Caller, require("admin")]
Reviewer = Annotated[Caller, require(("review", "write"))]
"""Approves or rejects proposals: a key with ``review`` (org, its teams, its user) or with
``write`` (a person deciding their own personal proposals)."""
