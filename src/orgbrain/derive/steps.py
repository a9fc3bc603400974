"""Deriving one item, step by step, after its write was acknowledged.

The steps, in order, each idempotent (run again on the same item, they add nothing):

1. ``mentions``: the entities its text names, each a ``MENTIONS`` edge with its bytes;
2. ``statements``: its typed claims (``statements.record_claim``), with corroboration,
   supersession and conflicts;
3. ``restated``: the values it states again as a change, and what they replaced
   (``restated.py``: "raised to 35 days (was 14)" ends "Retention: 14 days");
4. ``judged``: what the supersession judge says each of its units replaces, or is
   replaced by, among its neighbours' units (``judged.py``); where the settings let the
   judge decide (``supersession`` ``judge`` or ``both``, and with the rules alone for
   units in another language than English, which no rule reads), and elsewhere as
   advice for the reader (a ``SAME_SLOT`` edge: "an older answer");
5. ``similar``: ``SIMILAR_TO`` edges to its nearest answerable neighbours above
   ``SIMILAR_MIN`` cosine, at most ``SIMILAR_MAX`` per item;
6. ``sequence``: a ``FOLLOWED_BY`` edge from the note written just before it in the same
   run or session.

Each step's outcome is logged as a ``derive`` event about the item (its write story, and
the feed ``GET /v1/events`` streams); the last is ``derived``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..context import BrainContext
from ..conversation import is_conversational
from ..extraction import Extraction, Extractor
from ..graph import observe_mention, put_system_edge
from ..model import Item
from ..ports import ItemFilter
from .documents import settle_revision, settle_waiting
from .judged import judge_item
from .restated import restate
from .statements import CONFLICT_WINDOW, evidence_range, record_claim, supersede_item

__all__ = ["SIMILAR_MAX", "SIMILAR_MIN", "Derived", "derive_item"]

SIMILAR_MIN = 0.75
"""Cosine above which two items are linked as similar: on the statements dev set, 83% of
sentence pairs at 0.75 or more are about the same subject (0.78 at 0.70, 0.77 at 0.80;
bench/derive.py)."""
SIMILAR_MAX = 5
RUN_NEIGHBOURS = 1000
"""The most notes of one run looked at to find the one written before."""


@dataclass
class Derived:
    """What deriving one item produced, step by step."""

    item_id: str
    steps: list[dict[str, object]] = field(default_factory=list)

    def count(self, key: str) -> int:
        return sum(n for s in self.steps if isinstance(n := s.get(key), int))


Step = Callable[[BrainContext, Item, Extraction], dict[str, object]]


def derive_item(
    ctx: BrainContext, item: Item, extractor: Extractor, known: Sequence[tuple[str, str]] = ()
) -> Derived:
    """Run every step on ``item`` and log each; returns what they produced."""
    out = Derived(item.id)
    started = time.perf_counter()
    extraction = _extract(extractor, item, known)
    steps: tuple[tuple[str, Step], ...] = (
        ("mentions", _mentions),
        ("statements", _statements),
        ("restated", _restated),
        ("judged", _judged),
        ("similar", _similar),
        ("sequence", _sequence),
    )
    for name, step in steps:
        t0 = time.perf_counter()
        produced = step(ctx, item, extraction)
        record: dict[str, object] = {
            "item_id": item.id,
            "step": name,
            "ms": round((time.perf_counter() - t0) * 1000, 2),
            **produced,
        }
        ctx.events.log_event(ctx.workspace, "derive", record)
        out.steps.append(record)
    ctx.events.log_event(
        ctx.workspace,
        "derived",
        {
            "item_id": item.id,
            "ms": round((time.perf_counter() - started) * 1000, 2),
            "entities": out.count("entities"),
            "statements": out.count("statements"),
            "edges": out.count("edges"),
        },
    )
    return out


_SPEAKER = re.compile(r"\s*[^:\n]{1,60}:\s+")


def _extract(extractor: Extractor, item: Item, known: Sequence[tuple[str, str]]) -> Extraction:
    """What ``item`` says. A conversation's turn ("Maria: Hey John!") is read without its
    speaker's label, which names who speaks, not a statement about Maria; offsets stay
    the item body's."""
    if not is_conversational(item):
        return extractor.extract(item.body, known=known)
    m = _SPEAKER.match(item.body)
    at = m.end() if m else 0
    found = extractor.extract(item.body[at:], known=known)
    if not at:
        return found
    return Extraction(
        tuple(replace(f, start=f.start + at, end=f.end + at) for f in found.entities),
        tuple(
            replace(
                c,
                start=c.start + at,
                end=c.end + at,
                subject=replace(c.subject, start=c.subject.start + at, end=c.subject.end + at),
                object_entity=None
                if c.object_entity is None
                else replace(
                    c.object_entity,
                    start=c.object_entity.start + at,
                    end=c.object_entity.end + at,
                ),
            )
            for c in found.claims
        ),
    )


