"""A document that supersedes another retires what the older one said.

A link (``extraction/documents.py``) is a statement between two codes: (new,
``supersedes``, old) or (old, ``superseded_by``, new). The document of a code is the item
titled by it (a heading that starts with the code, or a first line ``CODE: ...``; "ADR-003
status: superseded by ADR-017" starts with ADR-003 but is not ADR-003). The older record
may state the link itself ("Status: superseded by ADR-034", the usual way an ADR is
retired, often as an edit of the record in place).
Settling a link ends each current statement of the older document that the newer one
does not also state, each superseded by the newer document's statement of the same
subject and predicate when it has one (else its first statement, else the link); the
older item then follows by the item rule (superseded once none of its statements is
current). A "superseded by" link read before the newer record was written waits: it is
settled when a record titled by the newer code is derived (``settle_waiting``).

A document re-issued under its title with a revision mark ("Handbook: Hybrid work
(updated September 2026)", "IT onboarding checklist (rev. August)") is the newer version
of every earlier document of that title, and settles the same way (``settle_revision``):
a title alone says nothing (two "Weekly status" notes are two weeks), the mark says
"this replaces the page you knew".
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..analysis import key_terms
from ..context import BrainContext
from ..extraction import Extraction
from ..extraction.documents import LINKS, title_code
from ..extraction.sentences import split_units
from ..graph import normalise_value
from ..model import Item, Statement

__all__ = ["back_dated", "settle_link", "settle_revision", "settle_waiting"]

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
    older = [i for i in _titled(ctx, old_code) if i.id != new_doc.id and i.scope == new_doc.scope]
    if not older:
        return []
    ws, vis = ctx.workspace, ctx.visibility
    stated = ctx.statements.statements(ws, vis, item_id=new_doc.id, current=True)
    kept = {s.id for s in stated}
    ended: list[tuple[Statement, Statement]] = []
    for doc in older:
        for old in ctx.statements.statements(ws, vis, item_id=doc.id, current=True):
            if old.id in kept or old.id == link.id or old.item_id != doc.id:
                continue
            by = _successor(old, stated, link)
            at = max(link.valid_from, old.valid_from)
            if ctx.statements.end_statement(ws, old.id, at, by.id):
                ended.append((old, by))
    return ended


def settle_waiting(
    ctx: BrainContext, item: Item, extraction: Extraction
) -> list[tuple[Statement, Statement]]:
    """Settle the "superseded by" links that named ``item``'s code before it was written
    ("ADR-021 ... Status: superseded by ADR-034", then ADR-034)."""
    code = title_code(item.body, split_units(item.body), extraction.entities)
    if code is None:
        return []
    ws, vis = ctx.workspace, ctx.visibility
    named = [e.id for e in ctx.statements.entities_named(ws, [normalise_value(code.value)], vis)]
    if not named:
        return []
    waiting = ctx.statements.statements(
        ws, vis, object_ids=named, predicate="superseded_by", current=True
    )
    return [pair for link in waiting for pair in settle_link(ctx, link)]


_REVISED = re.compile(
    r"\s*(?:\((?:updated|rev\.?|revised|revision|version|v\d+)\b[^)]*\)"
    r"|[-\u2013\u2014:]\s*(?:updated|revised)\b.*)\s*$",
    re.IGNORECASE,
)
REVISIONS_READ = 8
"""Items read per stream to find the earlier versions of a revised document."""


def revised_title(body: str) -> tuple[str, bool]:
    """A document's first line less any revision mark, case-folded, and whether it has
    one."""
    first = _MARKUP.sub("", body.split("\n", 1)[0], count=1)
    base = _REVISED.sub("", first)
    return " ".join(base.casefold().split()), base != first


def back_dated(item: Item, window: timedelta) -> bool:
    """Whether ``item`` happened at least ``window`` before it was written: a newer item
    may have been derived before it."""
    return item.occurred_at is not None and item.origin.at - item.when >= window


def settle_revision(ctx: BrainContext, item: Item, window: timedelta) -> list[tuple[str, str]]:
    """Retire the earlier versions of a revised document, whichever is derived first:
    ``(older, newer)`` item ids, each older version's differing statements ended. Only a
    revised item, or a back-dated one (its revision may be there already), looks."""
    if item.storage_class not in ("note", "section") or "\n" not in item.body.strip():
        return []
    title, marked = revised_title(item.body)
    if not (marked or back_dated(item, window)):
        return []
    terms = key_terms(title)
    if not terms:
        return []
    ws, vis = ctx.workspace, ctx.visibility
    ids = {
        i
        for cls in ("note", "section")
        for i, _ in ctx.search.keyword_search(ws, cls, terms, REVISIONS_READ, vis)
    }
    ids.discard(item.id)
    pairs: list[tuple[Item, Item]] = []
    for other in ctx.get_many(sorted(ids)).values():
        other_title, other_marked = revised_title(other.body)
        if other_title != title or other.scope != item.scope or other.tombstoned_at:
            continue
        old, new, new_marked = (
            (other, item, marked) if other.when < item.when else (item, other, other_marked)
        )
        if new_marked and new.when - old.when >= window:
            pairs.append((old, new))
    for old, new in pairs:
        _retire(ctx, old, new)
    return [(old.id, new.id) for old, new in pairs]


def _retire(ctx: BrainContext, old: Item, new: Item) -> None:
    """End each current statement of the older version by the newer's that replaced it
    or says it again (``_successor``): the belief, where it holds, is the newer's now."""
    ws, vis = ctx.workspace, ctx.visibility
    stated = ctx.statements.statements(ws, vis, item_id=new.id, current=True)
    said = [s for s in stated if s.predicate not in LINKS]
    if not said:
        return  # nothing to end them by: the older stays as it is
    shared = {s.id for s in stated}  # one statement both versions say: it holds
    for s in ctx.statements.statements(ws, vis, item_id=old.id, current=True):
        if s.id not in shared:
            by = _successor(s, said, said[0])
            ctx.statements.end_statement(ws, s.id, max(new.when, s.valid_from), by.id)


def _titled(ctx: BrainContext, code_id: str) -> list[Item]:
    """The visible notes and sections titled by the code ``code_id`` names: a heading that
    starts with it (``# ADR-017 Flags``) or a first line ``ADR-011: ...``; "ADR-003
    status: superseded by ADR-017" is a note about ADR-003, not ADR-003."""
    ws, vis = ctx.workspace, ctx.visibility
    edges = ctx.edges.edges_of(ws, code_id, vis, types=["MENTIONS"], limit=MENTIONS_READ)
    named = {e.src: str(e.props.get("text") or "") for e in edges if e.dst == code_id}
    found = ctx.get_many(sorted(named))
    titled: list[Item] = []
    for item_id, item in found.items():
        code = named[item_id]
        at = _MARKUP.match(item.body).end()  # type: ignore[union-attr]
        heading = "#" in item.body[:at]
        after = item.body[at + len(code) : at + len(code) + 1]
        if (
            item.storage_class in ("note", "section")
            and code
            and item.body.startswith(code, at)
            and (after == ":" or (heading and not (after.isalnum() or after == "-")))
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
