"""The window that narrows (retrieve/narrow.py): what it keeps, credits and drops.

LoCoMo lost evidence to it (docs/journal.md, session 14): a turn of 2023 that says
"last year" stood for the asker's last year and pushed every other candidate out; a
window that held more candidates than the gate reads credited none of them, so the
score floor silenced the brain; an account written after the window ("I've known them
for 4 years, since I moved") was dropped though it held every other word asked.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from orgbrain import Brain
from orgbrain.brain import NoteInput
from orgbrain.model import Item, ItemSketch, Origin
from orgbrain.retrieve.narrow import narrow
from orgbrain.retrieve.query import Query
from orgbrain.retrieve.when import read_time

SAT = datetime(2026, 12, 5, 13, 0, tzinfo=UTC)


def _sketch(item_id: str, body: str, at: datetime) -> ItemSketch:
    origin = Origin("test", "test", at)
    item = Item(item_id, "ws", "note", "note", body, body, "k", True, "org", origin)
    return ItemSketch.of(replace(item, occurred_at=at))


def _last_week() -> Query:
    return Query("last week", SAT)


def test_what_the_window_holds_is_credited_and_the_rest_dropped() -> None:
    items = {
        "old": _sketch("old", "a note", datetime(2026, 10, 1, tzinfo=UTC)),
        "in1": _sketch("in1", "a note", datetime(2026, 11, 25, tzinfo=UTC)),
        "in2": _sketch("in2", "a note", datetime(2026, 11, 24, tzinfo=UTC)),
    }
    fused = {"old": 0.045, "in1": 0.04, "in2": 0.03}
    out, read = narrow(fused, items, _last_week(), 5, 0.5, 60)
    assert out == {"in1": 0.04 + 0.5 / 61, "in2": 0.03 + 0.5 / 62}
    assert list(out) == ["in1", "in2"] and read.narrows
    # None in the window: nothing changes, and the gate is told.
    none, idle = narrow(fused, {"old": items["old"]}, _last_week(), 5, 0.5, 60)
    assert none == fused and not idle.narrows


def test_more_in_the_window_than_the_gate_reads_are_still_credited() -> None:
    """Fourteen of a hundred LoCoMo candidates in "the week before August 3, 2023" kept
    their bare votes, and the best of them fell under the score floor: the window tells
    them from the rest, so they gain; only the gate no longer reads their dates."""
    items = {
        "old": _sketch("old", "a note", datetime(2026, 10, 1, tzinfo=UTC)),
        "in1": _sketch("in1", "a note", datetime(2026, 11, 25, tzinfo=UTC)),
        "in2": _sketch("in2", "a note", datetime(2026, 11, 24, tzinfo=UTC)),
    }
    fused = {"old": 0.045, "in1": 0.04, "in2": 0.03}
    many, wide = narrow(fused, items, _last_week(), 1, 0.5, 60)
    assert many == {"in1": 0.04 + 0.5 / 61, "in2": 0.03 + 0.5 / 62}
    assert not wide.narrows


def test_the_window_s_words_are_read_at_the_note_s_own_date() -> None:
    """A note of 2022 that says "last week" tells of a week of 2022; one written this
    week that says it tells of the asker's last week."""
    items = {
        "then": _sketch("then", "We shipped the app last week.", datetime(2022, 5, 2, tzinfo=UTC)),
        "now": _sketch("now", "We shipped the app last week.", datetime(2026, 12, 3, tzinfo=UTC)),
        "other": _sketch("other", "The app ships weekly.", datetime(2026, 10, 1, tzinfo=UTC)),
    }
    fused = {"other": 0.05, "then": 0.04}
    out, read = narrow(fused, items, _last_week(), 5, 0.5, 60)
    assert out == fused and not read.narrows  # "then" is not in the asker's window
    fused = {"other": 0.05, "then": 0.04, "now": 0.03}
    out, _ = narrow(fused, items, _last_week(), 5, 0.5, 60)
    assert list(out) == ["now"]


def test_a_note_outside_the_window_that_holds_every_other_word_stays() -> None:
    asked = "where did Caroline move from 4 years ago?"
    window = read_time(asked, SAT).window
    assert window is not None
    items = {
        "moved": _sketch(
            "moved",
            "Caroline: I've known these friends for years, since I moved from my home country.",
            datetime(2026, 6, 9, tzinfo=UTC),
        ),
        "said": _sketch("said", "Caroline: I painted a sunset.", window.start),
        "other": _sketch("other", "Melanie: We went camping.", datetime(2026, 6, 9, tzinfo=UTC)),
    }
    fused = {"moved": 0.05, "other": 0.045, "said": 0.04}
    out, _ = narrow(fused, items, Query(asked, SAT), 5, 0.5, 60)
    assert out == {"said": 0.04 + 0.5 / 61, "moved": 0.05}


def test_a_turn_that_says_last_year_does_not_push_the_answer_out(brain: Brain) -> None:
    """The LoCoMo loss, small: a conversation of 2023 asked about in 2026. "Where did
    John explore on a road trip last year?" reads 2025; the turn that says "last year"
    meant 2022, and must not stand in for the window and drop the answer."""
    at = datetime(2023, 4, 10, 18, 13, tzinfo=UTC)
    turns = [
        "John: We explored the coast up in the Pacific Northwest and hit some national parks.",
        "Maria: Last year was hard for me, I barely left the house.",
        "Maria: Road trips make me carsick, so I fly everywhere.",
        "John: My kids loved the beaches we found on the way.",
    ]
    brain.add_notes([NoteInput(t, occurred_at=at) for t in turns])
    result = brain.with_clock(lambda: SAT).search(
        "Where did John explore on a road trip last year?", k=5
    )
    assert result.window.startswith("last year: 2025")
    assert any("Pacific Northwest" in h.item.body for h in result.hits), [
        h.item.body for h in result.hits
    ]
