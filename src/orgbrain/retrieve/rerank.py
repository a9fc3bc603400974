"""The rerank stage: one seam every search goes through, after the brain's own (learned)
order and before the verdict.

The default judge is the brain itself (``BrainOrder``: it keeps the order it is given);
a configured one (``adapters.rerank_http``: a cross-encoder behind a rerank API) reorders
the first ``DEPTH`` candidates, each read as its label and the first ``PASSAGE_CHARS`` of
its text. A reranker that fails, times out or answers nonsense is skipped: the brain's
order stands, the failure is logged, and the search says so (reads fail open).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..ports import Reranker

__all__ = ["DEPTH", "PASSAGE_CHARS", "BrainOrder", "Judged", "judge"]

log = logging.getLogger(__name__)

DEPTH = 24
"""How many of the first candidates a reranker judges: past the gate's five and the
default k, few enough for a cross-encoder to judge within a search's time."""
PASSAGE_CHARS = 1200
"""How much of a candidate's text a reranker reads: about 300 tokens, inside the 512 a
cross-encoder takes with the query."""


class BrainOrder:
    """The local judge: the brain's own order (fusion, freshness and the learned ranker),
    kept as it is. A real reranker, so every search goes through one seam."""

    name = "brain"

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        return [float(len(documents) - n) for n in range(len(documents))]


@dataclass(frozen=True, slots=True)
class Judged:
    """What the reranker said: ``order``, the indexes of the passages best first (None:
    the given order stands), and ``note``, what a hit says of it: empty for the brain's
    own order, the reranker's name when it reordered, ``skipped: <why>`` when it failed."""

    order: list[int] | None
    note: str


def judge(reranker: Reranker, query: str, passages: Sequence[str]) -> Judged:
    """``reranker``'s order of ``passages`` for ``query``; any failure keeps theirs."""
    if not passages:
        return Judged(None, "")
    try:
        scores = reranker.rerank(query, passages)
        if len(scores) != len(passages) or not all(math.isfinite(s) for s in scores):
            raise ValueError(f"{len(scores)} scores for {len(passages)} passages, or not finite")
    except Exception as exc:  # a reranker must never break a read
        why = f"{type(exc).__name__}: {exc}"
        log.warning("reranker %s skipped, the brain's order kept: %s", reranker.name, why)
        return Judged(None, f"skipped: {why}"[:300])
    order = sorted(range(len(passages)), key=lambda j: -scores[j])  # stable: ties keep order
    if order == list(range(len(passages))):
        return Judged(None, "" if isinstance(reranker, BrainOrder) else reranker.name)
    return Judged(order, reranker.name)
