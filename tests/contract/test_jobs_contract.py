"""The JobQueue contract: the SQLite, PostgreSQL and in-memory queues pass this suite unchanged.

Time is a hand-wound clock, so leases and backoffs expire when a test says so, not when
the machine gets round to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from orgbrain.adapters.jobs_memory import MemoryJobQueue
from orgbrain.adapters.postgres import PostgresJobQueue
from orgbrain.adapters.sqlite.jobs import SQLiteJobQueue
from orgbrain.errors import InvalidInput, Unavailable
from orgbrain.ports import Job, JobBacklog, JobQueue


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


QueueFactory = Callable[[], JobQueue]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def make_queue(
    request: pytest.FixtureRequest, tmp_path: Path, clock: Clock
) -> Iterator[QueueFactory]:
    """Each call is another handle on the same queue (another process, for SQLite and
    PostgreSQL)."""
    made: list[JobQueue] = []
    memory = MemoryJobQueue(clock=clock)
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None

    def factory() -> JobQueue:
        if request.param == "memory":
            return memory
        q: JobQueue
        if url is not None:
            q = PostgresJobQueue(url, clock=clock)
        else:
            q = SQLiteJobQueue(tmp_path / "brain.sqlite", clock=clock)
        made.append(q)
        return q

    yield factory
    for q in made:
        q.close()


@pytest.fixture
def q(make_queue: QueueFactory) -> JobQueue:
    return make_queue()


def put(q: JobQueue, key: str, *, ws: str = "w1", kind: str = "test", **kw: object) -> Job:
    attempts = kw.pop("max_attempts", 3)
    assert isinstance(attempts, int)
    return q.enqueue(
        ws, kind, key, {"n": key, **kw}, actor="human:ann", subject="fil_1", max_attempts=attempts
    )


# -- enqueue and idempotency --------------------------------------------------------------


def test_enqueue_makes_a_queued_job(q: JobQueue, clock: Clock) -> None:
    job = put(q, "a")
    assert (job.state, job.attempts, job.max_attempts, job.kind) == ("queued", 0, 3, "test")
    assert (job.workspace, job.key, job.subject, job.actor) == ("w1", "a", "fil_1", "human:ann")
    assert job.payload == {"n": "a"} and job.run_after == clock.now == job.created_at
    assert job.lease_owner is None and job.last_error is None and job.finished_at is None
    assert q.get(job.id) == job
    assert q.get("job_nothing") is None


def test_the_same_key_gives_the_same_job_never_a_second(q: JobQueue) -> None:
    first = put(q, "a")
    again = q.enqueue("w1", "test", "a", {"other": True}, actor="human:bob")
    assert again == first  # the first request's payload and asker stand
    elsewhere = put(q, "a", ws="w2")
    assert elsewhere.id != first.id  # keys are per workspace
    assert len(q.list_jobs("w1").jobs) == 1
    assert q.counts()["queued"] == 2


def test_a_done_job_is_not_run_again(q: JobQueue) -> None:
    job = put(q, "a")
    [claimed] = q.claim("w-1", ["test"])
    assert q.complete(claimed.id, "w-1")
    again = put(q, "a")
    assert again.id == job.id and again.state == "done"
    assert q.claim("w-1", ["test"]) == []


def test_asking_again_for_a_failed_job_runs_it_again(q: JobQueue, clock: Clock) -> None:
    job = put(q, "a", max_attempts=1)
    q.claim("w-1", ["test"])
    assert q.fail(job.id, "w-1", "corrupt_file: bad bytes")
    assert q.get(job.id).state == "failed"  # type: ignore[union-attr]
    clock.advance(1)
    again = put(q, "a")
    assert (again.id, again.state, again.attempts) == (job.id, "queued", 0)
    assert again.finished_at is None and again.run_after == clock.now
    [claimed] = q.claim("w-2", ["test"])
    assert claimed.id == job.id and claimed.attempts == 1


def test_enqueue_many_is_enqueue_for_each_in_one_write(q: JobQueue) -> None:
    first = put(q, "a")
    jobs = q.enqueue_many(
        "w1", "test", [("a", {"x": 1}, None), ("b", {"n": "b"}, "fil_2")], actor="human:bob"
    )
    assert jobs[0] == first  # an existing key gives its job back
    assert (jobs[1].key, jobs[1].subject, jobs[1].payload, jobs[1].actor) == (
        "b",
        "fil_2",
        {"n": "b"},
        "human:bob",
    )
    assert q.enqueue_many("w1", "test", [], actor="human:bob") == []
    with pytest.raises(InvalidInput):
        q.enqueue_many("w1", "test", [("c", {}, None)], actor="human:bob", max_attempts=0)
    assert {j.key for j in q.list_jobs("w1").jobs} == {"a", "b"}


def test_enqueue_is_durable_across_handles(make_queue: QueueFactory) -> None:
    job = put(make_queue(), "a")
    assert make_queue().get(job.id) == job


def test_enqueue_needs_an_attempt(q: JobQueue) -> None:
    with pytest.raises(InvalidInput):
        put(q, "a", max_attempts=0)


# -- claims and leases --------------------------------------------------------------------


def test_claim_takes_ready_jobs_oldest_first_up_to_the_limit(q: JobQueue, clock: Clock) -> None:
    jobs = []
    for n in range(5):
        jobs.append(put(q, f"k{n}"))
        clock.advance(0.001)
    put(q, "other", kind="elsewhere")
    claimed = q.claim("w-1", ["test"], limit=3, lease_s=10)
    assert [j.id for j in claimed] == [j.id for j in jobs[:3]]
    for j in claimed:
        assert (j.state, j.attempts, j.lease_owner) == ("running", 1, "w-1")
        assert j.lease_until == clock.now + timedelta(seconds=10)
    rest = q.claim("w-2", ["test"], limit=10)
    assert [j.id for j in rest] == [j.id for j in jobs[3:]]
    assert q.claim("w-3", ["test"], limit=10) == []
    assert q.claim("w-3", [], limit=10) == [] and q.claim("w-3", ["test"], limit=0) == []
    assert [j.kind for j in q.claim("w-3", ["elsewhere", "test"])] == ["elsewhere"]


def test_workspaces_take_turns(q: JobQueue, clock: Clock) -> None:
    """One workspace's bulk upload (50 jobs) never makes another's one file wait: a claim
    takes one workspace's jobs, the least recently served one, so a slow batch holds only
    its own workspace and the next claim goes to another."""
    bulk = []
    for n in range(50):
        bulk.append(put(q, f"bulk{n}", ws="big"))
        clock.advance(0.001)
    small = put(q, "one", ws="small")
    clock.advance(0.001)
    other = [put(q, f"o{n}", ws="third") for n in range(2)]
    first = q.claim("w-1", ["test"], limit=4)
    assert [j.id for j in first] == [j.id for j in bulk[:4]]  # none served yet: oldest
    clock.advance(0.001)
    # "big" is busy (its batch still running): another worker serves the next workspace.
    assert [j.id for j in q.claim("w-2", ["test"], limit=4)] == [small.id]
    clock.advance(0.001)
    assert [j.id for j in q.claim("w-3", ["test"], limit=4)] == [j.id for j in other]
    clock.advance(0.001)
    for job in (*first, small, *other):
        owner = "w-1" if job in first else "w-2" if job is small else "w-3"
        assert q.complete(job.id, owner)
        clock.advance(0.001)
    put(q, "two", ws="small")
    clock.advance(0.001)
    # Nothing running: "big" was served longest ago, though "small" has a job again.
    assert [j.id for j in q.claim("w-1", ["test"], limit=2)] == [j.id for j in bulk[4:6]]


def test_a_claim_by_keys_takes_only_those_jobs_of_that_workspace(q: JobQueue, clock: Clock) -> None:
    """A writer waiting for its own writes' jobs claims them by key: an older backlog, the
    same keys in another workspace and other kinds stay queued for the workers."""
    backlog = []
    for n in range(3):
        backlog.append(put(q, f"old{n}"))
        clock.advance(0.001)
    mine = [put(q, "mine0"), put(q, "mine1")]
    clock.advance(0.001)
    twin = put(q, "mine0", ws="w2")
    put(q, "mine1", kind="elsewhere", ws="w3")
    wanted = ("w1", ["mine1", "mine0", "absent"])
    [first] = q.claim("writer", ["test"], keys=wanted, lease_s=5)
    assert (first.id, first.state, first.lease_owner) == (mine[0].id, "running", "writer")
    [second] = q.claim("writer", ["test", "elsewhere"], keys=wanted, limit=5)
    assert second.id == mine[1].id
    assert q.claim("writer", ["test"], keys=wanted) == []
    assert q.claim("writer", ["test"], keys=("w1", [])) == []
    for job in (*backlog, twin):
        assert q.get(job.id).state == "queued"  # type: ignore[union-attr]
    # Ordinary claims still take turns: "w1" is busy with the writer's jobs.
    assert [j.id for j in q.claim("worker", ["test"], limit=10)] == [twin.id]
    # A claim by keys takes back its own job whose lease expired, not one under a live
    # lease, and nothing of the backlog.
    clock.advance(6)
    [again] = q.claim("writer-2", ["test"], keys=wanted, limit=10)
    assert (again.id, again.attempts) == (mine[0].id, 2)
    assert all(q.get(j.id).state == "queued" for j in backlog)  # type: ignore[union-attr]


def test_a_held_job_is_not_claimed_again_until_its_lease_expires(
    make_queue: QueueFactory, clock: Clock
) -> None:
    one, two = make_queue(), make_queue()
    job = put(one, "a")
    assert [j.id for j in one.claim("w-1", ["test"], lease_s=5)] == [job.id]
    clock.advance(4.9)
    assert two.claim("w-2", ["test"], lease_s=5) == []
    clock.advance(0.2)  # w-1 died: its lease ran out
    [again] = two.claim("w-2", ["test"], lease_s=5)
    assert (again.id, again.attempts, again.lease_owner) == (job.id, 2, "w-2")
    # The first worker comes back too late: it holds nothing any more.
    assert not one.complete(job.id, "w-1")
    assert not one.fail(job.id, "w-1", "late", retry_in=1)
    assert one.extend([job.id], "w-1", 5) == []
    assert two.complete(job.id, "w-2")
    assert two.get(job.id).state == "done"  # type: ignore[union-attr]


def test_heartbeats_keep_a_lease(q: JobQueue, clock: Clock) -> None:
    a, b = put(q, "a"), put(q, "b")
    q.claim("w-1", ["test"], limit=2, lease_s=3)
    for _ in range(4):
        clock.advance(2)
        assert q.extend([a.id, b.id, "job_unknown"], "w-1", 3) == [a.id, b.id]
        assert q.claim("w-2", ["test"]) == []
    assert q.get(a.id).lease_until == clock.now + timedelta(seconds=3)  # type: ignore[union-attr]
    assert q.extend([a.id], "w-2", 3) == []  # only the owner renews


def test_a_lease_lost_on_the_last_attempt_fails_the_job(q: JobQueue, clock: Clock) -> None:
    job = put(q, "a", max_attempts=2)
    for _ in range(2):
        assert q.claim("w-1", ["test"], lease_s=1)
        clock.advance(2)  # the worker dies every time (a job that kills its process)
    assert q.claim("w-2", ["test"]) == []
    dead = q.get(job.id)
    assert dead is not None and dead.state == "failed" and dead.attempts == 2
    assert "lease expired" in (dead.last_error or "") and dead.finished_at == clock.now


# -- outcomes -----------------------------------------------------------------------------


def test_complete_marks_done(q: JobQueue, clock: Clock) -> None:
    job = put(q, "a")
    q.claim("w-1", ["test"])
    clock.advance(1)
    assert not q.complete(job.id, "w-2")
    assert q.complete(job.id, "w-1")
    done = q.get(job.id)
    assert done is not None and done.state == "done" and done.finished_at == clock.now
    assert done.lease_owner is None and done.lease_until is None
    assert not q.complete(job.id, "w-1")  # once


def test_fail_with_retry_backs_off_then_fails_when_attempts_run_out(
    q: JobQueue, clock: Clock
) -> None:
    job = put(q, "a", max_attempts=3)
    for attempt, delay in ((1, 5.0), (2, 10.0)):
        [claimed] = q.claim("w-1", ["test"])
        assert claimed.attempts == attempt
        assert q.fail(job.id, "w-1", f"unavailable: down {attempt}", retry_in=delay)
        waiting = q.get(job.id)
        assert waiting is not None and waiting.state == "queued"
        assert waiting.run_after == clock.now + timedelta(seconds=delay)
        assert waiting.last_error == f"unavailable: down {attempt}"
        assert waiting.lease_owner is None
        clock.advance(delay - 0.01)
        assert q.claim("w-1", ["test"]) == []  # not before its backoff
        clock.advance(0.02)
    q.claim("w-1", ["test"])
    assert q.fail(job.id, "w-1", "unavailable: still down", retry_in=20)
    last = q.get(job.id)
    assert last is not None and (last.state, last.attempts) == ("failed", 3)
    assert last.last_error == "unavailable: still down" and last.finished_at == clock.now


def test_fail_without_retry_is_final(q: JobQueue) -> None:
    job = put(q, "a", max_attempts=5)
    q.claim("w-1", ["test"])
    assert not q.fail(job.id, "w-2", "not mine")
    assert q.fail(job.id, "w-1", "corrupt_file: no text")
    failed = q.get(job.id)
    assert failed is not None and failed.state == "failed" and failed.attempts == 1
    assert q.claim("w-1", ["test"]) == []


# -- reads --------------------------------------------------------------------------------


def test_list_filters_and_pages_newest_first(q: JobQueue) -> None:
    jobs = [put(q, f"k{n}") for n in range(5)]
    other = q.enqueue("w1", "index", "i", {}, actor="human:bob")
    put(q, "x", ws="w2")
    q.claim("w-1", ["test"], limit=2)  # w1's two oldest (one workspace a claim)
    page = q.list_jobs("w1")
    assert [j.id for j in page.jobs] == [other.id, *[j.id for j in reversed(jobs)]]
    assert page.next_cursor is None
    assert [j.id for j in q.list_jobs("w1", state="running").jobs] == [jobs[1].id, jobs[0].id]
    assert [j.id for j in q.list_jobs("w1", kind="index").jobs] == [other.id]
    assert [j.id for j in q.list_jobs("w1", actor="human:bob").jobs] == [other.id]
    assert len(q.list_jobs(None).jobs) == 7
    seen, cursor = [], None
    while True:
        page = q.list_jobs("w1", kind="test", limit=2, cursor=cursor)
        seen += [j.id for j in page.jobs]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == [j.id for j in reversed(jobs)]
    with pytest.raises(InvalidInput):
        q.list_jobs("w1", cursor="abc")


def test_find_by_keys_and_counts(q: JobQueue) -> None:
    a, b = put(q, "a"), put(q, "b")
    put(q, "a", ws="w2")
    assert q.find("w1", ["a", "b", "zzz", "a"]) == {"a": a, "b": b}
    assert q.find("w1", []) == {}
    q.claim("w-1", ["test"])
    counts = q.counts()
    assert counts == {"queued": 2, "running": 1, "done": 0, "failed": 0}


def test_backlog_counts_what_waits_per_kind_with_its_oldest(q: JobQueue, clock: Clock) -> None:
    t0 = clock.now
    put(q, "a")
    clock.advance(10)
    put(q, "b")
    q.enqueue("w1", "index", "i1", {}, actor="human:bob")
    put(q, "c", ws="w2")
    clock.advance(5)
    [claimed] = q.claim("w-1", ["index"])
    assert q.backlog("w1") == [
        JobBacklog("index", "running", 1, t0 + timedelta(seconds=10)),
        JobBacklog("test", "queued", 2, t0),
    ]
    assert q.backlog("w1", actor="human:bob") == [
        JobBacklog("index", "running", 1, t0 + timedelta(seconds=10))
    ]
    assert q.backlog("w1", actor="human:nobody") == [] and q.backlog("w3") == []
    assert q.fail(claimed.id, "w-1", "corrupt_file: no text")
    [a] = q.claim("w-1", ["test"])
    assert q.complete(a.id, "w-1")  # done jobs are not a backlog
    assert q.backlog("w1") == [
        JobBacklog("index", "failed", 1, t0 + timedelta(seconds=10)),
        JobBacklog("test", "queued", 1, t0 + timedelta(seconds=10)),
    ]


def test_finished_gives_done_jobs_times_newest_asked_first(q: JobQueue, clock: Clock) -> None:
    t0 = clock.now
    for key in ("a", "b", "c"):
        put(q, key)
        clock.advance(1)
    q.enqueue("w1", "index", "i1", {}, actor="human:bob")
    put(q, "other", ws="w2")
    clock.advance(60)
    for job in q.claim("w-1", ["test", "index"], limit=10):
        if job.key != "b":
            assert q.complete(job.id, "w-1")
        clock.advance(30)
    done = q.finished("w1")
    assert [(t.kind, t.created_at) for t in done] == [
        ("index", t0 + timedelta(seconds=3)),
        ("test", t0 + timedelta(seconds=2)),
        ("test", t0),
    ]
    assert all(t.finished_at > t.created_at for t in done)
    assert q.finished("w1", limit=1) == done[:1]
    assert q.finished("w1", actor="human:bob") == done[:1]
    later = q.finished("w1", since=done[1].finished_at)
    assert {t.created_at for t in later} == {
        t.created_at for t in done if t.finished_at >= done[1].finished_at
    }
    assert q.finished("w3") == []


def test_a_closed_queue_says_so(make_queue: QueueFactory) -> None:
    q = make_queue()
    q.close()
    with pytest.raises(Unavailable):
        put(q, "a")
