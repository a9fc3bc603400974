"""How organisations write a value's change without a change word, or beside other values
(``derive/restating/values.py``, ``table.py``, ``extraction/shorthand.py``): real brains
(real SQLite, real embedder, the default extractor) in which a newer note restates an
older one's value, or does not."""

from __future__ import annotations

import pytest

from orgbrain import Brain
from orgbrain.derive.restating.units import said_in
from orgbrain.derive.restating.values import restated_values
from orgbrain.extraction.shorthand import values_of
from orgbrain.extraction.states import cell_statuses
from orgbrain.extraction.values import marked_old
from tests.restating import NOV, SEP, derived, ended, values


@pytest.fixture
def brain(memory_brain: Brain) -> Brain:
    """A rule's decision needs no file: the brain is held in memory (tests/conftest.py)."""
    return memory_brain


def _read(text: str) -> list[tuple[str, str, str, str]]:
    return [(v.kind, v.unit, v.key, text[v.start : v.end]) for v in values_of(text)]


def test_a_value_set_against_the_one_it_replaces_is_a_change(brain: Brain) -> None:
    """ "the 20th, not the 25th" names the older day as the one before: a change with no
    change word; "still ... the 5th" in the same run-on message is another thing's day."""
    older = "Payroll - Timesheets\nTimesheets are submitted in Workday by the 25th of each month."
    newer = (
        "#payroll\nkim.o: heads up, timesheets go in on the 20th of each month, not the 25th. "
        "expenses still close on the 5th. finance agreed it yesterday"
    )
    assert "25th" in ended(brain, older, newer)


def test_not_names_the_value_just_after_it_not_a_verbs_object() -> None:
    said = "we publish on the 10th, not the 14th; do not drive faster than 6 km/h, not 8"
    assert [marked_old(said, v) for v in values_of(said)] == [False, True, False, True]
    said = "This replaces the '6 weeks before' guidance: plans are due by 20 March"
    assert [marked_old(said, v) for v in values_of(said)] == [True, False]


def test_from_a_date_says_when_a_value_starts_not_what_it_was() -> None:
    said = "From Monday the call-out fee is £40 per visit"
    assert [marked_old(said, v) for v in values_of(said)] == [False, False]
    said = "From 1 May, the weight limit is 500 kg"
    assert [marked_old(said, v) for v in values_of(said)] == [False, False]
    said = "The fee went from £30 to £40 from Monday"
    assert [marked_old(said, v) for v in values_of(said)] == [True, False, False]


def test_a_value_said_without_the_one_before_is_not_a_change(brain: Brain) -> None:
    older = "Payroll - Timesheets\nTimesheets are submitted in Workday by the 25th of each month."
    newer = "#payroll\nkim.o: expenses close on the 20th of each month, timesheets as usual"
    assert ended(brain, older, newer) == []


def test_one_value_said_twice_is_one_value(brain: Brain) -> None:
    """ "before 15:00 ... after 15:00" states one cut-off: the newer cut-off replaces it."""
    older = (
        "Dispatch - how to\n"
        "Orders approved before 15:00 ship the same day; after 15:00 they ship next working day."
    )
    newer = (
        "#warehouse\nomar.t: logistics have moved the same-day cut off to 14:00, "
        "anything approved after 2 ships next day"
    )
    assert "15:00" in ended(brain, older, newer)


_MATRIX = (
    "Expenses Authority Matrix (wiki)\n"
    "| Grade | Travel approval limit | Hardware approval limit |\n"
    "| A (associate) | £500 | £300 |\n"
    "| B (manager) | £2,000 | £1,500 |\n"
    "| C (director) | £8,000 | £5,000 |"
)


def test_a_table_cell_restated_in_prose_by_its_row_and_column(brain: Brain) -> None:
    """The sentence names the row ("Grade B managers") and the words that tell the
    column from the others ("travel"); the row's other cell and the other rows stand."""
    newer = (
        "Subject: Travel expenses - approval changes\n\nAll,\nFollowing the audit, Grade B "
        "managers' travel approval will go up from £2,000 to £3,000 with effect from 1 June. "
        "Hardware limits stay as they are.\n\nThanks\nFinance"
    )
    gone = ended(brain, _MATRIX, newer)
    assert "£2,000" in gone
    assert not {"£500", "£300", "£1,500", "£8,000", "£5,000"} & set(gone)


