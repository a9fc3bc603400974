"""Workers as real processes over one brain: none runs a job twice, a worker killed
mid-job leaves it to be claimed again after its lease with nothing half-written, and
``orgbrain worker`` runs until told to stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from orgbrain import Brain
from orgbrain.adapters.sqlite.jobs import SQLiteJobQueue
from tests.test_crash import _assert_nothing_half_indexed
from tests.toy import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
PRELUDE = f"""
import os, sys, time
from pathlib import Path
sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / "src")!r}]
from orgbrain import Brain
from tests.toy import HashEmbedder
"""

COUNTING_WORKER = PRELUDE + textwrap.dedent(
    """
    from orgbrain.jobs import Outcome

    class Count:
        kind = "test.count"
        batch = 2

        def run(self, ctx, jobs, settle):
            for job in jobs:
                with open(sys.argv[2], "a") as log:
                    log.write(f"{job.id} {os.getpid()}\\n")
                time.sleep(0.02)
                settle(Outcome(job.id))

    brain = Brain.open(sys.argv[1], embedder=HashEmbedder())
    print("ready", flush=True)
    while not Path(sys.argv[3]).exists():  # all start claiming at once
        time.sleep(0.005)
    print(brain.worker(handlers=[Count()], lease_s=5).drain().done, flush=True)
    """
)

CLI_WORKER = PRELUDE + textwrap.dedent(
    """
    from orgbrain.cli import app, main
    app.open_brain = lambda s: Brain.open(s.brain, settings=s, embedder=HashEmbedder())
    sys.argv = ["orgbrain", *sys.argv[1:]]
    main()
    """
)

SLOW_INDEXER = PRELUDE + textwrap.dedent(
    """
    from orgbrain.jobs import IndexJobs

    class Slow(HashEmbedder):
        calls = 0

        def embed(self, texts):
            self.calls += 1
            print("embedding", flush=True)
            time.sleep(0.2 if self.calls < 3 else 60)  # the third file hangs: kill lands there
            return super().embed(texts)

    brain = Brain.open(sys.argv[1], embedder=Slow())
    print("ready", flush=True)
    brain.worker(handlers=[IndexJobs(batch=1)], lease_s=2.0).drain()
    print("done", flush=True)
    """
)


def _python(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _files(n: int) -> list[bytes]:
    paras = ("lorem ipsum dolor " * 20 for _ in range(6))
    body = "\n\n".join(paras)
    return [f"File {i}\n\n{body}\n".encode() for i in range(n)]


def test_worker_processes_never_run_a_job_twice(tmp_path: Path) -> None:
    folder, log, go = tmp_path / "brain", tmp_path / "runs.log", tmp_path / "go"
    Brain.open(folder, embedder=HashEmbedder()).close()
    queue = SQLiteJobQueue(folder / "brain.sqlite")
    jobs = [queue.enqueue("default", "test.count", f"k{n}", {}, actor="t") for n in range(30)]
    procs = [_python(COUNTING_WORKER, str(folder), str(log), str(go)) for _ in range(3)]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        go.touch()
        done = [int(p.communicate(timeout=60)[0].strip()) for p in procs]
    finally:
        for p in procs:
            p.kill()
    runs = [line.split() for line in log.read_text().splitlines()]
    by_job = Counter(job_id for job_id, _ in runs)
    assert sorted(by_job) == sorted(j.id for j in jobs)
    assert set(by_job.values()) == {1}  # every job ran, none twice
    assert sum(done) == 30
    assert len({pid for _, pid in runs}) >= 2  # the processes really shared the work
    for j in jobs:
        stored = queue.get(j.id)
        assert stored is not None and (stored.state, stored.attempts) == ("done", 1)
    queue.close()


def test_orgbrain_worker_processes_index_every_file_once(tmp_path: Path) -> None:
    folder = tmp_path / "brain"
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        items = [brain.add_file(data, name=f"doc{i}.txt") for i, data in enumerate(_files(12))]
        for item in items:
            brain.request_index(item.id)
    args = ["--brain", str(folder), "worker", "--once", "--threads", "2", "--json"]
    procs = [_python(CLI_WORKER, *args) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    reports = [json.loads(out) for out, _ in outputs]
    assert sum(r["failed"] + r["retried"] + r["lost"] for r in reports) == 0
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        # Twelve index jobs, one derive job per section they made, one audit per file:
        # each run once.
        jobs = brain.jobs(limit=1000).jobs
        assert len([j for j in jobs if j.kind == "index"]) == 12
        assert len([j for j in jobs if j.kind == "audit"]) == 12
        assert {(j.state, j.attempts) for j in jobs} == {("done", 1)}
        assert sum(r["done"] for r in reports) == len(jobs)
        assert all(brain.get(i.id).indexed for i in items)
        _assert_nothing_half_indexed(brain)


def test_a_worker_killed_mid_job_leaves_it_for_the_next_after_its_lease(tmp_path: Path) -> None:
    folder = tmp_path / "brain"
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        items = [brain.add_file(data, name=f"doc{i}.txt") for i, data in enumerate(_files(5))]
        jobs = [brain.request_index(item.id) for item in items]
    proc = _python(SLOW_INDEXER, str(folder))
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "ready"
        for _ in range(3):  # two files committed and done; the third one is embedding
            assert proc.stdout.readline().strip() == "embedding"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()

    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        states = [brain.job(j.id) for j in jobs if j is not None]
        assert [s.state for s in states] == ["done", "done", "running", "queued", "queued"]
        killed = states[2]
        assert killed.lease_until is not None and killed.lease_owner is not None
        # Nothing half-written: the killed job's file has no sections at all.
        assert [brain.get(i.id).indexed for i in items] == [True, True, False, False, False]
        assert brain.sections(items[2].id) == []
        _assert_nothing_half_indexed(brain)

        # A new worker takes what is queued at once, and the killed job once its lease
        # has run out.
        lease_end = brain.job(killed.id).lease_until
        assert lease_end is not None
        time.sleep(max(0.0, (lease_end - datetime.now(UTC)).total_seconds()) + 0.05)
        report = brain.run_jobs()  # the three index jobs, then their sections' derivation
        assert (report.failed, report.retried) == (0, 0) and report.done > 3
        finished = [brain.job(j.id) for j in jobs if j is not None]
        assert [(j.state, j.attempts) for j in finished] == [
            ("done", 1),
            ("done", 1),
            ("done", 2),
            ("done", 1),
            ("done", 1),
        ]
        files = brain.items(storage_class="file").items
        assert all(f.indexed for f in files)
        per_file = [brain.sections(f.id) for f in files]
        assert len({len(s) for s in per_file}) == 1  # same shape, same count, no duplicates
        keys = [s.source_key for secs in per_file for s in secs]
        assert len(keys) == len(set(keys))
        counts = brain.counts()
        assert counts["section"] == counts["section_indexed"] == len(keys)
        structure = [e for f in files for e in brain.edges(f.id, types=["HAS_SECTION"])]
        assert len(structure) == len(keys)


def test_orgbrain_worker_runs_until_sigterm(tmp_path: Path) -> None:
    folder = tmp_path / "brain"
    Brain.open(folder, embedder=HashEmbedder()).close()
    args = ["--brain", str(folder), "worker", "--poll", "0.1", "--lease", "5"]
    proc = _python(CLI_WORKER, *args)
    assert proc.stderr is not None
    try:
        assert "orgbrain worker: 1 thread(s)" in proc.stderr.readline()
        with Brain.open(folder, embedder=HashEmbedder()) as brain:
            item = brain.add_file(b"# Late\n\nasked for after the worker started\n", name="l.md")
            brain.request_index(item.id)
            deadline = time.monotonic() + 30
            while (
                not brain.get(item.id).indexed
                or brain.jobs(state="done").jobs == []
                or (brain.jobs(state="queued").jobs or brain.jobs(state="running").jobs)
            ):
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0
    # indexing, then its section derived, then the file audited
    assert out.strip() == "3 done, 0 to retry, 0 failed"
