"""``orgbrain jobs`` and ``orgbrain worker --once``, in-process (the real processes are in
test_jobs_processes.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from orgbrain import Brain
from orgbrain.cli import app, cli
from orgbrain.settings import Settings
from tests.filegen import truncated_pdf
from tests.toy import HashEmbedder

Invoke = Callable[..., Result]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=HashEmbedder())

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, ["--brain", str(tmp_path / "brain"), *args])

    return invoke


def test_jobs_lists_what_the_worker_then_does(run: Invoke, tmp_path: Path) -> None:
    assert run("jobs").exit_code == 3  # no brain there yet
    assert run("init").exit_code == 0
    empty = run("jobs")
    assert empty.exit_code == 0 and empty.stdout.strip() == "no jobs"
    with Brain.open(tmp_path / "brain", embedder=HashEmbedder()) as brain:
        good = brain.add_file(b"# Good\n\nfine text\n", name="good.md")
        bad = brain.add_file(truncated_pdf(), name="bad.pdf")
        jobs = [brain.request_index(good.id), brain.request_index(bad.id)]
    assert all(j is not None for j in jobs)

    listed = json.loads(run("jobs", "--json").stdout)
    assert [(j["subject"], j["state"]) for j in listed["jobs"]] == [
        (bad.id, "queued"),
        (good.id, "queued"),
    ]
    assert listed["next_cursor"] is None
    table = run("jobs")
    assert table.exit_code == 0 and all(j.id in table.stdout for j in jobs if j)

    worked = run("worker", "--once", "--json")
    assert worked.exit_code == 0, worked.output
    assert json.loads(worked.stdout) == {
        "claimed": 4,  # two index jobs, deriving the good file's one section, its audit
        "done": 3,
        "retried": 0,
        "failed": 1,
        "lost": 0,
    }
    failed = json.loads(run("--json", "jobs", "--state", "failed").stdout)["jobs"]
    assert [j["subject"] for j in failed] == [bad.id]
    assert failed[0]["last_error"].startswith("corrupt_file:")
    shown = run("jobs", "--state", "failed")
    assert failed[0]["id"] in shown.stdout and "1/8" in shown.stdout
    assert run("jobs", "--kind", "writeback").stdout.strip() == "no jobs"
    page = json.loads(run("jobs", "--limit", "1", "--json").stdout)
    assert len(page["jobs"]) == 1 and page["next_cursor"]
    rest = json.loads(run("jobs", "--cursor", page["next_cursor"], "--json").stdout)
    assert [j["id"] for j in rest["jobs"]] != [j["id"] for j in page["jobs"]]

    again = run("worker", "--once", "--threads", "2")
    assert again.exit_code == 0 and again.stdout.strip() == "0 done, 0 to retry, 0 failed"
    assert run("jobs", "--state", "stuck").exit_code == 2
