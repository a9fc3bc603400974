"""The time reader: English time expressions as UTC day windows against a fixed date."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

import orgbrain.evals.facts as facts_data
from orgbrain import Brain
from orgbrain.analysis import text_stems
from orgbrain.brain import NoteInput
from orgbrain.errors import InvalidInput
from orgbrain.model import Item, Origin
from orgbrain.retrieve import query_terms
from orgbrain.retrieve.evidence import TIME_SLACK, hit_evidence
from orgbrain.retrieve.query import Query
from orgbrain.retrieve.terms import coverage
from orgbrain.retrieve.when import read_time
from orgbrain.views.search import SearchResultView

SAT = datetime(2026, 12, 5, 13, 0, tzinfo=UTC)  # a Saturday
MON_JAN = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)  # a Monday, the year's first full week
MAR_31 = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)


def days(query: str, now: datetime = SAT) -> str | None:
    window = read_time(query, now).window
    return None if window is None else window.days


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what did we decide today?", "2026-12-05"),
        ("what came up earlier today", "2026-12-05"),
        ("anything tonight?", "2026-12-05"),
        ("what did we decide yesterday about billing?", "2026-12-04"),
        ("what happened last night", "2026-12-04"),
        ("the day before yesterday", "2026-12-03"),
        ("what is planned tomorrow", "2026-12-06"),
        ("what did we ship this week?", "2026-11-30..2026-12-06"),
        ("what did we decide last week about the billing database?", "2026-11-23..2026-11-29"),
        ("previous week", "2026-11-23..2026-11-29"),
        ("the previous week", "2026-11-28..2026-12-05"),
        ("next week", "2026-12-07..2026-12-13"),
        ("this weekend", "2026-12-05..2026-12-06"),
        ("last weekend", "2026-11-28..2026-11-29"),
        ("this month", "2026-12-01..2026-12-31"),
        ("last month", "2026-11-01..2026-11-30"),
        ("this year", "2026-01-01..2026-12-31"),
        ("last year", "2025-01-01..2025-12-31"),
        ("in the last month", "2026-11-05..2026-12-05"),
        ("during the past month", "2026-11-05..2026-12-05"),
        ("over the past week", "2026-11-28..2026-12-05"),
        ("past week", "2026-11-28..2026-12-05"),
        ("the last 3 days", "2026-12-02..2026-12-05"),
        ("last 10 days", "2026-11-25..2026-12-05"),
        ("the past two years", "2024-12-05..2026-12-05"),
        ("three days ago", "2026-12-02"),
        ("a week ago", "2026-11-25..2026-12-01"),
        ("four weeks ago", "2026-11-04..2026-11-10"),
        ("a couple of weeks ago", "2026-11-18..2026-11-24"),
        ("about 2 months ago", "2026-09-20..2026-10-20"),
        ("a fortnight ago", "2026-11-14..2026-11-28"),
        ("a year ago", "2025-06-06..2026-06-05"),
        ("last Friday", "2026-12-04"),
        ("last Saturday", "2026-11-28"),  # "last" is never today
        ("on Saturday", "2026-12-05"),  # "on" may be today
        ("on Monday", "2026-11-30"),
        ("this past Friday", "2026-12-04"),
        ("this Tuesday", "2026-12-01"),
        ("next Friday", "2026-12-11"),
        ("next Saturday", "2026-12-12"),
        ("in March", "2026-03-01..2026-03-31"),
        ("during December", "2026-12-01..2026-12-31"),
        ("in early June", "2026-06-01..2026-06-30"),
        ("last March", "2026-03-01..2026-03-31"),
        ("last December", "2025-12-01..2025-12-31"),  # the current month is "this December"
        ("next March", "2027-03-01..2027-03-31"),
        ("in October 2023", "2023-10-01..2023-10-31"),
        ("March 2023", "2023-03-01..2023-03-31"),
        ("on May 3rd", "2026-05-03"),
        ("on May 3, 2023", "2023-05-03"),
        ("October 13, 2023", "2023-10-13"),
        ("on 1 February, 2023", "2023-02-01"),
        ("the 3rd of June", "2026-06-03"),
        ("on Dec. 24", "2025-12-24"),  # a date later this year has not come: last year's
        ("on 2023-05-03", "2023-05-03"),
        ("Feb 29", "2024-02-29"),  # the latest leap day
        ("in 2022", "2022-01-01..2022-12-31"),
        ("the week before August 3, 2023", "2023-07-27..2023-08-02"),
        ("two weeks before August 11, 2023", "2023-07-25..2023-07-31"),
        ("the day after May 3, 2023", "2023-05-04"),
        ("since Monday", "2026-11-30..2026-12-05"),
        ("since last week", "2026-11-23..2026-12-05"),
        ("since March", "2026-03-01..2026-12-05"),
        ("since 2025", "2025-01-01..2026-12-05"),
    ],
)
def test_reads_the_window(query: str, expected: str) -> None:
    assert days(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "May said the billing database moves to Postgres",  # the name, not the month
        "did they march on the capital?",
        "the March release notes",  # a month with no preposition, day or year
        "What time do I wake up on Tuesdays and Thursdays?",  # a habit, not a date
        "How many days ago did I attend a networking event?",  # asks for the count
        "when was the last time we met?",  # "last" with no unit
        "what was my last order",
        "what did Melanie paint recently?",  # no stated horizon
        "who owns the billing database",
        "what is in Jan's notes",  # "Jan" the name
        "on 2026-02-30",  # no such day
        "the 2023 roadmap",  # a year with no preposition
        "we met 5 people",
    ],
)
def test_leaves_what_is_not_a_time_alone(query: str) -> None:
    reading = read_time(query, SAT)
    assert reading.window is None
    assert reading.rest == query


def test_the_rest_is_the_query_without_the_phrase() -> None:
    reading = read_time("What did we decide last week about the billing database?", SAT)
    assert reading.rest == "What did we decide about the billing database?"
    assert reading.window is not None
    assert reading.window.phrase == "last week"
    assert str(reading.window) == "last week: 2026-11-23..2026-11-29"


def test_the_first_expression_is_read() -> None:
    reading = read_time("what changed yesterday since last week", SAT)
    assert reading.window is not None and reading.window.phrase == "yesterday"


@pytest.mark.parametrize(
    ("query", "now", "expected"),
    [
        ("last month", MON_JAN, "2025-12-01..2025-12-31"),  # across a year's start
        ("last week", MON_JAN, "2025-12-29..2026-01-04"),
        ("this week", MON_JAN, "2026-01-05..2026-01-11"),
        ("yesterday", MON_JAN, "2026-01-04"),
        ("last Monday", MON_JAN, "2025-12-29"),
        ("on Monday", MON_JAN, "2026-01-05"),
        ("last weekend", MON_JAN, "2026-01-03..2026-01-04"),
        ("in December", MON_JAN, "2025-12-01..2025-12-31"),
        ("a month ago", MAR_31, "2026-02-13..2026-03-15"),  # 31 March less a month: 28 Feb
        ("the past month", MAR_31, "2026-02-28..2026-03-31"),
        ("last month", MAR_31, "2026-02-01..2026-02-28"),
    ],
)
def test_boundaries(query: str, now: datetime, expected: str) -> None:
    assert days(query, now) == expected


def test_days_are_utc_days() -> None:
    # 23:30 on 4 December in New York is 04:30 on 5 December in UTC: "today" is the 5th.
    new_york = datetime(2026, 12, 4, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert days("today", new_york) == "2026-12-05"
    # A naive reference time is UTC.
    assert days("yesterday", datetime(2026, 12, 5, 0, 15)) == "2026-12-04"


def test_holds_with_slack() -> None:
    window = read_time("yesterday", SAT).window
    assert window is not None
    assert window.holds(datetime(2026, 12, 4, 23, 59, tzinfo=UTC))
    assert not window.holds(datetime(2026, 12, 5, 0, 0, tzinfo=UTC))
    assert window.holds(datetime(2026, 12, 5, 6, 0, tzinfo=UTC), slack=timedelta(days=1))
    assert window.holds(datetime(2026, 12, 4, 12, 0))  # naive: UTC


# -- the gate and the search read the window -----------------------------------------------


def _note(body: str, at: datetime) -> Item:
    origin = Origin("test", "test", datetime(2026, 12, 5, tzinfo=UTC))
    return Item("it1", "ws", "note", "note", body, body, "k", True, "org", origin, occurred_at=at)


def test_a_hit_in_the_window_holds_the_time_as_one_term() -> None:
    asked = "how many laptops did we order two weeks ago?"
    window = read_time(asked, SAT).window
    inside = _note("We ordered 12 laptops for the new hires.", datetime(2026, 11, 21, tzinfo=UTC))
    outside = replace(inside, occurred_at=datetime(2026, 10, 1, tzinfo=UTC))
    [held, missed] = hit_evidence(Query(asked, SAT), [inside, outside], {}, window=window)
    # "many", "laptops", "order" and the time: "two weeks ago" is one term, not three.
    assert held.coverage == pytest.approx(3 / 4)  # "many" is missing
    assert missed.coverage == pytest.approx(2 / 4)
    # Without a window the words count one by one, as before.
    [plain] = hit_evidence(Query(asked, SAT), [inside], {})
    assert plain.coverage == pytest.approx(2 / 6)
    # A hit that says the words itself holds the time wherever it lies.
    said = replace(outside, body="Two weeks ago we ordered laptops.")
    [words] = hit_evidence(Query(asked, SAT), [said], {}, window=window)
    assert words.coverage == pytest.approx(3 / 4)
    # A query of time alone asks nothing else of a hit in the window.
    day = read_time("yesterday?", SAT).window
    ok = replace(inside, occurred_at=datetime(2026, 12, 4, 9, tzinfo=UTC))
    assert hit_evidence(Query("yesterday?", SAT), [ok], {}, window=day)[0].coverage == 1
    assert hit_evidence(Query("yesterday?", SAT), [inside], {}, window=day)[0].coverage == 0


def test_a_window_ahead_sets_the_scene() -> None:
    """ "tomorrow" says when the asker acts: the note that answers was written before, so
    neither a hit's date holds the time nor a hit without it misses a term."""
    asked = "can the welder work off one hot works permit tomorrow?"
    window = read_time(asked, SAT).window
    assert window is not None and window.ahead
    this_week = read_time("what did we ship this week?", SAT).window
    assert this_week is not None and not this_week.ahead
    rule = _note("A hot works permit is valid for one shift.", datetime(2026, 2, 1, tzinfo=UTC))
    today = replace(rule, occurred_at=SAT)  # written nearest "tomorrow"
    terms = query_terms(asked)
    [old, new] = hit_evidence(Query(asked, SAT), [rule, today], {}, window=window)
    assert old.coverage == new.coverage  # a date holds nothing ahead
    # The time words are no term: the coverage is of the other words alone.
    content = [t for t in terms if t not in query_terms(window.phrase)]
    assert old.coverage == pytest.approx(coverage(content, text_stems(rule.body)))
    # A hit that says the time holds it as a term.
    said = replace(rule, body="Tomorrow the welder needs a new hot works permit.")
    assert hit_evidence(Query(asked, SAT), [said], {}, window=window)[0].coverage > old.coverage


