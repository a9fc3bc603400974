"""Indexing as a durable job, through the Brain facade: asking, state, the worker, the one
failure rule (an embedder outage retries; a bad file fails), idempotency and who sees
which jobs. Real SQLite files, the toy embedder."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from orgbrain import Brain, Forbidden, NotFound, Principal
from orgbrain.adapters.blobs_local import LocalBlobStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite.jobs import SQLiteJobQueue
from orgbrain.compose import build_context
from orgbrain.context import BrainContext
from orgbrain.errors import Unavailable
from orgbrain.jobs import INDEX_KIND, INDEX_MAX_ATTEMPTS, Outcome, RetryPolicy, Settle
from orgbrain.ports import Job, Vector
from tests.filegen import truncated_pdf
from tests.toy import HashEmbedder

DOC = b"# Refunds\n\nRefunds over 500 EUR need approval from finance.\n"
QUICK = RetryPolicy(base_s=0.2, cap_s=0.2)


class SwitchableEmbedder(HashEmbedder):
    """A real embedder that can be taken down, as a model server goes down."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__()
        self.error = error
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return super().embed(texts)


@pytest.fixture
def brain(tmp_path: Path) -> Iterator[Brain]:
    with Brain.open(tmp_path / "brain", embedder=HashEmbedder()) as b:
        yield b


def test_a_request_is_a_durable_job_that_a_worker_does(tmp_path: Path) -> None:
    folder = tmp_path / "brain"
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        item = brain.add_file(DOC, name="refunds.md")
        assert brain.index_state(item.id) == "added"
        job = brain.request_index(item.id)
        assert job is not None and (job.kind, job.state, job.subject) == (
            INDEX_KIND,
            "queued",
            item.id,
        )
        assert job.payload["content_hash"] == item.content_hash
        assert brain.request_index(item.id) == job  # the same bytes: the same job
    # Another process (here: another handle) sees the request and does it.
    with Brain.open(folder, embedder=HashEmbedder()) as other:
        assert other.index_state(item.id) == "queued"
        assert [j.id for j in other.jobs().jobs] == [job.id]
        report = other.run_jobs()
        assert (report.claimed, report.done, report.failed) == (
            3,
            3,
            0,
        )  # indexing, then deriving its one section, then its audit pass
        assert other.get(item.id).indexed and other.index_state(item.id) == "indexed"
        done = other.job(job.id)
        assert (done.state, done.attempts, done.lease_owner) == ("done", 1, None)
        assert other.request_index(item.id) is None  # indexed: nothing to do
        assert other.run_jobs().claimed == 0
        assert other.search("who approves refunds?").hits


def test_new_bytes_are_new_work_and_a_stale_request_ends_failed(brain: Brain) -> None:
    old = brain.add_file(b"# Plan\n\nold plan\n", name="plan.md")
    stale = brain.request_index(old.id)
    new = brain.add_file(b"# Plan\n\nthe new plan\n", name="plan.md")
    assert new.id == old.id and new.content_hash != old.content_hash
    assert brain.index_state(new.id) == "added"  # nobody asked for these bytes yet
    fresh = brain.request_index(new.id)
    assert fresh is not None and stale is not None and fresh.id != stale.id
    assert brain.index_state(new.id) == "queued"
    report = brain.run_jobs()
    assert (report.done, report.failed) == (
        3,
        1,
    )  # the new bytes indexed, derived and audited; the stale job failed
    assert brain.job(stale.id).state == "failed"
    assert "changed since" in (brain.job(stale.id).last_error or "")
    assert brain.job(fresh.id).state == "done" and brain.get(new.id).indexed
    assert "new plan" in brain.get(new.id).body


def test_an_embedder_outage_leaves_the_file_pending_and_retries(tmp_path: Path) -> None:
    embedder = SwitchableEmbedder(Unavailable("the model server is down"))
    with Brain.open(tmp_path / "brain", embedder=embedder) as brain:
        item = brain.add_file(DOC, name="refunds.md")
        job = brain.request_index(item.id)
        assert job is not None
        report = brain.run_jobs(retry=QUICK)
        assert (report.claimed, report.retried, report.failed) == (1, 1, 0)
        waiting = brain.job(job.id)
        assert (waiting.state, waiting.attempts) == ("queued", 1)
        assert waiting.last_error == "unavailable: the model server is down"
        assert waiting.run_after > waiting.updated_at  # backing off
        # The file is not to blame: nothing recorded on it, still pending, still queued.
        assert brain.get(item.id).index_error is None
        assert [p.id for p in brain.pending()] == [item.id]
        assert brain.index_state(item.id) == "queued"
        assert brain.run_jobs(retry=QUICK).claimed == 0  # not before its backoff

        # Any error out of the embedder counts the same, not only ours.
        embedder.error = RuntimeError("CUDA out of memory")
        time.sleep(0.25)
        assert brain.run_jobs(retry=QUICK).retried == 1
        assert "RuntimeError: CUDA out of memory" in (brain.job(job.id).last_error or "")

        embedder.error = None
        time.sleep(0.25)
        assert brain.run_jobs(retry=QUICK).done == 3  # indexed, derived, audited
        done = brain.job(job.id)
        assert (done.state, done.attempts, done.last_error) == ("done", 3, None)
        assert brain.get(item.id).indexed and brain.pending() == []


