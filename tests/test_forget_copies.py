"""Forgotten means gone (issue 12): forget and erase reach every copy of an item's words
(statements, entities only it named, mention edges, the database's files) and every
pointer at it (a reused name, a successor's ``supersedes``), on both backends."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from orgbrain import Brain, Conflict, NotFound, Settings
from orgbrain.model import Proposal, utcnow
from orgbrain.scopes import Visibility
from tests.backends import Backend
from tests.toy import HashEmbedder

OTHER = "Priya Raman owns the Quagga payroll service."
SECRET = "Xavier Erasmoqq owns the Quagga payroll service."


@pytest.fixture
def brain(backend: Backend, tmp_path: Path) -> Iterator[Brain]:
    b = backend.open(tmp_path / "b", embedder=HashEmbedder())
    yield b
    b.close()


def entities(brain: Brain) -> set[str]:
    return {i.label for i in brain.items(storage_class="entity", limit=1000).items}


def files_holding(root: Path, word: bytes) -> list[str]:
    """Every file under ``root`` whose bytes hold ``word``, in any letter case."""
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if word.lower() in path.read_bytes().lower():
                found.append(str(path.relative_to(root)))
    return found


def test_erase_takes_the_words_out_of_the_graph_and_every_file(brain: Brain) -> None:
    other = brain.add_note(OTHER, wait="derived")
    secret = brain.add_note(SECRET, wait="derived")
    assert {"Xavier Erasmoqq", "Quagga payroll service"} <= entities(brain)
    assert brain.statements(item_id=secret.id)

    done = brain.erase(secret.id, reason="personal data")

    # Only the erased note named Xavier; Priya's note still names the service.
    assert "Xavier Erasmoqq" not in entities(brain)
    assert {"Priya Raman", "Quagga payroll service"} <= entities(brain)
    assert brain.events("forget")[0]["entities_dropped"] == 1 and done.erased
    # The statement it made is gone, and Priya's, which it disputed, no longer says so.
    (kept,) = brain.statements(item_id=other.id)
    assert kept.conflicts == () and kept.superseded_by is None
    about = brain.statements(about="Quagga payroll service", current=None)
    assert [s.item_id for s in about] == [other.id]
    # Its derivation's log went with it (the forget record stays).
    assert all(e["item_id"] != secret.id for e in brain.events("derive", limit=100))
    assert all(e["item_id"] != secret.id for e in brain.events("derived", limit=100))


@pytest.mark.parametrize("engine", ["tantivy", "fts5"])
def test_no_file_of_the_embedded_brain_keeps_an_erased_word(tmp_path: Path, engine: str) -> None:
    root = tmp_path / "b"
    # Either keyword engine: tantivy's index lives in memory, rebuilt from the rows (no
    # folder of its own), beside the FTS5 table both keep up.
    settings = Settings(brain=root, keyword_engine=engine)
    with Brain.open(root, embedder=HashEmbedder(), settings=settings) as brain:
        brain.add_note(OTHER, wait="derived")
        secret = brain.add_note(SECRET, wait="derived")
        brain.add_file(b"# Payroll\n\nXavier Erasmoqq signs off.\n", name="x.md", index=True)
        (file,) = brain.items(storage_class="file").items
        assert files_holding(root, b"Erasmoqq")
        assert brain.search("Erasmoqq", plan="bm25").hits
        brain.erase(secret.id, reason="personal data")
        brain.erase(file.id, reason="personal data")
        # While it is open (its WAL in place) and after.
        assert files_holding(root, b"Erasmoqq") == []
        assert files_holding(root, b"Xavier") == []
        assert brain.search("Quagga payroll", plan="bm25").hits  # the rest still answers
        assert brain.search("Erasmoqq", plan="bm25").hits == ()
    assert files_holding(root, b"Erasmoqq") == []
    assert sorted(p.name for p in root.iterdir()) == ["blobs", "brain.sqlite"]


def test_a_forgotten_files_name_makes_a_new_item_with_its_own_versions(brain: Brain) -> None:
    first = brain.add_file(b"# Plan\n\nv1: the old secret plan\n", name="f.md")
    brain.add_file(b"# Plan\n\nv2: the newer plan\n", name="f.md")
    assert len(brain.versions(first.id)) == 1
    brain.forget(first.id, reason="wrong file")

    again = brain.add_file(b"# Plan\n\nv3: a fresh start\n", name="f.md")

    assert again.id != first.id
    assert b"".join(brain.read_file(again.id, version=1)) == b"# Plan\n\nv3: a fresh start\n"
    assert brain.versions(again.id) == []
    with pytest.raises(NotFound):  # the new item has one version only
        b"".join(brain.read_file(again.id, version=2))
    with pytest.raises(NotFound):  # the forgotten one stays unreadable
        b"".join(brain.read_file(first.id, version=1))
    # The same holds for a note's key.
    note = brain.add_note("The freeze starts Friday.", source_key="freeze")
    brain.forget(note.id, reason="wrong")
    assert brain.add_note("The freeze starts Monday.", source_key="freeze").id != note.id


def test_a_forgotten_items_id_leaves_the_supersession_links(brain: Brain) -> None:
    old = brain.add_note("The VPN is Cisco AnyConnect.")
    new = brain.add_note("The VPN is now WireGuard.", supersedes=[old.id])
    later = brain.add_note("The VPN is now Tailscale.", supersedes=[old.id])
    assert brain.get(old.id).superseded_by == new.id

    # The first successor is forgotten: the next claim still standing takes its place.
    brain.forget(new.id, reason="never happened")
    assert brain.get(old.id).superseded_by == later.id
    # The older item is forgotten: its successor no longer names it.
    brain.forget(old.id, reason="personal data")
    assert brain.get(later.id).supersedes is None

    # The only successor is forgotten: the older item holds again.
    a = brain.add_note("Billing is owned by Priya.")
    b = brain.add_note("Billing is owned by Olu now.", supersedes=[a.id])
    brain.forget(b.id, reason="a mistake")
    assert brain.get(a.id).superseded_by is None


def test_forgetting_takes_the_entities_only_it_named(brain: Brain) -> None:
    brain.add_note(OTHER, wait="derived")
    secret = brain.add_note(SECRET, wait="derived")
    brain.forget(secret.id, reason="not ours to keep")
    assert "Xavier Erasmoqq" not in entities(brain)
    assert "Quagga payroll service" in entities(brain)
    about = brain.statements(about="Quagga payroll service", current=None)
    assert all(s.item_id != secret.id for s in about)


def test_an_indexing_that_ends_after_forget_does_not_bring_the_file_back(brain: Brain) -> None:
    file = brain.add_file(b"# Plan\n\nThe plan.\n", name="plan.md")  # read by an indexer
    brain.forget(file.id, reason="wrong file")
    store = brain._ctx.store
    with pytest.raises(Conflict):
        store.commit_index(replace(file, indexed=True), None, [], "system:indexer")
    with pytest.raises(NotFound):
        brain.get(file.id)


def test_erase_blanks_the_write_back_proposal_that_became_the_note(brain: Brain) -> None:
    note = brain.add_note(SECRET)
    store, ws = brain._ctx.store, brain.workspace
    proposed = Proposal(
        id="prp_1", workspace=ws, run_id="run-1", actor="agent:x", kind="note", label="Owner",
        body=SECRET, scope="org", confidence=0.9, sensitivity=(), evidence=(SECRET,),
        supersedes=(), state="written", reason="confident", created_at=utcnow(),
    )  # fmt: skip
    store.put_proposal(proposed)
    store.proposal_written(ws, "prp_1", note.id)
    brain.erase(note.id, reason="personal data")
    kept = store.proposal(ws, "prp_1")
    assert kept is not None and "Erasmoqq" not in repr(kept)


def test_an_entity_named_by_an_item_forgotten_earlier_goes_with_the_last_one(
    brain: Brain,
) -> None:
    first = brain.add_note(SECRET, wait="derived")
    second = brain.add_note("Xavier Erasmoqq signs the payroll.", wait="derived")
    brain.forget(first.id, reason="wrong")
    assert "Xavier Erasmoqq" in entities(brain)  # the second note still names him
    # A mention a forget before issue 12 (a tombstone, nothing more) left behind does not
    # keep him either. (The store refuses a new edge from a forgotten item.)
    old = brain.add_note("Xavier Erasmoqq approved the payroll.", wait="derived")
    store = brain._ctx.store
    store.put_items([(replace(brain.get(old.id), tombstoned_at=utcnow()), None)])
    assert store.edges_of(brain.workspace, old.id, Visibility.everything(), types=["MENTIONS"])
    brain.forget(second.id, reason="wrong")
    assert "Xavier Erasmoqq" not in entities(brain)
