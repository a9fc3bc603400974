"""The space-gate fit, left one set out (``bench/fit_space_gate.py --held-out``): a set is
scored at bars fitted without it, so a set whose answers sit under the others' bar is
silenced when held out, and the margin written is the one that keeps it answered."""

from __future__ import annotations

from bench.fit_space_gate import Sets, fit, held_out, held_out_score, least_margin, lowered
from bench.verdict_curve import Row, score

from orgbrain.retrieve import HitEvidence
from orgbrain.retrieve.plan import PLANS
from orgbrain.retrieve.space_gate import scaled_gate

GATE = PLANS["tuned-z"].gate
assert GATE is not None


def _row(answerable: bool, cosine: float) -> Row:
    """One hit that names the question's names and shares none of its terms: the cosine
    alone decides."""
    return Row(answerable, False, (HitEvidence(names=True, coverage=0.0, cosine=cosine),))


def _set(answers: float, no_answer: tuple[float, ...]) -> tuple[float, list[Row]]:
    rows = [_row(True, answers) for _ in range(4)] + [_row(False, c) for c in no_answer]
    return 0.05, rows


def _sets() -> Sets:
    # Three sets answer at 0.80 and have their questions without an answer up to 0.78: the
    # quietest bars that keep them answered sit between. "low" answers at 0.77.
    loud = (0.72, 0.74, 0.76, 0.78)
    return {"a": _set(0.80, loud), "b": _set(0.80, loud), "c": _set(0.80, loud)} | {
        "low": _set(0.77, (0.70,))
    }


def test_a_set_under_the_others_bar_is_silenced_when_held_out() -> None:
    sets = _sets()
    rows = sets["low"][1]
    fitted = fit(sets, GATE, one_line=True)[0][
        3
    ]  # "low" among the sets fitted: its answers are kept
    assert score(rows, scaled_gate(GATE, fitted)).false_silence == 0.0
    picks = held_out(sets, GATE, one_line=True)
    # Fitted on a, b and c alone the bar rises over 0.78 and silences every answer of "low".
    assert score(rows, scaled_gate(GATE, picks["low"])).false_silence == 1.0
    assert picks["low"].same.bar(GATE.min_cosine) > 0.78
    assert not held_out_score(sets, GATE, picks, 0.0)[0]


def test_the_margin_is_the_least_that_keeps_every_held_out_set() -> None:
    sets = _sets()
    picks = held_out(sets, GATE, one_line=True)
    margin = least_margin(sets, GATE, picks)
    assert margin is not None and margin > 0.0
    fits, _, _, _, cells = held_out_score(sets, GATE, picks, margin)
    assert fits and cells["low"].false_silence == 0.0
    low = lowered(picks["low"], margin)
    assert low.same.bar(GATE.min_cosine) <= 0.77
    assert low.same.scale == picks["low"].same.scale  # the gaps between cosines stay


def test_a_reading_held_fixed_is_the_only_one_fitted() -> None:
    """``--names-waiver yes|no``: every pair the fit offers reads the names as fixed, so
    the waiver can be held out on its own."""
    sets = _sets()
    for spelled in (True, False):
        found = fit(sets, GATE, readings=(spelled,))
        assert found and all(f[3].spelled_across == spelled for f in found)
