"""Never mutate in place: writing a source key again keeps what it held as a previous
version (readable, citable), on a real SQLite file and real blobs; erase takes every
version's bytes, the sweep keeps what a version names."""

from __future__ import annotations

import os
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from orgbrain import Brain
from orgbrain.adapters.blobs_local import LocalBlobStore
from orgbrain.errors import InvalidInput, NotFound
from orgbrain.ports import Embedder

V1 = b"# Owners\n\nThe billing service is owned by Priya Raman.\n"
V2 = b"# Owners\n\nThe billing service is owned by Mei Chen.\n"


def blob_files(root: Path, item_id: str) -> list[Path]:
    folder = root / "blobs" / "workspaces" / "default" / item_id
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_new_bytes_keep_the_previous_version_readable_by_number(brain: Brain) -> None:
    v1 = brain.add_file(V1, name="owners.md", index=True)
    assert brain.history(v1.id).version == 1 and brain.versions(v1.id) == []
    v2 = brain.add_file(V2, name="owners.md")
    # The previous version was indexed: the new one is indexed at once, so it answers.
    assert v2.id == v1.id and v2.blob_key != v1.blob_key and v2.indexed

    (kept,) = brain.versions(v1.id)
    assert (kept.number, kept.blob_key, kept.content_hash) == (1, v1.blob_key, v1.content_hash)
    assert kept.size == len(V1) and kept.name == "owners.md"
    assert kept.origin.actor == "human:local" and kept.replaced_at >= kept.origin.at
    # The previous version was indexed: its extracted text is kept beside its bytes.
    assert kept.text_key is not None and "Priya" in kept.body
    assert b"".join(brain.read_file(v1.id, version=1)) == V1
    assert b"".join(brain.read_file(v1.id, version=2)) == V2
    assert b"".join(brain.read_file(v1.id)) == V2
    history = brain.history(v1.id)
    assert history.version == 2 and [v.number for v in history.versions] == [1]

    # The same bytes again, and indexing the new version, are no new version.
    brain.add_file(V2, name="owners.md")
    brain.index(v1.id)
    assert [v.number for v in brain.versions(v1.id)] == [1]
    assert "Mei" in brain.search("Who owns billing?").hits[0].item.body
    v3 = brain.add_file(V1, name="owners.md")
    assert [v.number for v in brain.versions(v3.id)] == [2, 1]
    assert b"".join(brain.read_file(v3.id, version=2)) == V2


def test_reading_a_version_that_never_was_is_refused(brain: Brain) -> None:
    f = brain.add_file(V1, name="owners.md")
    note = brain.add_note("Deploys freeze on Fridays.")
    with pytest.raises(NotFound, match="no version 2"):
        brain.read_file(f.id, version=2)
    with pytest.raises(InvalidInput):
        brain.read_file(f.id, version=0)
    with pytest.raises(InvalidInput, match="current version"):
        brain.read_file(f.id, version=1, section=1)
    with pytest.raises(InvalidInput, match="history"):
        brain.read_file(note.id, version=1)
    with pytest.raises(NotFound):
        brain.read_file("fil_nope", version=1)


def test_a_note_written_again_by_its_key_keeps_its_previous_text(brain: Brain) -> None:
    when = datetime(2024, 5, 1, tzinfo=UTC)
    old = brain.add_note(
        "The on-call rotation changes on Mondays.", source_key="oncall", occurred_at=when
    )
    same = brain.add_note(
        "The on-call rotation changes on Mondays.", source_key="oncall", occurred_at=when
    )
    assert same.id == old.id and brain.versions(old.id) == []
    new = brain.add_note("The on-call rotation changes on Tuesdays.", source_key="oncall")
    assert new.id == old.id and new.body.endswith("Tuesdays.")
    (kept,) = brain.versions(old.id)
    assert kept.body == "The on-call rotation changes on Mondays." and kept.occurred_at == when
    assert brain.get(old.id).source_key == "oncall"  # the key names the current version
    # A link or a flag set on the item is no new version.
    other = brain.add_note("Rotation owner: Priya.", supersedes=[old.id])
    assert brain.get(old.id).superseded_by == other.id
    assert len(brain.versions(old.id)) == 1
    # A new version keeps the item's links.
    brain.add_note("The on-call rotation changes on Wednesdays.", source_key="oncall")
    assert brain.get(old.id).superseded_by == other.id
    assert [v.body[-9:] for v in brain.versions(old.id)] == ["Tuesdays.", " Mondays."]


