"""``BrainContext``'s role accessors (``context.py``): each is the context's one store,
typed as the role a service uses: a role is a narrower view, never another store, so what
a service writes through one role it reads back through another."""

from __future__ import annotations

from pathlib import Path

from orgbrain.scopes import Principal
from tests.toy import toy_context

ROLES = ("items", "search", "edges", "events", "statements", "versions", "proposals")
ROLES += ("outbox", "transfer")


def test_every_role_is_the_one_store_for_every_reader(tmp_path: Path) -> None:
    ctx = toy_context(tmp_path)
    try:
        reader = ctx.for_principal(Principal("w", "ana", frozenset({"eng"})))
        for c in (ctx, reader, ctx.acting_as("agent:bot")):
            assert [getattr(c, role) for role in ROLES] == [ctx.store] * len(ROLES)
            assert all(getattr(c, role) is ctx.store for role in ROLES)
    finally:
        ctx.store.close()
