"""Scopes and who may see them.

A scope is ``org`` (everyone in the workspace), ``team:<id>`` or ``user:<id>``. A missing
scope means ``org``. A principal sees org, its own teams and itself; nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import Forbidden, InvalidInput

__all__ = ["Principal", "Visibility", "narrowest_scope", "parse_scope"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$")


def parse_scope(scope: str | None) -> str:
    """Normalise and validate a scope string; ``None`` or empty means ``org``."""
    if scope is None or scope.strip() == "":
        return "org"
    s = scope.strip()
    if s == "org":
        return s
    prefix, sep, ident = s.partition(":")
    if sep and prefix in ("team", "user") and _ID.match(ident):
        return f"{prefix}:{ident}"
    raise InvalidInput(f"invalid scope {scope!r}: use org, team:<id> or user:<id>")


@dataclass(frozen=True, slots=True)
class Visibility:
    """The set of scopes a reader may see; ``None`` scopes means unrestricted (local owner)."""

    scopes: frozenset[str] | None = None

    def allows(self, scope: str) -> bool:
        return self.scopes is None or scope in self.scopes

    @classmethod
    def everything(cls) -> Visibility:
        return cls(None)


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: a user (or an agent acting for one) in a workspace, with their teams."""

    workspace: str
    user_id: str
    team_ids: frozenset[str] = frozenset()
    agent: bool = False
    review: bool = False
    """May approve or reject write-back proposals at ``org`` and at its own teams (an API
    key's ``review`` permission). A person always reviews proposals in their own scope; an
    agent acting for them only with ``review``, so an agent cannot approve what it proposed."""
    write: bool = True
    """Holds an API key's ``write`` permission (a principal made in Python writes). A
    decision on a proposal needs ``review`` or this (``may_decide``), on every surface."""

    def may_review(self, scope: str) -> bool:
        """Whether this principal may see a proposal stored at ``scope`` in its inbox."""
        if scope.startswith("user:"):
            return scope == f"user:{self.user_id}" and (self.review or not self.agent)
        return self.review and self.visibility.allows(scope)

    def may_decide(self, scope: str) -> bool:
        """Whether this principal may approve or reject a proposal stored at ``scope``: one
        it sees, and a key with ``review`` or ``write`` (a read-only key only reads)."""
        return self.may_review(scope) and (self.review or self.write)

    @property
    def visibility(self) -> Visibility:
        scopes = {"org", f"user:{self.user_id}"} | {f"team:{t}" for t in self.team_ids}
        return Visibility(frozenset(scopes))

    def check_write_scope(self, scope: str) -> str:
        """A write may only target a scope the principal belongs to."""
        s = parse_scope(scope)
        if not self.visibility.allows(s):
            raise Forbidden(f"cannot write to scope {s}: not one of yours")
        return s


def narrowest_scope(scopes: list[str]) -> str:
    """The narrowest of the sources' scopes; fail closed if two cannot be compared.

    org ⊃ team:x ⊃ user:y is only comparable along one chain; since team membership is not
    known here, a team and a user scope (or two different teams or users) are incomparable.
    """
    parsed = {parse_scope(s) for s in scopes} or {"org"}
    narrower = parsed - {"org"}
    if not narrower:
        return "org"
    if len(narrower) == 1:
        return next(iter(narrower))
    raise Forbidden(f"sources have incomparable scopes: {', '.join(sorted(narrower))}")
