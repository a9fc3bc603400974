"""What a unit inherits from its context (``extraction/context.py``) and the supersessions
it refuses (``derive/restated.py``, ``derive/statements.py``): two notes whose titles,
headings, line labels or channels name two things of one kind say two things, and a
revised note of one thing still replaces it."""

from __future__ import annotations

import pytest

from orgbrain import Brain
from orgbrain.extraction.context import apart_in_kind, context
from tests.restating import ended


def _inherits(text: str, unit: str) -> list[tuple[str, ...]]:
    return [p.words for p in context(text, text.index(unit)).phrases]


def _apart(a: str, a_unit: str, b: str, b_unit: str) -> bool:
    x, y = context(a, a.index(a_unit)), context(b, b.index(b_unit))
    return apart_in_kind(x, y, a_unit, b_unit, states=False)


# -- reading a unit's context ----------------------------------------------------------------


def test_a_unit_inherits_its_title_less_the_kind_of_document() -> None:
    guide = "Leeds office guide\n• IT desk: 2nd floor, by the kitchen."
    assert _inherits(guide, "IT desk") == [("leed", "offic")]
    revised = "Leeds office guide (rev 2)\n• IT desk: at reception."
    assert _inherits(revised, "IT desk") == [("leed", "offic", "rev")]
    # a title is only a title when lines follow it
    assert _inherits("IT desk: 2nd floor, by the kitchen.", "IT desk") == []


def test_a_unit_inherits_the_heading_above_it() -> None:
    text = "Office guide\n## Leeds office\nIT desk: 2nd floor.\n## Lisbon office\nIT desk: lobby."
    assert _inherits(text, "IT desk: lobby") == [("offic",), ("lisbon", "offic")]


def test_a_unit_inherits_its_lines_labels_and_channel_not_its_speaker() -> None:
    chat = "#sales-announcements\npriya.n: NA reps — AE self-approve is capped at 10%."
    assert _inherits(chat, "AE self") == [("sal",), ("na", "rep")]
    posted = "[#launch-atlas] nadia: Atlas GA is Tue 5 May."
    assert _inherits(posted, "Atlas GA") == [("launch", "atla")]
    # a note of one line is about what its label names, in every sentence
    one = "Pricing Committee — monthly, first Wednesday. Owns list price changes."
    assert _inherits(one, "Owns") == [("pric", "committe")]


# -- two things of one kind ------------------------------------------------------------------


def test_two_members_of_one_kind_are_told_apart_by_their_names() -> None:
    leeds = "Leeds office guide\n• IT desk: 2nd floor."
    lisbon = "Lisbon office guide\n• IT desk: at reception."
    assert _apart(leeds, "IT desk: 2nd floor.", lisbon, "IT desk: at reception.")
    atlas = "#launch-atlas\nnadia: Atlas GA is Tue 5 May."
    beacon = "#launch-beacon\nnadia: Beacon GA confirmed for Tue 14 April."
    assert _apart(atlas, "Atlas GA is Tue 5 May.", beacon, "Beacon GA confirmed for Tue 14 April.")
    na = "#sales\npriya.n: NA reps — AE self-approve is capped at 10%."
    emea = "#sales\ngreg: for EMEA the AE self-approve cap is now 15%."
    assert _apart(na, "AE self-approve is capped at 10%.", emea, "for EMEA the AE self-approve")


def test_one_thing_revised_or_named_on_both_sides_is_one() -> None:
    leeds = "Leeds office guide\n• IT desk: 2nd floor."
    revised = "Leeds office guide (rev 2)\n• IT desk: now at reception."
    assert not _apart(leeds, "IT desk: 2nd floor.", revised, "IT desk: now at reception.")
    # the newer unit names the older's thing too
    both = "Leeds and Lisbon office guide\n• IT desk: now at reception."
    assert not _apart(leeds, "IT desk: 2nd floor.", both, "IT desk: now at reception.")
    # words of a kind that are no names ("help", "desk") tell nothing apart
    help_ = "#it-help\nLaptops are refreshed every 3 years."
    desk = "#it-desk\nLaptops are now refreshed every 4 years."
    assert not _apart(help_, "Laptops are", desk, "Laptops are")
    # a change word in a title is no name ("Revised")
    revised = "Revised Leeds office guide\n• IT desk: at reception."
    assert not _apart(leeds, "IT desk: 2nd floor.", revised, "IT desk: at reception.")


# -- on a brain ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # two offices' guides (a typed statement of each line)
        (
            "Leeds office guide\n• IT desk: 2nd floor, by the kitchen.\n• Post room: ground floor.",
            "Lisbon office guide\n• IT desk: at reception (ground floor).\n• Post: the manager.",
        ),
        # two regions: one in the line's label, the other in the unit
        (
            "#sales\npriya.n: NA reps — AE self-approve is capped at 10% off list.",
            "#sales\ngreg: for EMEA the AE self-approve cap is now 15% off list.",
        ),
        # two products' launch channels
        (
            "#launch-atlas\nnadia: Atlas GA date: Tue 5 May.",
            "#launch-beacon\nnadia: Beacon GA date moved to Tue 14 April.",
        ),
        # the newer names the older's own subject as the one it points at
        (
            "Pricing Committee — monthly, first Wednesday. Owns list price changes and new SKUs.",
            "Deal Desk review — daily 11:00 UK. "
            "List price changes go to Pricing Committee, not DD.",
        ),
    ],
)
def test_two_things_named_by_their_context_are_not_one_changed(
    brain: Brain, older: str, newer: str
) -> None:
    assert ended(brain, older, newer) == []


def test_one_section_of_two_changes_and_the_other_stays(brain: Brain) -> None:
    older = (
        "Office guide\n## Leeds office\nIT desk: 2nd floor.\n## Lisbon office\nIT desk: 3rd floor."
    )
    newer = "Office guide\n## Lisbon office\nIT desk: now at reception."
    assert ended(brain, older, newer) == ["3rd floor"]


@pytest.mark.parametrize(
    ("older", "newer", "was"),
    [
        # a revised guide of the same office
        (
            "Leeds office guide\n• IT desk: 2nd floor, by the kitchen.\n• Post room: ground floor.",
            "Leeds office guide (rev 2)\n• IT desk: now at reception.\n• Post room: ground floor.",
            "2nd floor",
        ),
        # the newer names both regions
        (
            "#sales\npriya.n: NA reps — AE self-approve is capped at 10% off list.",
            "#sales\ngreg: for NA and EMEA the AE self-approve cap is now 15% off list.",
            "10%",
        ),
    ],
)
def test_one_thing_in_one_context_still_changes(
    brain: Brain, older: str, newer: str, was: str
) -> None:
    assert was in ended(brain, older, newer)


def test_two_versions_dated_in_their_titles_are_one_thing() -> None:
    old = "Matter Opening Procedure v4.2 (January 2026)\n3.2 Where fees exceed £50,000, ask."
    new = "Matter Opening Procedure v4.3 (April 2026) \u2013 re-issued\n3.2 Fees exceed £75,000."
    assert not _apart(old, "3.2 Where fees exceed £50,000", new, "3.2 Fees exceed £75,000")