def _mentions(ctx: BrainContext, item: Item, extraction: Extraction) -> dict[str, object]:
    entities: list[str] = []
    created = 0
    for f in extraction.entities:
        br = evidence_range(item, f.start, f.end)
        m = observe_mention(
            ctx,
            item.id,
            f.type,
            f.value,
            item.body[f.start : f.end],
            start=br.start if br else None,
            end=br.end if br else None,
            run_id=item.origin.run_id,
        )
        entities.append(m.entity.id)
        created += int(m.edge_created)
    return {"entities": len(set(entities)), "edges": created, "entity_ids": sorted(set(entities))}


def _statements(ctx: BrainContext, item: Item, extraction: Extraction) -> dict[str, object]:
    ids: list[str] = []
    superseded: list[str] = []
    conflicts: list[str] = []
    items: list[str] = []
    corroborated = 0
    for claim in extraction.claims:
        r = record_claim(ctx, item, claim)
        ids.append(r.statement.id)
        superseded += r.superseded
        conflicts += r.conflicts
        items += r.items_superseded
        corroborated += r.outcome == "corroborated"
        if r.born_superseded_by:
            superseded.append(r.statement.id)
    for old, by in settle_waiting(ctx, item, extraction):  # links that named it earlier
        superseded.append(old.id)
        if (marked := supersede_item(ctx, old.item_id, by.item_id)) is not None:
            items.append(marked)
    return {
        "statements": len(set(ids)),
        "statement_ids": sorted(set(ids)),
        "corroborated": corroborated,
        "superseded": superseded,
        "conflicts": conflicts,
        "items_superseded": items,
    }


def _restated(ctx: BrainContext, item: Item, _: Extraction) -> dict[str, object]:
    """Values restated as a change (unless the judge alone decides), then a revised
    document's earlier versions."""
    found: dict[str, object] = {"pairs": 0}
    if ctx.settings.supersession != "judge":
        found = restate(ctx, item)
    revised = [
        marked
        for old, new in settle_revision(ctx, item, CONFLICT_WINDOW)
        if (marked := supersede_item(ctx, old, new, version=True)) is not None
    ]
    return found | {"revisions": revised} if revised else found


def _judged(ctx: BrainContext, item: Item, _: Extraction) -> dict[str, object]:
    return judge_item(ctx, item)


def _similar(ctx: BrainContext, item: Item, _: Extraction) -> dict[str, object]:
    if not item.indexed or item.tombstoned_at is not None:
        return {"edges": 0}
    vectors = ctx.items.embedding_of(ctx.workspace, item.id)
    if vectors is None:
        return {"edges": 0}
    found: dict[str, float] = {}
    for cls in ("note", "section"):
        hits = ctx.search.vector_search(
            ctx.workspace, cls, vectors[0], SIMILAR_MAX + 1, ctx.visibility
        )
        for other, score in hits:
            if other != item.id and score >= SIMILAR_MIN:
                found[other] = max(score, found.get(other, 0.0))
    best = sorted(found.items(), key=lambda kv: -kv[1])[:SIMILAR_MAX]
    others = ctx.get_many([o for o, _ in best])
    made = 0
    for other, _score in best:
        o = others.get(other)
        if o is None or (item.parent_id and o.parent_id == item.parent_id):
            continue  # sections of one file are linked by their file already
        a, b = sorted((item.id, other))  # one edge per pair, whichever side derives first
        put_system_edge(ctx, "SIMILAR_TO", a, b, "derive")
        made += 1
    return {"edges": made, "similar": [o for o, _ in best]}


def _sequence(ctx: BrainContext, item: Item, _: Extraction) -> dict[str, object]:
    run = item.origin.run_id
    if not run or item.storage_class != "note":
        return {"edges": 0}
    page = ctx.items.list_items(
        ctx.workspace,
        ItemFilter(storage_class="note", run_id=run),
        ctx.visibility,
        limit=RUN_NEIGHBOURS,
    )
    ids = [i.id for i in page.items]
    at = ids.index(item.id) if item.id in ids else -1
    if at <= 0:
        return {"edges": 0}
    put_system_edge(ctx, "FOLLOWED_BY", ids[at - 1], item.id, "derive")
    return {"edges": 1, "after": ids[at - 1]}
