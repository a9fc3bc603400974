"""The answerability judge: does this passage answer this question, or is it only near?

Whole-note cosine and the share of the question's words a hit holds (the gate,
``verdict.membership``) cannot tell "the brain holds something about the payments
service" from "the brain holds who owns it". This judge reads each candidate the gate
reads with the signals that can (``FEATURES``):

- the gate's own readings (``cosine``, ``coverage``, ``names``, ``asks``, ``graph``);
- ``line_cos``: the best cosine of one line of the passage (a sentence, a list line, a
  table row) to the question: a long note that holds the answer in one line is not
  diluted by the rest;
- ``maxsim`` and ``maxsim_min``: each of the question's word pieces (its stopwords and
  punctuation left out) matched to its closest token of the passage, in the model's
  last layer (MiniLM's token vectors): the mean and the worst of those matches;
- ``type_missing``: the question asks for a kind of value (who: a person; when: a date
  or a time; how many, how much: a number) and the passage holds none of that kind
  (``extraction.shorthand.values_of``, ``extraction.named.names_in``);
- ``rare_cov``: the share of the question's names and rare words (those the model's
  vocabulary splits into pieces, and numbers) the passage holds.

A logistic model over them, its weights learned by ``evals.answer_fit`` and shipped in
``answer_weights.json``, scores each candidate; the search speaks when the best score
reaches the weights' threshold. Pure: the caller passes the token vectors
(``ports.TokenEmbedder``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from ..analysis import STOPWORDS, text_stems
from ..extraction.named import names_in
from ..extraction.sentences import split_units
from ..extraction.shorthand import values_of
from ..ports import TokenVectors
from .terms import holds_any, query_names
from .verdict import HitEvidence

__all__ = [
    "FEATURES",
    "AnswerWeights",
    "Judged",
    "asked_type",
    "features",
    "held_types",
    "passage_lines",
    "shipped_answer_weights",
]

FEATURES = (
    "cosine",
    "coverage",
    "names",
    "asks",
    "graph",
    "line_cos",
    "maxsim",
    "maxsim_min",
    "type_missing",
    "rare_cov",
)
MAX_LINES = 24
"""A passage is read on its first lines: the rest costs model time and seldom answers."""

_WHO = re.compile(
    r"^\s*(?:\w+\s*,\s*)?(?:who|whom|whose)\b|\bwhich (?:team|person|people|one of us)\b",
    re.IGNORECASE,
)
_WHEN = re.compile(
    r"\b(?:when|what (?:time|date|day)|which (?:day|date|month|year)|how long ago)\b",
    re.IGNORECASE,
)
_COUNT = re.compile(
    r"\b(?:how (?:many|much|often|long|far|big|old)|what (?:percentage|percent|number|amount"
    r"|price|cost)|how much)\b",
    re.IGNORECASE,
)
_TYPES = {
    "date": "time",
    "weekday": "time",
    "time": "time",
    "money": "number",
    "percent": "number",
    "quantity": "number",
    "number": "number",
    "name": "person",
}
# What the value extractors leave out, as a question's answer says it: a month, a year, a
# quarter, a relative day ("last week", "two years ago"); a number in digits or words; a
# capitalised word that is no stopword (a person, a team, a vendor: who answers "who"
# may be any of them), a handle or an address.
_TIME = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Q[1-4]|(?:19|20)\d\d)\b"
    r"|\b(?i:yesterday|today|tomorrow|tonight|ago|since|until|weekend|morning|evening"
    r"|(?:last|next|this|every) (?:week|month|year|day|night|spring|summer|autumn|fall"
    r"|winter|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
)
_NUMBER = re.compile(
    r"\d|\b(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
    r"|dozen|hundred|thousand|million|once|twice|half)\b"
)
_CAPITAL = re.compile(r"(?<![\w@])[A-Z][\w'-]+|@\w+")


def asked_type(question: str) -> str | None:
    """The kind of value ``question`` asks for: ``person``, ``time``, ``number``, or None."""
    if _WHO.search(question):
        return "person"
    if _WHEN.search(question):
        return "time"
    if _COUNT.search(question):
        return "number"
    return None


def held_types(text: str) -> frozenset[str]:
    """The kinds of value ``text`` holds (``asked_type``'s words)."""
    kinds = {_TYPES[v.kind] for v in values_of(text) if v.kind in _TYPES}
    if _TIME.search(text):
        kinds.add("time")
    if _NUMBER.search(text):
        kinds.add("number")
    if names_in(text) or any(
        m.group(0).casefold() not in STOPWORDS for m in _CAPITAL.finditer(text)
    ):
        kinds.add("person")
    return frozenset(kinds)


def passage_lines(text: str) -> list[str]:
    """The first ``MAX_LINES`` lines of ``text`` worth matching (units of 8 chars or more),
    or ``text`` itself when it has none."""
    lines = [text[u.start : u.end].strip() for u in split_units(text)]
    lines = [line for line in lines if len(line) >= 8][:MAX_LINES]
    return lines or [text.strip()[:2000] or "-"]


def _words(pieces: Sequence[str]) -> list[tuple[str, int]]:
    """Whole words rebuilt from word pieces, each with how many pieces it took."""
    out: list[tuple[str, int]] = []
    for p in pieces:
        if p.startswith("##") and out:
            word, n = out[-1]
            out[-1] = (word + p[2:], n + 1)
        else:
            out.append((p, 1))
    return out


def _content(pieces: Sequence[str]) -> list[int]:
    """Which of a question's pieces are content: not a stopword, not punctuation."""
    keep: list[int] = []
    for i, p in enumerate(pieces):
        if p.startswith("##") or (any(c.isalnum() for c in p) and p not in STOPWORDS):
            keep.append(i)
    return keep or list(range(len(pieces)))


def _rare(question: str, pieces: Sequence[str]) -> list[str]:
    """The question's names, and its words the vocabulary splits or that are numbers."""
    rare = [n.lower() for n in query_names(question)]
    for word, n in _words(pieces):
        if word in STOPWORDS or not any(c.isalnum() for c in word):
            continue
        if n > 1 or word.isdigit():
            rare.append(word)
    return list(dict.fromkeys(rare))


def features(
    question: str,
    query: TokenVectors,
    passage: str,
    lines: Sequence[TokenVectors],
    evidence: HitEvidence,
) -> list[float]:
    """``FEATURES`` of one candidate: its ``passage`` text, the model's reading of its
    lines (``passage_lines``) and of the question, and the gate's ``evidence`` of it."""
    q = query.sentence / max(float(np.linalg.norm(query.sentence)), 1e-12)
    line_cos = max(float(line.sentence @ q) for line in lines)
    tokens = np.vstack([line.tokens for line in lines if len(line.tokens)] or [query.tokens])
    keep = _content(query.pieces)
    best = (query.tokens[keep] @ tokens.T).max(axis=1) if len(keep) else np.zeros(1)
    asked = asked_type(question)
    missing = asked is not None and asked not in held_types(passage)
    rare = _rare(question, query.pieces)
    stems = text_stems(passage)
    words = {w for line in lines for w, _ in _words(line.pieces)}
    held = sum(1 for r in rare if r in words or holds_any([r], stems))
    return [
        0.0 if evidence.cosine is None else evidence.cosine,
        evidence.coverage,
        float(evidence.names),
        float(evidence.asks),
        float(evidence.graph is not None),
        line_cos,
        float(best.mean()),
        float(best.min()),
        float(missing),
        held / len(rare) if rare else 1.0,
    ]


@dataclass(frozen=True, slots=True)
class AnswerWeights:
    """A fitted judge: ``bias`` and one weight per feature; ``threshold``: the best
    candidate's probability at which the search speaks."""

    bias: float
    weights: dict[str, float]
    threshold: float

    def probability(self, x: Sequence[float]) -> float:
        z = self.bias + sum(self.weights[f] * v for f, v in zip(FEATURES, x, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True, slots=True)
class Judged:
    """The judge on one search's candidates: whether it speaks, each candidate's
    probability, the best candidate's index and the signals that weighed most for it."""

    speak: bool
    probabilities: tuple[float, ...]
    best: int | None
    signals: dict[str, float]


def judge(xs: Sequence[Sequence[float]], weights: AnswerWeights) -> Judged:
    """The verdict over candidates' ``features``: speak when the best reaches the
    threshold."""
    if not xs:
        return Judged(False, (), None, {})
    ps = tuple(weights.probability(x) for x in xs)
    best = max(range(len(ps)), key=lambda i: ps[i])
    signals = dict(zip(FEATURES, xs[best], strict=True))
    return Judged(ps[best] >= weights.threshold, ps, best, signals)


@cache
def shipped_answer_weights() -> AnswerWeights:
    """The weights shipped with orgbrain (``orgbrain eval answer --write`` writes them)."""
    raw = json.loads(resources.files(__package__).joinpath("answer_weights.json").read_text())
    return AnswerWeights(float(raw["bias"]), dict(raw["weights"]), float(raw["threshold"]))
