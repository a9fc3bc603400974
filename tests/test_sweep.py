"""A restart sweeps what no committed row names: a blob written before a crash kept its
item from committing, and the temporary files of puts that never finished."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

from orgbrain import Brain
from orgbrain.adapters.blobs_local import LocalBlobStore
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
