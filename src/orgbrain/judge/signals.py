"""The signals of a pair of units, older and newer: named numbers, each in [0, 1] or
near it, that say whether the newer restates the older's slot with another value.

None is a phrase rule. Similarity is the embedding's, with values masked (the same
slot, whatever its value); values are compared by type (``extraction/values.py``,
``named.py``); words by their stems; cues (change, hedge, plan, a one-off exception) are
the lexicons ``extraction/cues.py`` and ``quiet.py`` keep and the word lists of
``cues.json``. What each unit says alone is read once, in ``units.py``; this module
compares two.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..extraction.qualifiers import apart
from ..extraction.values import Value
from .units import FAMILIES, JUnit

__all__ = ["SIGNALS", "PairText", "pair_texts", "resolve", "signals"]


@dataclass(frozen=True, slots=True)
class PairText:
    """An older and a newer unit, the cosines the caller's embedder gave them (the units
    as written, the units masked, their whole notes) and the days between them."""

    old: JUnit
    new: JUnit
    cos: float
    masked_cos: float
    note_cos: float
    gap_days: float
    old_vec: np.ndarray | None = field(default=None, compare=False)
    """The older unit's embedding, as written (for the judge's projections)."""
    new_vec: np.ndarray | None = field(default=None, compare=False)
    rules: frozenset[str] = frozenset()
    """The rules that read the newer unit as restating the older (``restated``, a value
    or name said anew; ``typed``, one subject's typed statement with another object),
    as the caller read them (``derive/rule_readings.py``)."""


SIGNALS = (
    "cos",
    "masked_cos",
    "note_cos",
    "shared_words",
    "new_words",
    "same_kind_value",
    "value_differs",
    "value_kept",
    "name_new",
    "name_gone",
    "old_value_named",
    "change_cue",
    "old_change_cue",
    "states_nothing",
    "temporary",
    "planned",
    "negated",
    "apart",
    "rows",
    "other_row",
    "same_context",
    "gap",
    "old_only",
    "new_only",
    "identical",
    "value_gap",
    "same_values",
    "continues",
    "adds",
    "proposes",
    "ends",
    "old_proposes",
    "masked_x_same_values",
    "masked_x_differs",
    "masked_x_cue",
    "note_x_differs",
    "masked_x_old_only",
    "rule_restated",
    "rule_typed",
)
"""Every signal's name, in the order the weights are kept."""


def pair_texts(
    olds: Sequence[JUnit],
    news: Sequence[JUnit],
    vectors: Mapping[str, np.ndarray],
    note_cos: float,
    gap_days: float,
    *,
    min_cos: float = -1.0,
    rules: Callable[[JUnit, JUnit], frozenset[str]] | None = None,
) -> list[PairText]:
    """Every pair of an older note's units and a newer one's at least ``min_cos`` alike as
    written (``vectors`` holds each unit's text and masked text, L2-normalised)."""
    out = []
    for a in olds:
        for b in news:
            va, vb = vectors[a.text], vectors[b.text]
            raw = float(va @ vb)
            if raw >= min_cos:
                masked = float(vectors[a.masked] @ vectors[b.masked])
                said = rules(a, b) if rules is not None else frozenset()
                out.append(PairText(a, b, raw, masked, note_cos, gap_days, va, vb, said))
    return out


def signals(p: PairText) -> dict[str, float]:
    old, new = p.old, p.new
    shared = old.stems & new.stems
    union = old.stems | new.stems
    kinds_old, kinds_new = _kinds(old.values), _kinds(new.values)
    same_kind = kinds_old & kinds_new
    differs = any(_keys(old.values, k) != _keys(new.values, k) for k in same_kind)
    kept = bool(old.values) and _keys(old.values, None) <= _keys(new.values, None)
    old_names = resolve({n.key for n in old.names}, {n.key for n in new.names})
    new_names = resolve({n.key for n in new.names}, old_names)
    name_new = bool(new_names - old_names) and bool(shared)
    name_gone = bool(old_names - new_names)
    named = bool(old_names & new_names) or any(v.key in _keys(new.values, None) for v in old.values)
    other_row = (
        old.kind == "row"
        and new.kind == "row"
        and bool(old.first_cell)
        and old.first_cell != new.first_cell
    )
    cue = new.cues["change"]
    s = {
        "cos": p.cos,
        "masked_cos": p.masked_cos,
        "note_cos": p.note_cos,
        "shared_words": len(shared) / len(union) if union else 0.0,
        "new_words": len(new.stems - old.stems) / max(1, len(new.stems)),
        "same_kind_value": float(bool(same_kind)),
        "value_differs": float(differs),
        "value_kept": float(kept),
        "name_new": float(name_new),
        "name_gone": float(name_gone),
        "old_value_named": float(named and (differs or name_new)),
        "change_cue": float(cue),
        "old_change_cue": float(old.cues["change"]),
        "states_nothing": float(new.cues["nothing"]),
        "temporary": float(new.cues["temporary"]),
        "planned": float(new.cues["planned"]),
        "negated": float(new.cues["negated"]),
        "apart": float(apart(old.qualified, new.qualified)),
        "rows": float(old.kind == "row" and new.kind == "row"),
        "other_row": float(other_row),
        "same_context": _jaccard(old.context_stems, new.context_stems),
        "gap": math.log1p(max(0.0, p.gap_days)) / 6,
    }
    old_tokens, new_tokens = old.tokens, new.tokens
    s["old_only"] = len(old_tokens - new_tokens) / max(1, len(old_tokens))
    s["new_only"] = len(new_tokens - old_tokens) / max(1, len(new_tokens))
    s["identical"] = float(old_tokens == new_tokens)
    s["value_gap"] = max(0.0, p.masked_cos - p.cos)
    s["masked_x_old_only"] = s["masked_cos"] * s["old_only"]
    s["same_values"] = float(bool(same_kind) and not differs and not name_new)
    for family in FAMILIES:
        s[family] = float(new.cues[family])
    s["old_proposes"] = float(old.cues["proposes"])
    s["masked_x_same_values"] = s["masked_cos"] * s["same_values"]
    s["masked_x_differs"] = s["masked_cos"] * float(differs or name_new)
    s["masked_x_cue"] = s["masked_cos"] * s["change_cue"]
    s["note_x_differs"] = s["note_cos"] * float(differs or name_new)
    s["rule_restated"] = float("restated" in p.rules)
    s["rule_typed"] = float("typed" in p.rules)
    return s


def resolve(names: set[str], others: set[str]) -> set[str]:
    """``names``, each short form that points at exactly one longer name of ``others``
    read as that name: a first or last name ("marta" for "marta kowalski") or initials
    ("mk"). One person written two ways is not a name gone and another come."""
    longer = [o.split() for o in others if " " in o]
    out = set()
    for n in names:
        if " " not in n:
            hits = {" ".join(o) for o in longer if n in (o[0], o[-1], "".join(w[0] for w in o))}
            n = hits.pop() if len(hits) == 1 else n
        out.add(n)
    return out


def _kinds(values: tuple[Value, ...]) -> set[tuple[str, str]]:
    return {(v.kind, v.unit) for v in values}


def _keys(values: tuple[Value, ...], kind: tuple[str, str] | None) -> frozenset[str]:
    return frozenset(v.key for v in values if kind is None or (v.kind, v.unit) == kind)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