def test_forget_hides_the_versions_and_erase_deletes_every_versions_bytes(
    tmp_path: Path, embedder: Embedder
) -> None:
    root = tmp_path / "brain"
    with Brain.open(root, embedder=embedder) as brain:
        f = brain.add_file(V1, name="owners.md", index=True)
        brain.add_file(V2, name="owners.md", index=True)
        brain.add_file(b"# Owners\n\nNobody.\n", name="owners.md")
        assert len(brain.versions(f.id)) == 2
        assert len({p.parent for p in blob_files(root, f.id)}) == 3  # three version folders

        brain.erase(f.id, reason="test: personal data")
        assert blob_files(root, f.id) == []
        with pytest.raises(NotFound):
            brain.read_file(f.id, version=1)

        g = brain.add_file(V1, name="team.md")
        brain.add_file(V2, name="team.md")
        files = blob_files(root, g.id)
        brain.forget(g.id, reason="test: forgotten")
        with pytest.raises(NotFound):
            brain.history(g.id)
        with pytest.raises(NotFound):
            brain.read_file(g.id, version=1)
        assert blob_files(root, g.id) == files  # forgetting keeps every version's bytes
    db = sqlite3.connect(root / "brain.sqlite")
    try:
        rows = db.execute("SELECT count(*) FROM item_versions WHERE item_id = ?", (f.id,))
        assert rows.fetchone()[0] == 0
    finally:
        db.close()


def test_erase_of_a_note_takes_its_previous_text(tmp_path: Path, embedder: Embedder) -> None:
    root = tmp_path / "brain"
    with Brain.open(root, embedder=embedder) as brain:
        note = brain.add_note("The vault code is 1234.", source_key="vault")
        brain.add_note("The vault code is 5678.", source_key="vault")
        assert len(brain.versions(note.id)) == 1
        brain.erase(note.id, reason="test: a secret")
    db = sqlite3.connect(root / "brain.sqlite")
    try:
        left = db.execute("SELECT body FROM item_versions").fetchall()
        body = db.execute("SELECT body FROM items WHERE id = ?", (note.id,)).fetchone()[0]
    finally:
        db.close()
    assert left == [] and "1234" not in body and "5678" not in body


def test_the_sweep_keeps_the_folders_a_version_names(tmp_path: Path, embedder: Embedder) -> None:
    root = tmp_path / "brain"
    with Brain.open(root, embedder=embedder) as brain:
        f = brain.add_file(V1, name="owners.md", index=True)
        brain.add_file(V2, name="owners.md")
    LocalBlobStore(root / "blobs").put(f"workspaces/default/{f.id}/ver_orphan/raw", [b"x"])
    then = time.time() - 2 * 3600
    for p in (root / "blobs").rglob("*"):
        os.utime(p, (then, then))
    with Brain.open(root, embedder=embedder) as brain:
        report = brain.sweep(timedelta(hours=1))
        assert report.blobs_removed == 1  # the orphan, and nothing a version names
        assert b"".join(brain.read_file(f.id, version=1)) == V1
        (kept,) = brain.versions(f.id)
        assert kept.text_key is not None
        assert b"Priya" in LocalBlobStore(root / "blobs").read(kept.text_key)
        assert b"".join(brain.read_file(f.id)) == V2
