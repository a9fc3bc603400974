"""The CLI as a team meets it in its first week: the demo run twice, in a git checkout, and
the listings on an 80-column terminal."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from orgbrain import Brain
from orgbrain.cli import app, cli
from orgbrain.settings import Settings
from tests.filegen import truncated_pdf
from tests.toy import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
NARROW = {"COLUMNS": "80"}
Invoke = Callable[..., Result]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=HashEmbedder())

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        result = runner.invoke(cli, ["--brain", str(tmp_path / "brain"), *args], env=NARROW)
        assert result.exit_code == 0, (result.output, result.exception)
        return result

    return invoke


def test_a_second_demo_says_the_brain_already_knows_the_documents(
    run: Invoke, tmp_path: Path
) -> None:
    where = tmp_path / "demo"
    first = run("demo", "--brain", str(where)).stdout
    assert "0 hits: what is only added is not known yet" in first
    assert "oncall.txt" in first and " 1 section\n" in first and "1 sections" not in first
    # A reader gets a rank and why it matched; the raw fused scores stay in --json.
    assert "score" not in first
    assert re.search(r"\[1\] \w+\.(md|txt) · .+  \((matched|close in meaning)", first)

    again = run("demo", "--brain", str(where)).stdout
    assert "not known" not in again
    assert "an earlier demo indexed these documents already" in again
    assert "nothing: every document is indexed already" in again
    scored = json.loads(run("demo", "--brain", str(where), "--json").stdout)
    assert all(isinstance(h["score"], float) for h in scored["answer"]["hits"])


def test_the_demo_brain_stays_out_of_git(run: Invoke, tmp_path: Path) -> None:
    where = tmp_path / "checkout" / ".orgbrain-demo"
    run("demo", "--brain", str(where))
    assert (where / ".gitignore").read_text().splitlines()[-1] == "*"
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert ".orgbrain-demo/" in ignored


def test_ids_stay_whole_in_the_listings_at_80_columns(run: Invoke, tmp_path: Path) -> None:
    run("init")
    with Brain.open(tmp_path / "brain", embedder=HashEmbedder()) as brain:
        good = brain.add_file(b"# Good\n\nfine text\n", name="good.md")
        long = "a-rather-long-file-name-for-the-quarterly-board-report.pdf"
        bad = brain.add_file(truncated_pdf(), name=long)
        jobs = [brain.request_index(good.id), brain.request_index(bad.id)]
        noted = brain.add_note("Figures.", label="The quarterly board report " * 4)
    run("worker", "--once")
    listed = run("jobs").stdout
    for job in jobs:
        assert job is not None
        [line] = [x for x in listed.splitlines() if x.startswith(job.id)]
        assert job.subject in line and line.rstrip().endswith(" ago") and len(line) <= 80
    # The failed job's error is under the table, whole, not folded into a narrow column.
    assert f"error: {jobs[1].id}  corrupt_file:" in listed  # type: ignore[union-attr]

    items = run("items").stdout
    for item in (good, bad, noted):
        assert any(x.startswith(item.id) and len(x) <= 80 for x in items.splitlines())
    # A long label is cut to its column with an ellipsis: one line a row, never folded.
    [row] = [x for x in items.splitlines() if x.startswith(noted.id)]
    assert "The quarterly board" in row and "…" in row
    rows = [x for x in items.splitlines() if x.strip() and not x.startswith("error:")]
    listed_ids = [i["id"] for i in json.loads(run("items", "--json").stdout)["items"]]
    assert len(rows) == 1 + len(listed_ids), items  # the header, then one line a row
    assert f"error: {bad.id}  corrupt_file:" in items
    assert "(1 section)" in run("index", good.id).stdout
