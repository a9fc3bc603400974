"""Conflicts a person would call a disagreement, and entities a person would recognise,
on small brains held in memory (the default extractor; no file, no model: the decisions
need neither): the fast checks beside ``test_reference_docs.py``'s run over real
documentation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from orgbrain import Brain
from orgbrain.extraction import default_extractor
from orgbrain.extraction.names import FUNCTION_WORDS, names_something


@pytest.fixture
def brain(memory_brain: Brain) -> Brain:
    """A rule's decision needs no file: the brain is held in memory (tests/conftest.py)."""
    return memory_brain


DAY = datetime(2026, 11, 3, tzinfo=UTC)


def test_label_lines_of_two_documents_are_two_fields_not_one_conflict(brain: Brain) -> None:
    for text in (
        "URL: https://wiki.example.org/Spec/ProtectedField",
        "URL: https://github.com/util-linux/util-linux",
        "Usage: yq [options] <jq filter> [input file...]",
        "Usage: jq [options] <jq filter> [file...]",
    ):
        brain.add_note(text, occurred_at=DAY, wait="derived")
    assert brain.statements(about="URL")  # read as statements, only never in conflict
    assert brain.conflicts() == []


def test_two_notes_that_contradict_are_one_pair_and_limit_counts_pairs(brain: Brain) -> None:
    for text in (
        "The payments on-call is Ana.",
        "The payments on-call is Bo.",
        "The billing on-call is Chen.",
        "The billing on-call is Dee.",
    ):
        brain.add_note(text, occurred_at=DAY, wait="derived")
    pairs = brain.conflicts()
    assert sorted(sorted((d.a.object, d.b.object)) for d in pairs) == [
        ["Ana", "Bo"],
        ["Chen", "Dee"],
    ]
    assert len(brain.conflicts(1)) == 1  # one pair, not one flagged statement


def test_clause_openers_and_lone_letters_are_no_mentions() -> None:
    text = (
        "To use this correctly: run it twice.\n"
        "If you need to rebuild, It is possible to skip tests.\n"
        "The use of a file trigger should be stated.\n"
        "a | first column | second\n"
        "Trigger cycles are bad. OpenSSH runs on FreeBSD; Ana Lopez owns the Payments API."
    )
    found = default_extractor().extract(text, known=[("topic", "The"), ("topic", "To")])
    names = {f.value for f in found.entities}
    assert {"OpenSSH", "FreeBSD", "Ana Lopez"} <= names
    assert not {n for n in names if n.casefold() in FUNCTION_WORDS or len(n) < 2}
    assert not any(n.split()[0].casefold() in FUNCTION_WORDS for n in names)
    assert "Trigger cycles" not in names  # a subject, capitalised only as a sentence opens


def test_an_acronym_that_spells_a_function_word_is_still_a_name() -> None:
    assert names_something("IT desk")
    assert names_something("US office")
    assert not names_something("It is possible")
    assert not names_something("To")


def test_a_clause_cut_short_is_no_subject() -> None:
    # Statement subjects read off reference docs (dpkg's triggers spec, pip, git's README)
    # that became entities: each is a clause, not a name.
    for clause in (
        "pip will first try to",
        "descriptions will begin on",
        "master and stable branches only",
        "dpkg cannot ensure that triggers",
        "dpkg-generated triggers is as follows",
        "branch (Note",
    ):
        assert not names_something(clause), clause
    names = ("payments API", "util-linux package", "Usage of libblkid", "Time to first byte")
    for name in names:
        assert names_something(name), name


def test_a_surname_inside_a_full_name_is_one_person() -> None:
    found = default_extractor().extract("Bo Chen runs the weekly release.")
    assert [(f.type, f.value) for f in found.entities if f.type == "person"] == [
        ("person", "Bo Chen")
    ]
