"""The verdict's reason in words (``retrieve/grounds.py``): every kind of verdict says why
with the hit it answered with, or the closest one and what it lacks, and no number."""

from __future__ import annotations

import re

from orgbrain import Brain
from orgbrain.model import SearchResult
from orgbrain.retrieve.grounds import Grounds, plain_reason


def plain(result: SearchResult) -> str:
    """``result.why``, checked to be words a reader follows: no score, no gate jargon."""
    why = result.why
    assert why and not re.search(r"\d\.\d", why), why
    assert not any(w in why.lower() for w in ("cosine", "z=", "fused", "floor", "gate")), why
    return why


def seed(brain: Brain) -> dict[str, str]:
    billing = brain.add_note(
        "Priya Raman owns the billing migration; it finishes in March.",
        label="Billing migration",
    )
    brain.add_note("Deploy freeze policy: no deploys on Fridays after noon.", label="Deploy freeze")
    brain.add_note("The office plants are watered by Sam on Mondays.", label="Office plants")
    return {"billing": billing.id}


def test_an_answer_names_the_hit_and_the_words_it_holds(brain: Brain) -> None:
    seed(brain)
    single = brain.search("Who owns the billing migration?", k=1)
    assert single.verdict == "single"
    assert (
        plain(single) == "Answers: \"Billing migration\" mentions 'owns', 'billing' and 'migration'"
    )
    many = brain.search("Who owns the billing migration?")
    assert many.verdict == "many" and plain(many).startswith('Answers: "Billing migration"')
    # The numbers stay where a person debugging looks for them.
    assert "cosine" in many.reason


def test_silence_says_what_the_closest_note_lacks(brain: Brain) -> None:
    assert plain(brain.search("Who owns billing?")) == (
        "Nothing answers: the brain holds nothing on this yet"
    )
    seed(brain)
    by_floor = brain.search("What is the capital of Peru?")
    assert by_floor.verdict == "none" and "floor" in by_floor.reason
    assert re.fullmatch(
        r'Nothing answers: the closest note, ".+", is far from what was asked', plain(by_floor)
    )
    by_gate = brain.search("What is our travel expense policy?")
    assert by_gate.verdict == "none" and "relevance floor" in by_gate.reason
    assert plain(by_gate) == (
        "Nothing answers: the closest note, \"Deploy freeze\", shares only the word 'policy'"
    )
    unnamed = brain.search("Who owns the billing migration at Acme?")
    assert unnamed.verdict == "none"
    assert (
        plain(unnamed)
        == 'Nothing answers: the closest note, "Billing migration", does not name Acme'
    )


def test_a_hit_in_the_asked_time_and_a_replaced_hit_say_so(brain: Brain) -> None:
    ids = seed(brain)
    yesterday = brain.search("what did we note yesterday?")
    assert yesterday.window.startswith("yesterday") and yesterday.hits
    assert "dates from yesterday" in plain(yesterday)

    brain.add_note(
        "Ann Lee now owns the billing migration, since Priya moved teams.",
        label="Billing owner change",
        supersedes=[ids["billing"]],
    )
    history = brain.search("Who owns the billing migration?", mode="history")
    assert plain(history).endswith('; "Billing owner change" has since replaced it')
    current = brain.search("Who owns the billing migration?")
    assert plain(current).startswith('Answers: "Billing owner change"')


def test_a_conflict_and_a_graph_answer_are_said_in_words() -> None:
    """The rules a small brain seldom reaches, read from their grounds."""
    graph = Grounds("graph", "Billing", graph="states billing owner")
    assert plain_reason(graph, "conflict") == (
        'The best answers disagree: the brain\'s graph records that "Billing" states billing owner'
    )
    heir = Grounds("graph", "New CI", graph="supersedes a hit that matches (cosine 0.70)")
    assert (
        plain_reason(heir, "single")
        == 'Answers: "New CI" replaces an older note that answered this'
    )
    close = Grounds("unmatched", "Plan", shared=("billing", "migration"), missing=("date",))
    assert plain_reason(close, "none") == (
        "Close but not an answer: the closest note, \"Plan\", has 'billing' and 'migration' "
        "but not 'date'"
    )


def test_read_injection_says_why_in_words(brain: Brain) -> None:
    seed(brain)
    spoke = brain.context_for_turn("Who owns the billing migration?")
    assert spoke.decision == "injected" and spoke.why.startswith('Answers: "Billing migration"')
    quiet = brain.context_for_turn("yo")
    assert quiet.decision == "nothing" and quiet.why.startswith("Nothing answers")
    assert not re.search(r"\d\.\d", spoke.why + quiet.why) and "score" in quiet.reason


def test_the_reason_quotes_a_heading_as_text_without_its_markdown_marks(brain: Brain) -> None:
    systemd = brain.add_file(
        b"# Guide\n\n## Special `systemd` UID ranges\n\n"
        b"The **systemd** UID range 61184-65519 is kept for dynamic users.\n",
        name="guide.md",
    )
    brain.index(systemd.id)
    brain.add_note("Deploys stop on Fridays.", label="**Deploy** _freeze_ for [prod](https://x)")
    uids = plain(brain.search("Which UID ranges are special in systemd?", k=1))
    assert uids.startswith('Answers: "Special systemd UID ranges"'), uids
    freeze = plain(brain.search("When is the deploy freeze for prod?", k=1))
    assert freeze.startswith('Answers: "Deploy freeze for prod"'), freeze
