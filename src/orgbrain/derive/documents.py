"""A document that supersedes another retires what the older one said.

A link (``extraction/documents.py``) is a statement between two codes: (new,
``supersedes``, old) or (old, ``superseded_by``, new). The document of a code is the item
titled by it (its body starts with the code, past any heading marks); the older
document is one written no later than the newer one, and never the item that states the
link ("ADR-003 status: superseded by ADR-017" starts with ADR-003 but is not ADR-003).
Settling a link ends each current statement of the older document that the newer one
does not also state, each superseded by the newer document's statement of the same
subject and predicate when it has one (else its first statement, else the link); the
older item then follows by the item rule (superseded once none of its statements is
current). A "superseded by" link read before the newer document was written retires
nothing (it is not settled again when that document arrives).
"""

from __future__ import annotations

import re
from datetime import datetime

from ..context import BrainContext
from ..extraction.documents import LINKS
from ..model import Item, Statement

__all__ = ["settle_link"]

MENTIONS_READ = 200
"""The most mentions of a code read to find the documents it titles."""

_MARKUP = re.compile(r"[\s#*_>`-]*")


def settle_link(ctx: BrainContext, link: Statement) -> list[tuple[Statement, Statement]]:
    """End the older document's statements for ``link``; each ``(ended, successor)``."""
    if link.predicate not in LINKS or link.object_id is None or not link.current:
        return []
    old_code, new_code = (
        (link.object_id, link.subject_id)
        if link.predicate == "supersedes"
        else (link.subject_id, link.object_id)
    )
    newer = _titled(ctx, new_code)
    if not newer and link.predicate == "supersedes":  # the link's own record is the newer
        newer = list(ctx.get_many([link.item_id]).values())
    if not newer:
        return []
    new_doc = max(newer, key=lambda i: i.when)
    older = [
        i
        for i in _titled(ctx, old_code)
        if i.id not in (new_doc.id, link.item_id)
        and i.when <= new_doc.when
        and i.scope == new_doc.scope
    ]
    if not older:
        return []
    store, ws, vis = ctx.store, ctx.workspace, ctx.visibility
    stated = store.statements(ws, vis, item_id=new_doc.id, current=True)
    kept = {s.id for s in stated}
    ended: list[tuple[Statement, Statement]] = []
    for doc in older:
        for old in store.statements(ws, vis, item_id=doc.id, current=True):
            if old.id in kept or old.id == link.id or old.item_id != doc.id:
                continue
            by = _successor(old, stated, link)
            at = max(link.valid_from, old.valid_from)
            if store.end_statement(ws, old.id, at, by.id):
                ended.append((old, by))
    return ended


def _titled(ctx: BrainContext, code_id: str) -> list[Item]:
    """The visible notes and sections whose text starts with the code ``code_id`` names."""
    store, ws, vis = ctx.store, ctx.workspace, ctx.visibility
    edges = store.edges_of(ws, code_id, vis, types=["MENTIONS"], limit=MENTIONS_READ)
    named = {e.src: str(e.props.get("text") or "") for e in edges if e.dst == code_id}
    found = ctx.get_many(sorted(named))
    titled: list[Item] = []
    for item_id, item in found.items():
        code = named[item_id]
        at = _MARKUP.match(item.body).end()  # type: ignore[union-attr]
        after = item.body[at + len(code) : at + len(code) + 1]
        if (
            item.storage_class in ("note", "section")
            and code
            and item.body.startswith(code, at)
            and not (after.isalnum() or after == "-")
        ):
            titled.append(item)
    return titled


def _successor(old: Statement, stated: list[Statement], link: Statement) -> Statement:
    """What in the newer document replaced ``old``: its statement of the same subject and
    predicate, else of the same predicate, else its first statement, else the link."""
    said = [s for s in stated if s.predicate not in LINKS]
    for found in (
        [s for s in said if s.subject_id == old.subject_id and s.predicate == old.predicate],
        [s for s in said if s.predicate == old.predicate],
        said,
    ):
        if found:
            return min(found, key=_first)
    return link


def _first(s: Statement) -> tuple[int, datetime]:
    return (s.byte_range.start if s.byte_range else 0, s.valid_from)
