"""The embedding space recorded per brain, and ``reembed`` moving a brain to another."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from orgbrain import Brain
from orgbrain.adapters.embed_minilm import MODEL_NAME
from orgbrain.adapters.postgres import PostgresStore
from orgbrain.errors import Conflict
from orgbrain.jobs.reembed import ReembedJobs, SpaceMover, mover_of, request_reembed
from orgbrain.ports import Embedder, Vector
from orgbrain.scopes import Visibility
from orgbrain.space import EmbeddingSpace
from tests.toy import HashEmbedder

ALL = Visibility.everything()
NOTES = [
    "The billing service is owned by Dana and deploys on Tuesdays.",
    "Our staging database is refreshed from production every night.",
    "Incident reviews are written within five working days.",
    "The mobile app release train leaves every second Thursday.",
    "Vendor contracts above ten thousand euros need legal review.",
]


class OtherHash(HashEmbedder):
    """Another model: another name, another dimension."""

    name = "toy-other"


class KilledAfter(OtherHash):
    """A process killed during its ``calls``-th embedding call (nothing after it runs)."""

    def __init__(self, dim: int, calls: int) -> None:
        super().__init__(dim)
        self.calls = calls

    def embed(self, texts: list[str]) -> Vector:  # type: ignore[override]
        self.calls -= 1
        if self.calls <= 0:
            raise KeyboardInterrupt
        return super().embed(texts)


def _space(root: Path) -> EmbeddingSpace:
    with sqlite3.connect(root / "brain.sqlite") as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedding_space'").fetchone()
    return EmbeddingSpace.from_json(row[0])


# -- the recorded space -----------------------------------------------------------------


def test_a_brain_refuses_another_model_of_the_same_dimension_both_ways(
    tmp_path: Path, embedder: Embedder
) -> None:
    Brain.open(tmp_path / "minilm", embedder=embedder).close()
    with pytest.raises(Conflict) as caught:
        Brain.open(tmp_path / "minilm", embedder=HashEmbedder(384))
    message = str(caught.value)
    assert MODEL_NAME in message and "toy-hash" in message
    assert "orgbrain reembed --to" in message
    Brain.open(tmp_path / "toy", embedder=HashEmbedder(384)).close()
    with pytest.raises(Conflict, match=r"toy-hash .*384 dims.*reembed"):
        Brain.open(tmp_path / "toy", embedder=embedder)
    assert _space(tmp_path / "toy") == EmbeddingSpace("toy-hash", 384)


def test_minilm_and_its_torch_reference_are_one_space(tmp_path: Path, embedder: Embedder) -> None:
    from orgbrain.adapters.embed_minilm_torch import TorchMiniLMEmbedder

    Brain.open(tmp_path / "b", embedder=embedder).close()
    Brain.open(tmp_path / "b", embedder=TorchMiniLMEmbedder()).close()  # loads no model


def test_postgres_refuses_another_model_both_ways(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.bind_embedder("toy-a", 16)
    with pytest.raises(Conflict, match=r"toy-a \(16 dims\).*toy-b \(16 dims\).*reembed"):
        PostgresStore(pg_url).bind_embedder("toy-b", 16)
    with pytest.raises(Conflict, match=r"toy-a \(16 dims\).*toy-a \(8 dims"):
        PostgresStore(pg_url).bind_embedder("toy-a", 8)
    store.bind_embedder("toy-a", 16)  # the same space opens
    assert not isinstance(store, SpaceMover)  # reembed says it moves SQLite brains only
    store.close()


def test_a_brain_without_a_record_adopts_the_embedder_its_vectors_fit(tmp_path: Path) -> None:
    root = tmp_path / "old"
    with Brain.open(root, embedder=HashEmbedder(32)) as brain:
        brain.add_note(NOTES[0])
    with sqlite3.connect(root / "brain.sqlite") as conn:  # as written before records
        conn.execute("DELETE FROM meta WHERE key IN ('embedding_space', 'embedding_dim')")
    with pytest.raises(Conflict, match="another dimension than 64"):
        Brain.open(root, embedder=OtherHash(64))
    with Brain.open(root, embedder=HashEmbedder(32)) as brain:
        assert brain.search("billing owner").hits
    assert _space(root) == EmbeddingSpace("toy-hash", 32)


def test_a_brain_recorded_before_prefixes_keeps_its_model_through_the_migration(
    tmp_path: Path,
) -> None:
    root = tmp_path / "b"
    with Brain.open(root, embedder=HashEmbedder(32)) as brain:
        brain.add_note(NOTES[0])
    with sqlite3.connect(root / "brain.sqlite") as conn:  # as the record was before 0017
        conn.executescript(
            "DELETE FROM meta WHERE key = 'embedding_space';"
            "INSERT INTO meta VALUES ('embedding_model', 'toy-hash');"
            "DELETE FROM migrations WHERE name = '0017_embedding_space';"
            "DROP TABLE vectors_next;"
            "DROP TRIGGER vectors_next_delete; DROP TRIGGER vectors_next_cleared;"
        )
    with pytest.raises(Conflict, match=r"toy-hash \(32 dims\).*toy-other \(32 dims\)"):
        Brain.open(root, embedder=OtherHash(32))
    Brain.open(root, embedder=HashEmbedder(32)).close()
    assert _space(root) == EmbeddingSpace("toy-hash", 32)


# -- reembed ----------------------------------------------------------------------------


def _vector_ids(brain: Brain, embedder: Embedder, query: str) -> list[str]:
    ctx = brain._ctx
    vector = embedder.embed([query])[0]
    return [i for i, _ in ctx.store.vector_search(ctx.workspace, "note", vector, 3, ALL)]


def test_reembed_moves_while_search_keeps_answering_from_the_old_space(
    tmp_path: Path,
) -> None:
    old, new = HashEmbedder(32), OtherHash(64)
    brain = Brain.open(tmp_path / "b", embedder=old)
    notes = [brain.add_note(text, source_key=f"n{i}") for i, text in enumerate(NOTES)]
    ctx = brain._ctx
    job = request_reembed(ctx, new)
    assert job is not None
    mover, jobs = mover_of(ctx), ReembedJobs(new, step=2)
    batch = mover.items_to_move(0, 2)
    steps = 0
    while batch:  # one step, then searches, until every item has its new vectors
        jobs.embed_step(mover, batch)
        steps += 1
        assert _vector_ids(brain, old, "billing service owner")[0] == notes[0].id
        assert brain.search("staging database refreshed").hits[0].item.id == notes[1].id
        if steps == 1:  # an item moved already is written again, in the old space
            brain.add_note(NOTES[0] + " Dana hands over to Lee.", source_key="n0")
        batch = mover.items_to_move(batch[-1][0], 2)
    assert steps == 3
    assert mover.count_to_move() >= 1  # the note written meanwhile is behind
    assert not mover.finish_move()
    assert jobs.move_once(mover)
    assert _space(tmp_path / "b") == EmbeddingSpace("toy-other", 64)
    brain.close()
    with pytest.raises(Conflict):
        Brain.open(tmp_path / "b", embedder=old)
    with Brain.open(tmp_path / "b", embedder=new) as moved:
        assert _vector_ids(moved, new, "staging database refreshed")[0] == notes[1].id
        assert _vector_ids(moved, new, "Dana hands over to Lee")[0] == notes[0].id
        stored = moved._ctx.store.embedding_of(moved.workspace, notes[2].id)
        assert stored is not None and np.asarray(stored).shape[-1] == 64
        with sqlite3.connect(tmp_path / "b" / "brain.sqlite") as conn:
            assert conn.execute("SELECT count(*) FROM vectors_next").fetchone()[0] == 0


def test_a_reembed_killed_midway_resumes_where_it_was(tmp_path: Path) -> None:
    old = HashEmbedder(32)
    brain = Brain.open(tmp_path / "b", embedder=old)
    for text in NOTES:
        brain.add_note(text)
    with pytest.raises(KeyboardInterrupt):
        brain.reembed(KilledAfter(64, calls=3), step=1, lease_s=0.3, poll_s=0.05)
    assert _space(tmp_path / "b") == EmbeddingSpace("toy-hash", 32)  # not switched
    assert brain.items_to_reembed() == len(NOTES) - 2
    assert brain.search("incident reviews").hits  # still answering, from the old space
    done: list[int] = []
    space = brain.reembed(OtherHash(64), step=1, progress=done.append, lease_s=0.3, poll_s=0.05)
    assert space == EmbeddingSpace("toy-other", 64)
    assert sum(done) == len(NOTES) - 2  # the two embedded before the kill were kept
    brain.close()
    with Brain.open(tmp_path / "b", embedder=OtherHash(64)) as moved:
        assert moved.search("incident reviews").hits


def test_reembed_to_the_space_the_brain_is_in_does_nothing(tmp_path: Path) -> None:
    with Brain.open(tmp_path / "b", embedder=HashEmbedder(32)) as brain:
        brain.add_note(NOTES[0])
        assert brain.reembed(HashEmbedder(32)) == EmbeddingSpace("toy-hash", 32)
        assert not brain.jobs(kind="reembed").jobs
