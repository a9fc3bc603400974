"""Holders and places replaced in the words organisations use for them
(``derive/restating/names.py``, ``derive/handover.py``): a place moved out of, a holder
moved across to another post, a leaver's farewell naming a successor; and the notes
that replace nothing (a cover while the writer is away)."""

from __future__ import annotations

import pytest

from orgbrain import Brain
from orgbrain.derive.handover import leaver
from orgbrain.derive.restating.gone import gone_name, where_gone
from orgbrain.derive.restating.names import passing
from orgbrain.extraction.named import names_in
from tests.restating import NOV, SEP, derived, ended, values


@pytest.fixture
def brain(memory_brain: Brain) -> Brain:
    """A rule's decision needs no file: the brain is held in memory (tests/conftest.py)."""
    return memory_brain


def test_a_place_moved_out_of_is_replaced_by_the_new_one(brain: Brain) -> None:
    # the older note's title names a crew notice: the new "Crew Hub" is another thing
    gone = ended(
        brain,
        "Crew Notice - LBA\nMorning crew briefings at LBA take place in Room C4, "
        "ground floor (by the staff entrance).",
        "Subject: LBA briefing room\nFrom Monday LBA crew briefings move out of C4 to "
        "the new Crew Hub, first floor airside.",
    )
    assert "Room C4" in gone


def test_a_holder_moved_across_is_replaced_by_the_one_named(brain: Brain) -> None:
    gone = ended(
        brain,
        "Finance - Process\nTravel expense claims are approved by the Finance Manager "
        "(Paul Grey). Submit within 30 days.",
        "Minutes - Finance Monthly\n1. Budgets: on track.\n2. Expenses: Paul has moved "
        "across to Treasury; travel expense claims go to Nadia Kent for approval going "
        "forward.",
    )
    assert "Paul Grey" in gone


FAREWELL = (
    "Subject: Thank you and goodbye\nHi all,\nAfter six years running Leeds, Friday is my "
    "last day. Nadia Kent takes over the depot from Monday - please send depot queries "
    "her way.\nAll the best,\nPaul"
)
DIRECTORY = (
    "Depot Directory - North\nLDS Depot Manager: Paul Grey, 0113 555 0100\n"
    "YRK Depot Manager: Ruth Hale, 01904 555 0190"
)


def test_a_leavers_farewell_hands_on_what_the_writer_held(brain: Brain) -> None:
    assert leaver(FAREWELL) == "Paul"
    gone = ended(brain, DIRECTORY, FAREWELL)
    assert "Paul Grey" in gone and "Ruth Hale" not in gone


CONTACTS = "York contacts\nRoute changes / planning: Nadia Kent (ext 3312)\nYard: Gary\nFleet: Omar"


def test_a_handover_note_signed_with_initials_hands_on_the_writers_post(brain: Brain) -> None:
    note = (
        "Handover note (NK): I'm off to the Leeds project from 6 July. Ivo Marsh takes "
        "over York transport planning from that date - he has the route files."
    )
    assert leaver(note) == "NK"
    assert "Nadia Kent" in ended(brain, CONTACTS, note)


def test_a_handover_while_the_writer_is_away_hands_on_nothing(brain: Brain) -> None:
    note = (
        "Handover note (NK): I'm off to a conference from 6 July. Ivo Marsh takes over "
        "York transport planning while I'm away - he has the route files."
    )
    assert leaver(note) is None
    assert ended(brain, CONTACTS, note) == []


def test_a_cover_while_away_hands_on_nothing(brain: Brain) -> None:
    cover = (
        "Subject: Leave next week\nHi all,\nI'm on leave next week. Nadia Kent looks "
        "after the depot while I'm away - please send depot queries her way.\nThanks,\nPaul"
    )
    assert leaver(cover) is None
    assert ended(brain, DIRECTORY, cover) == []


INVENTORY = (
    "Supplier Register\n| Supplier | Category | Owner | Reviewed |\n"
    "| Harbour Freight | Logistics | Tom Baker | Oct 2025 |\n"
    "| Nordic Paper | Packaging | Tom Baker | Oct 2025 |\n"
    "| Alba Foods | Ingredients | Sara Lind | Sep 2025 |"
)