def test_a_bad_file_fails_its_job_with_its_error(brain: Brain) -> None:
    bad = brain.add_file(truncated_pdf(), name="broken.pdf")
    good = brain.add_file(DOC, name="refunds.md")
    jobs = [brain.request_index(bad.id), brain.request_index(good.id)]
    assert all(j is not None for j in jobs)
    report = brain.run_jobs(retry=QUICK)
    assert (report.done, report.failed, report.retried) == (3, 1, 0)  # good: +derive, audit
    failed = brain.job(jobs[0].id)  # type: ignore[union-attr]
    assert failed.state == "failed" and failed.attempts == 1
    assert (failed.last_error or "").startswith("corrupt_file:")
    item = brain.get(bad.id)
    assert not item.indexed and (item.index_error or "").startswith("corrupt_file:")
    assert brain.index_state(bad.id) == "failed"
    time.sleep(0.25)
    assert brain.run_jobs(retry=QUICK).claimed == 0  # failed for good, not retried
    # Asking again is an explicit retry: the same job runs once more (and fails again).
    again = brain.request_index(bad.id)
    assert again is not None and again.id == failed.id and again.state == "queued"
    assert brain.run_jobs().failed == 1


def test_piled_up_requests_are_embedded_together(tmp_path: Path) -> None:
    embedder = SwitchableEmbedder()
    with Brain.open(tmp_path / "brain", embedder=embedder) as brain:
        items = [brain.add_file(f"# D{n}\n\nfact {n}\n".encode(), name=f"{n}.md") for n in range(4)]
        for item in items:
            brain.request_index(item.id)
        embedder.calls = 0
        assert brain.run_jobs().done == 12  # each indexed, derived and audited
        assert embedder.calls == 1  # four files' texts, one embedding call


def test_a_job_runs_with_the_eyes_of_who_asked(brain: Brain) -> None:
    alice = brain.for_principal(Principal("acme", "alice", frozenset({"eng"})))
    bob = brain.for_principal(Principal("acme", "bob"))
    private = alice.add_file(DOC, name="eng.md", scope="team:eng")
    with pytest.raises(NotFound):
        bob.request_index(private.id)
    job = alice.request_index(private.id)
    assert job is not None and job.payload["team_ids"] == ["eng"]
    assert job.payload["user_id"] == "alice" and job.actor == "human:alice"
    assert brain.for_workspace("acme").run_jobs().done == 3  # index, derive, audit
    assert alice.get(private.id).indexed
    assert alice.get(private.id).origin.actor == "human:alice"


def test_who_sees_which_jobs(brain: Brain) -> None:
    alice = brain.for_principal(Principal("acme", "alice"))
    bob = brain.for_principal(Principal("acme", "bob"))
    stranger = brain.for_principal(Principal("globex", "alice"))
    mine = alice.request_index(alice.add_file(DOC, name="a.md").id)
    his = bob.request_index(bob.add_file(b"# B\n\nbob\n", name="b.md").id)
    assert mine is not None and his is not None
    assert [j.id for j in alice.jobs().jobs] == [mine.id]
    assert [j.id for j in bob.jobs().jobs] == [his.id]
    assert stranger.jobs().jobs == ()
    assert {j.id for j in brain.for_workspace("acme").jobs().jobs} == {mine.id, his.id}
    assert alice.job(mine.id) == mine
    for who, job_id in ((alice, his.id), (stranger, mine.id), (alice, "job_nope")):
        with pytest.raises(NotFound):
            who.job(job_id)
    assert [j.id for j in alice.jobs(state="queued", kind="index").jobs] == [mine.id]
    assert alice.jobs(state="done").jobs == ()
    with pytest.raises(Forbidden):
        alice.worker()
    with pytest.raises(Forbidden):
        alice.job_counts()


@dataclass
class Sleepy:
    """A test job kind that takes ``seconds`` per job, to outlast a lease."""

    seconds: float
    kind: str = "test.sleep"
    batch: int = 1

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        for job in jobs:
            time.sleep(self.seconds)
            settle(Outcome(job.id))


class Crashing:
    kind = "test.crash"
    batch = 5

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        settle(Outcome(jobs[0].id))
        raise RuntimeError("handler bug")


def _context(tmp_path: Path) -> BrainContext:
    store = SQLiteStore(tmp_path / "brain.sqlite")
    embedder = HashEmbedder()
    store.bind_embedder(embedder.name, embedder.dim)
    return BrainContext(
        store,
        LocalBlobStore(tmp_path / "blobs"),
        embedder,
        jobs=SQLiteJobQueue(tmp_path / "brain.sqlite"),
    )


