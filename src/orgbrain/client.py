"""``orgbrain.Client``: the HTTP API with the Brain's methods, typed results and errors.

    with Client("http://127.0.0.1:8765", "ob_...") as brain:
        item = brain.add_file("handbook.md")
        brain.index(item.id)
        result = brain.search("who owns billing?")

Results are the model's dataclasses (``Item``, ``Hit``, ``Citation``, ``SearchResult``);
a problem response raises the exception of the tree its ``code`` names. Every call has a
30 s timeout and is retried once on a transient failure (a connection reset, 502, 503,
504); writes are safe to retry because identity is the source key.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, cast

import httpx

from .errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    OrgBrainError,
    TooLarge,
    Unauthenticated,
    Unavailable,
    Unsupported,
)
from .indexer import IndexReport
from .model import (
    ByteRange,
    Canonical,
    Citation,
    Edge,
    Hit,
    Item,
    Locator,
    Origin,
    SearchResult,
)
from .ports import Page

__all__ = ["Client", "IndexState", "error_from_response"]

DEFAULT_TIMEOUT = 30.0
_RETRY_STATUSES = frozenset({502, 503, 504})
_TRANSIENT = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
    httpx.PoolTimeout,
)
_BY_STATUS: tuple[tuple[int, type[OrgBrainError]], ...] = (
    (401, Unauthenticated),
    (403, Forbidden),
    (404, NotFound),
    (409, Conflict),
    (413, TooLarge),
    (415, Unsupported),
)


@dataclass(frozen=True, slots=True)
class IndexState:
    """Where a file stands: added, queued, indexing, indexed or failed."""

    id: str
    state: str


class Client:
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
        self.base_url = base_url.rstrip("/")
        self._retry_wait = retry_wait
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {api_key}", "User-Agent": "orgbrain-client"},
            timeout=timeout,
            transport=transport,
        )

    # -- lifecycle ----------------------------------------------------------------------

    def close(self) -> None:
        self._http.close()

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
    ) -> Item:
        """Upload a file (a path or bytes with ``name``); ``index=True`` waits for it."""
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
        form = {k: v for k, v in fields.items() if v is not None}
        item = _item(self._json("POST", "/v1/files", files={"file": (name, data)}, data=form))
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
    ) -> Item:
        payload = {
            "body": body,
            "kind": kind,
            "label": label,
            "scope": scope,
            "source_key": source_key,
            "occurred_at": None if occurred_at is None else occurred_at.isoformat(),
        }
        return _item(self._json("POST", "/v1/notes", json=_drop_none(payload)))

    # -- index --------------------------------------------------------------------------

    def queue_index(self, item_id: str) -> IndexState:
        """Ask the server to index a file; returns at once (the work is in the background)."""
        data = self._json("POST", f"/v1/files/{_seg(item_id)}/index")
        return IndexState(str(data["id"]), str(data["state"]))

    def index(self, item_id: str, *, timeout: float = 600.0, poll: float = 0.1) -> IndexReport:
        """Index a file and wait for it, like ``Brain.index``: raises on a bad file."""
        self.queue_index(item_id)
        deadline = time.monotonic() + timeout
        wait = poll
        while True:
            data = self._json("GET", f"/v1/items/{_seg(item_id)}")
            state = data.get("state")
            if state == "indexed":
                sections = len(self.sections(item_id))
                return IndexReport(item_id, str(data.get("label", "")), sections)
            if state == "failed":
                raise _index_error(str(data.get("index_error") or "indexing failed"))
            if time.monotonic() > deadline:
                raise Unavailable(f"{item_id} is still {state} after {timeout:g} s")
            time.sleep(wait)
            wait = min(wait * 1.5, 2.0)

    def state(self, item_id: str) -> IndexState:
        data = self._json("GET", f"/v1/items/{_seg(item_id)}")
        return IndexState(str(data["id"]), str(data["state"]))

    # -- read ---------------------------------------------------------------------------

    def get(self, item_id: str) -> Item:
        return _item(self._json("GET", f"/v1/items/{_seg(item_id)}"))

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
        data = self._json("GET", "/v1/items", params=_drop_none(params))
        items = tuple(_item(i) for i in data["items"])
        return Page(items, data.get("next_cursor"))

    def sections(self, file_id: str) -> list[Item]:
        data = self._json("GET", f"/v1/items/{_seg(file_id)}/sections")
        return [_item(s) for s in data["sections"]]

    def edges(self, item_id: str) -> list[Edge]:
        data = self._json("GET", f"/v1/items/{_seg(item_id)}/edges")
        return [_edge(e) for e in data["edges"]]

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        plan: str | None = None,
        kind: str | None = None,
    ) -> SearchResult:
        payload = _drop_none({"query": query, "k": k, "plan": plan, "kind": kind})
        return _search_result(self._json("POST", "/v1/search", json=payload))

    def read_file(
        self, item_id: str, *, section: int | str | None = None, chunk_size: int = 1 << 16
    ) -> Iterator[bytes]:
        """Stream a file's bytes or a section's text, like ``Brain.read_file``.

        The request is made (and its errors raised) now; the body streams as you iterate.
        """
        params = {} if section is None else {"section": str(section)}
        request = self._http.build_request(
            "GET", f"/v1/items/{_seg(item_id)}/content", params=params
        )
        response = self._send(request, stream=True)
        if response.is_error:
            response.read()
            response.close()
            raise error_from_response(response)
        return _stream(response, chunk_size)

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
        response = self._request(
            "GET", f"/v1/items/{_seg(item_id)}/content", params=params, headers=headers
        )
        return response.content

    def me(self) -> dict[str, Any]:
        """The key's workspace, principal, permissions and readable scopes."""
        return self._json("GET", "/v1/me")

    # -- transport ----------------------------------------------------------------------

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        response = self._request(method, path, **kwargs)
        try:
            data = response.json()
        except ValueError:
            raise Unavailable(f"{method} {path}: the server sent no JSON") from None
        if not isinstance(data, dict):
            raise Unavailable(f"{method} {path}: the server sent {type(data).__name__}")
        return data

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        request = self._http.build_request(method, path, **kwargs)
        response = self._send(request, stream=False)
        if response.is_error:
            raise error_from_response(response)
        return response

    def _send(self, request: httpx.Request, *, stream: bool) -> httpx.Response:
        """Send, and once more after a transient failure."""
        request.read()  # bodies here are in memory: held as bytes, they can be sent twice
        try:
            try:
                response = self._http.send(request, stream=stream)
            except _TRANSIENT:
                time.sleep(self._retry_wait)
                return self._http.send(request, stream=stream)
            if response.status_code in _RETRY_STATUSES:
                response.close()
                time.sleep(_retry_after(response, self._retry_wait))
                return self._http.send(request, stream=stream)
            return response
        except httpx.TransportError as exc:
            raise Unavailable(
                f"{request.method} {request.url}: {type(exc).__name__}: {exc}"
            ) from exc


