"""Reciprocal rank fusion: each ranked list votes 1 / (k + rank); ranks only, no scores."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["rrf"]


def rrf(
    lists: Sequence[Sequence[str]],
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> dict[str, float]:
    """Fuse ranked id lists; an id's score is the weighted sum of 1/(k+rank), rank from 1.

    Returned in descending score order (ties keep first-seen order).
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    if weights is not None and len(weights) != len(lists):
        raise ValueError("one weight per list")
    scores: dict[str, float] = {}
    for i, ranked in enumerate(lists):
        w = 1.0 if weights is None else weights[i]
        for rank, item_id in enumerate(dict.fromkeys(ranked), start=1):
            scores[item_id] = scores.get(item_id, 0.0) + w / (k + rank)
    return dict(sorted(scores.items(), key=lambda kv: -kv[1]))