def test_the_heartbeat_keeps_a_long_job_from_a_second_worker(tmp_path: Path) -> None:
    with Brain.open(tmp_path / "brain", embedder=HashEmbedder()) as brain:
        slow = Sleepy(1.5)
        first = brain.worker(handlers=[slow], lease_s=0.6)
        second = brain.worker(handlers=[slow], lease_s=0.6)
        ctx = _context(tmp_path / "brain")
        assert ctx.jobs is not None
        job = ctx.jobs.enqueue("default", "test.sleep", "k", {}, actor="human:t")
        result: list[int] = []
        t = threading.Thread(target=lambda: result.append(first.drain().done))
        t.start()
        while (ctx.jobs.get(job.id) or job).state != "running":
            time.sleep(0.01)
        deadline = time.monotonic() + 1.4
        while time.monotonic() < deadline:  # two and more lease lengths
            assert second.run_once().claimed == 0
            time.sleep(0.1)
        t.join()
        assert result == [1]
        done = ctx.jobs.get(job.id)
        assert done is not None and (done.state, done.attempts) == ("done", 1)
        ctx.jobs.close()
        ctx.store.close()


def test_a_handler_that_raises_retries_what_it_had_not_settled(brain: Brain) -> None:
    worker = brain.worker(handlers=[Crashing()], retry=QUICK)
    queue = worker.queue
    jobs = [queue.enqueue("default", "test.crash", f"k{n}", {}, actor="human:t") for n in range(3)]
    report = worker.run_once()
    assert (report.claimed, report.done, report.retried) == (3, 1, 2)
    states = [queue.get(j.id) for j in jobs]
    assert [s.state for s in states if s] == ["done", "queued", "queued"]
    assert all("RuntimeError: handler bug" in (s.last_error or "") for s in states[1:] if s)
    assert brain.job_counts() == {"queued": 2, "running": 0, "done": 1, "failed": 0}


def test_a_brain_built_without_a_durable_queue_gets_one_in_memory(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert ctx.jobs is not None
    ctx.jobs.close()
    brain = Brain(build_context(ctx.store, ctx.blobs, ctx.embedder))
    item = brain.add_file(DOC, name="refunds.md")
    assert brain.request_index(item.id) is not None
    assert brain.run_jobs().done == 3 and brain.get(item.id).indexed  # +derive, audit
    brain.close()


def test_index_requests_logged_before_the_jobs_table_become_jobs(tmp_path: Path) -> None:
    folder = tmp_path / "brain"
    alice = Principal("acme", "alice", frozenset({"eng"}))
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        mine = brain.for_principal(alice)
        asked = mine.add_file(DOC, name="a.md", scope="team:eng")
        changed = mine.add_file(b"# Old\n\nold text\n", name="old.md")
        quiet = mine.add_file(b"# Quiet\n\nnobody asked\n", name="q.md")
        for item in (asked, changed, asked):  # what the old server logged per request
            record: dict[str, object] = {
                "item_id": item.id,
                "actor": "human:alice",
                "user_id": "alice",
                "team_ids": ["eng"],
                "agent": False,
            }
            brain.for_workspace("acme").log_event("index_request", record)
        time.sleep(0.01)
        mine.add_file(b"# Old\n\nnew bytes since\n", name="old.md")
    # The brain as it was before migration 0006 ran.
    conn = sqlite3.connect(folder / "brain.sqlite")
    conn.execute("DELETE FROM migrations WHERE name = '0007_index_requests_to_jobs'")
    conn.commit()
    conn.close()
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        mine = brain.for_principal(alice)
        [job] = mine.jobs().jobs
        assert (job.subject, job.state, job.kind) == (asked.id, "queued", "index")
        assert job.max_attempts == INDEX_MAX_ATTEMPTS
        assert job.payload["team_ids"] == ["eng"] and job.payload["agent"] is False
        assert job.payload["content_hash"] == asked.content_hash
        assert [mine.index_state(i.id) for i in (asked, changed, quiet)] == [
            "queued",
            "added",
            "added",
        ]
        assert mine.request_index(asked.id) == job  # the same key as a request made now
        assert brain.run_jobs().done == 3 and mine.get(asked.id).indexed  # +derive, audit


def test_a_file_replaced_mid_job_fails_that_job_and_waits_for_a_new_one(tmp_path: Path) -> None:
    class Midway(HashEmbedder):
        """Re-adds the file between reading and committing it, once."""

        def embed(self, texts: Sequence[str]) -> Vector:
            if other is not None and not replaced:
                replaced.append(other.add_file(b"# Plan\n\nv2\n", name="plan.md"))
            return super().embed(texts)

    replaced: list[object] = []
    other: Brain | None = None
    with Brain.open(tmp_path / "b", embedder=Midway()) as brain:
        other = Brain.open(tmp_path / "b", embedder=HashEmbedder())
        v1 = brain.add_file(b"# Plan\n\nv1\n", name="plan.md")
        job = brain.request_index(v1.id)
        assert job is not None
        report = brain.run_jobs(retry=QUICK)
        other.close()
        assert (report.failed, report.retried) == (1, 0)  # retrying cannot help
        failed = brain.job(job.id)
        assert (failed.last_error or "").startswith("conflict:")
        now = brain.get(v1.id)
        assert not now.indexed and now.index_error is None
        assert brain.index_state(v1.id) == "added"  # nobody asked for the new bytes yet
