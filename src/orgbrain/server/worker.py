"""The server's index worker: ``POST /v1/files/{id}/index`` queues, a thread indexes.

Durable restart rule: a request is appended to the workspace's event log (fsynced) before
it is queued and acknowledged. On startup ``recover`` reads those logs and queues again
every requested file that is still unindexed and unchanged since it was asked for; a file
indexed, failed or re-added since then is done with. Indexing the same bytes twice changes
nothing, so a request that was running when the process died is simply run again.

An item's state is ``queued`` or ``indexing`` while the worker holds it, else it follows
from the item: ``indexed``, ``failed`` (an index error is recorded) or ``added``.

Requests that have piled up are indexed together: a thread takes what is queued (at most
``BATCH_FILES``) and hands each principal's files to ``Brain.index_pending``, which embeds
their texts in shared batches and commits each file on its own.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ..brain import Brain
from ..errors import NotFound
from ..model import Item
from ..scopes import Principal
from .schemas import IndexState

__all__ = ["INDEX_REQUEST_EVENT", "IndexWorker", "index_state"]

INDEX_REQUEST_EVENT = "index_request"
RECOVER_SCAN = 10_000
BATCH_FILES = 32
log = logging.getLogger("orgbrain.worker")


def index_state(item: Item, live: IndexState | None = None) -> IndexState:
    if live is not None:
        return live
    if item.indexed:
        return "indexed"
    if item.storage_class == "file" and item.index_error:
        return "failed"
    return "added"


@dataclass(frozen=True, slots=True)
class _Job:
    principal: Principal
    item_id: str


_STOP = object()


class IndexWorker:
    """``threads`` indexing threads over one in-memory queue, fed from durable requests."""

    def __init__(self, brain: Brain, *, threads: int = 1) -> None:
        self._brain = brain
        self._threads_wanted = max(1, threads)
        self._queue: queue.Queue[object] = queue.Queue()
        self._live: dict[tuple[str, str], IndexState] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._threads: list[threading.Thread] = []

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        for n in range(self._threads_wanted - len(self._threads)):
            t = threading.Thread(target=self._run, name=f"orgbrain-index-{n}", daemon=True)
            t.start()
            self._threads.append(t)

    @property
    def alive(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the file in hand and stop; queued requests stay in the log for next time."""
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        for _ in self._threads:
            self._queue.put(_STOP)
        for t in self._threads:
            t.join(timeout)
        self._threads.clear()
        with self._lock:
            self._live.clear()
            self._idle.notify_all()

    # -- requests -----------------------------------------------------------------------

    def submit(self, principal: Principal, item_id: str) -> IndexState:
        """Record the request durably, then queue it; a file already queued stays put."""
        key = (principal.workspace, item_id)
        with self._lock:
            if self._live.get(key) == "queued":
                return "queued"
        self._brain.for_workspace(principal.workspace).log_event(
            INDEX_REQUEST_EVENT,
            {
                "item_id": item_id,
                "actor": f"{'agent' if principal.agent else 'human'}:{principal.user_id}",
                "user_id": principal.user_id,
                "team_ids": sorted(principal.team_ids),
                "agent": principal.agent,
            },
        )
        self._enqueue(_Job(principal, item_id))
        return "queued"

    def state(self, workspace: str, item_id: str) -> IndexState | None:
        with self._lock:
            return self._live.get((workspace, item_id))

    def recover(self, workspaces: Iterable[str]) -> int:
        """Queue again the requests a previous process acknowledged but did not finish."""
        queued = 0
        for ws in workspaces:
            owner = self._brain.for_workspace(ws)
            seen: set[str] = set()
            for event in owner.events(INDEX_REQUEST_EVENT, limit=RECOVER_SCAN):
                item_id = str(event.get("item_id", ""))
                if not item_id or item_id in seen:
                    continue
                seen.add(item_id)  # newest request first: that one decides
                item = owner.get_many([item_id]).get(item_id)
                if item is None or item.storage_class != "file" or item.indexed:
                    continue
                asked = datetime.fromisoformat(str(event["at"]))
                if item.updated_at is not None and item.updated_at > asked:
                    continue  # failed, or re-added with new bytes, after the request
                principal = Principal(
                    ws,
                    str(event.get("user_id", "")),
                    frozenset(str(t) for t in _as_list(event.get("team_ids"))),
                    bool(event.get("agent", False)),
                )
                self._enqueue(_Job(principal, item_id))
                queued += 1
        if queued:
            log.info("re-queued %d unfinished index requests", queued)
        return queued

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until nothing is queued or indexing (for tests and orderly shutdown)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._live, timeout)

    # -- the thread ---------------------------------------------------------------------

    def _enqueue(self, job: _Job) -> None:
        key = (job.principal.workspace, job.item_id)
        with self._lock:
            if self._live.get(key) == "queued":
                return
            self._live[key] = "queued"
        self._queue.put(job)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            jobs = [first]
            stopping = False
            while len(jobs) < BATCH_FILES:  # whatever else is waiting goes with it
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:  # this thread's stop: finish the batch, then go
                    stopping = True
                    break
                jobs.append(more)
            groups: dict[Principal, list[str]] = {}
            for job in jobs:
                assert isinstance(job, _Job)
                groups.setdefault(job.principal, []).append(job.item_id)
            for principal, item_ids in groups.items():
                self._index(principal, item_ids)
            if stopping:
                return

    def _index(self, principal: Principal, item_ids: list[str]) -> None:
        ws = principal.workspace
        keys = [(ws, i) for i in dict.fromkeys(item_ids)]
        with self._lock:
            for key in keys:
                self._live[key] = "indexing"
        try:
            self._index_files(principal, [i for _, i in keys])
        finally:
            with self._lock:
                for key in keys:
                    if self._live.get(key) == "indexing":
                        del self._live[key]
                self._idle.notify_all()

    def _index_files(self, principal: Principal, item_ids: list[str]) -> None:
        ws = principal.workspace
        try:
            reports = self._brain.for_principal(principal).index_pending(item_ids)
        except Exception as exc:  # the worker outlives any batch
            log.exception("indexing %d files in %s crashed", len(item_ids), ws)
            for item_id in item_ids:
                self._record_failure(ws, item_id, f"internal: {type(exc).__name__}: {exc}")
            return
        for report in reports:
            if report.ok:
                log.info("indexed %s in %s: %d sections", report.item_id, ws, report.sections)
            elif report.error_code == NotFound.code:
                log.warning("index request for %s in %s: no such file any more", report.item_id, ws)
            else:
                log.warning("indexing %s in %s failed: %s", report.item_id, ws, report.error)
                self._record_failure(ws, report.item_id, f"{report.error_code}: {report.error}")

    def _record_failure(self, workspace: str, item_id: str, error: str) -> None:
        try:
            self._brain.for_workspace(workspace).set_index_error(item_id, error[:2000])
        except Exception:
            log.exception("could not record the index error of %s", item_id)


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []
