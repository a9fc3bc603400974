"""Kill an indexing process at random points; the brain must open, answer, and finish."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from orgbrain import Brain
from tests.toy import HashEmbedder

N_FILES = 12

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from orgbrain import Brain
    from tests.toy import HashEmbedder

    brain = Brain.open(sys.argv[1], embedder=HashEmbedder())
    print("ready", flush=True)
    paths = sorted(Path(sys.argv[2]).iterdir())
    if sys.argv[3] == "one-by-one":
        print("todo", len(paths), flush=True)
        for path in paths:
            brain.add_file(path, index=True)
            print("file", flush=True)
    else:  # what `orgbrain add DIR --index` does: add all, then index them together
        for path in paths:
            brain.add_file(path)
        print("todo", len(brain.pending()), flush=True)
        brain.index_pending(progress=lambda report: print("file", flush=True))
    print("done", flush=True)
    """
)


def _make_files(folder: Path) -> dict[str, int]:
    folder.mkdir()
    expected = {}
    for i in range(N_FILES):
        paras = [f"File {i} paragraph {j}: " + ("lorem ipsum dolor " * 20) for j in range(12)]
        (folder / f"doc{i:02d}.txt").write_text("\n\n".join(paras))
        expected[f"doc{i:02d}.txt"] = 0
    return expected


def _assert_nothing_half_indexed(brain: Brain) -> None:
    """An indexed file has all its sections answerable; any other file has none."""
    shapes = set()
    for f in brain.items(storage_class="file").items:
        answerable = [s for s in brain.sections(f.id) if s.indexed]
        if f.indexed:
            assert answerable
            shapes.add(len(answerable))
        else:
            assert answerable == []
    assert len(shapes) <= 1  # same text shape => same section count


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["one-by-one", "pending"])
def test_kill_mid_index_then_finish(tmp_path: Path, mode: str) -> None:
    files = tmp_path / "files"
    _make_files(files)
    brain_dir = tmp_path / "brain"
    root = str(Path(__file__).resolve().parent.parent)
    rng = random.Random(7)
    script = CHILD.format(root=root)
    kills = 0
    for _round in range(4):
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(brain_dir), str(files), mode],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        todo = int(proc.stdout.readline().split()[1])
        if todo:
            # Kill while files are still being indexed: after a random number of them
            # have committed (so every round lands mid-run), inside the next one.
            for _ in range(rng.randrange(0, todo)):
                assert proc.stdout.readline().strip() == "file"
            time.sleep(rng.uniform(0.0, 0.005))
            os.kill(proc.pid, signal.SIGKILL)
            kills += "done" not in proc.stdout.read()  # landed before the run finished
        proc.wait()

        with Brain.open(brain_dir, embedder=HashEmbedder()) as brain:
            brain.search("lorem ipsum paragraph")  # opens and answers after any crash
            counts = brain.counts()
            indexed = counts.get("file_indexed", 0)
            assert counts.get("section_indexed", 0) >= 0 and indexed <= N_FILES
            _assert_nothing_half_indexed(brain)

    assert kills >= 2  # most rounds must really interrupt indexing
    with Brain.open(brain_dir, embedder=HashEmbedder()) as brain:
        for path in sorted(files.iterdir()):
            brain.add_file(path)  # whatever the crashes left un-added
        reports = brain.index_pending()
        assert all(r.ok for r in reports)
        files_page = brain.items(storage_class="file")
        assert len(files_page.items) == N_FILES
        assert all(f.indexed for f in files_page.items)
        per_file = [brain.sections(f.id) for f in files_page.items]
        n_sections = {len(s) for s in per_file}
        assert len(n_sections) == 1  # same text shape => same section count, no duplicates
        keys = [s.source_key for secs in per_file for s in secs]
        assert len(keys) == len(set(keys))
        assert brain.counts()["section"] == sum(len(s) for s in per_file)
        assert brain.counts()["edges"] == sum(len(s) for s in per_file)
        hits = brain.search("File 3 paragraph 5 lorem").hits
        assert hits
