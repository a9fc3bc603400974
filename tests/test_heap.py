"""``orgbrain serve`` freezes what is alive once it has started (``server.heap``), so a
full collection walks only what requests made, and unfreezes it when it stops."""

from __future__ import annotations

import gc
from pathlib import Path

from starlette.testclient import TestClient

from orgbrain import Brain
from orgbrain.adapters.sqlite.keys import SQLiteKeyStore
from orgbrain.server import create_app
from orgbrain.server.heap import settled_heap
from tests.toy import HashEmbedder


def test_a_served_app_freezes_its_startup_heap_and_thaws_it_at_shutdown(
    tmp_path: Path,
) -> None:
    with Brain.open(tmp_path / "brain", embedder=HashEmbedder()) as brain:
        keys = SQLiteKeyStore.for_brain(tmp_path / "brain")
        try:
            app = create_app(brain, keys, lifespans=[settled_heap])
            assert gc.get_freeze_count() == 0
            with TestClient(app) as c:
                frozen = gc.get_freeze_count()
                assert frozen > 10_000  # the modules, the brain, the app
                assert c.get("/healthz").status_code == 200
                made = [[n] for n in range(5000)]  # what comes after is not frozen
                gc.collect()
                assert gc.get_freeze_count() <= frozen and len(made) == 5000
            assert gc.get_freeze_count() == 0
        finally:
            keys.close()
