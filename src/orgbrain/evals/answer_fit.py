"""Fitting the answerability judge (``retrieve.answerable``) on the project's questions,
and measuring it on groups it never saw.

The examples are the searches ``answer_data`` recorded: each question with the
candidates the verdict read and which of them answer. A candidate that answers is a
positive; every candidate of a question with no answer is a negative, and so, weighing
less, is a candidate that does not answer a question that has one (near, not the
answer: what the judge is for). When no candidate of an answerable question is marked as
answering (LoCoMo marks few turns; an answer may sit in a turn it does not mark), its
best candidate under the previous round's weights stands in for it, as in
``judge_fit``. Each set weighs as much in all as any other, however many questions it has.

A question speaks when its best candidate reaches the threshold: the highest at which
false silence on every training set is at most ``MAX_SILENCE``. ``leave_one_out`` fits
without one group (an organisation, a fact set, a LoCoMo conversation, SciFact) and
measures on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..ports import TokenEmbedder, TokenVectors
from ..retrieve.answerable import (
    FEATURES,
    AnswerWeights,
    features,
    passage_lines,
    with_leads,
)
from ..retrieve.verdict import HitEvidence, Relation
from .answer_data import Asked
from .logistic import logistic, sigmoid

__all__ = [
    "Example",
    "examples_of",
    "fit",
    "leave_one_out",
    "measure",
    "shipped_path",
    "weights_json",
]

L2 = 1.0
NEAR_WEIGHT = 0.3
"""How much a candidate that does not answer a question with an answer weighs as a
negative, beside a candidate of a question without one."""
MAX_SILENCE = 0.05
"""The false silence the threshold allows on each training set."""


@dataclass(slots=True)
class Example:
    """One search: its candidates' features (one row each), which answer, and what the
    shipped verdict did."""

    set: str
    group: str
    answerable: bool
    spoke: bool
    x: np.ndarray
    answers: np.ndarray


def _evidence(gate: Sequence[object]) -> HitEvidence:
    # Rows collected before session 16 have no eighth field, the hit's language.
    names, cov, cos, asks, graph, mentions, n, *lang = gate
    return HitEvidence(
        bool(names),
        float(cov),  # type: ignore[arg-type]
        None if cos is None else float(cos),  # type: ignore[arg-type]
        bool(asks),
        None if graph is None else str(graph),
        bool(mentions),
        int(n),  # type: ignore[call-overload]
        _relation(lang[0] if lang else "same"),
    )


def _relation(value: object) -> Relation:
    return "other" if value == "other" else "unsure" if value == "unsure" else "same"


def examples_of(
    asked: Sequence[Asked], embedder: TokenEmbedder, progress: Callable[[int], None] | None = None
) -> list[Example]:
    """Each search's candidates read as ``FEATURES`` (a passage's lines read once)."""
    seen: dict[str, TokenVectors] = {}
    out: list[Example] = []
    for n, a in enumerate(asked):
        texts = [passage_lines(c.text) for c in a.candidates]
        todo = list(dict.fromkeys(t for lines in texts for t in lines if t not in seen))
        for t, v in zip(todo, embedder.embed_tokens(todo), strict=True):
            seen[t] = v
        if len(seen) > 20_000:
            seen.clear()
        (query,) = embedder.embed_tokens([a.question])
        rows = with_leads(
            [
                features(a.question, query, c.text, [seen[t] for t in lines], _evidence(c.gate))
                for c, lines in zip(a.candidates, texts, strict=True)
            ]
        )
        x = np.array(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
        y = np.array([c.answers for c in a.candidates], dtype=bool)
        out.append(Example(a.set, a.group, a.answerable, a.spoke, x, y))
        if progress is not None and n % 100 == 0:
            progress(n)
    return out


def save_examples(examples: Sequence[Example], path: Path) -> None:
    rows = [
        {
            "set": e.set,
            "group": e.group,
            "answerable": e.answerable,
            "spoke": e.spoke,
            "x": e.x.tolist(),
            "answers": e.answers.tolist(),
        }
        for e in examples
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", "utf-8")


def load_examples(path: Path) -> list[Example]:
    out = []
    for line in path.read_text("utf-8").splitlines():
        r = json.loads(line)
        x = np.array(r["x"], dtype=np.float64).reshape(-1, len(FEATURES))
        ans = np.array(r["answers"], dtype=bool)
        out.append(Example(r["set"], r["group"], r["answerable"], r["spoke"], x, ans))
    return out


def _best(examples: Sequence[Example], bias: float, w: np.ndarray) -> np.ndarray:
    """Each search's best candidate's probability (0 for a search with none)."""
    return np.array([float(sigmoid(e.x @ w + bias).max()) if len(e.x) else 0.0 for e in examples])


def fit(
    examples: Sequence[Example], *, rounds: int = 3, max_silence: float = MAX_SILENCE
) -> AnswerWeights:
    sets = sorted({e.set for e in examples})
    per_set = {s: sum(1 for e in examples if e.set == s) for s in sets}
    bias, w = 0.0, np.zeros(len(FEATURES))
    for _ in range(rounds):
        xs: list[np.ndarray] = []
        ys: list[np.ndarray] = []
        ws: list[np.ndarray] = []
        for e in examples:
            if not len(e.x):
                continue
            share = 1.0 / per_set[e.set]
            if not e.answerable:
                pos = np.zeros(len(e.x), dtype=bool)
                weight = np.full(len(e.x), share / len(e.x))
            else:
                pos = e.answers.copy()
                if not pos.any():
                    pos[int((e.x @ w).argmax())] = True
                weight = np.where(pos, share / pos.sum(), NEAR_WEIGHT * share / len(e.x))
            xs.append(e.x)
            ys.append(pos.astype(np.float64))
            ws.append(weight)
        x, y, sw = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
        bias, w = logistic(x, y, sw * len(y) / sw.sum(), l2=L2, steps=40, tol=1e-7)
    threshold = _threshold(examples, _best(examples, bias, w), max_silence)
    return AnswerWeights(bias, dict(zip(FEATURES, map(float, w), strict=True)), threshold)


def _threshold(examples: Sequence[Example], best: np.ndarray, max_silence: float) -> float:
    """The highest threshold at which every set's false silence is at most
    ``max_silence``."""
    t = 1.0
    for s in sorted({e.set for e in examples}):
        mine = np.array(
            [b for e, b in zip(examples, best, strict=True) if e.set == s and e.answerable]
        )
        if not len(mine):
            continue
        allowed = int(max_silence * len(mine))
        t = min(t, float(np.sort(mine)[allowed]))
    return max(0.0, t - 1e-9)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Per set: answerable questions, those left silent, questions without an answer,
    those spoken on; the judge's and the shipped verdict's."""

    answerable: int
    silent: int
    unanswerable: int
    spoke: int
    silent_before: int
    spoke_before: int

    def row(self) -> dict[str, float | int]:
        def rate(n: int, of: int) -> float:
            return round(n / of, 3) if of else 0.0

        return {
            "answerable": self.answerable,
            "unanswerable": self.unanswerable,
            "false_silence": rate(self.silent, self.answerable),
            "false_speech": rate(self.spoke, self.unanswerable),
            "false_silence_before": rate(self.silent_before, self.answerable),
            "false_speech_before": rate(self.spoke_before, self.unanswerable),
        }


