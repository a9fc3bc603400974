"""A write that waits for its derivation does its own items' jobs only, one at a time,
checking its deadline after each: a backlog queued before it (writes that did not wait)
is left to the workers, never billed to the write."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbrain import Brain, NoteInput
from orgbrain.cli import app, cli
from orgbrain.errors import Unavailable
from orgbrain.ports import Embedder
from orgbrain.settings import Settings

BACKLOG = 40


def _timed_note(runner: CliRunner, folder: Path, text: str) -> tuple[str, float]:
    t0 = time.perf_counter()
    result = runner.invoke(cli, ["--brain", str(folder), "note", text, "--json"])
    seconds = time.perf_counter() - t0
    assert result.exit_code == 0, (result.output, result.exception)
    assert "warning" not in result.stderr  # derived within its limit
    return str(json.loads(result.stdout)["id"]), seconds


def _jobs(runner: CliRunner, folder: Path) -> dict[str, str]:
    """Each derive job's subject and state."""
    listed = runner.invoke(
        cli, ["--brain", str(folder), "jobs", "--kind", "derive", "--limit", "1000", "--json"]
    )
    assert listed.exit_code == 0, listed.output
    return {j["subject"]: j["state"] for j in json.loads(listed.stdout)["jobs"]}


def test_a_note_is_derived_without_paying_for_an_older_backlog(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()
    empty, busy = tmp_path / "empty", tmp_path / "busy"
    for folder in (empty, busy):
        assert runner.invoke(cli, ["--brain", str(folder), "init"]).exit_code == 0
    with Brain.open(busy, embedder=embedder) as brain:
        backlog = brain.add_notes(
            [
                NoteInput(f"The service-{n} team is led by Priya Raman since March {n % 28 + 1}.")
                for n in range(BACKLOG)
            ]
        )  # wait="ack": their derivation is queued, no one has done it
    _timed_note(runner, empty, "Standup is at 09:30.")  # the first note warms the model
    _, alone = _timed_note(runner, empty, "The billing service is owned by Dana Whitfield.")

    note_id, behind = _timed_note(runner, busy, "The billing service is owned by Dana Whitfield.")
    states = _jobs(runner, busy)
    assert states[note_id] == "done"
    assert {states[i.id] for i in backlog} == {"queued"}  # untouched: the workers' to do
    # The note costs what it costs on an empty brain, not 41 derivations.
    assert behind < 3 * alone + 1.0, (behind, alone)


def test_the_deadline_holds_between_jobs_and_a_longer_one_waits_for_all(brain: Brain) -> None:
    notes = brain.add_notes(
        [NoteInput(f"The service-{n} team is led by Priya Raman.") for n in range(4)]
    )
    with pytest.raises(Unavailable, match="not done within 0 s"):
        brain.wait_derived(notes, timeout=0)
    states = [brain.story(n.id).derivation for n in notes]
    assert set(states) == {"queued"}  # no job starts after the deadline
    brain.wait_derived(notes, timeout=60)
    assert {brain.story(n.id).derivation for n in notes} == {"done"}
