"""An e5 brain across languages (issue 39): a German note answers the English question
it answers, under the bars for hits in another language than the question
(``Gate.across``, fitted in ``space_gates.json``), and an English question that no note
answers gets nothing, though e5 puts every German note near every question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orgbrain import Brain
from orgbrain.adapters.embed_e5 import E5Embedder


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    return E5Embedder()


def _brain(path: Path, e5: E5Embedder, *notes: str) -> Iterator[Brain]:
    with Brain.open(path, embedder=e5) as brain:
        for text in notes:
            brain.add_note(text)
        yield brain


@pytest.fixture
def swiss(tmp_path: Path, e5: E5Embedder) -> Iterator[Brain]:
    yield from _brain(
        tmp_path / "swiss",
        e5,
        "Die Wartungsverträge unserer Kunden in der Schweiz betreut seit März Lena Brandt "
        "aus dem Vertrieb.",
        "Die Kantine im Werk Ulm öffnet montags bis freitags um 11:30 Uhr.",
    )


def test_an_english_question_finds_the_german_note_that_answers_it(swiss: Brain) -> None:
    """ "Swiss" is "Schweiz" in the note: across languages the gate does not ask a hit to
    spell the question's names (``Gate.spelled_names``), its cosine speaks."""
    result = swiss.search("Who looks after maintenance contracts for our Swiss customers?")
    assert result.verdict != "none", result.reason
    assert "Lena Brandt" in result.hits[0].item.body


def test_a_german_label_answers_an_english_question(tmp_path: Path, e5: E5Embedder) -> None:
    """A label has no stopword to tell its language by ("unsure"): e5's bars hold it to
    the question's own language's bars (issue 39: holding labels to the other language's
    bars kept no answer held out), and it clears them."""
    for brain in _brain(
        tmp_path / "label",
        e5,
        "Betriebsarzt: Sprechstunde dienstags 8-10 Uhr, Gebäude C",
        "Visitor parking permits are issued at reception.",
        "The company car fleet is managed by Priya Raman.",
        "Quarterly planning starts in the second week of March.",
        "Laptops are replaced every three years by IT.",
        "Expense reports go through the finance portal.",
    ):
        result = brain.search("When does the company doctor hold office hours?")
        assert result.verdict != "none", result.reason
        assert "Betriebsarzt" in result.why, result.why


def test_an_unrelated_german_note_does_not_answer(tmp_path: Path, e5: E5Embedder) -> None:
    """e5 gives these German notes 0.78 against the English question: over the one bar
    an e5 brain had for every hit, under the bar for hits in another language."""
    for brain in _brain(
        tmp_path / "unrelated",
        e5,
        "The office wifi password is changed every month by Dana.",
        "Visitor parking permits are issued at reception.",
        "Die Kantine im Werk Ulm öffnet montags bis freitags um 11:30 Uhr.",
        "Die Reisekosten rechnet man bis zum fünften des Folgemonats im Personalportal ab.",
    ):
        result = brain.search("When does the company doctor hold office hours?")
        assert result.verdict == "none", result.reason
