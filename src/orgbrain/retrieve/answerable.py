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
- ``line_maxsim``: the same mean within the one line that matches best (a line that
  answers holds the question's words together, a near note has them scattered);
- ``typed``: the question asks for a kind of value (who: a person; when: a date or a
  time; how many, how much: a number); ``type_missing``: it does, and the passage holds
  none of that kind (``held_types``: ``extraction.shorthand.values_of`` and
  ``extraction.named.names_in``, with months, years, relative days, numbers in words and
  capitalised words beside them);
- ``rare_cov``: the share of the question's names and rare words (those the model's
  vocabulary splits into pieces, and numbers) the passage holds;
- ``lead_*``: for the cosines and token matches, how far the candidate is above the
  best of the others the verdict reads (``with_leads``).

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
    "OWN",
    "TYPE_WORDS",
    "AnswerWeights",
    "Judged",
    "asked_type",
    "features",
    "held_types",
    "lacking",
    "passage_lines",
    "shipped_answer_weights",
    "with_leads",
]

OWN = (
    "cosine",
    "coverage",
    "names",
    "asks",
    "graph",
    "line_cos",
    "maxsim",
    "maxsim_min",
    "line_maxsim",
    "typed",
    "type_missing",
    "rare_cov",
)
"""What ``features`` reads of one candidate alone."""
LEADS = ("cosine", "line_cos", "maxsim", "line_maxsim")
"""Signals also read as a lead: how far a candidate is above the best of the others (a
passage that answers stands out; where nothing answers, the near ones are alike)."""
FEATURES = OWN + tuple(f"lead_{f}" for f in LEADS)
"""What the judge weighs: ``OWN`` and the ``LEADS`` (``with_leads``)."""
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
_WORD = re.compile(r"[\w'-]+")


TYPE_WORDS = {"person": "person", "time": "date or time", "number": "number"}
"""How a reason names each kind of value a question may ask for."""


def lacking(question: str, passage: str) -> str:
    """The kind of value ``question`` asks for, in ``TYPE_WORDS``, when ``passage``
    holds none of it; else ``""``."""
    asked = asked_type(question)
    said = frozenset(w.casefold() for w in _WORD.findall(question))
    if asked is None or asked in held_types(passage, said):
        return ""
    return TYPE_WORDS[asked]


def asked_type(question: str) -> str | None:
    """The kind of value ``question`` asks for: ``person``, ``time``, ``number``, or None."""
    if _WHO.search(question):
        return "person"
    if _WHEN.search(question):
        return "time"
    if _COUNT.search(question):
        return "number"
    return None


def held_types(text: str, asked: frozenset[str] = frozenset()) -> frozenset[str]:
    """The kinds of value ``text`` holds (``asked_type``'s words). A capitalised word
    that is one of the question's own words (``asked``, lower-cased) names no one: the
    question's "billing" opening a sentence ("Billing moved...") is not a person."""
    kinds = {_TYPES[v.kind] for v in values_of(text) if v.kind in _TYPES}
    if _TIME.search(text):
        kinds.add("time")
    if _NUMBER.search(text):
        kinds.add("number")
    if names_in(text) or any(
        (w := m.group(0).casefold()) not in STOPWORDS and w not in asked
        for m in _CAPITAL.finditer(text)
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
    keep = _content(query.pieces)
    asked_tokens = query.tokens[keep]
    per_line = [(asked_tokens @ line.tokens.T).max(axis=1) for line in lines if len(line.tokens)]
    best = np.max(per_line, axis=0) if per_line else np.zeros(max(1, len(keep)))
    line_best = max((float(m.mean()) for m in per_line), default=0.0)
    asked = asked_type(question)
    missing = bool(lacking(question, passage))
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
        line_best,
        float(asked is not None),
        float(missing),
        held / len(rare) if rare else 1.0,
    ]


def with_leads(rows: Sequence[Sequence[float]]) -> list[list[float]]:
    """Each candidate's ``OWN`` signals (``features``), then its ``LEADS``: the signal
    less the best of the other candidates' (the signal itself when it is alone)."""
    cols = [OWN.index(f) for f in LEADS]
    out: list[list[float]] = []
    for i, row in enumerate(rows):
        others = [r for j, r in enumerate(rows) if j != i]
        leads = [row[c] - max((r[c] for r in others), default=0.0) for c in cols]
        out.append([*row, *leads])
    return out


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
    """The verdict over candidates' ``FEATURES`` (``with_leads`` of their ``features``):
    speak when the best reaches the threshold."""
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
