"""The judge: a pair's signals combined by fitted weights into the probability that the
newer unit replaces the older, and the relation it names.

The weights are a logistic regression's over ``SIGNALS`` and the two ``Projection``s of
the units' vectors, fitted on the living sets; the threshold is the one the fit chose for
few false supersessions. A cosine or a projection means something only in the space it
was measured in, so weights are fitted and shipped per embedding model:
``spaces/<model>.json`` and ``spaces/<model>.npz``, written by ``orgbrain eval judge
--write`` with that model configured. Below it a pair is ``conflicts`` (one
slot, other values, the same day), ``adds`` (one slot, nothing replaced) or
``unrelated``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from .signals import PairText, signals

__all__ = [
    "ENGLISH",
    "FOREIGN",
    "JUDGE_VERSION",
    "PROJECTED",
    "RULES",
    "SAME_SLOT",
    "SPACES",
    "Projection",
    "Verdict",
    "Weights",
    "judge",
    "judging_with",
    "load_weights",
    "unread",
]

JUDGE_VERSION = "pair-lr-2"
SAME_SLOT = 0.6
"""Masked cosine above which two units are read as speaking of one slot (for the
relation's name below the threshold, not for replacing)."""
DECIDING = 4
"""The signals a verdict names: those that moved its probability most."""


@dataclass(frozen=True, slots=True)
class Projection:
    """Two fitted projections of the embedding space, each to ``PROJECTED`` numbers: of
    the newer unit's vector (what kind of sentence it is: an announcement, a reminder, a
    proposal) and of the difference between the two units' vectors (what changed). The
    principal directions of the training pairs' vectors, fitted without labels."""

    mean: np.ndarray
    new: np.ndarray  # dim x k
    diff: np.ndarray  # dim x k

    def signals(self, old: np.ndarray, new: np.ndarray) -> dict[str, float]:
        a = (new - self.mean) @ self.new * SCALE
        b = (new - old) @ self.diff * SCALE
        return {
            **{f"new_{i}": float(v) for i, v in enumerate(a)},
            **{f"diff_{i}": float(v) for i, v in enumerate(b)},
        }


PROJECTED = 32
SCALE = 2.0
RULES = ("rule_restated", "rule_typed")
"""The signals that are the English phrase rules' readings (``derive/rule_readings.py``)."""
ENGLISH = "en"
FOREIGN = ":foreign"
"""What a verdict's version adds when the foreign weights decided it."""
_GROUPS = {"new": "sentence_kind", "diff": "what_changed"}


def unread(pair: PairText) -> bool:
    """Whether no rule read ``pair``: neither unit is English, the one language the rules
    read (``Weights.foreign`` judge it)."""
    return ENGLISH not in (pair.old.lang, pair.new.lang)


@dataclass(frozen=True, slots=True)
class Weights:
    bias: float
    weights: dict[str, float]
    threshold: float
    projection: Projection | None = None
    version: str = JUDGE_VERSION
    embedder: str = ""
    """The model whose vectors the weights were fitted on (its cosines and projections
    mean nothing in another's space); "" when not recorded."""
    foreign: Weights | None = None
    """The weights for a pair neither of whose units is English, fitted on the same pairs
    without ``RULES``: the rules read English only, so in another language their
    silence says nothing, and weights that learnt to expect them there judge too low (on
    the German, French and Spanish living sets the replaced belief's best pair scored a
    logit 2 under the English ones', 1.5 of it the rules' missing signal)."""

    def for_pair(self, pair: PairText) -> Weights:
        """The weights that judge ``pair``: ``foreign`` where neither unit is English
        and such weights were fitted. (Either, and an English note's short line that
        reads as French, "R. Singh, A. Petrakis", lost the rules that read it.)"""
        return self.foreign if self.foreign is not None and unread(pair) else self

    def logit(self, s: dict[str, float]) -> float:
        return self.bias + sum(w * s.get(k, 0.0) for k, w in self.weights.items())

    def signals(self, pair: PairText) -> dict[str, float]:
        """The pair's named signals and, where the weights hold projections and the pair
        its vectors, the projected ones."""
        s = signals(pair)
        if self.projection is not None and pair.old_vec is not None and pair.new_vec is not None:
            s |= self.projection.signals(pair.old_vec, pair.new_vec)
        return s


@dataclass(frozen=True, slots=True)
class Verdict:
    """``relation`` (``replaces``, ``conflicts``, ``adds``, ``unrelated``), the
    probability that the newer replaces the older, and the signals that decided it
    (name and contribution to the logit), strongest first."""

    relation: str
    probability: float
    deciding: tuple[tuple[str, float], ...]
    version: str


_chosen: list[Weights] = []
"""Weights chosen for a while, process-wide: derivation may run on a worker thread."""


@contextmanager
def judging_with(weights: Weights) -> Iterator[None]:
    """Judge with ``weights`` instead of the shipped ones for a while (``orgbrain eval
    living --loo`` measures each organisation with weights fitted without it)."""
    _chosen.append(weights)
    try:
        yield
    finally:
        _chosen.remove(weights)


def load_weights(space: str) -> Weights | None:
    """The weights to judge with in ``space`` (an embedding model's name): those
    ``judging_with`` chose, else the ones shipped for that model; None where no weights
    were fitted in it."""
    return _chosen[-1] if _chosen else _shipped(space)


SPACES = "spaces"
"""The folder of this package that holds the shipped weights, a pair of files per model."""


@cache
def _shipped(space: str) -> Weights | None:
    here = resources.files(__package__).joinpath(SPACES)
    weights = here.joinpath(f"{space}.json")
    if not weights.is_file():
        return None
    with here.joinpath(f"{space}.npz").open("rb") as f:
        arrays = np.load(f)
        projection = Projection(arrays["mean"], arrays["new"], arrays["diff"])
    return from_json(json.loads(weights.read_text("utf-8")), projection)


def from_json(raw: dict[str, object], projection: Projection | None = None) -> Weights:
    weights = raw["weights"]
    assert isinstance(weights, dict)
    foreign = raw.get("foreign")
    return Weights(
        bias=float(str(raw["bias"])),
        weights={str(k): float(v) for k, v in weights.items()},
        threshold=float(str(raw["threshold"])),
        projection=projection,
        version=str(raw.get("version", JUDGE_VERSION)),
        embedder=str(raw.get("embedder", "")),
        foreign=from_json(foreign, projection) if isinstance(foreign, dict) else None,
    )


def judge(pair: PairText, weights: Weights) -> Verdict:
    """Whether ``pair.new`` replaces ``pair.old`` by ``weights`` (their ``foreign`` ones
    for a pair with no English unit, the verdict's version then saying so); pure: the
    same pair, the same verdict."""
    w = weights.for_pair(pair)
    version = weights.version if w is weights else f"{weights.version}{FOREIGN}"
    s = w.signals(pair)
    z = w.logit(s)
    p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
    by_name: dict[str, float] = {}
    for k, c in w.weights.items():
        # the projections' numbers are read as two signals: what kind of sentence the
        # newer is, and what changed between the two
        name = _GROUPS.get(k.split("_")[0], k) if k[-1].isdigit() else k
        by_name[name] = by_name.get(name, 0.0) + c * s.get(k, 0.0)
    contrib = sorted(by_name.items(), key=lambda kv: -abs(kv[1]))
    deciding = tuple((k, round(c, 3)) for k, c in contrib[:DECIDING] if c)
    if p >= w.threshold:
        relation = "replaces"
    elif pair.masked_cos >= SAME_SLOT and s["value_differs"] and pair.gap_days < 1:
        relation = "conflicts"
    elif pair.masked_cos >= SAME_SLOT:
        relation = "adds"
    else:
        relation = "unrelated"
    return Verdict(relation, round(p, 4), deciding, version)
