"""Moving a brain to another embedding space (``orgbrain reembed``), as a durable job.

Every item that holds vectors (files, sections, notes, entities, anything embedded) is
embedded again by the target embedder, in steps, and its new vectors written beside the
old ones (the store's ``SpaceMover`` part), while searches keep answering from the old
space. When none is behind, the store switches every vector and the recorded space in
one transaction. Progress is the store's, not the job's: a move killed midway starts
again where it was, and an item written meanwhile (in the old space) is embedded again.

The job runs in the process that has the target embedder (``ReembedJobs`` is not one of
``default_handlers``): a server's workers, holding the old one, leave it alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from ..context import BrainContext
from ..errors import Unsupported
from ..indexer import embed_texts
from ..model import Item
from ..ports import Embedder, Job, PrefixedEmbedder, Vector
from ..space import EmbeddingSpace, space_of
from .worker import Outcome, Settle

__all__ = [
    "REEMBED_KIND",
    "ReembedJobs",
    "SpaceMover",
    "embedder_space",
    "mover_of",
    "reembed_texts",
    "request_reembed",
]

REEMBED_KIND = "reembed"

Progress = Callable[[int], None]
"""Hears how many items were embedded in the new space by the last step."""


@runtime_checkable
class SpaceMover(Protocol):
    """What a store offers to move its vectors to another space (SQLite's does)."""

    def embedding_space(self) -> EmbeddingSpace | None: ...

    def move_target(self) -> EmbeddingSpace | None: ...

    def begin_move(self, target: EmbeddingSpace) -> None: ...

    def items_to_move(self, after: int, limit: int) -> list[tuple[int, int, int, Item]]: ...

    def count_to_move(self) -> int: ...

    def put_moved(self, moved: Sequence[tuple[int, int, Vector]]) -> None: ...

    def finish_move(self) -> bool: ...


def embedder_space(embedder: Embedder) -> EmbeddingSpace:
    prefixes = embedder.prefixes if isinstance(embedder, PrefixedEmbedder) else ("", "")
    return space_of(embedder.name, embedder.dim, prefixes)


def mover_of(ctx: BrainContext) -> SpaceMover:
    if not isinstance(ctx.store, SpaceMover):
        raise Unsupported(
            "reembed moves embedded (SQLite) brains only; for a PostgreSQL brain, copy it "
            "into a new one opened with the other embedder (orgbrain migrate)"
        )
    return ctx.store


def request_reembed(ctx: BrainContext, target: Embedder) -> Job | None:
    """Queue the move to ``target``'s space (durable when this returns); None when the
    brain is in that space already. Asking again for a move underway gives its job."""
    mover = mover_of(ctx)
    space = embedder_space(target)
    if mover.embedding_space() == space and mover.move_target() is None:
        return None
    if ctx.jobs is None:
        raise Unsupported("this brain has no job queue")
    mover.begin_move(space)
    # Keyed by the target and the move's start: moving to a space again later is new work.
    return ctx.jobs.enqueue(
        ctx.workspace,
        REEMBED_KIND,
        f"reembed:{space.to_json()}",
        {"space": space.to_json()},
        actor=ctx.actor,
        max_attempts=1000,  # progress is kept: an interrupted move is never given up on
    )


def reembed_texts(item: Item) -> tuple[str, bool]:
    """The text an item's vectors were made from (``indexer``, ``writes``,
    ``graph.links``), and whether it keeps only its own (mean) vector."""
    if item.storage_class == "section":
        head = item.label
        if not item.locator.heading_path and item.ordinal is not None:
            head = head.removesuffix(f" §{item.ordinal + 1}")  # the label's, not the text's
        return f"{head}\n{item.body}", False
    if item.storage_class == "entity":
        return item.body, True
    return f"{item.label}\n{item.body}", item.storage_class == "file"


class ReembedJobs:
    """Runs reembed jobs with ``target``, ``step`` items at a time."""

    kind = REEMBED_KIND
    batch = 1

    def __init__(self, target: Embedder, *, step: int = 64, progress: Progress | None = None):
        self.target = target
        self.step = step
        self.progress = progress

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        mover = mover_of(ctx)
        space = embedder_space(self.target)
        for job in jobs:
            if job.payload.get("space") != space.to_json() or mover.move_target() != space:
                settle(
                    Outcome(job.id, f"this worker embeds into {space.describe()}, not the move's")
                )
                continue
            while not self.move_once(mover):
                pass
            settle(Outcome(job.id))

    def move_once(self, mover: SpaceMover) -> bool:
        """One pass over what is behind; True once the brain is in the new space."""
        after = 0
        while batch := mover.items_to_move(after, self.step):
            self.embed_step(mover, batch)
            after = batch[-1][0]
        return mover.finish_move()

    def embed_step(self, mover: SpaceMover, batch: list[tuple[int, int, int, Item]]) -> None:
        texts = [reembed_texts(item) for _, _, _, item in batch]
        vectors = embed_texts(self.target, [t for t, _ in texts])
        moved: list[tuple[int, int, Vector]] = []
        for (rowid, seq, _, _), (_, own_only), v in zip(batch, texts, vectors, strict=True):
            moved.append((rowid, seq, v[:1] if own_only else v))
        mover.put_moved(moved)
        if self.progress is not None:
            self.progress(len(batch))
