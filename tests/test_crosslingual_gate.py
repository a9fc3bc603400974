"""A hit in another language than the question is held to the gate's other-language bars
(``Gate.across``): a model that maps languages into one space still scores a translation
lower than a paraphrase (``retrieve/space_gate.py``, ``retrieve/crosslingual.py``)."""

from __future__ import annotations

from dataclasses import replace

from orgbrain.analysis import detect_language, sure_language
from orgbrain.retrieve import Gate, HitEvidence, membership
from orgbrain.retrieve.crosslingual import relation
from orgbrain.retrieve.plan import PLANS
from orgbrain.retrieve.space_gate import CosineScale, SpaceBars, scaled_gate, space_bars
from orgbrain.retrieve.verdict import bars_for

SAME = Gate(depth=3, min_cosine=0.85, min_coverage=0.5)
GATE = Gate(depth=3, min_cosine=0.85, min_coverage=0.5, across=Gate(min_cosine=0.8))


def test_a_label_has_no_language_to_tell_and_says_so() -> None:
    label = "Urlaubsantrag: Personalportal, Freigabe Teamleitung"
    assert sure_language(label) is None
    assert detect_language(label) == "en"  # the default, for whoever needs a language
    assert relation("en", label) == "unsure"
    assert relation("en", "Den Urlaubsantrag stellt man im Personalportal.") == "other"
    assert relation("de", "Den Urlaubsantrag stellt man im Personalportal.") == "same"


def test_a_hit_in_another_language_is_held_to_the_other_language_bar() -> None:
    german = HitEvidence(names=True, coverage=0.0, cosine=0.82, lang="other")
    english = HitEvidence(names=True, coverage=0.0, cosine=0.82, lang="same")
    assert membership([german], GATE).speak
    assert not membership([english], GATE).speak  # 0.82 is under the same-language bar
    assert not membership([german], SAME).speak  # no other-language bars: the same ones


def test_a_hit_of_no_telling_language_is_held_to_the_questions_bars() -> None:
    """Held out, holding labels to the other-language bars kept no set's answers that the
    question's own bars lose (issue 39), so e5's bars hold a label as the same language."""
    e5 = space_bars("multilingual-e5-small-q4")
    assert e5 is not None and e5.across is not None
    gate = scaled_gate(PLANS["tuned-z"].gate or Gate(), e5)
    assert gate.across is not None and gate.across.min_cosine < gate.min_cosine
    between = (gate.across.min_cosine + gate.min_cosine) / 2
    label = HitEvidence(names=True, coverage=0.0, cosine=between, lang="unsure")
    assert bars_for(label, gate) is gate
    assert bars_for(replace(label, lang="other"), gate) is gate.across


def test_across_languages_the_bars_may_waive_the_spelling_of_names() -> None:
    """ "Swiss" is "Schweiz" in a German note: with ``spelled_names`` off for the other
    language's bars, a close German hit need not spell the English name; a hit in the
    question's language still must."""
    waived = Gate(depth=3, min_cosine=0.85, across=Gate(min_cosine=0.8, spelled_names=False))
    german = HitEvidence(names=False, coverage=0.0, cosine=0.82, lang="other")
    assert membership([german], waived).speak
    assert not membership([german], GATE).speak
    assert not membership([HitEvidence(names=False, coverage=1.0, cosine=0.9)], waived).speak


def test_a_space_with_two_lines_moves_each_set_of_bars() -> None:
    base = Gate(depth=5, min_cosine=0.35, min_coverage=0.5, plain_depth=1, plain_cosine=0.6)
    bars = SpaceBars(CosineScale(0.5, 1.0), CosineScale(0.4, 1.0), False)
    moved = scaled_gate(base, bars)
    assert moved.min_cosine == 0.85
    assert moved.across is not None
    assert (moved.across.min_cosine, moved.across.spelled_names) == (0.75, False)
    assert scaled_gate(base, SpaceBars(CosineScale(0.5, 1.0))).across is None


def test_the_floor_holds_a_hit_in_another_language_to_one_kinds_floor() -> None:
    """Found by the vector streams alone, a best hit in another language is held to one
    kind's floor; a label reads as English."""
    from datetime import UTC, datetime

    from orgbrain.model import ItemSketch
    from orgbrain.retrieve.candidate import Candidate
    from orgbrain.retrieve.crosslingual import fused_floor
    from orgbrain.retrieve.plan import ONE_KIND_FLOOR, get_plan

    at = datetime(2026, 3, 1, tzinfo=UTC)
    unset = (None, None, None)  # no supersession, no tombstone

    def best(body: str) -> list[Candidate]:
        item = ItemSketch("a", "w", "org", "note", "note", "", body, True, None, None, at, *unset)
        return [Candidate("a", 1 / 61, {}, item)]

    plan = get_plan("tuned-z")
    assert plan.gate is not None and plan.floor_abs > ONE_KIND_FLOOR
    label = best("Betriebsarzt: Sprechstunde dienstags 8-10 Uhr")
    assert fused_floor("en", label, plan) == plan.floor_abs
    assert fused_floor("en", best("Die Kantine öffnet um 11:30 Uhr."), plan) == ONE_KIND_FLOOR
    assert fused_floor("en", best("The canteen opens at 11:30."), plan) == plan.floor_abs