def test_a_table_row_is_restated_only_where_the_sentence_names_it(brain: Brain) -> None:
    """Row A's travel cell is in the column the sentence names, but the sentence names
    row B ("Grade B managers"), not row A ("associate")."""
    newer = (
        "Subject: Travel expenses - approval changes\n\nAll,\nFollowing the audit, Grade B "
        "managers' travel approval will go up from £2,000 to £3,000 with effect from 1 June."
    )
    ids = derived(brain, (_MATRIX, SEP), (newer, NOV))
    found = brain.get_many(ids)
    rows, (*_, sentence) = said_in(found[ids[0]]), said_in(found[ids[1]])
    row_a = next(u for u in rows if "associate" in u.text)
    row_b = next(u for u in rows if "manager" in u.text)
    assert [p.was.key for p in restated_values(row_b, sentence, rows)] == ["£2000"]
    assert restated_values(row_a, sentence, rows) == []


def test_initials_and_the_words_they_spell_are_one_thing(brain: Brain) -> None:
    """ "SSO" is the "Site Safety Officer" of the older note: the number swapped is that
    officer's, not another thing's."""
    older = "Site Quick Ref\nSite Safety Officer (24h): 07700 900 123\nGatehouse: ext 4100"
    newer = (
        "#ops\nlee.m: SSO phone swapped to the new handset, number is 07700 900 456. "
        "old 123 number goes dead Friday, pls update your quick refs"
    )
    assert "07700 900 123" in ended(brain, older, newer)


def test_a_bulletin_reissued_under_a_heading_restates_its_value(brain: Brain) -> None:
    """The reissued line lacks "petty cash" only because its heading says it."""
    older = (
        "Store Bulletin SB-02/26\n"
        "Petty cash: each till float is EUR 100 in mixed coins/notes, signed out from the "
        "back office safe. Count back in at close."
    )
    newer = (
        "Store Bulletin SB-09/26\nPetty cash - summer\n"
        "Till float: EUR 150 (mixed coins/notes), signed out from the back office safe.\n"
        "Card terminals: charge overnight.\nCount float back in at close."
    )
    assert "EUR 100" in ended(brain, older, newer)


def test_a_reissued_line_without_a_word_of_the_older_is_another_thing(brain: Brain) -> None:
    older = (
        "Store Bulletin SB-02/26\n"
        "Petty cash: each till float is EUR 100 in mixed coins/notes, signed out from the "
        "back office safe."
    )
    newer = (
        "Store Bulletin SB-09/26\nCafe - summer\n"
        "Till float: EUR 150 (mixed coins/notes), signed out from the back office safe."
    )
    assert ended(brain, older, newer) == []


def test_an_offset_before_a_moment_is_a_count_before_it() -> None:
    assert _read("send the release at STD-60 not STD-90") == [
        ("quantity", "before", "60", "STD-60"),
        ("quantity", "before", "90", "STD-90"),
    ]
    assert _read("freeze at T-2") == [("quantity", "before", "2", "T-2")]
    # a code is not one: not after a word that sets a moment, or with more after it
    assert _read("see INC-447 and CB-11/26") == []
    assert _read("raised as OPS-12 at SOP-12/3") == []


def test_an_offset_restates_a_count_before_the_same_moment(brain: Brain) -> None:
    older = (
        "Gate Handbook\nBoarding passes to be printed and handed to agents no later than "
        "45 min before STD.\nGate closes 20 min before departure."
    )
    newer = (
        "#gates\nmia.k: ok so from the summer schedule we hand the boarding passes over at "
        "STD-30 not STD-45, station manager agreed. gate close same"
    )
    assert "45 min before" in ended(brain, older, newer)


