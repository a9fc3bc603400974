"""Contextual keys (graph/context_keys.py): a turn is found by its neighbours' words, on
both backends, and never through a neighbour the reader could not see, nor one that was
forgotten, edited away or superseded."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import cast

import pytest

from orgbrain import Brain, Principal
from orgbrain.graph import KEYS_CAP
from orgbrain.graph.context_keys import context_keys, refresh_keys
from orgbrain.model import Item, Origin, utcnow
from orgbrain.ports import Store
from orgbrain.retrieve import PLANS
from orgbrain.views.search import SearchResultView
from tests.backends import Backend
from tests.toy import HashEmbedder

KEYWORDS = PLANS["bm25"].with_limits(k_max=8, floors=False)
"""Keyword ranking alone, every hit shown: what the keys change."""
QUESTION = "Alice: did you see the zebracorn at the parade?"
REPLY = "Bob: Yes, last Tuesday!"


@pytest.fixture
def brain(tmp_path: Path, backend: Backend) -> Iterator[Brain]:
    with backend.open(tmp_path / "b", embedder=HashEmbedder()) as b:
        yield b


def found(brain: Brain, words: str) -> list[str]:
    return [h.item.id for h in brain.search(words, plan=KEYWORDS, k=8).hits]


def turns(brain: Brain, *bodies: str, scope: str | None = None, run: str = "s1") -> list[Item]:
    """Turns of one run, each followed by the next (as a loader writes them)."""
    items = [
        brain.add_note(b, kind="message", scope=scope, source_key=f"{run}:{n}", run_id=run)
        for n, b in enumerate(bodies)
    ]
    system = brain.acting_as("system:test")
    for a, b in pairwise(items):
        system.link_system("FOLLOWED_BY", a.id, b.id, "test")
    return items


def test_a_reply_is_found_by_the_turn_it_answers_and_shows_only_its_own_text(
    brain: Brain,
) -> None:
    q, reply, later = turns(brain, QUESTION, REPLY, "Carol: " + "x" * KEYS_CAP + " gryphon")
    assert found(brain, "zebracorn parade") == [q.id, reply.id]
    assert reply.id not in found(brain, "gryphon")  # a neighbour counts up to the cap
    result = brain.search("zebracorn", plan=KEYWORDS, k=8)
    hit = next(h for h in result.hits if h.item.id == reply.id)
    assert hit.item.body == REPLY and hit.item.label == brain.get(reply.id).label
    shown = [h.model_dump_json() for h in SearchResultView.of(result).hits]
    assert [reply.id in h and "zebracorn" not in h for h in shown] == [False, True]
    assert later.id in found(brain, "gryphon")


def test_a_private_neighbour_lends_no_words_to_an_org_turn(brain: Brain) -> None:
    public = brain.add_note("Ann: the offsite is booked", kind="message", run_id="s1")
    private = brain.add_note(
        "Ann: my salary is nine quetzals", kind="message", scope="user:ann", run_id="s1"
    )
    brain.acting_as("system:test").link_system("FOLLOWED_BY", public.id, private.id, "test")
    bob = brain.for_principal(Principal(brain.workspace, "bob"))
    assert found(bob, "salary quetzals") == []
    assert found(brain, "salary quetzals") == [private.id]  # not the org turn either
    assert found(brain, "offsite booked") == [public.id]


def test_forgotten_edited_and_superseded_neighbours_leave_the_keys(brain: Brain) -> None:
    q, reply = turns(brain, QUESTION, REPLY)
    assert found(brain, "tuesday") == [reply.id, q.id]
    brain.add_note(
        "Bob: Yes, last Wednesday!", kind="message", source_key="s1:1", run_id="s1"
    )  # an edit: the same key, other words
    assert found(brain, "tuesday") == []
    assert found(brain, "wednesday") == [reply.id, q.id]
    brain.add_note("Bob: Friday in fact.", kind="message", supersedes=[reply.id])
    assert q.id not in found(brain, "wednesday")
    # A forgotten neighbour: its words leave the other turn at once.
    a, b = turns(brain, "Cy: the heron nests by the weir", "Dee: lovely", run="s2")
    assert found(brain, "heron weir") == [a.id, b.id]
    brain.forget(a.id, reason="asked to")
    assert found(brain, "heron weir") == []
    assert found(brain, "lovely") == [b.id]


def test_derived_sequence_edges_fill_the_keys(brain: Brain) -> None:
    first = brain.add_note(QUESTION, kind="message", run_id="s9")
    second = brain.add_note(REPLY, kind="message", run_id="s9")
    brain.run_jobs()  # derive's sequence step writes FOLLOWED_BY
    assert [e.src for e in brain.edges(second.id, types=["FOLLOWED_BY"])] == [first.id]
    assert second.id in found(brain, "zebracorn")


def test_a_brain_written_before_keys_is_filled_once_on_open(
    tmp_path: Path, backend: Backend
) -> None:
    with backend.open(tmp_path / "b", embedder=HashEmbedder()) as brain:
        q, reply = turns(brain, QUESTION, REPLY)
        store = brain._ctx.store  # as a brain from before migration 0014 holds it
        store.set_keys(brain.workspace, {q.id: "", reply.id: ""})
        store.set_mark("context_keys", "pending")
        assert found(brain, "zebracorn") == [q.id]
    with backend.open(tmp_path / "b", embedder=HashEmbedder()) as brain:
        assert found(brain, "zebracorn") == [q.id, reply.id]
        assert brain._ctx.store.mark("context_keys") == "done"


def test_only_live_notes_of_the_same_scope_lend_their_words() -> None:
    at = Origin("human:test", "test", utcnow())
    turn = Item("not_1", "w", "message", "note", "", "Bob: yes", "t1", True, "org", at)
    ask = replace(turn, id="not_0", body="Ann: tea?" + " x" * KEYS_CAP)
    assert context_keys(turn, ask, None) == ask.body[:KEYS_CAP]
    assert context_keys(turn, None, replace(ask, scope="user:ann")) == ""
    assert context_keys(turn, replace(ask, tombstoned_at=utcnow()), None) == ""
    assert context_keys(turn, replace(ask, superseded_by="not_9"), None) == ""
    assert context_keys(turn, replace(ask, storage_class="section"), None) == ""
    assert context_keys(replace(turn, storage_class="section"), ask, None) == ""
    assert context_keys(replace(turn, tombstoned_at=utcnow()), ask, None) == ""
    assert context_keys(turn, ask, ask) == f"{ask.body[:KEYS_CAP]}\n{ask.body[:KEYS_CAP]}"


def test_a_forget_between_a_recompute_s_read_and_write_leaves_no_words(brain: Brain) -> None:
    """Two writers: one recomputes a turn's keys (reads the neighbour while it is live);
    before it writes them, another forgets that neighbour and recomputes the keys itself.
    The first write must not put the forgotten words back."""
    a, b = turns(brain, "Cy: the heron nests by the weir", "Dee: lovely", run="s2")
    store = brain._ctx.store

    class ForgetBeforeTheWrite:
        """The store as the first writer sees it: the other writer's forget lands between
        its read and its first write."""

        raced = False

        def __getattr__(self, name: str) -> object:
            return getattr(store, name)

        def set_keys(self, workspace: str, keys: Mapping[str, str]) -> None:
            if not self.raced:
                self.raced = True
                brain.forget(a.id, reason="asked to")
                assert found(brain, "heron weir") == []  # the forget's own recompute
            store.set_keys(workspace, keys)

    racing = ForgetBeforeTheWrite()
    refresh_keys(cast(Store, racing), brain.workspace, [b.id])
    assert racing.raced
    assert found(brain, "heron weir") == []
    assert found(brain, "lovely") == [b.id]