def test_a_standing_document_kept_up_in_place_replaces_a_row_s_holder(brain: Brain) -> None:
    # the same title and most lines again: a later version, no change word needed
    # a row added is no row replaced ("| Kite Labels |" beside "| Alba Foods |")
    newer = INVENTORY.replace("Logistics | Tom Baker", "Logistics | Ana Ruiz")
    newer += "\n| Kite Labels | Packaging | Ivo Marsh | Nov 2025 |"
    gone = ended(brain, INVENTORY, newer)
    assert "Tom Baker" in gone and not {"Sara Lind", "Alba Foods", "Nordic Paper"} & set(gone)


CHECKLIST = (
    "Claims onboarding checklist\n- Get access to LedgerOne (raise a Jira request)\n"
    "- Log every open claim in Claims Tracker.xlsx (Drive > Claims)\n"
    "- Read the claims handbook"
)
NEW_TOOL = ("Claims Tracker.xlsx (Drive > Claims)", "Caseflow - claim type, owner")


def test_a_checklist_step_kept_up_in_place_names_its_new_tool(brain: Brain) -> None:
    assert "Claims Tracker" in ended(brain, CHECKLIST, CHECKLIST.replace(*NEW_TOOL))


def test_a_dated_series_under_one_title_is_no_version(brain: Brain) -> None:
    # two weeks' notes under one title share lines without one replacing the other
    older = CHECKLIST.replace("Claims onboarding checklist", "Claims team weekly notes")
    assert ended(brain, older, older.replace(*NEW_TOOL)) == []


def test_a_place_handed_back_is_replaced_by_where_the_team_now_is(brain: Brain) -> None:
    gone = ended(
        brain,
        "Regional offices\n- Leeds: 2nd floor, 4 Park Square, Leeds LS1 2NE\n"
        "- York: 9 Stonegate, York YO1 8AS",
        "#leeds-office\nsam.k: we've moved! from today we're at Unit 12, Thorpe Park, "
        "Leeds LS15 8GB. Park Square keys go back to the landlord on Friday.",
    )
    assert "Park Square" in gone and "Stonegate" not in gone


def test_a_stand_in_for_one_day_replaces_nothing(brain: Brain) -> None:
    # the clause that says so is cut from the one that points at the stand-in
    gone = ended(
        brain,
        "Crew Notice - LBA\nCrew report point: Crew Room, terminal 1st floor.\n"
        "Sign on via CrewLink kiosk.",
        "#lba-crew\ntom.g: Sat 11 Apr ONLY - crew room closed for painting, sign on at "
        "Hangar 2 office. back to normal Sunday",
    )
    assert gone == []


def test_a_supplier_whose_contract_lapsed_is_replaced_though_written_small(
    brain: Brain,
) -> None:
    # chat writes the older note's name in lower case, a long name by its first word
    gone = ended(
        brain,
        "Procedure TR-09 Welsh pallet deliveries: all pallet consignments for Wales are "
        "booked with Prosser Haulage through their portal by 15:00 for next-day collection.",
        "dan_ops: heads up, welsh pallets go with Westway Freight from monday, prosser "
        "contract finished end of may",
    )
    assert "Prosser Haulage" in gone


def test_what_says_a_supplier_or_tool_is_let_go() -> None:
    def gone(text: str) -> dict[str, bool]:
        return {v.key: gone_name(text, v) for v in names_in(text)}

    assert gone("Heads up: our Voxa licences finish at the end of June.")["voxa"]
    assert gone("Heads up: the Ledgerly contract lapsed last week.")["ledgerly"]
    assert gone("Heads up: the Zephyr WMS stays read-only for lookups.")["zephyr wms"]
    assert gone("Heads up: the Allstar cards get cancelled on 30 September.")["allstar"]
    assert gone("Heads up: our Bundledocs licences lapse in May.")["bundledocs"]
    assert gone("Board approved it; Gareth Lyons steps back to focus on clients.")["gareth lyons"]
    # a place closing for the day, a licence renewed: no contract let go
    assert not gone("Heads up: the Voxa office closes early on Friday.")["voxa"]
    assert not gone("Heads up: our Voxa licences are renewed for a year.")["voxa"]


