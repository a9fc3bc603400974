"""Built eval indexes, kept between runs and keyed by everything that went into them.

Indexing is nearly all embedding (eight minutes for SciFact on two cores), while most
retrieval ideas change only the query side. ``indexed_brain`` builds a brain once into
``<cache>/<key>/`` and reuses it while the key matches. The key hashes the embedder's name
and dimension, the indexing recipe (``indexer.INDEX_RECIPE``), this module's format, and
every note and edge written, so a change to the corpus or to how an eval turns it into
notes is a new key, never a stale index. A build goes to a private folder first and is
renamed into place once complete, so an interrupted build is never reused.

Without a cache folder the brain is built in a temporary directory and deleted after.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..brain import Brain, NoteInput
from ..indexer import INDEX_RECIPE
from ..ports import Embedder
from ..settings import Settings

__all__ = ["CACHE_FORMAT", "Built", "index_key", "indexed_brain"]

CACHE_FORMAT = "1"
_DONE = "index.json"


@dataclass(frozen=True, slots=True)
class Built:
    """How the brain in hand came to be: seconds its build took, and whether it was reused."""

    index_s: float
    cached: bool


def _note_record(note: NoteInput) -> list[object]:
    when = note.occurred_at.isoformat() if note.occurred_at else None
    return [note.body, note.kind, note.label, note.scope, note.source_key, when, note.run_id]


def index_key(
    dataset: str,
    embedder: Embedder,
    notes: Iterable[NoteInput],
    edges: Iterable[tuple[str, str, str]] = (),
) -> str:
    """A hex digest of what an index is built from: dataset kind, embedder, recipe, notes
    and ``(type, src source key, dst source key)`` edges, in order."""
    h = hashlib.sha256()
    head = [CACHE_FORMAT, dataset, embedder.name, embedder.dim, INDEX_RECIPE]
    h.update(json.dumps(head).encode())
    for note in notes:
        h.update(b"\x1enote")
        h.update(json.dumps(_note_record(note), ensure_ascii=False).encode())
    for edge in edges:
        h.update(b"\x1eedge")
        h.update(json.dumps(list(edge)).encode())
    return h.hexdigest()[:32]


def _open(folder: Path, embedder: Embedder) -> Brain:
    """A brain over ``folder`` with the environment's settings (``ORGBRAIN_KEYWORD_ENGINE``
    picks the keyword engine an eval ranks with; the index is the same under either).
    Its searches are not logged: an evaluation is no one's use of the brain."""
    brain = Brain.open(folder, embedder=embedder, settings=Settings.from_env())
    return brain.without_search_log()


def _build(folder: Path, embedder: Embedder, build: Callable[[Brain], None]) -> float:
    t0 = time.perf_counter()
    with _open(folder / "brain", embedder) as brain:
        build(brain)
    return time.perf_counter() - t0


@contextmanager
def indexed_brain(
    cache: Path | None, key: str, embedder: Embedder, build: Callable[[Brain], None]
) -> Iterator[tuple[Brain, Built]]:
    """A brain holding what ``build`` writes: from ``cache`` when built before under ``key``,
    else built now (kept in ``cache``, or in a temporary folder deleted afterwards)."""
    if cache is None:
        with tempfile.TemporaryDirectory(prefix="orgbrain-eval-") as tmp:
            seconds = _build(Path(tmp), embedder, build)
            with _open(Path(tmp) / "brain", embedder) as brain:
                yield brain, Built(seconds, cached=False)
        return
    folder = cache / key
    done = folder / _DONE
    if done.is_file():
        built = Built(float(json.loads(done.read_text())["index_s"]), cached=True)
    else:
        cache.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f"{key}.building-", dir=cache))
        try:
            seconds = _build(scratch, embedder, build)
            record = {"index_s": seconds, "embedder": embedder.name, "built_at": time.time()}
            (scratch / _DONE).write_text(json.dumps(record))
            try:
                os.rename(scratch, folder)
            except OSError:  # another run finished the same key first: use that one
                if not done.is_file():
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        built = Built(seconds, cached=False)
    with _open(folder / "brain", embedder) as brain:
        yield brain, built
