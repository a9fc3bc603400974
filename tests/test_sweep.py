"""A restart sweeps what no committed row names: a blob written before a crash kept its
item from committing, and the temporary files of puts that never finished."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from orgbrain import Brain
from orgbrain.adapters.blobs_local import LocalBlobStore
from orgbrain.sweep import SweepReport
from tests.toy import HashEmbedder

HOUR = 3600.0


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_sweep_removes_orphans_and_partial_writes_only(tmp_path: Path) -> None:
    root = tmp_path / "b"
    with Brain.open(root, embedder=HashEmbedder()) as brain:
        kept = brain.add_file(b"# Kept\n\nStill named by its row.\n", name="kept.md", index=True)
        pdf_like = brain.add_file(b"plain words", name="notes.txt", index=True)
    blobs = LocalBlobStore(root / "blobs")
    # What a crash between the blob's write and the item's commit leaves: a version folder
    # no row names, and a temp file of a put that never finished (with its folder).
    blobs.put("workspaces/default/fil_gone/ver_x/raw", [b"orphan bytes"])
    blobs.put(f"workspaces/default/{kept.id}/ver_stale/raw", [b"an older version"])
    partial = root / "blobs" / "workspaces" / "default" / "fil_torn" / "ver_y" / ".tmp-abc"
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"half")
    fresh = root / "blobs" / "workspaces" / "default" / "fil_new" / "ver_z" / "raw"
    blobs.put("workspaces/default/fil_new/ver_z/raw", [b"an upload in flight"])
    for p in (root / "blobs").rglob("*"):
        if p != fresh and p.parent != fresh.parent:
            age(p, 2 * HOUR)

    with Brain.open(root, embedder=HashEmbedder()) as brain:
        report = brain.sweep(timedelta(hours=1))
        assert (report.blobs_removed, report.partial_removed) == (2, 1)
        # Everything a row names is still there and reads back.
        assert b"".join(brain.read_file(kept.id)).startswith(b"# Kept")
        assert b"".join(brain.read_file(pdf_like.id)) == b"plain words"
        assert brain.search("named", plan="bm25").hits
    assert fresh.exists()  # younger than the grace period: maybe another process's upload
    assert not (root / "blobs" / "workspaces" / "default" / "fil_gone").exists()
    assert not partial.exists() and not partial.parent.exists()
    assert not blobs.exists(f"workspaces/default/{kept.id}/ver_stale/raw")


WRITER = """
import sys, time
from orgbrain import Brain
from orgbrain.adapters.blobs_local import LocalBlobStore
from tests.toy import HashEmbedder
brain = Brain.open(sys.argv[1], embedder=HashEmbedder())
kept = brain.add_file(b"# Kept\\n\\nNamed by its row.\\n", name="kept.md", index=True)
blobs = LocalBlobStore(sys.argv[1] + "/blobs")
blobs.put("workspaces/default/fil_inflight/ver_1/raw", [b"an upload, its row not committed"])
print(kept.id, flush=True)
time.sleep(120)
"""


def test_a_killed_writers_leftovers_go_at_the_next_start_without_waiting(
    tmp_path: Path,
) -> None:
    """Leftovers are swept when their writer is known dead (its lock released), not an
    hour later; a live writer's fresh blob is left for its row to commit."""
    root = tmp_path / "b"
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo / "src"), str(repo)])}
    # A server that wrote a blob and was killed before its row committed. This process
    # writes nothing before its sweep, as a server starting anew writes nothing before.
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root)],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert writer.stdout is not None
        kept_id = writer.stdout.readline().strip()
        leftover = root / "blobs" / "workspaces" / "default" / "fil_inflight"
        with Brain.open(root, embedder=HashEmbedder()) as brain:
            assert brain.sweep() == SweepReport(0, 0)  # the writer lives: maybe in flight
            assert leftover.exists()
            writer.kill()  # as a server dies: no chance to clean up
            writer.wait(10)
            assert brain.sweep().blobs_removed == 1  # its lock went with it
            assert not leftover.exists()
            assert b"".join(brain.read_file(kept_id)).startswith(b"# Kept")
    finally:
        writer.kill()
        writer.wait(10)
