"""A server's long-lived objects kept out of the garbage collector's way.

Once ``orgbrain serve`` has started (the brain open, its modules imported, the workers
running), everything alive is there for the life of the process. CPython's full
collection walks every tracked object each time, and a request that allocates a few
thousand objects (a page's plots, a thousand job timings) sets one off every few requests:
at 100k sections that walk took 70 to 140 ms on a busy core, the tail of every page's time.
``gc.freeze()`` moves what is alive at startup into a generation no collection walks, so
a full collection walks only what came after (docs/ui.md, "Speed").
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

__all__ = ["settled_heap"]


@asynccontextmanager
async def settled_heap(_app: FastAPI) -> AsyncIterator[None]:
    """A lifespan (``create_app(lifespans=...)``, last): collect once, then freeze what is
    alive; unfreeze at shutdown."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
