"""One workspace's slow job never holds another's: the server's workers claim one
workspace's jobs at a time, and a busy workspace waits behind an idle one."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from orgbrain import Brain
from orgbrain.ports import Vector
from orgbrain.server.auth import ServerConfig
from orgbrain.server.worker import WorkerPool
from tests.toy import HashEmbedder

SLOW_S = 8.0


class SlowOnMarker(HashEmbedder):
    """The toy embedder, but a text holding ``GLACIAL`` takes ``SLOW_S`` to embed: a file
    whose indexing holds its worker (a huge file, a hostile one, a slow remote model)."""

    def __init__(self) -> None:
        super().__init__()
        self.slow_started = threading.Event()

    def embed(self, texts: Sequence[str]) -> Vector:
        if any("GLACIAL" in t for t in texts):
            self.slow_started.set()
            time.sleep(SLOW_S)
        return super().embed(texts)


def test_a_slow_job_in_one_workspace_does_not_delay_another(tmp_path: Path) -> None:
    embedder = SlowOnMarker()
    with Brain.open(tmp_path / "b", embedder=embedder) as brain:
        a, b = brain.for_workspace("a"), brain.for_workspace("b")
        slow = a.add_file(b"# Notes\n\nGLACIAL prose about billing.\n", name="slow.md")
        fast = b.add_file(b"# Owners\n\nMei owns search.\n", name="fast.md")
        a.request_index(slow.id)  # queued first: the oldest job in the queue
        b.request_index(fast.id)
        pool = WorkerPool(brain, threads=ServerConfig().index_threads, poll_s=0.05)
        pool.start()
        try:
            started = time.monotonic()
            while not b.get(fast.id).indexed:
                assert time.monotonic() - started < SLOW_S / 2, "b waited behind a"
                time.sleep(0.05)
            assert embedder.slow_started.is_set() and not a.get(slow.id).indexed
        finally:
            pool.stop(60)
        assert a.get(slow.id).indexed  # and the slow one finished in its own time