def _retry_after(response: httpx.Response, default: float) -> float:
    value = response.headers.get("Retry-After", "")
    return min(float(value), 5.0) if value.isdigit() else default


def _stream(response: httpx.Response, chunk_size: int) -> Iterator[bytes]:
    try:
        yield from response.iter_bytes(chunk_size)
    finally:
        response.close()


def _seg(value: str) -> str:
    from urllib.parse import quote

    return quote(str(value), safe="")


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


# -- errors -------------------------------------------------------------------------------


def _error_class(code: str | None) -> type[OrgBrainError] | None:
    pending: list[type[OrgBrainError]] = [OrgBrainError]
    while pending:
        cls = pending.pop()
        if code is not None and cls.code == code:
            return cls
        pending += cls.__subclasses__()
    return None


def error_from_response(response: httpx.Response) -> OrgBrainError:
    """The exception a problem response stands for: by its ``code``, else by status."""
    code: str | None = None
    detail = response.reason_phrase or f"HTTP {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        code = body.get("code") if isinstance(body.get("code"), str) else None
        if isinstance(body.get("detail"), str):
            detail = body["detail"]
    cls = _error_class(code)
    if cls is None or cls is OrgBrainError:
        cls = next((c for s, c in _BY_STATUS if s == response.status_code), None)
        if cls is None:
            cls = Unavailable if response.status_code >= 500 else InvalidInput
    return cls(detail)


