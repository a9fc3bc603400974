"""The deadline of the request being served, if any, for adapters that can bound their
work by it (the PostgreSQL store bounds each transaction by what is left).

A transport sets it around a request (``within``); everything the request runs, in its
task or in a worker thread it hands work to, sees it through a context variable. Outside
a request there is none and adapters fall back to their own timeouts.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["remaining", "within"]

_DEADLINE: ContextVar[float | None] = ContextVar("orgbrain_deadline", default=None)


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Run the block under a deadline ``seconds`` from now (None or <= 0: none); a tighter
    deadline already in force stays."""
    if seconds is None or seconds <= 0:
        yield
        return
    at = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(at if outer is None else min(outer, at))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current deadline (negative once past), or None outside one."""
    at = _DEADLINE.get()
    return None if at is None else at - time.monotonic()
