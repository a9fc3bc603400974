"""Statement-level supersession on search hits: which older statements a hit's
statements replaced, and which of its statements a newer item replaced.

An item is superseded only once all of its statements are (docs/graph.md), so a note that
says two things, one of them replaced, stays current. Its hit still says which statement
was replaced and by which item, and the newer item's hit says what it replaced. Two store
reads for all the hits together, whatever their number: the hits' statements (read once
by the searcher, for its conflict check too), then the statements on the other side of
those statements' supersession links.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..context import BrainContext
from ..model import Citation, Item, Replacement, Statement
from .graph import TimeFrame

__all__ = [
    "NO_MARKS",
    "Marks",
    "StatementLink",
    "marks_for",
    "replaced_pairs",
    "statement_links",
]


@dataclass(frozen=True, slots=True)
class StatementLink:
    """``new`` replaced ``old``; each is held by a different item."""

    old: Statement
    new: Statement


@dataclass(frozen=True, slots=True)
class Marks:
    """One hit's statement-level marks (``Hit.replaces``, ``Hit.replaced_by``)."""

    replaces: tuple[Replacement, ...] = ()
    replaced_by: tuple[Replacement, ...] = ()


NO_MARKS = Marks()


def statement_links(
    ctx: BrainContext, item_ids: Sequence[str], held: Sequence[Statement], frame: TimeFrame
) -> list[StatementLink]:
    """The supersession links between the statements of ``item_ids`` (``held``: those
    with evidence in them, of which those first read from them count) and those of
    other visible items, as they stand in ``frame``: as of a date, a replacement counts
    only once the newer statement was valid. One store read."""
    ws, vis = ctx.workspace, ctx.visibility
    wanted = set(item_ids)
    by_id = {s.id: s for s in held if s.item_id in wanted}
    if not by_id:
        return []
    by_id.update((s.id, s) for s in ctx.statements.statements(ws, vis, linked_to=sorted(by_id)))
    at = frame.at if frame.mode == "as_of" else None
    links: list[StatementLink] = []
    for old in by_id.values():
        new = by_id.get(old.superseded_by or "")
        if new is None or old.item_id == new.item_id:
            continue
        if not ({old.item_id, new.item_id} & wanted) or (at and new.valid_from > at):
            continue
        links.append(StatementLink(old, new))
    return links


def marks_for(
    links: Sequence[StatementLink], items: Mapping[str, Item], cite: Callable[[Item], Citation]
) -> dict[str, Marks]:
    """Each item's marks, citing the item on the other side of each link (a link whose
    other item is not in ``items`` is left out: it is not visible to the reader)."""
    replaces: dict[str, list[Replacement]] = {}
    replaced_by: dict[str, list[Replacement]] = {}
    for link in links:
        old, new = link.old, link.new
        older, newer = items.get(old.item_id), items.get(new.item_id)
        if older is None or newer is None:
            continue
        said = (old.subject, old.predicate, old.object, new.object)
        replaces.setdefault(new.item_id, []).append(Replacement(*said, cite(older)))
        replaced_by.setdefault(old.item_id, []).append(Replacement(*said, cite(newer)))
    return {
        i: Marks(tuple(replaces.get(i, ())), tuple(replaced_by.get(i, ())))
        for i in replaces.keys() | replaced_by.keys()
    }


def replaced_pairs(ctx: BrainContext, item_ids: Sequence[str]) -> set[frozenset[str]]:
    """The pairs of ``item_ids`` of which one replaced a statement of the other (the
    whole item or one statement of it), as the derivation linked them: two items on one
    topic, whatever words each says it in. Two store reads."""
    ws, vis = ctx.workspace, ctx.visibility
    wanted = set(item_ids)
    ended = ctx.statements.statements(ws, vis, item_ids=sorted(wanted), current=False)
    later = sorted({s.superseded_by for s in ended if s.superseded_by})
    if not later:
        return set()
    holder = {s.id: s.item_id for s in ctx.statements.statements(ws, vis, ids=later, current=None)}
    pairs: set[frozenset[str]] = set()
    for s in ended:
        other = holder.get(s.superseded_by or "")
        if other is not None and other != s.item_id and {s.item_id, other} <= wanted:
            pairs.add(frozenset((s.item_id, other)))
    return pairs
