"""Issue 40's outbox: a process killed between any two writes of a write path leaves
nothing it acknowledged underived, and nothing half-written, on SQLite and PostgreSQL.

The child (``CHILD``) composes a brain by hand with its store and job queue behind a
``Killing`` port: the real adapter, which SIGKILLs the process just before or just after
its N-th write call. The parent first runs the script to the end to count its write calls
(T), then once for each N in 1..T on a fresh brain, reopens the brain (which relays what
the outbox holds), runs every job, and checks what the child printed it had acknowledged.
Reads between two writes change nothing on disk, so the boundaries are the writes'.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from orgbrain import Brain, Settings
from tests.pg import fresh_schema
from tests.toy import HashEmbedder

ROOT = str(Path(__file__).resolve().parent.parent)

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from orgbrain import Brain, Settings
    from orgbrain.compose import build_context, make_blobs
    from tests.toy import HashEmbedder

    target, folder, kill_at = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    WRITES = ("put", "commit", "set_", "supersede", "unindex", "log_event", "settle",
              "enqueue", "purge", "link", "drop")
    ticks, armed = 0, False
    folder.mkdir(parents=True, exist_ok=True)

    def tick():
        global ticks
        if armed:
            ticks += 1
            if ticks == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    class Killing:
        def __init__(self, real):
            self._real = real

        def __getattr__(self, name):
            attr = getattr(self._real, name)
            if not name.startswith(WRITES):
                return attr
            def call(*args, **kwargs):
                tick()
                out = attr(*args, **kwargs)
                tick()
                return out
            return call

    if target.startswith("postgresql"):
        from orgbrain.adapters.postgres import PostgresJobQueue, PostgresStore
        store, jobs = PostgresStore(target), PostgresJobQueue(target)
    else:
        from orgbrain.adapters.sqlite import SQLiteStore
        from orgbrain.adapters.sqlite.jobs import SQLiteJobQueue
        store = SQLiteStore(folder / "brain.sqlite")
        jobs = SQLiteJobQueue(folder / "brain.sqlite")
    settings = Settings(brain=folder, root=folder.parent)
    blobs = make_blobs(settings, folder)
    ctx = build_context(Killing(store), blobs, HashEmbedder(), settings, jobs=Killing(jobs))
    brain = Brain(ctx)
    old = brain.add_note("Deploys happen on Tuesday.", label="deploys")
    brain.run_jobs()
    print("base", old.id, flush=True)
    armed = True
    new = brain.add_note("Deploys happen on Thursday now.", supersedes=[old.id])
    print("ack note", new.id, flush=True)
    doc = folder.parent / "handbook.md"
    doc.write_text("# Handbook\\n\\nAnn owns billing.\\n\\n## On call\\n\\nBob is on call.\\n")
    added = brain.add_file(doc, index=True)
    print("ack file", added.id, flush=True)
    print("ticks", ticks, flush=True)
    """
).format(root=ROOT)


def _run(target: str, folder: Path, kill_at: int) -> dict[str, str]:
    """Run the child to its ``kill_at``-th write boundary (0: to the end); what it said
    (``base``, ``ack note``, ``ack file``: ids; ``ticks``: its write boundaries)."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, target, str(folder), str(kill_at)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, -9), done.stderr[-3000:]
    assert (done.returncode == 0) == (kill_at == 0), done.stderr[-3000:]
    return dict(line.rsplit(" ", 1) for line in done.stdout.splitlines() if " " in line)


def _check(brain: Brain, said: dict[str, str]) -> None:
    """Everything committed is derived (acknowledged or not); the acknowledged writes
    are all there; a supersession is there exactly when its note is."""
    brain.run_jobs()
    old = brain.get(said["base"])
    notes = [n for n in brain.items(storage_class="note").items if n.id != old.id]
    if "ack note" in said:
        assert [n.id for n in notes] == [said["ack note"]]
    for note in notes:  # at most the one note the child was writing
        assert brain.story(note.id).derivation == "done"
        assert old.superseded_by == note.id and note.supersedes == old.id
    if not notes:
        assert old.superseded_by is None
    files = brain.items(storage_class="file").items
    if "ack file" in said:
        assert [f.id for f in files] == [said["ack file"]] and files[0].indexed
    for f in files:
        sections = brain.sections(f.id)
        assert bool(sections) == f.indexed
        for s in sections:
            story = brain.story(s.id)
            assert story.derivation == "done" and story.steps, (s.id, story.derivation)


@contextmanager
def _sqlite(tmp: Path) -> Iterator[tuple[str, Path]]:
    folder = tmp / "brain"
    yield str(folder), folder


Fresh = Callable[[Path], AbstractContextManager[tuple[str, Path]]]
"""A fresh brain under a folder: its target (a folder or a URL) and its folder."""


def _crash_every_boundary(make: Fresh, tmp_path: Path) -> int:
    """Kill the child at each write boundary in turn; returns how many there were."""
    with make(tmp_path / "full") as (target, folder):
        said = _run(target, folder, 0)
        ticks = int(said["ticks"]) if "ticks" in said else 0
    assert ticks >= 8  # the note's and the file's writes, each before and after
    for n in range(1, ticks + 1):
        with make(tmp_path / f"k{n}") as (target, folder):
            said = _run(target, folder, n)
            assert "base" in said, n
            settings = Settings(brain=folder, root=folder.parent)
            brain = Brain.open(target, embedder=HashEmbedder(), settings=settings)
            try:
                _check(brain, said)
            finally:
                brain.close()
    return ticks


@pytest.mark.slow
def test_kill_between_writes_sqlite(tmp_path: Path) -> None:
    _crash_every_boundary(_sqlite, tmp_path)


@pytest.mark.slow
def test_kill_between_writes_postgres(tmp_path: Path, pg_server: str) -> None:
    @contextmanager
    def fresh(tmp: Path) -> Iterator[tuple[str, Path]]:
        with fresh_schema(pg_server) as url:
            yield url, tmp / "brain"

    _crash_every_boundary(fresh, tmp_path)
