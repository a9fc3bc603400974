"""Floors and the membership gate: the logged thresholds that decide whether the brain
speaks. Floors look at fused scores; the gate at what the top hits say (names, terms,
cosine), since fused scores carry no absolute relevance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from ..model import Verdict
from .plan import Gate

__all__ = [
    "Floored",
    "HitEvidence",
    "Membership",
    "Relation",
    "Rule",
    "apply_floors",
    "bars_for",
    "membership",
]

Rule = Literal[
    "matches",
    "close_alone",
    "some_name",
    "graph",
    "no_hits",
    "unmatched",
    "answers",
    "unanswered",
    "llm_answers",
    "llm_silent",
]
"""Which of the gate's rules decided (``membership``): one that let a hit speak, or why
none did (no hits at all, or none of them matched); or the answerability judge's
verdict (``answer_verdict``): a hit answers, or none does; or, on a close call, the chat
model's (``verdict_llm``)."""

Relation = Literal["same", "other", "unsure"]
"""A hit's language against the question's (``crosslingual.relation``): the same, another,
or not to be told from the hit (no stopword of any language in it)."""


@dataclass(frozen=True, slots=True)
class HitEvidence:
    """What one ranked hit shows about the query, for the gate.

    ``names``: it names every proper name of the query, and one of them other than by
    addressing it (``evidence.hit_evidence``; true when the query has none);
    ``coverage``: share of the query's other terms it holds (0 for a query with none, 1
    for a query of names alone: "Who is Anthony?" asks nothing else of a hit naming him);
    ``cosine``: its similarity to the query vector, None where no vector stream saw it;
    ``asks``: it only asks, so it is no evidence: a turn whose every sentence of more than
    three words is a question or that holds the query's terms only in questions
    (``evidence.only_asks``), any other item whose every sentence is a question
    (``evidence.every_sentence_asks``);
    ``graph``: why the typed graph says it answers (it states what the query asks of an
    entity the query names, ``GraphMatch.support``), None when it does not;
    ``mentions``: it holds one of the query's proper names somewhere (true when the query
    has none), whether or not it speaks of it (a reply addressing them, its speaker's
    "I"/"you" lines count here; a question naming two events held in two sessions is
    answered by hits that each name one);
    ``names_asked``: how many proper names the query has (the same for every hit of one
    search), which ``Gate.some_name_cosine`` reads;
    ``lang``: its language against the question's, which picks its bars (``bars_for``).
    """

    names: bool
    coverage: float
    cosine: float | None = None
    asks: bool = False
    graph: str | None = None
    mentions: bool = True
    names_asked: int = 0
    lang: Relation = "same"

    def matches(self, gate: Gate) -> bool:
        if not (self.names or not gate.spelled_names) or self.asks:
            return False
        close = self.cosine is not None and self.cosine >= gate.min_cosine
        return close or self.coverage >= gate.min_coverage

    def near(self, best: float | None, gate: Gate) -> bool:
        """Whether its cosine is at most ``gate.near_best`` below ``best`` (the best
        cosine of the hits the gate reads); true when the gate sets no such bar or no
        vector stream saw it (there is nothing to compare)."""
        if gate.near_best is None or self.cosine is None or best is None:
            return True
        return self.cosine >= best - gate.near_best

    def some_name(self, gate: Gate) -> bool:
        """For a query with two names or more: it mentions one of them, does not only ask,
        and its cosine is at least ``gate.some_name_cosine`` (John telling Tim of his trip
        says "you", not "Tim")."""
        if gate.some_name_cosine is None or self.names_asked < 2:
            return False
        if not self.mentions or self.asks or self.cosine is None:
            return False
        return self.cosine >= gate.some_name_cosine

    def close_alone(self, gate: Gate) -> bool:
        """Close enough in meaning to speak though it does not speak *of* the query's
        names (a speaker says "I" and "you", not their own name): it mentions them
        (``mentions``), does not only ask, and its cosine is at least
        ``gate.plain_cosine``."""
        if not (self.mentions or not gate.spelled_names) or self.asks or self.cosine is None:
            return False
        return self.cosine >= gate.plain_cosine


def bars_for(e: HitEvidence, gate: Gate) -> Gate:
    """The bars hit ``e`` is held to: ``gate.across`` for a hit in another language than
    the question, else ``gate`` (a hit whose language cannot be told, a label, too: held
    out, e5's fit held labels to ``across`` no better, issue 39)."""
    across = gate.across
    if across is None or e.lang != "other":
        return gate
    return across