def _index_error(recorded: str) -> OrgBrainError:
    code, sep, message = recorded.partition(": ")
    cls = _error_class(code) if sep else None
    return (cls or OrgBrainError)(message if cls else recorded)


# -- JSON back to the model ---------------------------------------------------------------


def _dt(value: object) -> datetime | None:
    return None if value is None else datetime.fromisoformat(str(value))


def _origin(d: Mapping[str, Any]) -> Origin:
    at = _dt(d["at"])
    assert at is not None
    return Origin(str(d["actor"]), str(d["source"]), at, d.get("run_id"))


def _range(d: Mapping[str, Any] | None) -> ByteRange | None:
    return None if d is None else ByteRange(int(d["start"]), int(d["end"]))


def _locator(d: Mapping[str, Any] | None) -> Locator:
    if d is None:
        return Locator()
    return Locator(
        d.get("page_start"), d.get("page_end"), d.get("sheet"), tuple(d.get("heading_path", ()))
    )


def _item(d: Mapping[str, Any]) -> Item:
    canonical = d.get("canonical")
    return Item(
        id=d["id"],
        workspace=d["workspace"],
        kind=d["kind"],
        storage_class=d["storage_class"],
        label=d["label"],
        body=d["body"],
        source_key=d["source_key"],
        indexed=bool(d["indexed"]),
        scope=d["scope"],
        origin=_origin(d["origin"]),
        summary=d.get("summary", ""),
        blob_key=d.get("blob_key"),
        text_key=d.get("text_key"),
        byte_range=_range(d.get("byte_range")),
        locator=_locator(d.get("locator")),
        canonical=None if canonical is None else Canonical(canonical["type"], canonical["value"]),
        occurred_at=_dt(d.get("occurred_at")),
        parent_id=d.get("parent_id"),
        ordinal=d.get("ordinal"),
        name=d.get("name"),
        media_type=d.get("media_type"),
        size=d.get("size"),
        content_hash=d.get("content_hash"),
        index_error=d.get("index_error"),
        supersedes=d.get("supersedes"),
        superseded_by=d.get("superseded_by"),
        tombstoned_at=_dt(d.get("tombstoned_at")),
        created_at=_dt(d.get("created_at")),
        updated_at=_dt(d.get("updated_at")),
    )


def _citation(d: Mapping[str, Any]) -> Citation:
    return Citation(
        item_id=d["item_id"],
        file_id=d.get("file_id"),
        label=d["label"],
        blob_key=d.get("blob_key"),
        text_key=d.get("text_key"),
        byte_range=_range(d.get("byte_range")),
        locator=_locator(d.get("locator")),
    )


def _edge(d: Mapping[str, Any]) -> Edge:
    return Edge(
        id=d["id"],
        workspace=d["workspace"],
        type=d["type"],
        src=d["src"],
        dst=d["dst"],
        origin=_origin(d["origin"]),
        props=dict(d.get("props") or {}),
    )


def _search_result(d: Mapping[str, Any]) -> SearchResult:
    hits = tuple(
        Hit(
            item=_item(h["item"]),
            score=float(h["score"]),
            fused=float(h["fused"]),
            citation=_citation(h["citation"]),
            ranks={str(k): int(v) for k, v in h.get("ranks", {}).items()},
        )
        for h in d["hits"]
    )
    return SearchResult(
        query=d["query"],
        hits=hits,
        verdict=cast(Any, d["verdict"]),
        reason=d["reason"],
        top_score=float(d["top_score"]),
        plan=d["plan"],
        timings_ms={str(k): float(v) for k, v in d.get("timings_ms", {}).items()},
    )
