"""The classifier tier: a softmax regression over MiniLM sentence embeddings.

It reads the sentences the patterns found nothing in and, when it is confident that one
states a fact, preference, event or decision, adds a claim with a generic predicate
(``states``, ``prefers``, ``happened``, ``decided``) about the first thing the sentence
names. The weights are trained by ``scripts/train_statement_classifier.py`` on
``evals/data/statements_train.jsonl`` and shipped beside this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from io import BytesIO
from typing import cast

import numpy as np
from numpy.typing import NDArray

from ..errors import Unavailable
from ..ports import Embedder
from .patterns import merge_entities
from .quiet import states_nothing
from .sentences import split_units
from .types import Claim, Extraction, Found, StatementType

__all__ = ["CLASSES", "WEIGHTS_FILE", "StatementClassifier"]

CLASSES: tuple[str, ...] = ("none", "fact", "preference", "event", "decision")
WEIGHTS_FILE = "statement_classifier.npz"
GENERIC_PREDICATES = {
    "fact": "states",
    "preference": "prefers",
    "event": "happened",
    "decision": "decided",
}
_PEOPLE = ("person", "handle", "email")


@dataclass(frozen=True, slots=True)
class _Weights:
    w: NDArray[np.float32]  # (dim, classes)
    b: NDArray[np.float32]  # (classes,)
    embedder: str


class StatementClassifier:
    """Adds typed claims for sentences the patterns missed, when ``p >= threshold``."""

    def __init__(self, embedder: Embedder, weights: _Weights, *, threshold: float = 0.5) -> None:
        if weights.w.shape[0] != embedder.dim:
            raise Unavailable(
                f"the statement classifier was trained on {weights.w.shape[0]}-dim vectors "
                f"({weights.embedder}); this embedder gives {embedder.dim}"
            )
        self.embedder = embedder
        self.weights = weights
        self.threshold = threshold

    @classmethod
    def packaged(cls, embedder: Embedder, *, threshold: float = 0.5) -> StatementClassifier:
        return cls(embedder, load_weights(), threshold=threshold)

    def probabilities(self, sentences: Sequence[str]) -> NDArray[np.float32]:
        """``(len(sentences), len(CLASSES))`` class probabilities."""
        if not sentences:
            return np.zeros((0, len(CLASSES)), dtype=np.float32)
        return softmax(self.embedder.embed(list(sentences)) @ self.weights.w + self.weights.b)

    def refine(
        self, text: str, found: Extraction, *, known: Sequence[tuple[str, str]] = ()
    ) -> Extraction:
        covered = {(c.start, c.end) for c in found.claims}
        units = [
            u
            for u in split_units(text)
            if u.kind != "heading"
            and (u.start, u.end) not in covered
            and not states_nothing(text[u.start : u.end])
        ]
        if not units:
            return found
        probs = self.probabilities([text[u.start : u.end] for u in units])
        added: list[Claim] = []
        for unit, row in zip(units, probs, strict=True):
            best = int(np.argmax(row))
            label = CLASSES[best]
            if label == "none" or float(row[best]) < self.threshold:
                continue
            inside = [e for e in found.entities if unit.start <= e.start and e.end <= unit.end]
            people = [e for e in inside if e.type in _PEOPLE]
            things = [e for e in inside if e.type not in _PEOPLE and e.type != "topic"]
            pool = people if label == "preference" else things or people
            if not pool:
                continue
            subject: Found = pool[0]
            sentence = text[unit.start : unit.end].strip().rstrip(".!")
            added.append(
                Claim(
                    type=cast(StatementType, label),
                    subject=subject,
                    predicate=GENERIC_PREDICATES[label],
                    object=sentence,
                    object_entity=None,
                    start=unit.start,
                    end=unit.end,
                    valid_from=None,
                    replaces=None,
                    tier="classifier",
                    confidence=round(float(row[best]), 3),
                )
            )
        if not added:
            return found
        claims = (*found.claims, *added)
        return Extraction(merge_entities(found.entities, claims), claims)


def softmax(logits: NDArray[np.float32]) -> NDArray[np.float32]:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return cast(NDArray[np.float32], (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32))


def load_weights() -> _Weights:
    try:
        raw = resources.files("orgbrain.extraction").joinpath(WEIGHTS_FILE).read_bytes()
    except FileNotFoundError:
        raise Unavailable(
            f"the statement classifier's weights ({WEIGHTS_FILE}) are missing from the "
            "package; run scripts/train_statement_classifier.py"
        ) from None
    with np.load(BytesIO(raw), allow_pickle=False) as data:
        return _Weights(
            data["w"].astype(np.float32), data["b"].astype(np.float32), str(data["embedder"])
        )


def train_weights(
    x: NDArray[np.float32],
    y: NDArray[np.int64],
    *,
    l2: float = 1e-3,
    steps: int = 800,
    rate: float = 0.5,
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Softmax regression by full-batch gradient descent, classes weighted by frequency."""
    n, dim = x.shape
    k = len(CLASSES)
    onehot = np.zeros((n, k), dtype=np.float32)
    onehot[np.arange(n), y] = 1.0
    counts = onehot.sum(axis=0)
    balance = (n / (k * np.maximum(counts, 1.0)))[y].astype(np.float32)[:, None]
    w = np.zeros((dim, k), dtype=np.float32)
    b = np.zeros(k, dtype=np.float32)
    for _ in range(steps):
        grad = (softmax(x @ w + b) - onehot) * balance / n
        w -= rate * (x.T @ grad + l2 * w)
        b -= rate * grad.sum(axis=0)
    return w, b
