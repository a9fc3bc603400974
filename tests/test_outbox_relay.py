"""Where owed work is relayed: a write that committed and died before asking for its
derivation (its outbox row left, as ``tests/test_outbox_crash.py`` leaves it by killing
the writer) is asked for by the start-up sweep, by a worker's round and by the next open;
relayed twice, it is still one job."""

from __future__ import annotations

from pathlib import Path

from orgbrain.compose import open_context, open_key_store
from orgbrain.context import BrainContext
from orgbrain.derive import derive_key, derive_state
from orgbrain.derive.outbox import owe_derive, relay
from orgbrain.indexer import embed_texts
from orgbrain.jobs import Worker, default_handlers
from orgbrain.migrate import House, move
from orgbrain.model import Item
from orgbrain.sweep import sweep
from orgbrain.writes import NoteInput, note_item
from tests.toy import HashEmbedder


def _committed_unrelayed(ctx: BrainContext, body: str) -> Item:
    """A note as a writer killed just after its commit leaves it."""
    item = note_item(ctx, NoteInput(body))
    (vector,) = embed_texts(ctx.embedder, [f"{item.label}\n{item.body}"])
    (saved,) = ctx.store.put_items([(item, vector)], owed=owe_derive(ctx, rekey=[]))
    assert derive_state(ctx, [saved])[saved.id] == "none"
    return saved


def test_the_sweep_relays_what_a_crash_left(tmp_path: Path) -> None:
    ctx = open_context(tmp_path / "brain", embedder=HashEmbedder())
    note = _committed_unrelayed(ctx, "Ann owns the billing service.")
    assert sweep(ctx).owed_relayed == 1
    assert derive_state(ctx, [note])[note.id] == "queued"
    assert ctx.store.owed() == []
    ctx.store.close()


def test_a_worker_round_relays_then_derives(tmp_path: Path) -> None:
    ctx = open_context(tmp_path / "brain", embedder=HashEmbedder())
    note = _committed_unrelayed(ctx, "Bob is on call this week.")
    Worker(ctx, default_handlers()).drain()
    assert derive_state(ctx, [note])[note.id] == "done"
    ctx.store.close()


def test_the_next_open_relays_and_twice_is_one_job(tmp_path: Path) -> None:
    ctx = open_context(tmp_path / "brain", embedder=HashEmbedder())
    note = _committed_unrelayed(ctx, "Deploys happen on Tuesday.")
    (row,) = ctx.store.owed()
    again = open_context(tmp_path / "brain", embedder=HashEmbedder())
    assert again.store.owed() == [] and derive_state(again, [note])[note.id] == "queued"
    # A writer that was slow to relay its own row finds it gone; asking again changes nothing.
    assert relay(ctx, [row.id]) == 0
    assert ctx.jobs is not None
    (job,) = ctx.jobs.find(ctx.workspace, [derive_key(note)]).values()
    assert ctx.jobs.list_jobs(ctx.workspace).jobs == (job,)
    for c in (ctx, again):
        c.jobs.close()
        c.store.close()


def test_a_move_carries_owed_work_as_the_jobs_it_becomes(tmp_path: Path) -> None:
    source = open_context(tmp_path / "a", embedder=HashEmbedder())
    note = _committed_unrelayed(source, "Ann owns the billing service.")
    target = open_context(tmp_path / "b", embedder=HashEmbedder())
    report = move(
        House(source, open_key_store(tmp_path / "a"), "a"),
        House(target, open_key_store(tmp_path / "b"), "b"),
    )
    assert report.verification.ok, report.verification
    assert source.store.owed() == []
    assert derive_state(target, [note])[note.id] == "queued"
    source.store.close()
    target.store.close()
