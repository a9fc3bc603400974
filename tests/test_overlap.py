"""The query embedding on the offload worker (retrieve/overlap.py): a search that overlaps
it with the keyword streams returns exactly what the serial one does, on SQLite and on
PostgreSQL, its store is only used from the calling thread, and an embedding that fails
fails the search with the same error."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from orgbrain import Brain, Settings, deadline
from orgbrain.context import BrainContext
from orgbrain.errors import Unavailable
from orgbrain.model import SearchResult, utcnow
from orgbrain.ports import Embedder, Store, Vector
from orgbrain.retrieve import get_plan
from orgbrain.retrieve.overlap import Offload
from orgbrain.retrieve.search import Searcher, Trace

NOTES = [
    "Priya Raman owns the billing service; it charges cards through Stripe.",
    "Refunds over 500 EUR need approval from finance.",
    "Deploys freeze on Fridays after 15:00, decided at the March offsite.",
    "Mei Chen owns search; the listings index is rebuilt nightly at 02:00.",
    "We moved CI from Jenkins to GitHub Actions in 2025.",
    "The on-call rotation changes every Monday at 09:00 UTC.",
    "ACME-1247: the payment webhook retries three times, then pages on-call.",
]
QUERIES = [
    "Who owns billing?",
    "who approves large refunds",
    "when do deploys freeze?",
    "what happened with CI last year",
    "ACME-1247",
    "tell me about Mei Chen",
    "what changed two weeks ago?",
    "nothing like this was ever written down",
]


def _ctx(brain: Brain) -> BrainContext:
    """The brain's context on a stopped clock: freshness reads the time, and two searches
    a few ms apart must score alike."""
    now = utcnow()
    ctx: BrainContext = brain._ctx
    return replace(ctx, clock=lambda: now)


def _search(searcher: Searcher, query: str) -> tuple[SearchResult, Trace]:
    result, trace = searcher.search_traced(query, get_plan("tuned-z"), k=5)
    return replace(result, timings_ms={}), trace


def _same_searches(ctx: BrainContext) -> None:
    serial = Searcher(ctx, Offload(enabled=False))
    overlapped = Searcher(ctx, Offload(enabled=True))
    for query in QUERIES:
        assert _search(overlapped, query) == _search(serial, query), query
    result = overlapped.search("Who owns billing?", get_plan("tuned-z"))
    assert result.hits and "Priya" in result.hits[0].item.body
    assert {"embed", "embed_wait"} <= set(result.timings_ms)
    assert "embed_wait" not in serial.search("Who owns billing?", get_plan("tuned-z")).timings_ms


@pytest.fixture
def noted(brain: Brain) -> Brain:
    for body in NOTES:
        brain.add_note(body)
    return brain


def test_an_overlapped_search_returns_what_the_serial_one_does(noted: Brain) -> None:
    _same_searches(_ctx(noted))


def test_an_overlapped_search_on_postgres_returns_what_the_serial_one_does(
    pg_url: str, tmp_path: Path, embedder: Embedder
) -> None:
    settings = Settings(brain=tmp_path / "blobs-here")
    with Brain.open(pg_url, embedder=embedder, settings=settings) as brain:
        for body in NOTES:
            brain.add_note(body)
        ctx = _ctx(brain)
        _same_searches(ctx)
        watched = _ThreadsSeen(ctx.store)
        Searcher(replace(ctx, store=watched), Offload(enabled=True)).search(
            "Who owns billing?", get_plan("tuned-z")
        )
        assert watched.threads == {threading.get_ident()}


class _ThreadsSeen:
    """A store that is another store, noting which threads call it."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.threads: set[int] = set()

    def __getattr__(self, name: str) -> Any:
        self.threads.add(threading.get_ident())
        return getattr(self._store, name)


class _Failing:
    """An embedder whose every call fails with ``error``, after noting its thread."""

    name = "failing"
    dim = 384

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.threads: list[int] = []

    def embed(self, texts: Sequence[str]) -> Vector:
        self.threads.append(threading.get_ident())
        raise self.error


def test_an_embedding_that_fails_on_the_worker_fails_the_search_with_its_error(
    noted: Brain,
) -> None:
    error = Unavailable("the embedding service is down")
    failing = _Failing(error)
    ctx = replace(_ctx(noted), embedder=failing)
    for enabled in (True, False):
        with pytest.raises(Unavailable) as raised:
            Searcher(ctx, Offload(enabled=enabled)).search("Who owns billing?", get_plan("tuned-z"))
        assert raised.value is error
    worker, caller = failing.threads
    assert worker != threading.get_ident() and caller == threading.get_ident()


def test_the_embedding_error_wins_over_a_keyword_stream_error(noted: Brain) -> None:
    """The serial order embeds before the keyword streams: its error is the one seen."""
    error = Unavailable("the embedding service is down")
    ctx = _ctx(noted)
    broken = replace(ctx, embedder=_Failing(error), store=_NoKeywords(ctx.store))
    with pytest.raises(Unavailable) as raised:
        Searcher(broken, Offload(enabled=True)).search("Who owns billing?", get_plan("tuned-z"))
    assert raised.value is error
    with pytest.raises(RuntimeError, match="keyword index"):
        Searcher(replace(ctx, store=_NoKeywords(ctx.store)), Offload(enabled=True)).search(
            "Who owns billing?", get_plan("tuned-z")
        )


class _NoKeywords:
    """A store that is another store whose keyword index of notes is gone (the graph's
    look-up of entities still works: it runs before the embedding in the serial order)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def keyword_search(self, workspace: str, storage_class: str, *args: Any) -> Any:
        if storage_class == "note":
            raise RuntimeError("the keyword index is gone")
        return self._store.keyword_search(workspace, storage_class, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


# -- the worker itself --------------------------------------------------------------------


def test_a_disabled_offload_runs_the_work_on_the_caller_when_asked() -> None:
    ran: list[int] = []

    def work() -> int:
        ran.append(threading.get_ident())
        return 7

    pending = Offload(enabled=False).start(work)
    assert not pending.offloaded and ran == []
    assert pending.result() == 7 and pending.result() == 7
    assert ran == [threading.get_ident()]


def test_the_worker_is_lent_to_one_call_at_a_time_and_never_queues() -> None:
    offload = Offload(enabled=True)
    release = threading.Event()
    first = offload.start(lambda: release.wait(10) and threading.get_ident())
    second = offload.start(threading.get_ident)  # the worker is busy: the caller runs it
    assert first.offloaded and not second.offloaded
    assert second.result() == threading.get_ident()
    release.set()
    worker = first.result()
    assert worker not in (False, threading.get_ident())
    third = offload.start(threading.get_ident)  # free again, and the same thread
    assert third.offloaded and third.result() == worker


def test_an_error_on_the_worker_is_raised_by_result_and_frees_the_worker() -> None:
    offload = Offload(enabled=True)
    error = ValueError("boom")

    def fail() -> None:
        raise error

    pending = offload.start(fail)
    with pytest.raises(ValueError) as raised:
        pending.result()
    assert raised.value is error
    assert offload.start(lambda: 1).offloaded


def test_the_worker_runs_in_the_callers_context() -> None:
    """A request's deadline is a context variable: the worker must see the caller's."""
    offload = Offload(enabled=True)
    with deadline.within(30):
        pending = offload.start(deadline.remaining)
        assert pending.offloaded
        left = pending.result()
    assert left is not None and 0 < left <= 30
    assert offload.start(deadline.remaining).result() is None
