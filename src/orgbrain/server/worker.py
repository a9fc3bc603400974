"""The server's index worker: ``POST /v1/files/{id}/index`` queues, a thread indexes.

Durable restart rule: a request is appended to the workspace's event log (fsynced) before
it is queued and acknowledged. On startup ``recover`` reads those logs and queues again
every requested file that is still unindexed and unchanged since it was asked for; a file
indexed, failed or re-added since then is done with. Indexing the same bytes twice changes
nothing, so a request that was running when the process died is simply run again.

An item's state is ``queued`` or ``indexing`` while the worker holds it, else it follows
from the item: ``indexed``, ``failed`` (an index error is recorded) or ``added``.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ..brain import Brain
from ..errors import NotFound, OrgBrainError
from ..model import Item
from ..scopes import Principal, Visibility
from .schemas import IndexState

__all__ = ["INDEX_REQUEST_EVENT", "IndexWorker", "index_state"]

INDEX_REQUEST_EVENT = "index_request"
RECOVER_SCAN = 10_000
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
        self._brain.store.log_event(
            principal.workspace,
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
        store = self._brain.store
        queued = 0
        for ws in workspaces:
            seen: set[str] = set()
            for event in store.events(ws, INDEX_REQUEST_EVENT, limit=RECOVER_SCAN):
                item_id = str(event.get("item_id", ""))
                if not item_id or item_id in seen:
                    continue
                seen.add(item_id)  # newest request first: that one decides
                item = store.get_item(ws, item_id, Visibility.everything())
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
            job = self._queue.get()
            if job is _STOP:
                return
            assert isinstance(job, _Job)
            key = (job.principal.workspace, job.item_id)
            with self._lock:
                self._live[key] = "indexing"
            try:
                self._index(job)
            finally:
                with self._lock:
                    if self._live.get(key) == "indexing":
                        del self._live[key]
                    self._idle.notify_all()

    def _index(self, job: _Job) -> None:
        brain = self._brain.for_principal(job.principal)
        ws = job.principal.workspace
        try:
            report = brain.index(job.item_id)
            log.info("indexed %s in %s: %d sections", job.item_id, ws, report.sections)
        except NotFound:
            log.warning("index request for %s in %s: no such file any more", job.item_id, ws)
        except OrgBrainError as exc:
            log.warning("indexing %s in %s failed: %s", job.item_id, ws, exc.message)
            self._record_failure(ws, job.item_id, f"{exc.code}: {exc.message}")
        except Exception as exc:  # the worker outlives any one file
            log.exception("indexing %s in %s crashed", job.item_id, ws)
            self._record_failure(ws, job.item_id, f"internal: {type(exc).__name__}: {exc}")

    def _record_failure(self, workspace: str, item_id: str, error: str) -> None:
        try:
            self._brain.store.set_index_error(workspace, item_id, error[:2000])
        except Exception:
            log.exception("could not record the index error of %s", item_id)


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []
