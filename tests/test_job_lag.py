"""The lag of background work: what waits in the queue per kind and how long recent jobs
took from asked for to done (``Brain.job_lag``, ``stats.kind_lags``), seen through the
reader's lens as its jobs are."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from orgbrain import Brain, Client
from orgbrain.adapters.jobs_memory import MemoryJobQueue
from orgbrain.cli import app, cli
from orgbrain.errors import InvalidInput
from orgbrain.jobs.lag import job_lag
from orgbrain.ports import JobBacklog, JobTiming
from orgbrain.scopes import Principal
from orgbrain.stats import JobLag, kind_lags
from orgbrain.views import JobLagView
from tests.test_server import assert_problem, serve
from tests.toy import HashEmbedder

SAM = Principal("default", "sam", frozenset({"core"}))
DOC = b"# Billing\n\nPriya Raman owns the billing service.\n\n## Refunds\n\nFinance approves.\n"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def brain(tmp_path: Path) -> Iterator[Brain]:
    with Brain.open(tmp_path / "brain", embedder=HashEmbedder()) as b:
        yield b


def test_kind_lags_is_pure_over_the_queues_answers() -> None:
    at = T0 + timedelta(hours=1)
    backlog = [
        JobBacklog("derive", "queued", 3, T0 + timedelta(minutes=30)),
        JobBacklog("index", "running", 1, T0 + timedelta(minutes=59)),
        JobBacklog("index", "failed", 2, T0),
        JobBacklog("zeta", "queued", 1, at + timedelta(seconds=5)),  # another clock: 0
    ]
    finished = [
        JobTiming("index", T0, T0 + timedelta(seconds=s)) for s in (4.0, 1.0, 2.0, 3.0, 100.0)
    ] + [JobTiming("audit", T0, T0 + timedelta(seconds=7))]
    lags = kind_lags(backlog, finished, at)
    assert [k.kind for k in lags] == ["index", "derive", "audit", "zeta"]
    index, derive, audit, zeta = lags
    assert (index.queued, index.running, index.failed, index.waiting) == (0, 1, 2, 1)
    assert index.oldest_queued_s is None and index.oldest_running_s == 60.0
    assert (index.done, index.p50_s, index.p95_s, index.max_s) == (5, 3.0, 100.0, 100.0)
    assert [s for _, s in index.recent] == [1.0, 2.0, 3.0, 4.0, 100.0]  # oldest done first
    assert (derive.queued, derive.oldest_queued_s, derive.done, derive.p50_s) == (
        3,
        1800.0,
        0,
        None,
    )
    assert (audit.done, audit.p50_s, audit.waiting) == (1, 7.0, 0)
    assert zeta.oldest_queued_s == 0.0
    assert kind_lags([], [], at) == ()


def test_job_lag_measures_the_queue_now_and_jobs_done(brain: Brain) -> None:
    sam = brain.for_principal(SAM)
    mine = brain.add_file(DOC, name="owner.md")
    his = sam.add_file(DOC.replace(b"Priya", b"Mei"), name="sam.md")
    assert brain.job_lag().kinds == ()
    brain.request_index(mine.id)
    sam.request_index(his.id)
    waiting = brain.job_lag()
    assert waiting.lens == "workspace" and waiting.sampled == 0
    [index] = waiting.kinds
    assert (index.kind, index.queued, index.done) == ("index", 2, 0)
    assert index.oldest_queued_s is not None and 0 <= index.oldest_queued_s < 60
    [his_index] = sam.job_lag().kinds
    assert his_index.queued == 1  # a reader's own jobs only
    brain.run_jobs()
    done = brain.job_lag()
    by_kind = {k.kind: k for k in done.kinds}
    assert by_kind["index"].done == 2 and by_kind["index"].waiting == 0
    assert by_kind["derive"].done >= 2  # each file's sections derived
    assert all(k.p50_s is not None and k.p50_s >= 0 for k in done.kinds if k.done)
    assert done.sampled == sum(k.done for k in done.kinds) and not done.truncated
    seen = sam.job_lag()
    assert seen.lens == "reader" and {k.kind for k in seen.kinds} <= set(by_kind)
    assert seen.sampled == len(sam.jobs(state="done", limit=1000).jobs) < done.sampled
    # A window, a sample, and what is refused.
    assert brain.job_lag(since=timedelta(hours=1)).sampled == done.sampled
    last = max(at for k in done.kinds for at, _ in k.recent)
    first = min(at for k in done.kinds for at, _ in k.recent)
    assert 1 <= brain.job_lag(since=last).sampled < done.sampled or first == last
    small = brain.job_lag(sample=1)
    assert small.sampled == 1 and small.truncated
    with pytest.raises(InvalidInput):
        brain.job_lag(since=datetime.now(UTC) + timedelta(days=1))
    with pytest.raises(InvalidInput):
        brain.job_lag(sample=0)


def test_the_lag_view_round_trips(brain: Brain) -> None:
    brain.request_index(brain.add_file(DOC, name="a.md").id)
    brain.run_jobs()
    lag = brain.job_lag()
    assert lag.kinds and all(k.recent for k in lag.kinds)
    view = JobLagView.of(lag)
    back = JobLagView.model_validate_json(view.model_dump_json()).to_model()
    assert isinstance(back, JobLag) and back == lag


# -- the transports -------------------------------------------------------------------------


def test_job_lag_over_http_the_client_and_the_openapi(tmp_path: Path) -> None:
    with serve(tmp_path / "brain") as served:
        owner = served.brain.for_workspace("acme")
        owner.request_index(owner.add_file(DOC, name="owner.md").id)
        writer = served.key(user="sam", perms="read,write")
        admin = served.key(user="ann", perms="read,admin")
        c = served.http(writer)
        note = {"body": "Mei Chen runs the payments team.", "wait": "derived"}
        assert c.post("/v1/notes", json=note).status_code == 201  # a derive job of sam's
        assert served.ctx.worker.wait_idle(30)  # the server's worker did them
        everyone = owner.job_lag(since=None)
        assert everyone.sampled >= 3 and all(k.waiting == 0 for k in everyone.kinds)
        mine = JobLagView.model_validate(c.get("/v1/stats/jobs", params={"since": "all"}).json())
        assert mine.lens == "reader" and [k.kind for k in mine.kinds] == ["derive"]
        done = c.get("/v1/jobs", params={"state": "done"}).json()["jobs"]
        assert mine.sampled == len(done) == mine.kinds[0].done >= 1
        a = served.http(admin)
        seen = JobLagView.model_validate(a.get("/v1/stats/jobs", params={"since": "all"}).json())
        assert seen.lens == "workspace" and seen.sampled == everyone.sampled
        assert [(k.kind, k.done, k.p50_s) for k in seen.to_model().kinds] == [
            (k.kind, k.done, k.p50_s) for k in everyone.kinds
        ]
        one = a.get("/v1/stats/jobs", params={"sample": 1}).json()  # the last 30 days
        assert one["sampled"] == 1 and one["sample"] == 1
        assert_problem(c.get("/v1/stats/jobs", params={"since": "soon"}), 400, "invalid_input")
        assert_problem(c.get("/v1/stats/jobs", params={"sample": 0}), 422, "invalid_request")
        write_only = served.http(served.key(user="sam", perms="write"))
        assert_problem(write_only.get("/v1/stats/jobs"), 403, "forbidden")
        with Client(served.url, api_key=admin) as client:
            got = client.job_lag()
            assert isinstance(got, JobLag) and got.lens == "workspace"
            assert got.sampled == everyone.sampled and got.since is None
            assert client.job_lag(since=timedelta(days=1), sample=2).sampled == 2
        with Client(served.url, api_key=writer) as client:
            assert client.job_lag().lens == "reader"
        spec = served.http(None).get("/openapi.json").json()
        route = spec["paths"]["/v1/stats/jobs"]["get"]
        schema = route["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema["$ref"].endswith("/JobLagView")
        assert {p["name"] for p in route["parameters"]} == {"since", "sample"}


def test_orgbrain_stats_shows_the_lag_and_jobs_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "brain"
    monkeypatch.setattr(
        app,
        "open_brain",
        lambda settings: Brain.open(settings.brain, settings=settings, embedder=HashEmbedder()),
    )
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--brain", str(folder), *args])
        assert result.exit_code == 0, result.output
        return result.output

    run("init")
    assert "background work: no jobs" in run("stats")
    (tmp_path / "a.md").write_bytes(DOC)
    run("add", str(tmp_path / "a.md"), "--index")  # returns once derived
    text = run("stats", "--since", "all")
    assert "searches 0" in text and "background work:" in text
    assert "derive" in text and "oldest waiting" in text and "p95" in text
    lag = JobLagView.model_validate_json(run("stats", "--jobs", "--json", "--since", "all"))
    assert lag.lens == "workspace" and {k.kind for k in lag.kinds} >= {"derive"}
    assert all(k.queued == k.running == 0 and k.done >= 1 for k in lag.kinds)
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        assert lag.sampled == brain.job_lag(since=None).sampled
    one = JobLagView.model_validate_json(run("stats", "--jobs", "--json", "--sample", "1"))
    assert one.sampled == 1 and one.to_model().truncated
    alone = run("stats", "--jobs", "--sample", "1")
    assert "background work: 1 done jobs measured (the 1 most recent)" in alone
    assert "searches" not in alone
    bad = runner.invoke(cli, ["--brain", str(folder), "stats", "--jobs", "--sample", "0"])
    assert bad.exit_code == 2


class _FinishingQueue(MemoryJobQueue):
    """A real in-memory queue beside whose reads a worker finishes its running job once,
    between the lag's read of the backlog and its read of the done jobs."""

    def __init__(self) -> None:
        super().__init__()
        self.job = self.enqueue("default", "derive", "k", {}, actor="human:local")
        [claimed] = self.claim("w1", ["derive"])
        assert claimed.state == "running"
        self.reads = 0

    def finished(self, workspace: str, **kw: Any) -> list[JobTiming]:
        self.reads += 1
        if self.reads == 1:
            assert self.complete(self.job.id, "w1")
        return super().finished(workspace, **kw)


def test_a_job_finished_between_the_reads_is_counted_once(brain: Brain) -> None:
    queue = _FinishingQueue()
    ctx = dataclasses.replace(brain._ctx, jobs=queue)
    [derive] = job_lag(ctx, at=datetime.now(UTC)).kinds
    assert (derive.running, derive.done) == (0, 1)  # not running and done at once
    assert queue.reads == 2  # the queue moved under the first reading: read again
