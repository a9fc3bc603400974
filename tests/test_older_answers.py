"""The read side of what the judge is not sure of: two hits on one slot, the newer first
and the older marked "an older answer, from <date>" (``retrieve/older.py``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from orgbrain import Brain
from orgbrain.cli.render import search_text
from orgbrain.derive.judged import SAME_SLOT_FLOOR
from orgbrain.judge import load_weights
from orgbrain.model import NewerAnswer
from orgbrain.ports import Embedder
from orgbrain.retrieve.older import below_newer
from orgbrain.views import SearchResultView
from tests.restating import derived

SEP = datetime(2026, 9, 1, tzinfo=UTC)
NOV = datetime(2026, 11, 2, tzinfo=UTC)


def test_an_answer_the_judge_is_unsure_was_replaced_is_an_older_answer(
    brain: Brain, embedder: Embedder
) -> None:
    """The newcomer's staging backups: the shipped judge reads the two as one slot but
    below its bar to say the newer replaced the older. Both are given, the newer first,
    the older marked with its date and the newer's, on every transport's view."""
    old, new = derived(
        brain,
        ("Our staging database is backed up every 6 hours.", SEP),
        ("From November the staging DB backups run hourly instead.", NOV),
    )
    result = brain.search("How often is the staging database backed up?")
    assert [h.item.id for h in result.hits[:2]] == [new, old]
    first, older = result.hits[:2]
    assert first.newer_answer is None
    assert older.superseded_by is None and not older.replaced_by
    said = older.newer_answer
    assert said is not None and said.citation.item_id == new and said.written == NOV
    weights = load_weights(embedder.name)
    assert weights is not None and SAME_SLOT_FLOOR <= said.probability < weights.threshold
    view = SearchResultView.of(result)
    text = view.hits[1].newer_answer.text if view.hits[1].newer_answer else ""
    assert text.startswith("an older answer, from 2026-09-01; newer, from 2026-11-02")
    assert view.to_model().hits[1].newer_answer == said
    assert any("an older answer, from 2026-09-01" in str(line) for line in search_text(result))
    turn = brain.context_for_turn("How often is the staging database backed up?")
    assert old in {i.id for i in turn.items}
    assert "AN OLDER ANSWER, from 2026-09-01; newer, from 2026-11-02" in turn.text


def test_a_forgotten_older_answer_is_not_quoted_by_the_newer_one(brain: Brain) -> None:
    """The newer note's story names the pair but quotes only its own words, and once the
    older is forgotten nothing marks or cites it."""
    old, new = derived(
        brain,
        ("Our staging database is backed up every 6 hours.", SEP),
        ("From November the staging DB backups run hourly instead.", NOV),
    )
    (step,) = [s for s in brain.story(new).steps if s.get("step") == "judged"]
    (said,) = step["same_slot"]
    assert said["old"] == old and said["now"].startswith("From November")
    assert "every 6 hours" not in str(step)
    brain.forget(old, reason="wrong")
    hits = brain.search("How often is the staging database backed up?").hits
    assert old not in {h.item.id for h in hits}
    assert all(h.newer_answer is None for h in hits)


def test_history_reads_the_older_answer_where_it_stood(brain: Brain) -> None:
    old, new = derived(
        brain,
        ("Our staging database is backed up every 6 hours.", SEP),
        ("From November the staging DB backups run hourly instead.", NOV),
    )
    hits = brain.search("How often is the staging database backed up?", mode="history").hits
    marked = [h for h in hits if h.newer_answer is not None]
    assert [(h.item.id, h.newer_answer.citation.item_id) for h in marked] == [(old, new)]


def test_two_holders_of_two_slots_mark_nothing(tmp_path: Path, embedder: Embedder) -> None:
    """The newcomer's controls: neither newer note answers the older one's question anew."""
    for older, newer, question in (
        (
            "The data platform team is led by Chen Wei.",
            "Chen Wei also leads the weekly architecture review.",
            "Who leads the data platform team?",
        ),
        (
            "Production deploys need approval from two engineers.",
            "Staging deploys need approval from one engineer.",
            "How many approvals do production deploys need?",
        ),
    ):
        with Brain.open(tmp_path / older[:12], embedder=embedder) as b:
            derived(b, (older, SEP), (newer, NOV))
            assert all(h.newer_answer is None for h in b.search(question).hits)


def test_an_older_answer_moves_just_below_its_newer_one(brain: Brain) -> None:
    """Only the order changes: an older answer ranked above the newer one that answers it
    anew goes just below it; hits with no newer answer keep their places."""
    ids = [
        brain.add_note(text, occurred_at=at).id
        for text, at in (
            ("Backups run every 6 hours.", SEP),
            ("Lunch is at noon.", SEP),
            ("Backups run hourly.", NOV),
            ("The office closes at six.", NOV),
        )
    ]
    hits = brain.search("backups lunch office", mode="history").hits
    by_id = {h.item.id: h for h in hits}
    assert set(ids) <= set(by_id)
    first, lunch, newer, office = (by_id[i] for i in ids)
    older = replace(first, newer_answer=NewerAnswer(newer.citation, NOV, 0.7))
    moved = below_newer([older, lunch, newer, office])
    assert [h.item.id for h in moved] == [ids[1], ids[2], ids[0], ids[3]]
    assert below_newer([newer, older, lunch]) == (newer, older, lunch)
