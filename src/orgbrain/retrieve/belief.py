"""Belief on a search's hits, once ranked: each kept hit read in full and cited, with what
it replaced and what replaced it (whole, or a statement of it: ``replacements``), the
newer hit that answers it anew where the judge was not sure it replaced it (``older``),
and the other hits whose statements disagree with its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..context import BrainContext
from ..model import Citation, Hit, Item, NewerAnswer, Statement
from .candidate import Candidate
from .graph import TimeFrame
from .older import newer_answers
from .plan import SearchPlan
from .replacements import NO_MARKS, Marks, StatementLink, marks_for, statement_links

__all__ = ["HELD", "Belief", "belief_of", "citation_for", "cite_all", "disagreeing"]

HELD = 500
"""The most statements read from the kept hits at once (past it, conflicts are read a hit
at a time and the statement-level marks see the first ``HELD``)."""


def citation_for(item: Item) -> Citation:
    return Citation(
        item_id=item.id,
        file_id=item.parent_id
        if item.storage_class == "section"
        else (item.id if item.storage_class == "file" else None),
        label=item.label,
        blob_key=item.blob_key,
        text_key=item.text_key,
        byte_range=item.byte_range,
        locator=item.locator,
        file_name=item.name if item.storage_class in ("file", "section") else None,
    )


@dataclass(frozen=True, slots=True)
class Belief:
    """What the kept hits hold beside their own text: each read in full with the items
    its citations point to (``full``), the hits each disagrees with, its marks, and the
    kept hit that answers it anew with the judge's probability (``newer``)."""

    full: dict[str, Item]
    disagree: dict[str, tuple[str, ...]]
    marks: dict[str, Marks]
    newer: dict[str, tuple[str, float]]


def belief_of(ctx: BrainContext, kept: list[Candidate], frame: TimeFrame) -> Belief:
    """The kept hits' belief, as the reader sees it in ``frame``."""
    held = _held(ctx, kept)
    disagree = _disagreements(ctx, kept, held)
    links = statement_links(ctx, [c.item_id for c in kept], held, frame)
    full = _cited_items(ctx, kept, links)
    marks = marks_for(links, full, citation_for)
    return Belief(full, disagree, marks, newer_answers(ctx, kept))


def cite_all(
    kept: list[Candidate],
    belief: Belief,
    plan: SearchPlan,
    rerank: str,
    noted: frozenset[str],
) -> tuple[Hit, ...]:
    """The hits for the kept candidates still visible in full (``rerank``: what the
    reranker said, on the ``noted`` hits it judged)."""
    full = belief.full
    return tuple(
        _cite(
            full[c.item_id],
            c,
            plan,
            belief.disagree.get(c.item_id, ()),
            superseded_by=full.get(c.superseded_by.id) if c.superseded_by else None,
            older=full.get(c.item.supersedes or "") if c.item else None,
            marks=belief.marks.get(c.item_id, NO_MARKS),
            newer=_newer(c, belief),
            rerank=rerank if c.item_id in noted else "",
        )
        for c in kept
        if c.item_id in full
    )


def _newer(c: Candidate, belief: Belief) -> NewerAnswer | None:
    """The kept hit that answers ``c`` anew, unless something already says what replaced
    it (a superseding item, or a statement of that hit replacing one of ``c``'s)."""
    said = belief.newer.get(c.item_id)
    newer = belief.full.get(said[0]) if said else None
    if said is None or newer is None or c.superseded_by is not None:
        return None
    marks = belief.marks.get(c.item_id, NO_MARKS)
    if any(r.citation.item_id == newer.id for r in marks.replaced_by):
        return None
    return NewerAnswer(citation_for(newer), newer.when, said[1])


def disagreeing(hits: Sequence[Hit]) -> bool:
    """Whether one of ``hits`` disagrees with another of them."""
    ids = {h.item.id for h in hits}
    return any(set(h.conflicts) & ids for h in hits)


def _cited_items(
    ctx: BrainContext, kept: list[Candidate], links: list[StatementLink]
) -> dict[str, Item]:
    """The kept hits read in full, with the items they supersede and that supersede
    them, whole or a statement of them (their citations), in one read."""
    ids = {c.item_id for c in kept}
    ids.update(c.superseded_by.id for c in kept if c.superseded_by is not None)
    ids.update(c.item.supersedes for c in kept if c.item and c.item.supersedes)
    ids.update(i for link in links for i in (link.old.item_id, link.new.item_id))
    return ctx.get_many(sorted(ids))


def _held(ctx: BrainContext, kept: list[Candidate]) -> list[Statement]:
    """The statements with evidence in any kept hit, in one read: what the conflict
    check and the statement-level marks both start from."""
    if not kept:
        return []
    ids = [c.item_id for c in kept]
    return ctx.statements.statements(ctx.workspace, ctx.visibility, item_ids=ids, limit=HELD)


def _disagreements(
    ctx: BrainContext, kept: list[Candidate], held: list[Statement]
) -> dict[str, tuple[str, ...]]:
    """For each kept hit, the items holding current statements that disagree with
    its own (visible ones only)."""
    ws, vis = ctx.workspace, ctx.visibility
    out: dict[str, tuple[str, ...]] = {}
    if len(held) < HELD and not any(s.current and s.conflicts for s in held):
        return out  # the common case, without a read a hit
    for c in kept:
        held = ctx.statements.statements(ws, vis, item_id=c.item_id, current=True, conflicted=True)
        others = sorted({o for s in held for o in s.conflicts})
        if not others:
            continue
        rivals = ctx.statements.statements(ws, vis, ids=others, current=True)
        items = sorted({s.item_id for s in rivals} - {c.item_id})
        if items:
            out[c.item_id] = tuple(items)
    return out


def _cite(
    item: Item,
    c: Candidate,
    plan: SearchPlan,
    conflicts: tuple[str, ...] = (),
    *,
    superseded_by: Item | None = None,
    older: Item | None = None,
    marks: Marks = NO_MARKS,
    newer: NewerAnswer | None = None,
    rerank: str = "",
) -> Hit:
    """The hit for candidate ``c``, read in full as ``item``."""
    return Hit(
        item=_cut_body(item, plan.body_chars),
        score=c.score,
        fused=c.fused,
        citation=citation_for(item),
        ranks=c.ranks,
        superseded_by=None if superseded_by is None else citation_for(superseded_by),
        supersedes=None if older is None else citation_for(older),
        conflicts=conflicts,
        replaces=marks.replaces,
        replaced_by=marks.replaced_by,
        newer_answer=newer,
        rerank=rerank,
    )


def _cut_body(item: Item, limit: int) -> Item:
    if len(item.body) <= limit:
        return item
    return replace(item, body=item.body[:limit])