def measure(examples: Sequence[Example], weights: AnswerWeights) -> dict[str, Outcome]:
    w = np.array([weights.weights[f] for f in FEATURES])
    best = _best(examples, weights.bias, w)
    out: dict[str, Outcome] = {}
    for s in sorted({e.set for e in examples}):
        mine = [
            (e, b >= weights.threshold) for e, b in zip(examples, best, strict=True) if e.set == s
        ]
        ans = [(e, sp) for e, sp in mine if e.answerable]
        un = [(e, sp) for e, sp in mine if not e.answerable]
        out[s] = Outcome(
            len(ans),
            sum(not sp for _, sp in ans),
            len(un),
            sum(sp for _, sp in un),
            sum(not e.spoke for e, _ in ans),
            sum(e.spoke for e, _ in un),
        )
    return out


def _add(a: Outcome, b: Outcome) -> Outcome:
    return Outcome(*(x + y for x, y in zip(_fields(a), _fields(b), strict=True)))


def _fields(o: Outcome) -> tuple[int, ...]:
    return (o.answerable, o.silent, o.unanswerable, o.spoke, o.silent_before, o.spoke_before)


def leave_one_out(examples: Sequence[Example], **kw: float) -> dict[str, Outcome]:
    """Each group measured with weights fitted without it, summed per set."""
    out: dict[str, Outcome] = {}
    for g in sorted({(e.set, e.group) for e in examples}):
        w = fit([e for e in examples if (e.set, e.group) != g], **kw)  # type: ignore[arg-type]
        for s, o in measure([e for e in examples if (e.set, e.group) == g], w).items():
            out[s] = _add(out[s], o) if s in out else o
    return out


def weights_json(w: AnswerWeights, sets: Sequence[str]) -> str:
    return json.dumps(
        {
            "fitted_on": list(sets),
            "bias": round(w.bias, 6),
            "threshold": round(w.threshold, 6),
            "weights": {k: round(v, 6) for k, v in w.weights.items()},
        },
        indent=2,
    )


def shipped_path() -> Path:
    """Where the shipped weights live in the source tree (``orgbrain eval answer --write``)."""
    return Path(str(resources.files("orgbrain.retrieve"))) / "answer_weights.json"
