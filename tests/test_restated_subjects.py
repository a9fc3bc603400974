"""What a unit is about (``extraction/subjects.py``) and the restatements it refuses
(``derive/restated.py``): two things of a kind are not one thing changed, and one thing
with its subject reworded, or unsaid on one side, still is."""

from __future__ import annotations

import pytest

from orgbrain import Brain
from orgbrain.derive.restating.guards import _abbreviated
from orgbrain.derive.restating.units import spelled
from orgbrain.extraction.subjects import Phrase, subjects
from tests.restating import ended


@pytest.fixture
def brain(memory_brain: Brain) -> Brain:
    """A rule's decision needs no file: the brain is held in memory (tests/conftest.py)."""
    return memory_brain


def _about(text: str, start: str = "") -> list[tuple[str, set[str]]]:
    at = text.index(start) if start else 0
    return [(p.head, set(p.modifiers)) for p in subjects(text, at, len(text))]


# -- reading subjects ------------------------------------------------------------------------


def test_a_label_and_the_phrase_a_unit_opens_with() -> None:
    assert _about("Audit Committee: meetings are chaired by Maria Lopez.") == [
        ("committe", {"audit"}),
        ("meet", set()),
    ]
    # words in brackets modify; a function word ends the phrase
    assert _about("Jira (cloud) API tokens will expire every 90 days.") == [
        ("token", {"jira", "cloud", "api"})
    ]
    # no tagger: a phrase may run on into its verb
    assert _about("VPN tokens expire every 30 days.") == [("expir", {"vpn", "token"})]
    assert _about("Meetings chaired by Maria Lopez.") == [("chair", {"meet"})]


def test_a_dash_label_heads_the_clause_after_it() -> None:
    text = "Risk Committee - please welcome Tom Reyes, our new chair."
    assert ("committe", {"risk"}) in _about(text, "please")


def test_what_is_no_subject() -> None:
    # a kind of document or message says where a unit is said
    assert _about("Facilities update: the Dublin office is in Grand Canal Dock.") == [
        ("offic", {"dublin"})
    ]
    assert _about("Security policy: VPN tokens expire every 30 days.") == [
        ("expir", {"vpn", "token"})
    ]
    # an opener or an address before the subject; a list
    assert _about("[#mobile] priya: bad news all, GA slips to October 6.") == []
    assert _about("quick reminder the hotel cap is now $320.") == []
    assert _about("Onsite: system design, pairing, values interview") == [("onsit", set())]
    # a line's label heads its first sentence, not the next one
    text = "Deal desk: reps can give up to 15% off. Above 15%, ask the Head of Sales."
    assert _about(text, "Above") == []
    # the values compared are no part of it
    text = "Audit Committee: chair Maria Lopez."
    stops = [(text.index("Maria"), text.index("."))]
    assert [p.head for p in subjects(text, 0, len(text), stops)] == ["committe", "chair"]


def test_a_phrase_that_ran_on_ends_at_the_other_head() -> None:
    ran_on = Phrase(("vpn", "token", "expir"), "expir")
    assert ran_on.ending_at({"token"}) == Phrase(("vpn", "token"), "token")
    assert ran_on.ending_at({"expir"}) == ran_on  # already its head
    assert ran_on.ending_at({"password"}) == ran_on
    bracketed = Phrase(("clinic", "northsid"), "clinic")  # "Clinic (Northside)"
    assert bracketed.ending_at({"clinic"}) == bracketed


# -- on a brain ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # two committees, each chaired by someone
        (
            "Audit Committee: meetings chaired by Maria Lopez.",
            "Risk Committee - meetings are now chaired by Tom Reyes.",
        ),
        # two systems whose tokens expire
        (
            "Security policy: VPN tokens expire every 30 days.",
            "Jira (cloud) API tokens will expire every 90 days from next month.",
        ),
        # two sites whose night shift starts
        (
            "Leeds depot: night shift starts at 22:00.",
            "Bristol depot - night shift now starts at 21:00.",
        ),
    ],
)
def test_two_things_of_a_kind_are_not_one_changed(brain: Brain, older: str, newer: str) -> None:
    assert ended(brain, older, newer) == []


@pytest.mark.parametrize(
    ("older", "newer", "was"),
    [
        # the subject reworded, its thing still named
        (
            "Audit Committee: meetings chaired by Maria Lopez.",
            "Audit & Risk Committee - meetings are now chaired by Tom Reyes.",
            "Maria Lopez",
        ),
        (
            "Security policy: VPN tokens expire every 30 days.",
            "VPN access tokens will now expire every 14 days.",
            "30 days",
        ),
        (
            "Leeds depot: night shift starts at 22:00.",
            "Night shift at the Leeds depot now starts at 21:00.",
            "22:00",
        ),
        # the subject unsaid, or said without modifiers, on one side
        ("Leeds depot: night shift starts at 22:00.", "Night shift now starts at 21:00.", "22:00"),
        ("Tokens expire every 30 days.", "Jira API tokens now expire every 14 days.", "30 days"),
        # two messages' labels, one thing said in each
        (
            "Facilities update: the Dublin office move is on Aug 18.",
            "Ops update: the Dublin office move is now Sept 29.",
            "Aug 18",
        ),
    ],
)
def test_one_thing_reworded_still_changes(brain: Brain, older: str, newer: str, was: str) -> None:
    assert was in ended(brain, older, newer)


def test_initials_spell_out_words_across_brackets_and_small_words() -> None:
    found = spelled("ADR", "sign-off from the Associate Dean (Research), Prof Nadia Rahman")
    assert found is not None and found.group(0) == "Associate Dean (Research"
    found = spelled("SM", "Approval by Director of Sales & Marketing")
    assert found is not None and found.group(0) == "Sales & Marketing"
    assert spelled("TL", "the team leader") is None
    assert _abbreviated("Associate Dean", "agreed ADR sign-off needed only above 500k")
    assert not _abbreviated("Associate Dean", "ADMIN sign-off")