class Membership(NamedTuple):
    """The gate's decision: whether it speaks, why with its numbers (for the turn log and
    ``--json``), and which hit (its index among the evidence) and rule decided, from which
    ``retrieve.grounds`` says why in words. ``p``: the answerability judge's probability
    for the hit it read best (None from the gate), which ``verdict_llm`` reads for a close
    call; ``said``: the chat model's why, when it decided."""

    speak: bool
    reason: str
    hit: int | None
    rule: Rule
    p: float | None = None
    said: str = ""


def membership(evidence: Sequence[HitEvidence], gate: Gate) -> Membership:
    """Whether one of the first ``gate.depth`` hits matches (``HitEvidence.matches``, near
    the best cosine: ``HitEvidence.near``), is close alone, speaks of one of several names
    (``HitEvidence.some_name``) or has the graph's support, and why."""
    top = list(evidence[: gate.depth])
    best_cos = max((e.cosine for e in top if e.cosine is not None), default=None)
    bars = [bars_for(e, gate) for e in top]
    for n, (e, g) in enumerate(zip(top, bars, strict=True), start=1):
        if e.matches(g) and e.near(best_cos, g):
            cos = "-" if e.cosine is None else f"{e.cosine:.2f}"
            why = f"gate: hit {n} matches (cosine {cos}, terms {e.coverage:.0%})"
            return Membership(True, why, n - 1, "matches")
    for n, (e, g) in enumerate(zip(top[: gate.plain_depth], bars, strict=False), start=1):
        if e.close_alone(g):
            why = f"gate: hit {n} is close and mentions the names (cosine {e.cosine:.2f})"
            return Membership(True, why, n - 1, "close_alone")
    for n, (e, g) in enumerate(zip(top, bars, strict=True), start=1):
        if e.some_name(g):
            why = (
                f"gate: hit {n} mentions one of the query's {e.names_asked} names "
                f"(cosine {e.cosine:.2f})"
            )
            return Membership(True, why, n - 1, "some_name")
    for n, e in enumerate(top, start=1):
        if e.graph is not None:
            return Membership(True, f"graph: hit {n} {e.graph}", n - 1, "graph")
    if not top:
        return Membership(False, "gate: no hits", None, "no_hits")
    unnamed = sum(1 for e in top if not e.names)
    asking = sum(1 for e in top if e.asks)
    far = sum(1 for e, g in zip(top, bars, strict=True) if e.matches(g) and not e.near(best_cos, g))
    best_cov = max(e.coverage for e in top)
    cos = "-" if best_cos is None else f"{best_cos:.2f}"
    behind = f", {far} match {gate.near_best} or more below the best cosine" if far else ""
    why = (
        f"relevance floor: none of the top {len(top)} hits names the query's names with "
        f"cosine >= {gate.min_cosine} or terms >= {gate.min_coverage:.0%} (best cosine {cos}, "
        f"best terms {best_cov:.0%}, {unnamed} miss a name, {asking} only ask{behind})"
    )
    return Membership(False, why, None, "unmatched")


@dataclass(frozen=True, slots=True)
class Floored:
    keep: int
    verdict: Verdict
    reason: str


def apply_floors(
    scores: Sequence[float],
    *,
    best_fused: float,
    floor_abs: float,
    floor_rel: float,
    k: int,
) -> Floored:
    """Decide how many of the (descending) ``scores`` to keep.

    Nothing if the best fused score is under ``floor_abs``; otherwise keep hits scoring at
    least ``floor_rel`` of the top, at most ``k``. ``single`` when one survives.
    """
    if not scores:
        return Floored(0, "none", "no candidates")
    if best_fused < floor_abs:
        return Floored(0, "none", f"best fused score {best_fused:.4f} < floor {floor_abs}")
    top = scores[0]
    cut = top * floor_rel
    keep = 0
    for s in scores[:k]:
        if s < cut:
            break
        keep += 1
    verdict: Verdict = "single" if keep == 1 else "many"
    dropped = min(len(scores), k) - keep
    reason = f"kept {keep}" + (f", cut {dropped} under {floor_rel:.0%} of top" if dropped else "")
    return Floored(keep, verdict, reason)
