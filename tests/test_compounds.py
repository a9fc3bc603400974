"""German compounds in keyword search: "Urlaubsantrag" meets "Antrag auf Urlaub" by the
parts of the long word, on both sides (``analysis/compounds.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from orgbrain import Brain
from orgbrain.analysis import compound_parts, text_compound_parts
from orgbrain.retrieve.query import Query

NOW = datetime(2026, 12, 7, tzinfo=UTC)
NOTES = (
    "Einen Antrag auf Urlaub stellt ihr spätestens zwei Wochen vorher bei Petra Albrecht.",
    "Die Wartung der Server übernimmt jeden Samstag das Team von Jens Roth.",
    "Das Weiterbildungsbudget beträgt 1.200 Euro pro Jahr und Person.",
    "The canteen opens at half past eleven.",
)


def test_a_long_word_splits_into_heads_and_tails_of_four_letters_or_more() -> None:
    parts = compound_parts("Urlaubsantrag")
    assert {"urlaub", "urlaubs", "antrag"} <= set(parts)
    assert all(len(p) >= 4 for p in parts)
    assert compound_parts("Getriebe") == ()  # too short to be split
    assert compound_parts("E12345678") == ()  # not a word of letters


def test_only_a_language_that_glues_words_is_split() -> None:
    assert "budget" in text_compound_parts(NOTES[2]).split()
    assert text_compound_parts("Our documentation is maintained by Dana.") == ""
    query = Query("Wann muss der Urlaubsantrag gestellt werden?", NOW)
    assert "antrag" in query.searched and "antrag" not in query.terms  # never judged as covered
    english = Query("Who maintains the documentation?", NOW)
    assert english.searched == english.terms


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Bis wann muss der Urlaubsantrag gestellt werden?", 0),
        ("Wer kümmert sich um die Serverwartung?", 1),
        ("Wie hoch ist das Budget für Weiterbildung?", 2),
    ],
)
def test_a_keyword_search_meets_a_compound_by_its_parts(
    tmp_path: Path, question: str, answer: int
) -> None:
    with Brain.open(tmp_path / "b") as brain:
        ids = [brain.add_note(text).id for text in NOTES]
        found = brain.search(question, plan="bm25")
        assert found.hits and found.hits[0].item.id == ids[answer], found.reason
