"""``Client``: the Brain's methods over HTTP, each response parsed as its view and turned
back into the model's dataclasses."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import httpx
from pydantic import ValidationError

from ..errors import InvalidInput, NotFound, OrgBrainError, Unavailable
from ..model import (
    Disagreement,
    Edge,
    Forgotten,
    IndexReport,
    Item,
    SearchResult,
    Statement,
    StatementType,
)
from ..ports import Page
from ..stats import LAG_SAMPLE, JobLag, LoopStats
from ..views import (
    ConflictList,
    EdgeList,
    EventView,
    ForgottenView,
    HistoryView,
    IndexAccepted,
    ItemPage,
    ItemView,
    JobLagView,
    LoopStatsView,
    SearchResultView,
    SectionList,
    StatementList,
    StoryView,
    WriteAccepted,
)
from .sse import parse_sse
from .transport import DEFAULT_TIMEOUT, Transport, drop_none, segment
from .writeback import WriteBackMethods

__all__ = ["Client", "IndexState"]


@dataclass(frozen=True, slots=True)
class IndexState:
    """Where a file stands: added, queued, indexing, indexed or failed."""

    id: str
    state: str


class Client(WriteBackMethods):
    """A brain over HTTP, seen through one API key's scopes."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry_wait: float = 0.2,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._t = Transport(
            base_url, api_key, timeout=timeout, retry_wait=retry_wait, transport=transport
        )
        self.base_url = self._t.base_url

    # -- lifecycle ----------------------------------------------------------------------

    def close(self) -> None:
        self._t.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- add ----------------------------------------------------------------------------

    def add_file(
        self,
        source: str | Path | bytes,
        *,
        name: str | None = None,
        kind: str = "file",
        label: str | None = None,
        scope: str | None = None,
        source_key: str | None = None,
        occurred_at: datetime | None = None,
        index: bool = False,
        supersedes: Sequence[str] = (),
        wait: Literal["ack", "derived"] = "ack",
    ) -> Item:
        """Upload a file (a path or bytes with ``name``); ``index=True`` waits for it.

        ``supersedes`` names visible files or notes it replaces. ``wait="derived"`` (with
        ``index``) returns once its sections are derived; like ``Brain.add_file``, it
        raises ``Unavailable`` if that takes too long, though the file is stored."""
        if isinstance(supersedes, str):
            raise InvalidInput("supersedes is a list of item ids")
        if isinstance(source, bytes):
            if name is None:
                raise InvalidInput("a name is needed to add bytes")
            data = source
        else:
            path = Path(source)
            if not path.is_file():
                raise NotFound(f"no such file: {path}")
            data = path.read_bytes()
            name = name or path.name
        fields = {
            "kind": kind,
            "label": label,
            "scope": scope,
            "source_key": source_key,
            "occurred_at": None if occurred_at is None else occurred_at.isoformat(),
        }
        form: dict[str, Any] = {**drop_none(fields), "supersedes": list(supersedes)}
        files = {"file": (name, data)}
        if wait == "derived":
            # The server indexes it (a worker) and waits for its derivation.
            params = {"index": "true", "wait": wait} if index else {"wait": wait}
            return self._written("POST", "/v1/files", files=files, data=form, params=params)
        item = self._written("POST", "/v1/files", files=files, data=form)
        if index and not item.indexed:
            self.index(item.id)
            item = self.get(item.id)
        return item

    def add_note(
        self,
        body: str,
        *,
        kind: str = "note",
        label: str | None = None,
        scope: str | None = None,
        source_key: str | None = None,
        occurred_at: datetime | None = None,
        supersedes: Sequence[str] = (),
        wait: Literal["ack", "derived"] = "ack",
    ) -> Item:
        """Write a note, like ``Brain.add_note``: ``supersedes`` names visible files or
        notes it replaces; ``wait="derived"`` returns once its derivation is done, and
        raises ``Unavailable`` if that takes too long (the note is written)."""
        if isinstance(supersedes, str):
            raise InvalidInput("supersedes is a list of item ids")
        payload = {
            "body": body,
            "kind": kind,
            "label": label,
            "scope": scope,
            "source_key": source_key,
            "occurred_at": None if occurred_at is None else occurred_at.isoformat(),
            "supersedes": list(supersedes) or None,
            "wait": None if wait == "ack" else wait,
        }
        return self._written("POST", "/v1/notes", json=drop_none(payload))

    def _written(self, method: str, path: str, **kwargs: Any) -> Item:
        """A write's item; a 202 (written, derivation not done within the wait) raises
        ``Unavailable`` as ``Brain`` does, its message naming the item."""
        response = self._t.request(method, path, **kwargs)
        try:
            data = response.json()
        except ValueError:
            raise Unavailable(f"{method} {path}: the server sent no JSON") from None
        if response.status_code == 202:
            raise Unavailable(WriteAccepted.model_validate(data).detail)
        return ItemView.model_validate(data).to_model()

    # -- index --------------------------------------------------------------------------

    def queue_index(self, item_id: str) -> IndexState:
        """Ask the server to index a file; returns at once (the work is in the background)."""
        accepted = self._t.view(IndexAccepted, "POST", f"/v1/files/{segment(item_id)}/index")
        return IndexState(accepted.id, accepted.state)

    def index(self, item_id: str, *, timeout: float = 600.0, poll: float = 0.1) -> IndexReport:
        """Index a file and wait for it, like ``Brain.index``: raises on a bad file."""
        self.queue_index(item_id)
        deadline = time.monotonic() + timeout
        wait = poll
        while True:
            view = self._item_view(item_id)
            if view.state == "indexed":
                return IndexReport(item_id, view.label, len(self.sections(item_id)))
            if view.state == "failed":
                raise view.index_failure() or OrgBrainError("indexing failed")
            if time.monotonic() > deadline:
                raise Unavailable(f"{item_id} is still {view.state} after {timeout:g} s")
            time.sleep(wait)
            wait = min(wait * 1.5, 2.0)

    def state(self, item_id: str) -> IndexState:
        view = self._item_view(item_id)
        return IndexState(view.id, view.state)

    # -- read ---------------------------------------------------------------------------

    def get(self, item_id: str) -> Item:
        return self._item_view(item_id).to_model()

    def _item_view(self, item_id: str) -> ItemView:
        return self._t.view(ItemView, "GET", f"/v1/items/{segment(item_id)}")

    def items(
        self,
        *,
        kind: str | None = None,
        storage_class: str | None = None,
        indexed: bool | None = None,
        name: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page:
        params: dict[str, Any] = {
            "kind": kind,
            "class": storage_class,
            "indexed": None if indexed is None else str(indexed).lower(),
            "name": name,
            "limit": limit,
            "cursor": cursor,
        }
        page = self._t.view(ItemPage, "GET", "/v1/items", params=drop_none(params))
        return Page(tuple(i.to_model() for i in page.items), page.next_cursor)

    def sections(self, file_id: str) -> list[Item]:
        found = self._t.view(SectionList, "GET", f"/v1/items/{segment(file_id)}/sections")
        return [s.to_model() for s in found.sections]

    def edges(self, item_id: str) -> list[Edge]:
        found = self._t.view(EdgeList, "GET", f"/v1/items/{segment(item_id)}/edges")
        return [e.to_model() for e in found.edges]

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        plan: str | None = None,
        kind: str | None = None,
        mode: str | None = None,
        as_of: datetime | None = None,
    ) -> SearchResult:
        payload = drop_none(
            {
                "query": query,
                "k": k,
                "plan": plan,
                "kind": kind,
                "mode": mode,
                "as_of": None if as_of is None else as_of.isoformat(),
            }
        )
        return self._t.view(SearchResultView, "POST", "/v1/search", json=payload).to_model()

    def read_file(
        self,
        item_id: str,
        *,
        section: int | str | None = None,
        version: int | None = None,
        chunk_size: int = 1 << 16,
    ) -> Iterator[bytes]:
        """Stream a file's bytes (of one ``version``) or a section's text, like
        ``Brain.read_file``.

        The request is made (and its errors raised) now; the body streams as you iterate.
        """
        params = {} if section is None else {"section": str(section)}
        if version is not None:
            params["version"] = str(version)
        path = f"/v1/items/{segment(item_id)}/content"
        return self._t.stream("GET", path, chunk_size, params=params)

    def read_bytes(
        self,
        item_id: str,
        *,
        section: int | str | None = None,
        byte_range: tuple[int, int] | None = None,
    ) -> bytes:
        """The content at once; ``byte_range=(start, end)`` is half-open, like ByteRange."""
        params = {} if section is None else {"section": str(section)}
        headers = {}
        if byte_range is not None:
            start, end = byte_range
            if start < 0 or end <= start:
                raise InvalidInput(f"bad byte range {start}..{end}")
            headers["Range"] = f"bytes={start}-{end - 1}"
        path = f"/v1/items/{segment(item_id)}/content"
        return self._t.request("GET", path, params=params, headers=headers).content

    def history(self, item_id: str) -> HistoryView:
        """An item's versions and supersession chain (``Brain.history``), as its view: its
        links name the items on either side by id and label."""
        return self._t.view(HistoryView, "GET", f"/v1/items/{segment(item_id)}/history")

    def forget(self, item_id: str, *, reason: str) -> Forgotten:
        """Forget an item (and a file's sections): it leaves every stream and read."""
        return self._forget(item_id, reason, erase=False)

    def erase(self, item_id: str, *, reason: str) -> Forgotten:
        """Forget an item and delete its bytes, text and name; the audit record stays."""
        return self._forget(item_id, reason, erase=True)

    def _forget(self, item_id: str, reason: str, *, erase: bool) -> Forgotten:
        params = {"reason": reason, "erase": "true" if erase else "false"}
        path = f"/v1/items/{segment(item_id)}"
        return self._t.view(ForgottenView, "DELETE", path, params=params).to_model()

    def me(self) -> dict[str, Any]:
        """The key's workspace, principal, permissions and readable scopes."""
        return self._t.json("GET", "/v1/me")

    def stats(self, *, since: datetime | timedelta | None = None) -> LoopStats:
        """The loop, measured, like ``Brain.stats``: since a time, or how long back (None:
        ever), over what this key may see (an admin key: the whole workspace)."""
        found = self._t.view(LoopStatsView, "GET", "/v1/stats", params={"since": _window(since)})
        return found.to_model()

    def job_lag(
        self, *, since: datetime | timedelta | None = None, sample: int = LAG_SAMPLE
    ) -> JobLag:
        """How far background work lags, like ``Brain.job_lag``: per kind, the jobs queued,
        running and failed now, and how long the ``sample`` most recent ones done since
        ``since`` took; over the jobs this key asked for (an admin key: the workspace's)."""
        params = {"since": _window(since), "sample": str(sample)}
        return self._t.view(JobLagView, "GET", "/v1/stats/jobs", params=params).to_model()

    # -- what changed: stories, statements, conflicts, events ------------------------------

    def story(self, item_id: str) -> StoryView:
        """An item's write story (``Brain.story``), as its view: its supersession links
        name the items on either side by id and label."""
        return self._t.view(StoryView, "GET", f"/v1/items/{segment(item_id)}/story")

    def statements(
        self,
        *,
        about: str | None = None,
        item_id: str | None = None,
        types: Sequence[StatementType] | None = None,
        current: bool | None = True,
        limit: int = 200,
    ) -> list[Statement]:
        """Statements about an entity (id or name) or held by an item, like
        ``Brain.statements``: current ones unless ``current`` is False (superseded or
        ended ones) or None (all)."""
        params: dict[str, Any] = {
            "about": about,
            "item_id": item_id,
            "type": list(types) if types else None,
            "current": "all" if current is None else str(current).lower(),
            "limit": limit,
        }
        found = self._t.view(StatementList, "GET", "/v1/statements", params=drop_none(params))
        return [s.to_model() for s in found.statements]

    def conflicts(self, limit: int = 200) -> list[Disagreement]:
        found = self._t.view(ConflictList, "GET", "/v1/conflicts", params={"limit": limit})
        return [c.to_model() for c in found.conflicts]

    def events(
        self,
        after: int = 0,
        *,
        kinds: Sequence[str] | None = None,
        follow: bool = False,
        timeout: float | None = None,
        limit: int | None = None,
    ) -> Iterator[EventView]:
        """Derivation events after sequence number ``after``, oldest first, read from the
        server-sent event stream as they arrive. Without ``follow`` it ends with the
        events there now; with it, when the server closes the stream (``timeout``
        seconds): go on with ``after=`` the last event's ``id``."""
        params: dict[str, Any] = {
            "after": after,
            "kind": list(kinds) if kinds else None,
            "follow": "true" if follow else "false",
            "timeout": timeout,
            "limit": limit,
        }
        chunks = self._t.stream(
            "GET",
            "/v1/events",
            None,
            params=drop_none(params),
            headers={"Accept": "text/event-stream"},
        )
        for sse in parse_sse(chunks):
            try:
                yield EventView.model_validate_json(sse.data)
            except ValidationError as exc:
                raise Unavailable(f"GET /v1/events: an event of unknown shape: {exc}") from None


def _window(since: datetime | timedelta | None) -> str:
    """A window's start as ``GET /v1/stats`` takes it."""
    if since is None:
        return "all"
    if isinstance(since, timedelta):
        return f"{max(1, round(since.total_seconds() / 60))}m"
    return since.isoformat()
