"""Statements from claims, and what a new statement does to the ones before it.

A claim the extractor found becomes a ``Statement`` about an entity, with the exact bytes
it was read from. Then, among the statements of one subject and predicate:

- the same object again, while current, **corroborates** it (more evidence, no new row);
- a different object valid later **supersedes** the earlier (which gets ``valid_to``); an
  older one that arrives late is **born superseded** by the first one after it;
- a different object at an overlapping time (within ``CONFLICT_WINDOW``), from another
  source, is a **conflict**: both are kept and both flagged.

Only single-valued predicates supersede by time: a person may prefer many things and many
events happen, so preferences, events and multi-valued predicates are replaced only when a
claim says so ("X instead of Y"). Subjects are entities in one scope, so supersession never
crosses scopes.

A named replacement reaches across one family of predicates, ``REPLACEABLE``: what a
thing uses, runs on or is (``uses``, ``is``) and what it moves to (``migration_target``)
name the same slot, so "the ledger moves to CockroachDB instead of Postgres" ends "the
ledger uses Postgres". Only the subject's current statements whose object is the named
one are ended; owners, dates, statuses and the rest never take part (a name in "instead
of Priya's scripts" cannot close who owns a thing). A thing that is gone ("Jenkins is
retired", a dated retirement, "Sentry is replaced by Bugsnag") ends the current
``REPLACEABLE`` statements in its scope whose object is that entity, whatever their
subject: the one rule that crosses subjects, and it matches entities, not words. A use
recorded later than the retirement but dated no later than it is born superseded by it;
one dated after it (the thing came back) is not. A named replacement also ends the same use stated
under another subject when that statement's sentence holds every word of the new subject
and lists nothing else ("The checkout team uses Jenkins for deploys." / "We moved checkout
deploys from Jenkins to GitHub Actions.").

An item whose statements have all been superseded is itself superseded by the item
holding the newer statement (``SUPERSEDES``); one with any current statement is not (a
note that says two things, one still true, stays current). Nothing is edited in place:
statements and items are closed, never rewritten or dropped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from ..context import BrainContext
from ..extraction import Claim
from ..extraction.context import apart_in_kind, context_of
from ..extraction.documents import LINKS
from ..extraction.predicates import (
    REPLACEABLE,
)
from ..extraction.qualifiers import other_records, told_apart
from ..extraction.states import a_state
from ..graph import entity_for, rekey_around
from ..ids import new_id
from ..model import ByteRange, Edge, Evidence, Item, Statement
from .changes import kin_statements, norm, same_wording
from .disagreement import disagree
from .documents import settle_link
from .gone import gone_after, left, named_elsewhere, retire

__all__ = [
    "CONFLICT_WINDOW",
    "MULTI_VALUED",
    "REPLACEABLE",
    "Recorded",
    "evidence_range",
    "norm",
    "record_claim",
    "supersede_item",
]

CONFLICT_WINDOW = timedelta(days=1)
"""Two different objects valid within this much of each other disagree rather than one
replacing the other (a write time or a sentence's date is no finer than a day)."""

AHEAD = re.compile(
    r"\b(?:will|shall|plans?|planned|planning|going\s+to|intends?|aims?|soon|eventually|"
    r"next\s+(?:week|month|quarter|year|sprint)|later\s+this|Q[1-4]|by\s+(?:the\s+)?"
    r"end\s+of|(?:is|are)\s+moving|evaluat\w*|roadmap)\b",
    re.IGNORECASE,
)
"""A move still ahead ("will move to", "is moving to ... next quarter", "Q2 2027: evaluate
moving expenses to Ramp"): where a thing is
going, not what it uses now. A move said as done or now ("moves to", "moved to",
"migrated to") ends the subject's one current ``uses``."""

MULTI_VALUED = frozenset(
    {"prefers", "likes", "dislikes", "wants", "avoids", "uses", "member_of", "mentions"}
    | LINKS  # one record may supersede several
)


@dataclass(frozen=True, slots=True)
class Recorded:
    """What one claim did: the statement it landed on and how."""

    statement: Statement
    outcome: str  # "new" | "corroborated" | "again" (this evidence was already recorded)
    superseded: tuple[str, ...] = ()
    born_superseded_by: str | None = None
    conflicts: tuple[str, ...] = ()
    items_superseded: tuple[str, ...] = ()


def evidence_range(item: Item, start: int, end: int) -> ByteRange | None:
    """The bytes of ``item.body[start:end]``: in the item's text blob for a section whose
    body is that blob's slice, in the body's UTF-8 for a note."""
    head = len(item.body[:start].encode())
    size = len(item.body[start:end].encode())
    if item.byte_range is None:
        return ByteRange(head, head + size)
    if len(item.body.encode()) != item.byte_range.length:
        return item.byte_range  # the body is not the blob's slice: cite the whole section
    return ByteRange(item.byte_range.start + head, item.byte_range.start + head + size)


def valid_from(item: Item, claim: Claim) -> datetime:
    if item.occurred_at is not None:
        return item.occurred_at
    if claim.valid_from is not None:
        return _at_midnight(claim.valid_from)
    return item.origin.at


def _at_midnight(d: date) -> datetime:
    return datetime.combine(d, time(), tzinfo=UTC)


def record_claim(
    ctx: BrainContext, item: Item, claim: Claim, *, why: Mapping[str, object] | None = None
) -> Recorded:
    """Write ``claim`` (read from ``item``) as a statement, then settle it against the
    statements of the same subject and predicate. Idempotent: recording it again from the
    same bytes changes nothing. ``why`` (the judge's verdict) goes on any item it
    supersedes."""
    subject, _ = entity_for(ctx, claim.subject.type, claim.subject.value, [item])
    obj_id = None
    if claim.object_entity is not None:
        obj, _ = entity_for(ctx, claim.object_entity.type, claim.object_entity.value, [item])
        obj_id = obj.id
    br = evidence_range(item, claim.start, claim.end)
    text = item.body[claim.start : claim.end].strip()
    when = valid_from(item, claim)
    ws, vis = ctx.workspace, ctx.visibility
    ev = Evidence(item.id, br, text, claim.tier, claim.confidence, ctx.clock())

    group = ctx.statements.statements(ws, vis, subject_ids=[subject.id], predicate=claim.predicate)
    if claim.replaces and claim.predicate in REPLACEABLE:
        kin = ctx.statements.statements(ws, vis, subject_ids=[subject.id], current=True)
        group += [
            s
            for s in kin
            if s.predicate in REPLACEABLE - {claim.predicate}
            and norm(s.object) == norm(claim.replaces)
        ]
    if claim.predicate == "migration_target" and not claim.replaces and not AHEAD.search(text):
        used = ctx.statements.statements(
            ws, vis, subject_ids=[subject.id], predicate="uses", current=True
        )
        if len(used) == 1:  # "The status page moves to Instatus." after "... on Statuspage."
            group += used
    if claim.change:
        group += kin_statements(ctx, subject, claim.predicate)
    for s in group:
        same = s.predicate == claim.predicate and s.type == claim.type
        if s.subject_id != subject.id:
            continue
        if same and s.current and norm(s.object) == norm(claim.object):
            added = ctx.statements.add_evidence(ws, s.id, ev)
            return Recorded(s, "corroborated" if added else "again")

    sid = _statement_id(ws, subject.id, claim, item, br)
    new = Statement(
        id=sid,
        workspace=ws,
        type=claim.type,
        subject_id=subject.id,
        subject=subject.label,
        predicate=claim.predicate,
        object=claim.object.strip(),
        object_id=obj_id,
        scope=subject.scope,
        item_id=item.id,
        byte_range=br,
        text=text,
        tier=claim.tier,
        confidence=claim.confidence,
        valid_from=when,
        origin=ctx.origin("derive", item.origin.run_id),
        replaces=claim.replaces,
    )
    saved, created = ctx.statements.put_statement(new)
    if not created:
        return Recorded(saved, "again")
    others = [s for s in group if s.id != saved.id]
    return _settle(ctx, item, saved, others, change=claim.change, why=why)


def _statement_id(ws: str, subject_id: str, c: Claim, item: Item, br: ByteRange | None) -> str:
    material = "\n".join(
        (ws, subject_id, c.predicate, norm(c.object), item.id, str(br.start if br else c.start))
    )
    return "stm_" + hashlib.sha256(material.encode()).hexdigest()[:20]


def _settle(
    ctx: BrainContext,
    item: Item,
    new: Statement,
    others: list[Statement],
    *,
    change: bool,
    why: Mapping[str, object] | None = None,
) -> Recorded:
    ws = ctx.workspace
    fact = new.type in ("fact", "decision")
    single = fact and new.predicate not in MULTI_VALUED
    replaced = norm(new.replaces) if new.replaces else None
    superseded: list[Statement] = []
    conflicts: list[str] = []
    successor: Statement | None = None
    for old in others:
        if norm(old.object) == norm(new.object):
            continue
        if old.subject_id != new.subject_id:
            # Gathered for a stated change only (``_kin_statements``): never by time alone.
            if (
                change
                and old.current
                and same_wording(old, new)
                and old.valid_from < new.valid_from
            ):
                if ctx.statements.end_statement(ws, old.id, new.valid_from, new.id):
                    superseded.append(old)
            continue
        named = replaced is not None and norm(old.object) == replaced
        if old.predicate != new.predicate:
            # Gathered for a named replacement (REPLACEABLE), or the one use of a subject
            # that has since moved (``AHEAD``): never by time alone.
            moved = new.predicate == "migration_target" and old.predicate == "uses"
            moved = moved and new.valid_from - old.valid_from >= CONFLICT_WINDOW
            if (named or moved) and new.valid_from >= old.valid_from and old.current:
                if ctx.statements.end_statement(ws, old.id, new.valid_from, new.id):
                    superseded.append(old)
            continue
        changed = change and fact and not single and same_wording(old, new)
        if not (single or named or changed):
            continue
        if single and not (named or changed) and _other_settings(ctx, old, new):
            continue  # "Hotel cap: $250" in the US policy, "Hotel cap: £180" in the UK one
        gap = new.valid_from - old.valid_from
        by_time = single or changed
        if (named and gap >= timedelta(0)) or (by_time and gap >= CONFLICT_WINDOW):
            if old.current and ctx.statements.end_statement(ws, old.id, new.valid_from, new.id):
                superseded.append(old)
        elif single and -gap >= CONFLICT_WINDOW:
            # Arrived late: the first statement valid after it replaced it.
            if successor is None or old.valid_from < successor.valid_from:
                successor = old
        elif single and old.current and disagree(old, new, ctx.get_many([old.item_id, item.id])):
            ctx.statements.flag_conflict(ws, new.id, old.id)
            conflicts.append(old.id)
    superseded += retire(ctx, new) + named_elsewhere(ctx, new) + left(ctx, new)
    gone = gone_after(ctx, new)
    if gone is not None and (successor is None or gone.valid_from < successor.valid_from):
        successor = gone
    if successor is not None:
        ctx.statements.end_statement(ws, new.id, successor.valid_from, successor.id)
    items = [supersede_item(ctx, old.item_id, new.item_id, why=why) for old in superseded]
    for old, by in settle_link(ctx, new):
        superseded.append(old)
        items.append(supersede_item(ctx, old.item_id, by.item_id))
    if successor is not None:
        items.append(supersede_item(ctx, item.id, successor.item_id, why=why))
    fresh = ctx.statements.statements(ws, ctx.visibility, ids=[new.id], live=False)
    return Recorded(
        fresh[0] if fresh else new,
        "new",
        tuple(s.id for s in superseded),
        successor.id if successor else None,
        tuple(conflicts),
        tuple(i for i in items if i),
    )


def _other_settings(ctx: BrainContext, old: Statement, new: Statement) -> bool:
    """Whether two statements of one subject and predicate, from two items, are two
    settings rather than one changed: their items' first lines with their sentences
    name different qualifiers of one family ("Travel policy (US)", "Travel policy
    (UK)"; of two states, not whom each is rolled out to: "Beta (staff only)", then
    "live for all customers"), or the items are cards of two records ("Service:
    payments-gateway", "Service: payments-ledger"; ``extraction/qualifiers.py``), or what
    each sentence inherits from its item names two things of one kind ("Leeds office
    guide", "Lisbon office guide"; "#launch-atlas", "#launch-beacon":
    ``extraction/context.py``)."""
    if old.item_id == new.item_id:
        return False
    found = ctx.get_many([old.item_id, new.item_id])
    a, b = found.get(old.item_id), found.get(new.item_id)
    if a is None or b is None:
        return False
    first = a.body.split("\n", 1)[0], b.body.split("\n", 1)[0]
    states = a_state(old.object) and a_state(new.object)
    return (
        told_apart(f"{first[0]}\n{old.text}", f"{first[1]}\n{new.text}", states=states)
        or other_records(a.body, b.body)
        or apart_in_kind(
            context_of(a.body, old.text),
            context_of(b.body, new.text),
            old.text,
            new.text,
            states=states,
        )
    )


def supersede_item(
    ctx: BrainContext,
    old_id: str,
    by_id: str,
    *,
    version: bool = False,
    why: Mapping[str, object] | None = None,
) -> str | None:
    """Mark item ``old_id`` superseded by ``by_id`` once none of its statements is current
    any more, or, for an earlier ``version`` of the same document, none but those the
    newer one says too; returns the old id when it was marked. ``why`` is what decided it
    (the judge's version, probability and signals), kept on the edge."""
    if old_id == by_id:
        return None
    ws, vis = ctx.workspace, ctx.visibility
    found = ctx.get_many([old_id, by_id])
    old, new = found.get(old_id), found.get(by_id)
    if old is None or new is None or old.storage_class not in ("note", "section"):
        return None
    held = ctx.statements.statements(ws, vis, item_id=old_id, current=True)
    if version:
        again = {s.id for s in ctx.statements.statements(ws, vis, item_id=by_id, current=True)}
        held = [s for s in held if s.id not in again]
    if old.scope != new.scope or any(s.predicate not in LINKS for s in held):
        return None  # a link ("superseded by ADR-034") keeps nothing current
    edge = Edge(
        new_id("edg"),
        ws,
        "SUPERSEDES",
        new.id,
        old.id,
        ctx.origin("derive"),
        {"reason": "derived", **(why or {}), "dedupe": "supersedes"},
    )
    if not ctx.statements.supersede_item(edge):
        return None
    rekey_around(ctx.store, ws, [old.id])  # its words leave its neighbours' keys
    return old.id