def test_a_window_ahead_boosts_no_note(brain: Brain) -> None:
    brain.add_notes(
        [
            NoteInput(
                "PTW-03 Hot Works Permit: a permit is valid for one shift only.",
                occurred_at=datetime(2026, 2, 1, tzinfo=UTC),
            ),
            NoteInput("New hires get their laptop on the first day.", occurred_at=SAT),
        ]
    )
    asked = "my welder is on level 3 all day tomorrow, can he use one hot works permit?"
    result = brain.with_clock(lambda: SAT).search(asked)
    assert result.window.startswith("tomorrow")
    assert "Hot Works" in result.hits[0].item.body


def test_a_time_in_a_clause_that_sets_the_scene_is_the_askers() -> None:
    """ "left a laptop on a flight 6 weeks ago - would we still have it?": the time says
    when the asker's story happened, not when the note that answers was written; a
    question that opens with its time, or whose scene says little else, asks about it."""
    asked = "Pax left a laptop on a Belfast flight 6 weeks ago - would we still have it?"
    window = read_time(asked, SAT).window
    assert window is not None and window.scene and window.askers and not window.ahead
    for about_then in (
        "Last week, what did we decide about pricing?",
        "In the meeting last week, what did we decide?",
        "What did Caroline do last week?",
        "Who did we hire 6 weeks ago, and for which team?",
    ):
        read = read_time(about_then, SAT).window
        assert read is not None and not read.askers, about_then
    rule = _note("Lost property is held for 90 days.", datetime(2026, 2, 1, tzinfo=UTC))
    then = replace(rule, occurred_at=SAT - timedelta(weeks=6))  # written in the window
    [old, new] = hit_evidence(Query(asked, SAT), [rule, then], {}, window=window)
    assert old.coverage == new.coverage  # its date holds nothing