def test_a_holder_who_stepped_down_is_replaced_by_the_one_taking_over(brain: Brain) -> None:
    gone = ended(
        brain,
        "Depot Safety Committee\nChair: Dr Ruth Hale\nSecretary: Mo Reed (safety@depot.example)",
        "Staff Bulletin - September\n* Safety: huge thanks to Dr Ruth Hale, who has stepped "
        "down after five years chairing the Depot Safety Committee. Prof Ivo Marsh takes "
        "over as chair; chair's-action requests to him please.",
    )
    assert "Dr Ruth Hale" in gone and "Mo Reed" not in gone


def test_a_chat_writer_who_moved_over_hands_on_by_handle(brain: Brain) -> None:
    note = (
        "#ug-admin\nnadia.kent: heads up all, I've moved over to PGR admin as of today. "
        "Ivo Marsh is picking up UG extension requests from me."
    )
    assert leaver(note) == "nadia.kent"
    gone = ended(
        brain,
        "UG FAQ\nQ: Who do I ask for a coursework extension?\nA: Email Nadia Kent in the UG "
        "Office with the module code, at least 24h before the deadline.",
        note,
    )
    assert any("Nadia Kent" in g for g in gone)


def test_a_supplier_not_renewed_is_replaced_by_the_one_beside_it(brain: Brain) -> None:
    gone = ended(
        brain,
        "Events FAQ\nQ: How do I run a customer webinar?\nA: Fill in the request form in "
        "Asana. Events Ops builds it in StreamHall and handles registration.",
        "Subject: Webinars after 1 May\nHi all, quick one from Events Ops: we didn't renew "
        "StreamHall. Customer webinars from 1 May are hosted in Castwell.",
    )
    assert "StreamHall" in gone and "Events Ops" not in gone


def test_an_assignee_arrow_replaces_the_holder_before_it(brain: Brain) -> None:
    # on a field's line only: a path or a route changes nothing
    for text in ("Go to Settings → Security to reset it.", "Route: LHR → MAN, 2 crew"):
        assert not any(gone_name(text, v) for v in names_in(text))
    gone = ended(
        brain,
        "New vendor onboarding\n1. Requester fills in the intake form.\n2. Security review - "
        "Omar Haddad (IT Security) checks the pen test and approves in Jira.",
        "VEND-77 Security review: Formly (survey tool)\nAssignee: Omar Haddad → Ana Ruiz\n"
        "Comment (Ana Ruiz): Picking this up - vendor security reviews sit with GRC now.",
    )
    assert any("Omar Haddad" in g for g in gone)


def test_one_who_joined_as_the_coordinator_replaces_the_one_before(brain: Brain) -> None:
    gone = ended(
        brain,
        "L&D - External courses\nComplete the training request form and send it to Tom Beck "
        "(L&D Coordinator). Get budget approval first for anything over £300.",
        "Weekly - Meet the team\nHana Sato joined us in May as L&D Coordinator and now "
        "handles all external course bookings - send her your training request forms.",
    )
    assert "Tom Beck" in gone


def test_one_appointed_head_replaces_the_head_who_steps_back(brain: Brain) -> None:
    old, new = derived(
        brain,
        (
            "Practice Groups - heads\nCorporate: Helen Ward\nEmployment: Gareth Lyons\n"
            "Disputes: Simon Whitcombe",
            SEP,
        ),
        (
            "Management Board - Minutes\n3. Employment PG: the Board approved Nadia Kerr as "
            "head of the Employment group from 1 May, and Gareth Lyons steps back to focus "
            "on client work.",
            NOV,
        ),
    )
    was = {s.object for s in values(brain, old) if not s.current}
    now = {s.object for s in values(brain, new) if s.current}
    assert "Gareth Lyons" in was and "Helen Ward" not in was and "Nadia Kerr" in now


def test_a_note_holds_for_a_day_when_a_day_is_named_only() -> None:
    assert passing("Sat 11 Apr ONLY - crew room closed, sign on at Hangar 3 office.")
    assert passing("11 April only: the desk is in the annexe")
    assert not passing("Parking moves to Temple Quay from Monday: 40 spaces only.")


