"""The gate's cosine bars in the embedding space a brain's vectors live in.

The membership gate (``verdict.membership``) reads cosines, and its bars (``Gate``: 0.35
to speak, 0.6 to speak alone, ...) were measured on all-MiniLM-L6-v2's cosines. Another
model's cosines sit elsewhere: multilingual-e5's between 0.7 and 0.9 for nearly any two
texts, so under MiniLM's bars it spoke on almost every question with no answer. Each
model therefore states, as data beside its name (``space_gates.json``), how its cosines
map onto the scale the bars are written in: a bar ``t`` becomes ``offset + scale * t``
(and a gap between cosines, ``near_best``, ``scale * t``). One line per model is what a
calibration of the whole curve needs, so every plan's gate (the default's, the strict
one's) moves with it. A model with no line (MiniLM, whose scale the bars are in, or a
remote one not measured) keeps the bars as written.

A model that maps languages into one space still scores a note in another language than
the question lower than one in the question's own: e5 gives a German note an English
question answers about the cosine it gives an English note that only shares the topic.
So a line may carry a second line, ``across``, for the hits in another language than the
question (``HitEvidence.lang``), and whether across languages a hit must still spell the
question's names (``spelled_across``: "Swiss" is "Schweiz" in a German note).

The lines are fitted, not chosen: ``bench/fit_space_gate.py`` replays the gate over the
project's English and German/French/Spanish facts and living rows searched with that
model and writes the file (docs/journal.md, "Issue 39").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

from .plan import Gate, SearchPlan

__all__ = ["CosineScale", "SpaceBars", "in_space", "scaled_gate", "space_bars"]


@dataclass(frozen=True, slots=True)
class CosineScale:
    """A model's cosine for a bar ``t`` written on MiniLM's scale: ``offset + scale * t``."""

    offset: float = 0.0
    scale: float = 1.0

    def bar(self, t: float) -> float:
        return round(self.offset + self.scale * t, 3)  # a bar a reason prints


@dataclass(frozen=True, slots=True)
class SpaceBars:
    """One model's bars: ``same`` for a hit in the question's language, ``across`` (None:
    the same) for one in another, and whether across languages a hit must spell the
    question's names (``Gate.spelled_names``)."""

    same: CosineScale
    across: CosineScale | None = None
    spelled_across: bool = True


def _scale(line: dict[str, float]) -> CosineScale:
    return CosineScale(float(line["offset"]), float(line["scale"]))


@cache
def _spaces() -> dict[str, SpaceBars]:
    text = resources.files(__package__).joinpath("space_gates.json").read_text("utf-8")
    return {
        model: SpaceBars(
            _scale(line),
            _scale(line["across"]) if "across" in line else None,
            bool(line.get("spelled_across", True)),
        )
        for model, line in json.loads(text)["models"].items()
    }


def space_bars(model: str) -> SpaceBars | None:
    """``model``'s fitted bars, None for a model with none (its bars stay as written)."""
    return _spaces().get(model)


def _moved(gate: Gate, scale: CosineScale) -> Gate:
    some = gate.some_name_cosine
    return replace(
        gate,
        min_cosine=scale.bar(gate.min_cosine),
        plain_cosine=scale.bar(gate.plain_cosine),
        near_best=None if gate.near_best is None else round(scale.scale * gate.near_best, 3),
        some_name_cosine=None if some is None else scale.bar(some),
    )


def scaled_gate(gate: Gate, bars: SpaceBars) -> Gate:
    """``gate`` with its cosine bars moved onto ``bars`` (depths and term shares are no
    cosines, and stay), and the bars for hits in another language beside them."""
    across = None
    if bars.across is not None or not bars.spelled_across:
        across = replace(_moved(gate, bars.across or bars.same), spelled_names=bars.spelled_across)
    return replace(_moved(gate, bars.same), across=across)


def in_space(plan: SearchPlan, model: str) -> SearchPlan:
    """``plan`` with its gate's bars in ``model``'s cosines."""
    bars = space_bars(model)
    if plan.gate is None or bars is None:
        return plan
    return replace(plan, gate=scaled_gate(plan.gate, bars))