def test_a_time_in_the_scene_boosts_no_note(brain: Brain) -> None:
    """The note written in the asker's window is not the answer for being written then."""
    brain.add_notes(
        [
            NoteInput(
                "Lost property policy: laptops and phones left on board are held 90 days.",
                occurred_at=datetime(2026, 2, 1, tzinfo=UTC),
            ),
            NoteInput(
                "Lost property: the cabin crew bag the items and hand them to the station.",
                occurred_at=SAT - timedelta(weeks=6),
            ),
        ]
    )
    asked = "Pax left a laptop on a flight 6 weeks ago - how long are items held?"
    result = brain.with_clock(lambda: SAT).search(asked)
    assert result.window.startswith("6 weeks ago")
    assert "90 days" in result.hits[0].item.body


def test_the_window_is_a_day_wider_either_side() -> None:
    window = read_time("what broke yesterday?", SAT).window
    assert window is not None
    late = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)  # the 5th in UTC, the 4th in Los Angeles
    assert window.holds(late, TIME_SLACK) and not window.holds(late)
    assert not window.holds(datetime(2026, 12, 6, 1, 0, tzinfo=UTC), TIME_SLACK)


def test_a_search_reads_its_time_against_the_brain_clock(brain: Brain) -> None:
    brain.add_notes(
        [
            NoteInput(
                "Decision: the billing database stays on MySQL for now.",
                occurred_at=datetime(2026, 10, 14, tzinfo=UTC),
            ),
            NoteInput(
                "Decision: we move the billing database to Postgres in January.",
                occurred_at=datetime(2026, 11, 25, tzinfo=UTC),
            ),
            NoteInput("The design review happens on Thursdays."),
        ]
    )
    asked = "what did we decide last week about the billing database?"
    result = brain.with_clock(lambda: SAT).search(asked)
    assert result.window == "last week: 2026-11-23..2026-11-29"
    assert result.hits and "Postgres" in result.hits[0].item.body
    assert SearchResultView.of(result).window == result.window
    assert SearchResultView.of(result).to_model().window == result.window
    # The same words a month later name another week.
    later = brain.with_clock(lambda: SAT + timedelta(days=28)).search(asked)
    assert later.window == "last week: 2026-12-21..2026-12-27"
    # A query without time reads none.
    assert brain.search("who owns billing?").window == ""
    # An as_of search reads its time against its own date.
    then = brain.search(asked, as_of=datetime(2026, 11, 1, tzinfo=UTC))
    assert then.window == "last week: 2026-10-19..2026-10-25"


