"""Ranking metrics as pure functions: nDCG@k (graded), recall@k, MRR@k, percentiles.

They follow the BEIR / trec_eval conventions: a judged document counts as relevant when its
grade is at least 1; gains are the grades themselves (linear), discounted by
``log2(rank + 1)``; the ideal ranking is the judged documents sorted by grade.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence

__all__ = ["mean", "mrr_at_k", "ndcg_at_k", "percentile", "recall_at_k"]


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError("k must be at least 1")


def _top(ranked: Sequence[str], k: int) -> list[str]:
    """The first ``k`` distinct ids: a ranking that repeats an id gets no credit twice."""
    seen: set[str] = set()
    out: list[str] = []
    for doc_id in ranked:
        if doc_id in seen:
            continue
        seen.add(doc_id)
        out.append(doc_id)
        if len(out) == k:
            break
    return out


def ndcg_at_k(ranked: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Normalised discounted cumulative gain of ``ranked`` against graded ``qrels``.

    0.0 when nothing in ``qrels`` is relevant (no ideal to normalise by).
    """
    _check_k(k)
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    if not ideal:
        return 0.0
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    dcg = sum(
        max(0, qrels.get(doc_id, 0)) / math.log2(i + 2) for i, doc_id in enumerate(_top(ranked, k))
    )
    return dcg / idcg


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Share of ``relevant`` found in the first ``k`` of ``ranked``; 0.0 if none relevant."""
    _check_k(k)
    if not relevant:
        return 0.0
    wanted = set(relevant)
    return sum(1 for doc_id in _top(ranked, k) if doc_id in wanted) / len(wanted)


def mrr_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Reciprocal rank of the first relevant id within the first ``k``; 0.0 if none."""
    _check_k(k)
    wanted = set(relevant)
    for rank, doc_id in enumerate(_top(ranked, k), start=1):
        if doc_id in wanted:
            return 1.0 / rank
    return 0.0


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; 0.0 for no values (an empty category scores nothing, not NaN)."""
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0


def percentile(values: Iterable[float], p: float) -> float:
    """The ``p``-th percentile (0-100) with linear interpolation, as numpy's default does."""
    if not 0 <= p <= 100:
        raise ValueError("p must be between 0 and 100")
    vals = sorted(values)
    if not vals:
        return 0.0
    pos = (len(vals) - 1) * p / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(vals) - 1)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)
