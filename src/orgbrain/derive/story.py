"""The read side of derivation: an item's write story, supersession chains, statements
about an entity, and the open conflicts. Everything is read with the context's eyes."""

from __future__ import annotations

from collections.abc import Sequence

from ..context import BrainContext
from ..errors import InvalidInput
from ..graph import visible_edges
from ..model import Disagreement, Item, Statement, StatementType, Story, Superseding
from .disagreement import disagree

__all__ = ["MAX_CHAIN", "chain", "conflicts", "statements_about", "story"]

MAX_CHAIN = 100
"""The most links ``chain`` follows each way."""
MAX_STEPS = 200
MAX_FLAGGED = 5000
"""The most flagged statements ``conflicts`` reads to pair them: a pair needs both of its
statements, so a limit on pairs is not a limit on statements."""


def story(ctx: BrainContext, item_id: str, derivation: str, error: str | None) -> Story:
    """``item_id``'s write story; ``derivation`` and ``error`` are its job's state."""
    item = ctx.get(item_id)
    steps = ctx.events.events_after(
        ctx.workspace, 0, kinds=("derive", "derived"), subject=item.id, limit=MAX_STEPS
    )
    held = ctx.statements.statements(ctx.workspace, ctx.visibility, item_id=item.id, live=False)
    older, newer = _links(ctx, item)
    return Story(
        item=item,
        acknowledged_at=item.created_at or item.origin.at,
        derivation=derivation,
        steps=tuple(steps),
        statements=tuple(held),
        supersedes=tuple(older),
        superseded_by=tuple(newer),
        error=error,
    )


WHY = ("judge", "probability", "signals", "tier", "llm")
"""What a judged supersession's edge says of the verdict."""


def _links(ctx: BrainContext, item: Item) -> tuple[list[Superseding], list[Superseding]]:
    edges = visible_edges(ctx, item.id, types=("SUPERSEDES",), limit=MAX_CHAIN)
    found = ctx.get_many(sorted({e.src for e in edges} | {e.dst for e in edges}))
    older: list[Superseding] = []
    newer: list[Superseding] = []
    for e in edges:
        new, old = found.get(e.src), found.get(e.dst)
        if new is None or old is None:
            continue
        why = {k: e.props[k] for k in WHY if k in e.props}
        link = Superseding(new, old, e.origin, str(e.props.get("reason", "explicit")), why)
        (older if new.id == item.id else newer).append(link)
    return older, newer


def chain(ctx: BrainContext, item_id: str) -> tuple[Item, list[Superseding], list[Superseding]]:
    """The supersession chain through ``item_id`` both ways: what it replaced (and what
    those replaced, nearest first) and what replaced it (nearest first)."""
    item = ctx.get(item_id)
    back: list[Superseding] = []
    forward: list[Superseding] = []
    for out, pick in ((back, 0), (forward, 1)):
        seen = {item.id}
        frontier = [item]
        while frontier and len(out) < MAX_CHAIN:
            nxt: list[Item] = []
            for node in frontier:
                for link in _links(ctx, node)[pick]:
                    other = link.old if pick == 0 else link.new
                    if other.id not in seen:
                        seen.add(other.id)
                        out.append(link)
                        nxt.append(other)
            frontier = nxt
    return item, back, forward


def statements_about(
    ctx: BrainContext,
    entity_ids: Sequence[str],
    *,
    types: Sequence[StatementType] | None = None,
    current: bool | None = True,
    limit: int = 200,
) -> list[Statement]:
    """Statements whose subject (or object) is one of ``entity_ids``, oldest first."""
    if not entity_ids:
        return []
    if limit < 1:
        raise InvalidInput("limit must be at least 1")
    ws, vis = ctx.workspace, ctx.visibility
    out = {
        s.id: s
        for s in ctx.statements.statements(
            ws, vis, subject_ids=entity_ids, types=types, current=current, limit=limit
        )
    }
    for s in ctx.statements.statements(
        ws, vis, object_ids=entity_ids, types=types, current=current, limit=limit
    ):
        out.setdefault(s.id, s)
    return sorted(out.values(), key=lambda s: s.valid_from)[:limit]


def conflicts(ctx: BrainContext, limit: int = 200) -> list[Disagreement]:
    """At most ``limit`` pairs of current statements that disagree, each pair once,
    oldest first."""
    flagged = ctx.statements.statements(
        ctx.workspace, ctx.visibility, current=True, conflicted=True, limit=MAX_FLAGGED
    )
    by_id = {s.id: s for s in flagged}
    items = ctx.get_many(sorted({s.item_id for s in flagged}))
    pairs: list[Disagreement] = []
    seen: set[frozenset[str]] = set()
    for s in flagged:
        for other_id in s.conflicts:
            other = by_id.get(other_id)
            key = frozenset((s.id, other_id))
            if other is None or key in seen:
                continue  # superseded since, or not visible to this reader
            seen.add(key)
            if not disagree(s, other, items):
                continue  # flagged by an older judge: a field line, or one file's sections
            pairs.append(Disagreement(s, other))
            if len(pairs) == limit:
                return pairs
    return pairs
