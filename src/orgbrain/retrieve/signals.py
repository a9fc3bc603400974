"""What a search read of its first candidates, as the learned ranker weighs it
(``learned.Signals``): their evidence, keyword scores, the graph's support."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter

from ..ports import ScoredId
from .candidate import Candidate
from .evidence import EVIDENCE, Memo, hit_evidence
from .learned import LinearRanker, Signals
from .plan import Stream
from .query import Query

__all__ = ["head_signals"]


def head_signals(
    query: Query,
    head: list[Candidate],
    ranker: LinearRanker,
    cosines: dict[str, float],
    streams: Sequence[Stream],
    rows: Sequence[list[ScoredId]],
    support: Mapping[str, str],
    memo: Memo | None = None,
) -> tuple[list[Signals], float | None]:
    """Each ``head`` candidate's signals, and the best keyword score of the search
    (``cosines``, ``rows`` of ``streams``, the graph's ``support``: what the search's
    streams found of the query; ``memo``: its evidence read so far)."""
    items = [c.item for c in head if c.item is not None]
    assert len(items) == len(head)
    # Only the evidence the ranker weighs: reading a hit's text is most of the stage.
    evidence = hit_evidence(query, items, cosines, reads=ranker.reads & EVIDENCE, memo=memo)
    # Each head candidate's best keyword score, and the best of the search.
    wanted = {c.item_id for c in head}
    keyword: dict[str, float] = {}
    best_keyword: float | None = None
    for stream, listed in zip(streams, rows, strict=True):
        if stream.kind != "keyword" or not listed:
            continue
        top = max(map(itemgetter(1), listed))
        best_keyword = top if best_keyword is None else max(best_keyword, top)
        for item_id, value in listed:
            if item_id in wanted:
                keyword[item_id] = max(value, keyword.get(item_id, value))
    signals = [
        Signals(
            score=c.score,
            ranks=c.ranks,
            cosine=cosines.get(c.item_id),
            keyword=keyword.get(c.item_id),
            coverage=e.coverage,
            names=e.names,
            mentions=e.mentions,
            asks=e.asks,
            support=c.item_id in support,
            boost=c.boost,
            fresh=c.fresh,
            group=item.run_id or item.parent_id,
            body_chars=len(item.body),
            label_chars=len(item.label),
        )
        for c, item, e in zip(head, items, evidence, strict=True)
    ]
    return signals, best_keyword
