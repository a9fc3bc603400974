"""API keys: bound at creation to a (workspace, principal, permissions) scope.

A key reads ``ob_<id>_<secret>``. Only ``sha256(id:secret)`` is stored; a lookup is by id
and the hash is compared in constant time. The server derives everything from the key:
a client never sends its workspace or scopes.

``KeyStore`` is the port; ``MemoryKeyStore`` is a real in-memory implementation beside it,
and ``orgbrain.adapters.sqlite.keys.SQLiteKeyStore`` keeps keys in the brain's file.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal, Protocol, get_args

from .errors import Forbidden, InvalidInput, NotFound, Unauthenticated
from .model import utcnow
from .scopes import Principal, parse_scope

__all__ = [
    "KEY_PREFIX",
    "PERMISSIONS",
    "ApiKey",
    "IssuedKey",
    "KeyStore",
    "MemoryKeyStore",
    "Permission",
    "StoredKey",
    "authenticate",
    "check_workspace",
    "hash_secret",
    "issue_key",
    "parse_permissions",
    "parse_principal",
    "parse_token",
    "revoke_key",
]

Permission = Literal["read", "write", "admin", "review"]
PERMISSIONS: tuple[Permission, ...] = get_args(Permission)
KEY_PREFIX = "ob"

_WORKSPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$")
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")
_SECRET = re.compile(r"^[0-9a-f]{64}$")
# Compared against when a key id is unknown, so a miss costs what a hit costs.
_DUMMY_HASH = hashlib.sha256(b"orgbrain:no-such-key").hexdigest()


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as stored and shown: everything but its secret."""

    id: str
    workspace: str
    user_id: str
    permissions: frozenset[Permission]
    created_at: datetime
    team_ids: frozenset[str] = frozenset()
    agent: bool = False
    label: str = ""
    revoked_at: datetime | None = None

    @property
    def principal(self) -> Principal:
        return Principal(
            self.workspace,
            self.user_id,
            self.team_ids,
            self.agent,
            review="review" in self.permissions,
            write="write" in self.permissions,
        )

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def allows(self, permission: Permission) -> bool:
        return permission in self.permissions

    def require(self, permission: Permission) -> None:
        if not self.allows(permission):
            raise Forbidden(f"this key lacks the {permission} permission")


