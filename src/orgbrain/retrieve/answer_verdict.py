"""Which verdict a search runs: the membership gate (``verdict.membership``), or, when
``Settings.verdict`` is ``judge`` and the embedder gives token vectors, the answerability
judge (``answerable``) over the same first hits."""

from __future__ import annotations

from collections.abc import Sequence

from ..context import BrainContext
from ..model import ItemSketch
from ..ports import TokenEmbedder
from .answerable import (
    FEATURES,
    AnswerWeights,
    features,
    judge,
    passage_lines,
    shipped_answer_weights,
    with_leads,
)
from .plan import Gate
from .verdict import HitEvidence, Membership, membership

__all__ = ["decide", "judge_membership", "passage_text"]


def passage_text(item: ItemSketch) -> str:
    """What the judge reads of a hit: its body, after its label when the body does not
    open with it (a note's label is its own first words)."""
    said = not item.label or item.body.startswith(item.label.rstrip("…"))
    return item.body if said else f"{item.label}\n{item.body}"


def decide(
    ctx: BrainContext,
    query: str,
    shown: Sequence[ItemSketch],
    evidence: Sequence[HitEvidence],
    gate: Gate,
) -> Membership:
    """The gate's decision, or the judge's when the settings ask for it and can run it."""
    embedder = ctx.embedder
    if ctx.settings.verdict != "judge" or not isinstance(embedder, TokenEmbedder):
        return membership(evidence, gate)
    return judge_membership(embedder, query, shown, evidence, gate, shipped_answer_weights())


def judge_membership(
    embedder: TokenEmbedder,
    query: str,
    shown: Sequence[ItemSketch],
    evidence: Sequence[HitEvidence],
    gate: Gate,
    weights: AnswerWeights,
) -> Membership:
    """Whether one of the first ``gate.depth`` hits answers ``query``, by the judge, and
    why (its probability, the threshold, and for silence what the closest one lacks)."""
    top = list(zip(shown, evidence, strict=False))[: gate.depth]
    if not top:
        return Membership(False, "judge: no hits", None, "no_hits")
    texts = [passage_text(item) for item, _ in top]
    lines = [passage_lines(t) for t in texts]
    unique = list(dict.fromkeys(line for ls in lines for line in ls))
    query_vec, *vecs = embedder.embed_tokens([query, *unique])
    read = dict(zip(unique, vecs, strict=True))
    xs = with_leads(
        [
            features(query, query_vec, text, [read[line] for line in ls], e)
            for text, ls, (_, e) in zip(texts, lines, top, strict=True)
        ]
    )
    j = judge(xs, weights)
    assert j.best is not None
    p = j.probabilities[j.best]
    said = ", ".join(f"{f} {j.signals[f]:.2f}" for f in FEATURES if f in _SHOWN)
    if j.speak:
        why = f"judge: hit {j.best + 1} answers (p {p:.2f} >= {weights.threshold:.2f}; {said})"
        return Membership(True, why, j.best, "answers", p)
    why = (
        f"judge: no hit answers (best, hit {j.best + 1}: p {p:.2f} < "
        f"{weights.threshold:.2f}; {said})"
    )
    return Membership(False, why, None, "unanswered", p)


_SHOWN = frozenset({"cosine", "line_cos", "maxsim", "type_missing", "rare_cov"})
"""The signals a judge's reason shows with their values."""