def test_a_note_written_now_that_lets_a_supplier_go_looks_for_what_it_replaced(
    brain: Brain,
) -> None:
    """Written the day it happens (not back-dated), a note looks for its neighbours only
    when it states a change: a contract that lapses is one (``units.changes`` reads the
    same gone forms as ``names.renamed``)."""
    older = "Interpreting\nPhone interpreters are booked through LanguageLine."
    [old] = derived(brain, (older, SEP))
    new = brain.add_note(
        "our LanguageLine account closes on 31 March; phone interpreters are booked "
        "through Big Word",
        wait="derived",
    )
    assert new.occurred_at is None  # written now: not back-dated
    ended_now = [s.object for s in brain.statements(item_id=old, current=None) if not s.current]
    assert any("LanguageLine" in o for o in ended_now), ended_now


def test_a_farewell_signed_on_the_sign_off_line_names_its_writer() -> None:
    note = (
        "Subject: Moving on\n\nHi all,\nFriday is my last day in Broker Relations. Priya "
        "Nair will look after Hartwell from Monday.\n\nCheers, Tom"
    )
    assert leaver(note) == "Tom"
    assert leaver(note.replace("Cheers, Tom", "Cheers")) is None
    assert leaver(note.replace("Cheers, Tom", "Cheers,\nTom Bestwick")) == "Tom"


def test_a_team_in_brackets_is_no_writer() -> None:
    note = (
        "Team news (HR)\nFarewell to Dana, whose last day is Friday. Ivo Marsh takes over "
        "onboarding.\nThanks,\nGrace"
    )
    assert leaver(note) == "Grace"


def test_where_a_holder_went_ends_at_the_next_clause() -> None:
    said = "Paul Grey has moved across to Treasury and Nadia Kent takes over expenses."
    paul, nadia = (
        n for n in names_in(said) if said[n.start : n.end] in ("Grey", "Paul Grey", "Nadia Kent")
    )
    assert gone_name(said, paul) and not gone_name(said, nadia)
    assert "Nadia" not in said[slice(*where_gone(said, paul))]


def test_a_holder_moving_on_to_a_next_phase_stays() -> None:
    said = "Nadia Kent moves on to phase 2 of the rollout next week."
    assert not any(gone_name(said, n) for n in names_in(said))
    said = "Nadia Kent moves on to the Leeds project next week."
    assert any(gone_name(said, n) for n in names_in(said))


def test_a_supplier_switched_from_by_name_is_replaced_whatever_the_card_calls_it(
    brain: Brain,
) -> None:
    card = "Laundry - Bristol\nVendor: CleanCo Textiles\nCollection: daily 07:00 from loading bay"
    newer = (
        "#bri-ops\nmark.t: heads up, we've switched our laundry contract from CleanCo to "
        "Brightwash Linen. collection time stays 7am."
    )
    assert "CleanCo Textiles" in ended(brain, card, newer)


def test_a_system_closed_to_new_work_is_replaced_by_the_one_named(brain: Brain) -> None:
    older = (
        "SOP-QA-005 Change Control - quick guide\n1. Raise the change request in TrackWise "
        "(CC module).\n2. QA reviewer assigned within 3 business days."
    )
    newer = (
        "Subject: Change controls move to Veeva Vault QMS\nFrom today new change requests "
        "must be raised in Veeva Vault QMS. TrackWise is closed for new CCs."
    )
    assert "TrackWise" in ended(brain, older, newer)


def test_the_name_a_change_retires_is_the_one_replaced_not_its_neighbours(
    brain: Brain,
) -> None:
    older = (
        "Clinical Systems bulletin - January\n* EDC: Medidata Rave remains the standard for "
        "all new studies.\n* eTMF: all studies file in Wingspan eTMF."
    )
    newer = (
        "Clinical Systems bulletin - July\n* eTMF migration complete: Wingspan has been "
        "retired and all active studies now file in Veeva Vault eTMF."
    )
    gone = ended(brain, older, newer)
    assert "Wingspan" in " ".join(gone) and "Medidata Rave" not in " ".join(gone)