def test_a_line_labelled_again_naming_the_older_value_restates_it(brain: Brain) -> None:
    """A safety alert amends a procedure's line: the same label, the older value named as
    the one before; the notes' titles ("SOP", "Safety Alert") are two documents, not two
    things."""
    older = (
        "WH SOP 4.1 Yard - speed limits\n- Forklifts: max 10 km/h in the yard\n"
        "- Reach trucks: max 8 km/h in aisles\n- Tugs: max 12 km/h"
    )
    newer = (
        "WH Safety Alert WSA-03/26\nReach trucks: do not drive faster than 6 km/h in aisles "
        "(was 8 km/h), per insurer's review. Sound horn at every crossing.\nWarehouse Safety"
    )
    assert "8 km" in ended(brain, older, newer)


def test_one_label_in_two_sites_guides_is_two_things(brain: Brain) -> None:
    older = "Leeds office guide\nVisitor parking: max 2 hours in bay C."
    newer = "Lisbon office guide\nVisitor parking: now max 3 hours in bay C."
    assert ended(brain, older, newer) == []


def test_amounts_counted_per_two_things_are_two_rates(brain: Brain) -> None:
    older = "Site Allowances 2026\nMeal allowance: EUR 12 per shift over 8h.\nPaid monthly."
    newer = (
        "Site Allowances - overnight stays\n"
        "Remote site overnight: EUR 40 per night, replaces the shift meal allowance for that day."
    )
    assert ended(brain, older, newer) == []


def test_an_amount_counted_per_the_same_thing_changes(brain: Brain) -> None:
    older = "Site Allowances 2026\nMeal allowance: EUR 12 per shift over 8h.\nPaid monthly."
    newer = "Site Allowances update\nMeal allowance raised to EUR 15 per shift over 8h from May."
    assert "EUR 12" in ended(brain, older, newer)


_STATUS_TABLE = (
    "Project status - w/c 2 March\n| Project | RAG | Status |\n"
    "| Warehouse move (Atlas) | Grey | ON HOLD pending lease sign-off |\n"
    "| Payroll upgrade | Green | Build |"
)


def test_a_state_in_a_status_column_is_labelled_by_its_header(brain: Brain) -> None:
    """A column headed "Status" or "RAG" labels its cells as "Status:" labels a line: the
    row's state said again in a later report replaces it; the other row keeps its own."""
    newer = (
        "Project status - w/c 4 May\n| Project | RAG | Status |\n"
        "| Warehouse move (Atlas) | Amber | In flight, lease signed 30 April |\n"
        "| Payroll upgrade | Green | Testing |"
    )
    gone = ended(brain, _STATUS_TABLE, newer)
    assert "ON HOLD" in gone
    assert "Green" not in gone


def test_only_a_column_headed_as_a_state_gives_its_cells_a_state() -> None:
    body = "Fleet\n| Van | Colour | Status |\n| VN-12 | Green | out of service |"
    row = body.index("| VN-12")
    assert [
        (v.key, body[row + v.start : row + v.end]) for v in cell_statuses(body, row, len(body))
    ] == [("out of service", "out of service")]


_LEAVE = (
    "People Team - Parental leave\n"
    "Staff planning parental leave must tell their line manager in writing 8 weeks before "
    "the leave starts."
)


def test_a_value_named_as_replaced_gives_way_to_one_of_another_kind(brain: Brain) -> None:
    """ "This replaces the '8 weeks before' rule": the date the unit states instead is the
    deadline now, though a date and a count of weeks are two kinds."""
    newer = (
        "Subject: Summer parental leave - new fixed deadline\n"
        "This replaces the '8 weeks before' rule: for leave starting in July or August, staff "
        "must tell their line manager in writing by Friday 15 May."
    )
    assert "8 weeks before" in ended(brain, _LEAVE, newer)


def test_a_value_of_another_kind_not_named_as_replacing_is_another_thing(brain: Brain) -> None:
    newer = (
        "Subject: Summer parental leave - reminder\n"
        "From now on, staff taking leave in July or August must also tell their line manager "
        "in writing which cover they have arranged by Friday 15 May."
    )
    assert ended(brain, _LEAVE, newer) == []