@dataclass(frozen=True, slots=True)
class StoredKey:
    key: ApiKey
    secret_hash: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A new key and its token: the only time the token exists outside the caller."""

    key: ApiKey
    token: str = field(repr=False)


class KeyStore(Protocol):
    """Where keys live. Keys of every workspace share one store; ids are global."""

    def add(self, key: ApiKey, secret_hash: str) -> ApiKey: ...

    def find(self, key_id: str) -> StoredKey | None: ...

    def list_keys(self, workspace: str | None = None) -> list[ApiKey]:
        """Keys oldest first, revoked ones too; every workspace when ``workspace`` is None."""
        ...

    def revoke(self, key_id: str, at: datetime) -> ApiKey:
        """Mark revoked (idempotent: the first revocation time stays); NotFound if absent."""
        ...

    def workspaces(self) -> list[str]:
        """Every workspace that has (or had) a key."""
        ...

    def end_session(self, session_id: str, key_id: str, until: datetime) -> None:
        """Record that the web UI's session ``session_id`` (of ``key_id``) was signed out:
        ``session_ended`` says so to every process over this store until ``until`` (when
        the session would have expired anyway; then it may be forgotten). Idempotent."""
        ...

    def session_ended(self, session_id: str) -> bool:
        """Whether ``session_id`` was signed out (and has not expired since)."""
        ...

    def close(self) -> None: ...


# -- parsing ------------------------------------------------------------------------------


def check_workspace(workspace: str) -> str:
    if not isinstance(workspace, str) or not _WORKSPACE.match(workspace):
        raise InvalidInput(f"invalid workspace {workspace!r}: letters, digits, _ . @ -")
    return workspace


def parse_permissions(value: str | Iterable[str]) -> frozenset[Permission]:
    """``"read,write"`` or an iterable of names; at least one, each a known permission."""
    names = value.split(",") if isinstance(value, str) else list(value)
    out: set[Permission] = set()
    for raw in names:
        name = raw.strip().lower()
        if not name:
            continue
        if name not in PERMISSIONS:
            raise InvalidInput(f"unknown permission {raw!r}: use {', '.join(PERMISSIONS)}")
        out.add(name)
    if not out:
        raise InvalidInput(f"a key needs at least one permission: {', '.join(PERMISSIONS)}")
    return frozenset(out)


def parse_principal(value: str) -> str:
    """``user:alice`` or ``alice`` to the user id ``alice``."""
    text = value.strip() if isinstance(value, str) else ""
    ident = text.removeprefix("user:")
    try:
        scope = parse_scope(f"user:{ident}")
    except InvalidInput:
        raise InvalidInput(f"invalid principal {value!r}: use user:<id>") from None
    return scope.removeprefix("user:")


def _parse_teams(teams: Iterable[str]) -> frozenset[str]:
    out = set()
    for raw in teams:
        t = raw.strip().removeprefix("team:")
        if not t:
            continue
        try:
            out.add(parse_scope(f"team:{t}").removeprefix("team:"))
        except InvalidInput:
            raise InvalidInput(f"invalid team id {raw!r}") from None
    return frozenset(out)


def parse_token(token: str) -> tuple[str, str]:
    """Split ``ob_<id>_<secret>``; Unauthenticated if it is not shaped like a key."""
    prefix, _, rest = token.strip().partition("_")
    key_id, _, secret = rest.partition("_")
    if prefix != KEY_PREFIX or not _KEY_ID.match(key_id) or not _SECRET.match(secret):
        raise Unauthenticated("invalid API key")
    return key_id, secret


def hash_secret(key_id: str, secret: str) -> str:
    return hashlib.sha256(f"{key_id}:{secret}".encode()).hexdigest()


# -- the three operations -----------------------------------------------------------------


def issue_key(
    keys: KeyStore,
    workspace: str,
    user: str,
    permissions: str | Iterable[str],
    *,
    teams: Iterable[str] = (),
    agent: bool = False,
    label: str = "",
) -> IssuedKey:
    """Create a key; the returned token is shown once and never stored."""
    key_id = secrets.token_hex(8)
    secret = secrets.token_hex(32)
    if len(label) > 200:
        raise InvalidInput("a key label is at most 200 characters")
    key = ApiKey(
        id=key_id,
        workspace=check_workspace(workspace),
        user_id=parse_principal(user),
        permissions=parse_permissions(permissions),
        created_at=utcnow(),
        team_ids=_parse_teams(teams),
        agent=agent,
        label=label,
    )
    stored = keys.add(key, hash_secret(key_id, secret))
    return IssuedKey(stored, f"{KEY_PREFIX}_{key_id}_{secret}")


def authenticate(keys: KeyStore, token: str | None) -> ApiKey:
    """The active key ``token`` stands for; Unauthenticated for anything else."""
    if not token:
        raise Unauthenticated("an API key is required: Authorization: Bearer ob_...")
    key_id, secret = parse_token(token)
    found = keys.find(key_id)
    expected = found.secret_hash if found is not None else _DUMMY_HASH
    if not hmac.compare_digest(hash_secret(key_id, secret), expected) or found is None:
        raise Unauthenticated("invalid API key")
    if not found.key.active:
        raise Unauthenticated("this API key has been revoked")
    return found.key


def revoke_key(keys: KeyStore, key_id: str, *, workspace: str | None = None) -> ApiKey:
    """Revoke ``key_id``; within ``workspace`` when given (another's key reads as absent)."""
    found = keys.find(key_id) if isinstance(key_id, str) else None
    if found is None or (workspace is not None and found.key.workspace != workspace):
        raise NotFound(f"no key {key_id}")
    return keys.revoke(key_id, utcnow())


# -- in memory ----------------------------------------------------------------------------


class MemoryKeyStore:
    """A real KeyStore in a dict: for tests and throwaway servers."""

    def __init__(self) -> None:
        self._keys: dict[str, StoredKey] = {}
        self._ended: dict[str, datetime] = {}
        self._lock = threading.Lock()

    def add(self, key: ApiKey, secret_hash: str) -> ApiKey:
        with self._lock:
            if key.id in self._keys:
                raise InvalidInput(f"key id {key.id} exists")
            self._keys[key.id] = StoredKey(key, secret_hash)
        return key

    def find(self, key_id: str) -> StoredKey | None:
        with self._lock:
            return self._keys.get(key_id)

    def list_keys(self, workspace: str | None = None) -> list[ApiKey]:
        with self._lock:
            keys = [s.key for s in self._keys.values()]
        return [k for k in keys if workspace is None or k.workspace == workspace]

    def revoke(self, key_id: str, at: datetime) -> ApiKey:
        with self._lock:
            stored = self._keys.get(key_id)
            if stored is None:
                raise NotFound(f"no key {key_id}")
            if stored.key.revoked_at is None:
                stored = StoredKey(replace(stored.key, revoked_at=at), stored.secret_hash)
                self._keys[key_id] = stored
            return stored.key

    def workspaces(self) -> list[str]:
        with self._lock:
            return sorted({s.key.workspace for s in self._keys.values()})

    def end_session(self, session_id: str, key_id: str, until: datetime) -> None:
        now = datetime.now(UTC)
        with self._lock:
            for sid, when in list(self._ended.items()):
                if when < now:
                    del self._ended[sid]
            self._ended.setdefault(session_id, until if until.tzinfo else until.replace(tzinfo=UTC))

    def session_ended(self, session_id: str) -> bool:
        with self._lock:
            return session_id in self._ended

    def close(self) -> None:
        pass
