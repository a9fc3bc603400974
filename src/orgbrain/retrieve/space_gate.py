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

__all__ = ["CosineScale", "cosine_scale", "in_space", "scaled_gate"]


@dataclass(frozen=True, slots=True)
class CosineScale:
    """A model's cosine for a bar ``t`` written on MiniLM's scale: ``offset + scale * t``."""

    offset: float = 0.0
    scale: float = 1.0

    def bar(self, t: float) -> float:
        return round(self.offset + self.scale * t, 3)  # a bar a reason prints


@cache
def _scales() -> dict[str, CosineScale]:
    text = resources.files(__package__).joinpath("space_gates.json").read_text("utf-8")
    return {
        model: CosineScale(float(line["offset"]), float(line["scale"]))
        for model, line in json.loads(text)["models"].items()
    }


def cosine_scale(model: str) -> CosineScale | None:
    """``model``'s fitted scale, None for a model with none (its bars stay as written)."""
    return _scales().get(model)


def scaled_gate(gate: Gate, scale: CosineScale) -> Gate:
    """``gate`` with its cosine bars moved onto ``scale`` (depths and term shares are no
    cosines, and stay)."""
    some = gate.some_name_cosine
    return replace(
        gate,
        min_cosine=scale.bar(gate.min_cosine),
        plain_cosine=scale.bar(gate.plain_cosine),
        near_best=None if gate.near_best is None else round(scale.scale * gate.near_best, 3),
        some_name_cosine=None if some is None else scale.bar(some),
    )


def in_space(plan: SearchPlan, model: str) -> SearchPlan:
    """``plan`` with its gate's bars in ``model``'s cosines."""
    scale = cosine_scale(model)
    if plan.gate is None or scale is None:
        return plan
    return replace(plan, gate=scaled_gate(plan.gate, scale))
