"""The facade's embedding space: what the brain's vectors are, and ``reembed`` (moving
them to another embedder's space; docs/cli.md, ``orgbrain reembed``)."""

from __future__ import annotations

import time
from dataclasses import replace

from ..context import BrainContext
from ..errors import Forbidden, Unavailable
from ..jobs import Worker, worker_name
from ..jobs.reembed import Progress, ReembedJobs, embedder_space, mover_of, request_reembed
from ..ports import Embedder
from ..space import EmbeddingSpace

__all__ = ["SpaceFacade"]


class SpaceFacade:
    """``Brain``'s embedding space (one class of the facade)."""

    _ctx: BrainContext

    def embedding_space(self) -> EmbeddingSpace:
        """The space of the embedder this brain was opened with: the recorded one."""
        return embedder_space(self._ctx.embedder)

    def items_to_reembed(self) -> int:
        """How many items hold vectors a move has still to embed (all of them, before)."""
        return mover_of(self._ctx).count_to_move()

    def reembed(
        self,
        target: Embedder,
        *,
        progress: Progress | None = None,
        step: int = 64,
        lease_s: float = 10.0,
        poll_s: float = 0.5,
    ) -> EmbeddingSpace:
        """Move every vector of this brain (every workspace) into ``target``'s space, in
        this thread, as a durable job, and return the space it is in now. Searches in
        other threads and processes keep answering from the old space until the switch.
        A move cut short (a killed process) goes on from where it was once its lease
        (``lease_s``) runs out. Only the local owner moves a brain; afterwards, open it
        with ``target``."""
        if self._ctx.principal is not None:
            raise Forbidden("only the brain's local owner moves its vectors")
        ctx = replace(self._ctx, principal=None)
        job = request_reembed(ctx, target)
        if job is None or ctx.jobs is None:
            return embedder_space(target)
        worker = Worker(
            ctx,
            [ReembedJobs(target, step=step, progress=progress)],
            name=worker_name("reembed"),
            lease_s=lease_s,
            poll_s=poll_s,
        )
        while True:
            worker.drain()
            now = ctx.jobs.get(job.id)
            if now is None or now.state == "failed":
                raise Unavailable(
                    f"the move failed: {now.last_error if now else 'its job is gone'}"
                )
            if now.state == "done":
                space = mover_of(ctx).embedding_space()
                assert space is not None
                return space
            time.sleep(poll_s)  # a killed move's lease, running out
