"""Values written in shorthand (``extraction/shorthand.py``) and the restatements they let
``derive/restated.py`` find: real brains (real SQLite, real embedder, the default
extractor) in which a newer note restates an older one's value written short, or does
not."""

from __future__ import annotations

import pytest

from orgbrain import Brain
from orgbrain.extraction.cues import change_cue, temporary
from orgbrain.extraction.shorthand import values_of
from orgbrain.extraction.values import marked_old
from tests.restating import NOV, SEP, derived, values


def _read(text: str) -> list[tuple[str, str, str, str]]:
    return [(v.kind, v.unit, v.key, text[v.start : v.end]) for v in values_of(text)]


# -- reading ---------------------------------------------------------------------------------


def test_lengths_written_short_count_what_they_count_written_out() -> None:
    assert _read("valid for max 8 hrs") == [("quantity", "hour", "8", "8 hrs")]
    assert _read("limited to 8 hours") == [("quantity", "hour", "8", "8 hours")]
    assert _read("a 48-hour job, 24h cover, a 30-min call") == [
        ("quantity", "hour", "48", "48-hour"),
        ("quantity", "hour", "24", "24h"),
        ("quantity", "minute", "30", "30-min"),
    ]


def test_times_of_day_with_their_half_of_the_day_and_without_a_leading_zero() -> None:
    assert [v[2] for v in _read("open 07:30, staffed 8am-6pm, last call 7.45 p.m.")] == [
        "7:30",
        "8:00",
        "18:00",
        "19:45",
    ]


def test_pence_multipliers_and_days_of_the_month() -> None:
    assert _read("45p per mile, 25p thereafter") == [
        ("money", "", "p45", "45p"),
        ("money", "", "p25", "25p"),
    ]
    assert [
        v[2] for v in _read("Sundays move from 1.75x to double time (2.0x)") if v[0] != "weekday"
    ] == [
        "1.75",
        "2",
        "2",
    ]
    assert _read("| Saturday | 1.5x |")[1][:3] == ("multiplier", "", "1.5")
    assert _read("time and a half after 6pm")[0][:3] == ("multiplier", "", "1.5")
    assert _read("claims by the 10th of each month; pay date: 27th (or before)") == [
        ("day of month", "", "10", "10th"),
        ("day of month", "", "27", "27th"),
    ]


def test_counts_floors_parties_and_dates_are_not_shorthand() -> None:
    assert _read("fire blanket + 2x extinguishers at the point of work") == []
    assert _read("the 2nd floor kitchen, a 3rd party supplier") == []
    assert _read("due on the 25th of May") == []  # a date's day, not each month's


def test_days_written_short_where_a_day_is_meant_and_a_schedules_days_as_one() -> None:
    assert _read("deliveries are Tuesday & Friday") == [
        ("weekday", "", "tue+fri", "Tuesday & Friday")
    ]
    assert _read("switching to Mon & Thu") == [("weekday", "", "mon+thu", "Mon & Thu")]
    assert _read("staffed Mon-Fri") == [("weekday", "", "mon-fri", "Mon-Fri")]
    assert _read("approve by Mon 10am") == [
        ("weekday", "", "mon", "Mon"),
        ("time", "", "10:00", "10am"),
    ]
    # a capital alone may be a name or a verb; a day beside a date is the date's
    assert _read("Sun Microsystems, and Sat down with Wed") == []
    assert [v[0] for v in _read("rounds on Sat 11 April")] == ["date"]


def test_frequencies_extensions_and_numbers_of_two_groups() -> None:
    assert [v[:3] for v in _read("talks go weekly; reviews quarterly")] == [
        ("frequency", "", "7d"),
        ("frequency", "", "91d"),
    ]
    assert [v[2] for v in _read("QBR every quarter; reviews twice a year; every other week")] == [
        "91d",
        "182.5d",
        "14d",
    ]
    # how often a thing is said, not a name's word
    assert _read("daily huddle notes go in #ops; the weekly sync moved") == []
    assert _read("ring ext 4400 (01632 964400 from outside)") == [
        ("extension", "", "4400", "ext 4400"),
        ("phone", "", "01632964400", "01632 964400"),
    ]
    assert _read("IT helpdesk x4400") == [("extension", "", "4400", "x4400")]


def test_a_bracketed_value_said_to_have_been_is_the_one_before() -> None:
    text = "a 48-hour job from now on (24h was never achievable)"
    was, now = values_of(text)[1], values_of(text)[0]
    assert marked_old(text, was) and not marked_old(text, now)


def test_cues_of_immediate_effect_of_a_date_opening_and_of_one_week() -> None:
    assert change_cue("permits are limited to 4 hours with immediate effect.")
    assert change_cue("From the April period end, returns are due by working day 3.")
    assert not change_cue("Data from the March survey, shows a rise.")
    assert temporary("Collections in the week of 6 April run a day later.")
    assert not temporary("Starting in the week of 6 April, bins go out on Tuesdays.")


