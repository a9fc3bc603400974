"""A search's candidates: one item on its way through a search, its rank in each stream
that listed it, and the files whose sections speak for them."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ItemSketch
from ..ports import ScoredId
from .plan import SearchPlan

__all__ = ["Candidate", "fold_files_into_sections", "stream_ranks"]


@dataclass(slots=True)
class Candidate:
    """One item on its way through a search: its fused vote, then its sketch (what the
    search weighs of it: ``Store.item_sketches``) and score. The kept ones are read in
    full when they are cited."""

    item_id: str
    fused: float
    ranks: dict[str, int]
    item: ItemSketch | None = None
    score: float = 0.0
    superseded_by: ItemSketch | None = None
    fresh: float = 1.0
    boost: float = 0.0
    factor: float = 1.0
    """What the search's rules took off its vote besides freshness (a superseded item's
    ``superseded_factor``): its score is ``fused * fresh * factor``."""

    def rescored(self, score: float) -> Candidate:
        """This candidate with another ``score`` (as ``dataclasses.replace`` gives it, at
        an eighth of its cost: a search reorders 50)."""
        return Candidate(
            self.item_id,
            self.fused,
            self.ranks,
            self.item,
            score,
            self.superseded_by,
            self.fresh,
            self.boost,
            self.factor,
        )


def stream_ranks(
    plan: SearchPlan,
    rows: list[list[ScoredId]],
    graph: tuple[str, ...],
    candidates: dict[str, float],
) -> dict[str, dict[str, int]]:
    """Each candidate's rank in each stream that listed it (``"vector:note"``...), then in
    the graph's list; only the candidates' (a search lists ~8 times as many rows)."""
    ranks: dict[str, dict[str, int]] = {}
    for stream, listed in zip(plan.streams, rows, strict=True):
        name = stream.name  # a property: computed once a stream, not once a row
        for r, (item_id, _) in enumerate(listed, start=1):
            if item_id in candidates:
                ranks.setdefault(item_id, {})[name] = r
    for r, item_id in enumerate(graph, start=1):
        if item_id in candidates:
            ranks.setdefault(item_id, {})["graph"] = r
    return ranks


def fold_files_into_sections(
    fused: dict[str, float], items: dict[str, ItemSketch]
) -> dict[str, float]:
    """A file whose own sections are candidates is dropped: a section is the precise
    citation. Votes are not moved, so every score stays one item's own evidence and the
    floors keep their meaning (a lone vector match can never reach 0.02)."""
    parents = {
        item.parent_id
        for item_id in fused
        if (item := items.get(item_id)) is not None and item.storage_class == "section"
    }
    if not parents:
        return fused
    return {i: f for i, f in fused.items() if i not in parents}