_LAUNCH = (
    "Beacon launch plan\nLaunch day: Wed 20 May\nLaunch webinar: Fri 22 May\nOwner: Omar (PMM)"
)


def test_a_clause_opening_the_line_with_a_change_leads_what_follows(brain: Brain) -> None:
    """ "update from the go/no-go —" says a change for the clause after it, which gives
    the launch day without a change word of its own."""
    newer = (
        "#launch-beacon\nomar: update from the go/no-go — 3 blockers still open on billing, "
        "so launch day is Wed 10 June. Webinar moves to 12 June."
    )
    assert "20 May" in ended(brain, _LAUNCH, newer)


def test_a_clause_opening_the_line_without_a_change_leads_nothing(brain: Brain) -> None:
    newer = (
        "#launch-beacon\nomar: notes from the go/no-go — 3 blockers still open on billing, "
        "so launch day is Wed 10 June in the risk log. Webinar moves to 12 June."
    )
    assert "20 May" not in ended(brain, _LAUNCH, newer)


_LIMITS = (
    "CCP 3 - Cooling (Leeds, all ovens)\n"
    "Core temperature limits: Chicken 75 C | Pork 70 C | Beef 63 C\n"
    "Record on form CK-01"
)


def test_a_listed_value_said_anew_beside_its_own_label(brain: Brain) -> None:
    """The older line lists three values of a kind, each after its label; the newer says
    one again beside "pork", and leaves the others "as they are"."""
    newer = (
        "HACCP review 12/05 - actions\n"
        "- CCP 3 cooling: pork core temperature 72 C (retailer code), chicken and beef as they "
        "are; new probes from 1 June"
    )
    gone = ended(brain, _LIMITS, newer)
    assert "70" in gone
    assert not {"75", "63"} & set(gone)


def test_a_listed_value_said_beside_no_label_changes_none(brain: Brain) -> None:
    newer = (
        "HACCP review 12/05 - actions\n"
        "- CCP 3 cooling: core temperature 72 C (retailer code); new probes from 1 June"
    )
    assert ended(brain, _LIMITS, newer) == []


def test_replaced_by_names_the_new_value_not_the_old() -> None:
    said = "Backup retention is replaced by 35 days"
    assert [marked_old(said, v) for v in values_of(said)] == [False]
    said = "This replaced the 14 days we kept before"
    assert [marked_old(said, v) for v in values_of(said)] == [True]


def test_an_offset_is_read_before_a_named_moment_only() -> None:
    """ "At STD-60" opening a sentence is the moment; "by SOP-12" is a code."""
    assert [t for *_, t in _read("At STD-60 the release goes to crew")] == ["At STD-60"[3:]]
    assert _read("file it by SOP-12 as before") == []


def test_a_document_re_issued_states_a_change_on_every_line(brain: Brain) -> None:
    """A title that says the document is "re-issued" (or "edited") marks each line below
    it as the later version, as "updated" or "revised" does."""
    older = (
        "Travel briefing notes (for new starters)\n"
        "- Hotels: up to £120 per night in London, book via Egencia.\n"
        "- Trains: standard class only."
    )
    newer = (
        "Expenses Policy 2026-27 (re-issued July 2026)\n"
        "4.2 Hotels: London stays may be booked at up to £150 per night through Egencia."
    )
    assert any("120" in gone for gone in ended(brain, older, newer))


def test_a_note_marked_as_an_edit_of_a_page_states_a_change(brain: Brain) -> None:
    """ "wiki edit (Outpatients > Dermatology):" at the head of a note says the page now
    reads so: its booking line replaces the older one."""
    older = "Dermatology outpatients - patient booking line 0161 496 0234, Mon-Fri 9-4."
    newer = (
        "wiki edit (Outpatients > Dermatology): patients book on 0161 496 0800, 8am-6pm weekdays."
    )
    assert "0161 496 0234" in ended(brain, older, newer)


