"""A write that waits for its audit pass or its write-back pass does that job only: a
backlog of the same kind queued before it (writes that did not wait) is left to the
workers, never billed to the write (as ``test_wait_own_derivation`` for derivation)."""

from __future__ import annotations

from pathlib import Path

from orgbrain import Brain
from orgbrain.jobs import DeriveJobs, IndexJobs
from orgbrain.settings import Settings
from tests.toy import HashEmbedder

PLAN = b"# Plan\n\n## Owners\n\nProject Kestrel is owned by Dana Smith.\n"


def _open(folder: Path) -> Brain:
    return Brain.open(folder, embedder=HashEmbedder(), settings=Settings())


def test_waiting_for_a_files_audit_leaves_the_other_audits_queued(tmp_path: Path) -> None:
    with _open(tmp_path / "brain") as brain:
        files = [brain.add_file(PLAN + b"x" * n, name=f"plan{n}.md") for n in range(4)]
        for f in files:
            brain.request_index(f.id)
        brain.worker(handlers=[IndexJobs(), DeriveJobs()]).drain()
        assert {j.state for j in brain.jobs(kind="audit").jobs} == {"queued"}
        mine, *backlog = (brain.get(f.id) for f in files)
        assert brain.audited_within([mine], 30)
        states = {j.subject: j.state for j in brain.jobs(kind="audit").jobs}
        assert states[mine.id] == "done"
        assert {states[f.id] for f in backlog} == {"queued"}  # the workers' to do


def test_waiting_for_a_write_back_leaves_the_other_runs_queued(tmp_path: Path) -> None:
    with _open(tmp_path / "brain") as brain:
        summary = "We decided to move billing to CockroachDB instead of Postgres."
        backlog = [
            brain.write_back({"run_id": f"old-{n}", "outcome": "succeeded", "summary": summary})
            for n in range(3)
        ]
        ack = brain.write_back(
            {"run_id": "mine", "outcome": "succeeded", "summary": summary}, wait=True
        )
        assert ack.state == "done"
        assert {brain.writeback_state(a.run_id).state for a in backlog} == {"queued"}