# -- restating -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("older", "newer", "was", "now"),
    [
        # a unit written short, restated in full, by a change of immediate effect
        (
            "Scaffold inspections\nA tagged scaffold stays valid for max 168 hrs between checks.",
            "After the audit, tagged scaffolds stay valid for 72 hours between checks with "
            "immediate effect.",
            "168 hrs between",
            "72 hours between",
        ),
        # the other value of its kind said again: the one not said is what changed
        (
            "Travel rates\nVan mileage: 40p per mile for the first 5,000 miles, 20p after.",
            "Van mileage now goes up to 44p per mile (first 5,000 miles; 20p after).",
            "40p",
            "44p",
        ),
        (
            "Depot rules\nYard gates open 06:45, close 19:00.",
            "From next week the yard gates open at 6:15am (close still 19:00).",
            "06:45",
            "6:15am",
        ),
        # a day of the month, and a multiplier
        (
            "Expenses FAQ\nA: Claims must reach Finance by the 12th of each month.",
            "Expenses claims must now reach Finance by the 8th of each month (previously "
            "the 12th).",
            "12th",
            "8th",
        ),
        (
            "Night shift pay rates\n| Night shift | 1.25x |",
            "Agreed at the pay talks: night shift pay moves from 1.25x to 1.4x.",
            "1.25x",
            "1.4x",
        ),
        # a role written as its initials on one side ("DM", "Duty Manager")
        (
            "Till procedures\nRefunds over £200 need Duty Manager approval.",
            "From today the level for DM approval rises to £300.",
            "£200",
            "£300",
        ),
        # a table re-issued: of a row's two numbers, the one in the column of that header
        # (with no rule line under the header, which the typed patterns read by column)
        (
            "Support KPIs 2025 - Q2 report\n| KPI | Target | Actual |\n"
            "| First response to customer tickets (hours) | 8 | 11 |",
            "Support KPIs 2026 - targets\n| KPI | Target |\n"
            "| First response to customer tickets (hours) | 6 |",
            "8",
            "6",
        ),
        # a deadline restated by a sentence that opens on when it takes effect
        (
            "Month-end calendar\n- Accruals submission: working day 4 of the month",
            "From the October period end, accruals submissions are due by working day 2.",
            "4",
            "2",
        ),
    ],
)
def test_a_value_written_short_restated(
    brain: Brain, older: str, newer: str, was: str, now: str
) -> None:
    a, b = derived(brain, (older, SEP), (newer, NOV))
    [before], [after] = values(brain, a), values(brain, b)
    assert (before.object, after.object) == (was, now)
    assert before.superseded_by == after.id and after.current


def test_an_old_number_named_by_its_digits_is_restated_by_the_new_one(brain: Brain) -> None:
    a, b = derived(
        brain,
        ("Facilities FAQ\nA: Ring the estates helpline 0161 496 0100 for any leak.", SEP),
        (
            "New building faults desk from today: 0161 496 0222. The old 0100 number will be "
            "switched off at the end of the month.",
            NOV,
        ),
    )
    [before], [after] = values(brain, a), values(brain, b)
    assert (before.object, after.object) == ("0161 496 0100", "0161 496 0222")
    assert before.superseded_by == after.id


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a second line beside the first: the older number is not named old
        (
            "Facilities FAQ\nA: Ring the estates helpline 0161 496 0100 for any leak.",
            "New building faults desk from today: 0161 496 0222, for lifts only.",
        ),
        # one week's changed days
        (
            "Waste collections\nRounds run Mon-Fri, 6:30am start.",
            "Collections in the week of 6 April run one day later (Mon rounds on Tue).",
        ),
        # two values of a kind, neither said again: which one changed?
        (
            "Approval limits\n| Purchase orders | up to £20k | up to £200k |",
            "Purchase orders can now be approved up to £15k.",
        ),
        # a row's two numbers, and a sentence that names neither column
        (
            "Support KPIs 2025 - Q2 report\n| KPI | Target | Actual |\n|---|---|---|\n"
            "| First response to customer tickets (hours) | 8 | 11 |",
            "First response (hours) is now 6.",
        ),
        # two sites, each named where the other's note never names it
        (
            "#yard-desk\nsam: fuel deliveries to Kestrel Quay are Tuesday & Friday.",
            "#yard-desk\nsam: Millgate fuel is Wednesday only now, bigger tank.",
        ),
        # a count of things is no multiplier
        (
            "Hot works kit\nKeep 2x extinguishers at the point of work.",
            "Hot works kit now includes a fire blanket at the point of work.",
        ),
    ],
)
def test_what_is_not_a_value_written_short_restated(brain: Brain, older: str, newer: str) -> None:
    a, b = derived(brain, (older, SEP), (newer, NOV))
    assert brain.get(a).superseded_by is None
    assert all(s.current for s in brain.statements(item_id=a, current=None))
    assert not values(brain, b)


def test_a_line_said_again_changes_not_its_neighbour(brain: Brain) -> None:
    """A card's two lines of one kind ("At home base ...: max 6h", "At outstations: max
    4h"): a later line naming the outstations and their 4h says that line again, not
    the home base's change; one naming the home base with 4h is its change."""
    card = (
        "Rostering - Airport standby\nAt home base (EXT, BHD): max 6h airport standby.\n"
        "At outstations: max 4h, hotel if > 2h gap."
    )
    again = (
        "#crew-rostering\ndave.o: just to clarify for the new joiners, outstation airport"
        " standby is capped at 4h"
    )
    old, _ = derived(brain, (card, SEP), (again, NOV))
    assert all(s.current for s in values(brain, old))


def test_a_line_said_with_a_new_value_is_its_change(brain: Brain) -> None:
    card = (
        "Rostering - Airport standby\nAt home base (EXT, BHD): max 6h airport standby.\n"
        "At outstations: max 4h, hotel if > 2h gap."
    )
    cut = "#crew-rostering\ndave.o: from 1 May home base airport standby is cut to 4h"
    old, _ = derived(brain, (card, SEP), (cut, NOV))
    assert [s.object for s in values(brain, old) if not s.current] == ["6h"]
