"""A thing handed on to a named holder (``derive/handover.py``): the verbs that name the
new owner, approver, chair or contractor, and real brains in which a hand-over replaces
the older holder, or does not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from orgbrain import Brain
from orgbrain.derive.handover import a_person, handed_to, hands_over
from orgbrain.extraction.named import names_in


@pytest.fixture
def brain(memory_brain: Brain) -> Brain:
    """A rule's decision needs no file: the brain is held in memory (tests/conftest.py)."""
    return memory_brain


SEP = datetime(2026, 9, 3, tzinfo=UTC)
NOV = datetime(2026, 11, 16, tzinfo=UTC)
OTHER = (
    "The design review happens on Thursdays.",
    "Support answers tickets within one business day.",
)


def _named(text: str) -> dict[str, bool]:
    return {text[v.start : v.end]: handed_to(text, v) for v in names_in(text)}


def test_the_verbs_that_hand_a_thing_on() -> None:
    assert _named("From Monday Priya Lal picks up release sign-off at Leeds.") == {
        "Priya Lal": True,
        "Leeds": False,
    }
    assert _named("As of March, Daniel Reyes will be your HR Business Partner.")["Daniel Reyes"]
    assert _named("Hi all, Northgate Facilities are doing the chiller servicing from here.")[
        "Northgate Facilities"
    ]
    # a state, not a hand-over; a passing cover; a denial
    text = "Dana Kerr signs off expenses over £500."
    assert not hands_over(text, tuple(names_in(text)))
    text = "Omar Haddad will look after approvals this week only."
    assert not hands_over(text, tuple(names_in(text)))
    text = "Omar Haddad is not picking up approvals."
    assert not hands_over(text, tuple(names_in(text)))
    assert a_person("Dr Helen Marsh") and not a_person("Technical Manager")


def _brain(brain: Brain, *notes: tuple[str, datetime]) -> list[str]:
    for body in OTHER:
        brain.add_note(body)
    return [brain.add_note(text, occurred_at=at, wait="derived").id for text, at in notes]


@pytest.mark.parametrize(
    ("older", "newer", "was"),
    [
        (  # the role said by both is not the holder
            "People contacts - Engineering\nHR Business Partner: Sarah Kwan, ext 4410",
            "Hi Engineering, Daniel Reyes will be your HR Business Partner, ext 4432.",
            "Sarah Kwan",
        ),
        (  # a person handed a person's thing: not the system or the label beside her
            "Stock on QA hold (status Blocked in D365) may only be released by the "
            "Technical Manager, Helen Marsh.",
            "From Monday Priya Lal picks up release sign-off for stock on QA hold.",
            "Helen Marsh",
        ),
        (  # the new holder's first name starts the sentence
            "Support queues\nRefunds queue owner: Ana Silva, Billing Ops.",
            "Ben Carter is looking after the refunds queue from today.",
            "Ana Silva",
        ),
        (  # the typed subject "Permit approver" is said by its verb ("approved by")
            "Isolation permits\nPermit approver: Declan Moy, Senior Network Controller.",
            "Isolation permits are now approved by Priya Nandakumar (Operations Lead).",
            "Declan Moy",
        ),
    ],
)
def test_a_holder_replaced_by_one_a_thing_is_handed_to(
    brain: Brain, older: str, newer: str, was: str
) -> None:
    a, b = _brain(brain, (older, SEP), (newer, NOV))
    new = {s.id for s in brain.statements(item_id=b, current=None)}
    ended = [s for s in brain.statements(item_id=a, current=None) if s.superseded_by in new]
    assert ended and all(was in s.object for s in ended)


@pytest.mark.parametrize(
    "newer",
    [
        "Hi Engineering, Daniel Reyes will be your HR Business Partner this week only, ext 4432.",
        "Hi Engineering, Daniel Reyes is not picking up HR Business Partner requests.",
    ],
)
def test_what_is_not_handed_over(brain: Brain, newer: str) -> None:
    a, _ = _brain(
        brain,
        ("People contacts - Engineering\nHR Business Partner: Sarah Kwan, ext 4410", SEP),
        (newer, NOV),
    )
    assert brain.get(a).superseded_by is None
    assert all(s.current for s in brain.statements(item_id=a, current=None))