def test_a_window_every_new_note_falls_in_makes_none_answer(brain: Brain) -> None:
    """The report: fifty reference documents just added, and "Who is on call for the
    payments team this week?" got five unrelated hits, since every one of them was
    written this week. The window narrows; it answers nothing."""
    from tests.reference_docs import REFERENCE_DOCS

    brain.add_notes([NoteInput(text, label=label) for label, text in REFERENCE_DOCS])
    asked = "Who is on call for the payments team this week?"
    result = brain.search(asked)
    assert result.window.startswith("this week")
    assert result.verdict == "none" and not result.hits, [h.item.label for h in result.hits]
    # A question the documents answer still gets its answer, in the same window.
    found = brain.search("what does the design team review this week?")
    assert found.hits and found.hits[0].item.label == "Design review"


def test_the_dated_fact_set_reads_its_dates(tmp_path: Path) -> None:
    from orgbrain.evals import load_facts

    data = load_facts(Path(facts_data.__file__).parent / "data" / "facts_dated.jsonl")
    assert all(f.at is not None and f.at.tzinfo is not None for f in data.facts)
    assert all(q.asked == datetime(2026, 12, 5, 12, tzinfo=UTC) for q in data.questions)
    assert all(read_time(q.question, SAT).window is not None for q in data.questions[:5])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"fact": "f", "text": "x", "at": "last week"}\n{"question": "q?"}\n')
    with pytest.raises(InvalidInput, match="not an ISO date"):
        load_facts(bad)