def test_a_phrasal_verb_around_its_object_states_a_change(brain: Brain) -> None:
    """ "brought the same-day cut off forward to 14:00", "put all team lead cards up to
    $5k": the change word's particle comes after the thing it sets anew."""
    older = (
        "Dispatch - how to\n"
        "Orders approved before 15:00 ship the same day; after 15:00 they ship next working day."
    )
    newer = (
        "#warehouse\nomar.t: logistics have brought the same-day cut off forward to 14:00 for "
        "the courier, anything approved after 2 ships next day"
    )
    assert "15:00" in ended(brain, older, newer)
    older = (
        "#finance-help\nellie: what's the monthly limit on the team lead Amex?\n"
        "dana: $3,000/month for team leads"
    )
    newer = (
        "#finance-help\ndana: we've just put all team lead cards up to $5k/month actually, "
        "should show in Amex by tomorrow"
    )
    assert "$3,000" in ended(brain, older, newer)


def test_one_dated_day_only_is_an_exception_that_replaces_nothing(brain: Brain) -> None:
    """ "Sat 11 Apr ONLY - ..." opening the line makes every clause after it a one-day
    exception: the standing sign-on time is not replaced."""
    older = (
        "Crew Notice - EXT\n"
        "Crew report point: Crew Room, terminal 1st floor. Sign on 45 minutes before departure."
    )
    newer = (
        "#ext-crew\ntom.g: Sat 11 Apr ONLY - sign on moved to 60 minutes before departure, "
        "crew room closed for carpets"
    )
    assert ended(brain, older, newer) == []


def test_a_change_from_a_day_gone_by_replaces_the_value(
    brain: Brain,
) -> None:
    older = "Tariffs: residential usage charge $2.41/kL; fixed service charge $218/yr."
    assert "$2.41" in ended(
        brain, older, "From 1 November 2026 the residential usage charge is $2.58/kL."
    )


def test_a_change_that_starts_on_a_day_to_come_replaces_nothing_yet(brain: Brain) -> None:
    older = "Tariffs: residential usage charge $2.41/kL; fixed service charge $218/yr."
    newer = "Board update: from 1 July 2099 the residential usage charge will be $2.58/kL."
    assert ended(brain, older, newer) == []


def test_one_value_said_in_place_of_all_the_older_ones_replaces_them(brain: Brain) -> None:
    older = "Lab courier collects from Eastfield clinic at 11:00 and 15:00."
    newer = "eastfield: courier going down to one run a day from next week, 13:30 pickup."
    old, new = derived(brain, (older, SEP), (newer, NOV))
    assert brain.get(old).superseded_by == new


def test_a_value_set_to_beside_another_of_its_kind_is_the_new_one(brain: Brain) -> None:
    older = "Revenue - Overbooking guidelines (Dublin)\nMon-Thu: up to 3% of sellable rooms"
    newer = (
        "#revenue\ndaniel.o: Dublin weekday no-show rate has been ~6% since Feb, so raising "
        "the Mon-Thu overbook cap to 5%."
    )
    assert "3%" in ended(brain, older, newer)


def test_a_value_moved_off_names_the_one_replaced_and_no_other(brain: Brain) -> None:
    spot = "#fnb\nconor.r: spirits spot checks are weekly, Thursdays, on top of the monthly count"
    count = "F&B stocktake\nFull count: last Sunday of the month, after close"
    newer = (
        "Subject: Stocktake timing\nFrom July the full count moves off the last Sunday and "
        "is done on the 1st Monday of the month, before service."
    )
    a, b, _ = derived(brain, (spot, SEP), (count, SEP), (newer, NOV))
    assert [s.object for s in values(brain, b) if not s.current]
    assert all(s.current for s in values(brain, a))


EM_B = (
    "EM Limits - Aseptic Suite (Table 3, rev B)\n| Grade | Sample | Alert | Action |\n"
    "| B | Settle plate (4h) | 3 CFU | 5 CFU |\n| C | Settle plate (4h) | 25 CFU | 50 CFU |"
)


def test_a_table_reissued_under_a_lettered_revision_changes_its_own_rows_cells(
    brain: Brain,
) -> None:
    newer = EM_B.replace("rev B", "rev C").replace("25 CFU", "15 CFU")
    assert ended(brain, EM_B, newer) == ["25 CFU"]
