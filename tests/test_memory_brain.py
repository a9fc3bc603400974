"""``Brain.in_memory``: a whole brain (store, job queue, files) held in this process's
memory, under the same rules as an embedded one, that writes nothing to disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgbrain import Brain, Settings
from orgbrain.errors import NotFound
from tests.toy import HashEmbedder


def test_a_brain_in_memory_indexes_derives_and_answers_and_writes_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings(brain=tmp_path / "brain")  # where a file would go, were one written
    with Brain.in_memory(embedder=HashEmbedder(), settings=settings) as brain:
        doc = brain.add_file(
            b"# Billing\n\nThe billing service is owned by Priya.\n",
            name="billing.md",
            index=True,
            wait="derived",
        )
        note = brain.add_note("Payroll runs on the 25th of each month.", wait="derived")
        found = brain.search("who owns the billing service")
        assert doc.id in {h.item.id for h in found.hits} | {h.item.parent_id for h in found.hits}
        assert b"".join(brain.read_file(doc.id)).startswith(b"# Billing")
        assert [s.get("step") for s in brain.story(note.id).steps]  # derived, in its jobs
        assert brain.counts()["note"] == 1 and brain.get(doc.id).indexed  # type: ignore[union-attr]
    assert list(tmp_path.iterdir()) == []


def test_each_brain_in_memory_is_its_own() -> None:
    with (
        Brain.in_memory(embedder=HashEmbedder()) as one,
        Brain.in_memory(embedder=HashEmbedder()) as other,
    ):
        note = one.add_note("Only the first brain knows this.")
        assert one.get(note.id).body == "Only the first brain knows this."
        with pytest.raises(NotFound):
            other.get(note.id)
        assert other.counts().get("note", 0) == 0
