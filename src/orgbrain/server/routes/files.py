"""``POST /v1/files`` (add: store the bytes, unindexed) and ``POST /v1/files/{id}/index``
(queue a durable index job; ``?index=true`` on the upload does both).

The upload is parsed as it streams in and never touches the disk before the Brain's blob
store has it: a Content-Length over the cap is refused before reading, and reading stops
at the first byte over the cap, so an oversize upload leaves nothing behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from ...errors import TooLarge, Unsupported
from ..auth import Writer, context_of
from ..problems import InvalidRequest, problem_responses
from ..schemas import IndexAccepted, ItemOut, utc_datetime
from .items import ACCEPTED, ItemId, WaitParam, written

__all__ = ["FORM_FIELDS", "FORM_OVERHEAD", "LIST_FIELDS", "read_upload", "router"]

router = APIRouter(prefix="/v1", tags=["files"])

FORM_FIELDS = ("scope", "kind", "label", "source_key", "name", "occurred_at")
LIST_FIELDS = ("supersedes",)
"""Form fields that may come more than once (one value per part)."""
MAX_LIST_VALUES = 20
# Room for the multipart framing and the small fields around a file of exactly the cap.
FORM_OVERHEAD = 64 * 1024
_FIELD_BYTES = 8 * 1024

_UPLOAD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["file"],
    "properties": {
        "file": {
            "type": "string",
            "format": "binary",
            "description": "md, txt, rst, csv, json, html, pdf, docx, xlsx, pptx",
        },
        "scope": {"type": "string", "description": "org (default), team:<id> or user:<id>"},
        "kind": {"type": "string", "description": "Free-text kind (default file)"},
        "label": {"type": "string"},
        "source_key": {"type": "string", "description": "Identity (default file:<name>)"},
        "name": {"type": "string", "description": "File name (default: the part's filename)"},
        "occurred_at": {"type": "string", "format": "date-time"},
        "supersedes": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 200},
            "maxItems": MAX_LIST_VALUES,
            "description": "Ids of visible files or notes this file replaces (one part "
            "each): each in this file's scope, or this file is org",
        },
    },
}


@dataclass
class Upload:
    data: bytes
    filename: str | None
    fields: dict[str, str] = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class _Part:
    name: str = ""
    filename: str | None = None
    disposition: bytes = b""
    header_field: bytes = b""
    header_value: bytes = b""
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0


class _FormReader:
    """Callbacks for python-multipart's streaming parser, with the caps applied as bytes
    arrive."""

    def __init__(self, cap: int, extra: tuple[str, ...] = ()) -> None:
        self.cap = cap
        self.extra = extra
        self.part = _Part()
        self.file: _Part | None = None
        self.fields: dict[str, str] = {}
        self.lists: dict[str, list[str]] = {}

    def on_part_begin(self) -> None:
        self.part = _Part()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.part.header_field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.part.header_value += data[start:end]

    def on_header_end(self) -> None:
        if self.part.header_field.strip().lower() == b"content-disposition":
            self.part.disposition = self.part.header_value
        self.part.header_field = self.part.header_value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self.part.disposition)
        if b"name" not in options:
            raise InvalidRequest("a form part has no name in its Content-Disposition")
        self.part.name = options[b"name"].decode("utf-8", "replace")
        if b"filename" in options:
            self.part.filename = options[b"filename"].decode("utf-8", "replace")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        part = self.part
        part.size += end - start
        limit = self.cap if part.name == "file" else _FIELD_BYTES
        if part.size > limit:
            what = "the file" if part.name == "file" else f"form field {part.name!r}"
            raise TooLarge(f"{what} is over the cap of {limit} bytes")
        part.chunks.append(data[start:end])

    def on_part_end(self) -> None:
        part = self.part
        if part.name == "file":
            if self.file is not None:
                raise InvalidRequest("send one file per request")
            self.file = part
        elif part.name in FORM_FIELDS or part.name in LIST_FIELDS or part.name in self.extra:
            try:
                value = b"".join(part.chunks).decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidRequest(f"form field {part.name!r} is not UTF-8") from None
            if part.name in FORM_FIELDS or part.name in self.extra:
                self.fields[part.name] = value
                return
            values = self.lists.setdefault(part.name, [])
            if len(values) >= MAX_LIST_VALUES:
                raise InvalidRequest(
                    f"form field {part.name!r} comes at most {MAX_LIST_VALUES} times"
                )
            values.append(value)
        # Unknown fields are ignored, like unknown query parameters.


async def read_upload(request: Request, cap: int, extra: tuple[str, ...] = ()) -> Upload:
    """The multipart upload as it streams in; ``extra`` names more single-value fields to
    keep (the web UI's form sends its CSRF token and an index box)."""
    ctype, params = parse_options_header(request.headers.get("content-type"))
    if ctype != b"multipart/form-data":
        raise Unsupported("send the file as multipart/form-data with a field named file")
    boundary = params.get(b"boundary")
    if not boundary:
        raise InvalidRequest("the multipart body has no boundary")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap + FORM_OVERHEAD:
        raise TooLarge(f"the upload is {declared} bytes; the cap is {cap} bytes for the file")
    reader = _FormReader(cap, extra)
    try:
        parser = MultipartParser(
            boundary,
            {
                "on_part_begin": reader.on_part_begin,
                "on_part_data": reader.on_part_data,
                "on_part_end": reader.on_part_end,
                "on_header_field": reader.on_header_field,
                "on_header_value": reader.on_header_value,
                "on_header_end": reader.on_header_end,
                "on_headers_finished": reader.on_headers_finished,
            },
        )
        total = 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > cap + FORM_OVERHEAD:
                raise TooLarge(f"the upload is over the cap of {cap} bytes")
            parser.write(chunk)
        parser.finalize()
    except (FormParserError, ValueError) as exc:
        raise InvalidRequest(f"malformed multipart body: {exc}") from None
    except ClientDisconnect:
        raise InvalidRequest("the client went away before the upload ended") from None
    if reader.file is None:
        raise InvalidRequest("the form needs a file field")
    return Upload(b"".join(reader.file.chunks), reader.file.filename, reader.fields, reader.lists)


# RFC 3339, as the schema's `date-time` says (Python alone would also take 20240501T0900Z).
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")


def _occurred_at(value: str | None) -> datetime | None:
    if value is None or not value.strip():
        return None
    if not _RFC3339.fullmatch(value.strip()):
        raise InvalidRequest(
            f"occurred_at {value!r} is not an RFC 3339 date-time, e.g. 2024-05-01T09:00:00Z"
        )
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidRequest(f"occurred_at {value!r} is not an ISO 8601 date-time") from None
    if when.tzinfo is None:
        raise InvalidRequest("occurred_at needs a time zone, e.g. 2024-05-01T09:00:00Z")
    try:
        return utc_datetime(when)
    except ValueError:
        raise InvalidRequest(f"occurred_at {value!r} is out of range") from None


@router.post(
    "/files",
    status_code=201,
    response_model=ItemOut,
    summary="Add a file: stored, findable by name, not yet answerable",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"multipart/form-data": {"schema": _UPLOAD_SCHEMA}},
        }
    },
    responses={**ACCEPTED, **problem_responses(400, 401, 403, 409, 413, 415, 422, 503)},
)
async def add_file(
    request: Request,
    response: Response,
    caller: Writer,
    index: Annotated[
        bool, Query(description="Also queue it for indexing; follow its state on the item")
    ] = False,
    wait: Annotated[
        WaitParam,
        Query(
            description="ack: answer once stored; derived (with index=true only): once it is "
            "indexed and its sections derived (202 with derived false if that takes too long)"
        ),
    ] = "ack",
) -> ItemOut | JSONResponse:
    ctx = context_of(request)
    unknown = sorted(set(request.query_params) - {"index", "wait"})
    if unknown:  # an upload's options go in the form; a stray parameter is a mistake
        raise InvalidRequest(
            f"unknown query parameter(s): {', '.join(unknown)}; only index and wait"
        )
    if wait == "derived" and not index:
        raise InvalidRequest(
            "wait=derived needs index=true: a file is derived from its sections, which "
            "indexing cuts"
        )
    upload = await read_upload(request, ctx.config.max_file_bytes)
    f = upload.fields
    name = f.get("name") or upload.filename
    if not name:
        raise InvalidRequest("the file part needs a filename (or send a name field)")
    supersedes = upload.lists.get("supersedes", [])  # as sent: an empty id is refused too
    item = await run_in_threadpool(
        lambda: caller.brain.add_file(
            upload.data,
            name=name,
            kind=f.get("kind") or "file",
            label=f.get("label") or None,
            scope=f.get("scope") or None,
            source_key=f.get("source_key") or None,
            occurred_at=_occurred_at(f.get("occurred_at")),
            supersedes=supersedes,
        )
    )
    if index:
        await run_in_threadpool(caller.brain.request_index, item.id)
        ctx.worker.wake()
    return await run_in_threadpool(written, request, response, caller.brain, item, wait)


@router.post(
    "/files/{item_id}/index",
    status_code=202,
    response_model=IndexAccepted,
    summary="Queue a file for indexing; follow its state on GET /v1/items/{id}",
    responses=problem_responses(400, 401, 403, 404, 422, 503),
)
def index_file(request: Request, caller: Writer, item_id: ItemId) -> IndexAccepted:
    if caller.brain.request_index(item_id) is not None:
        context_of(request).worker.wake()
    return IndexAccepted(id=item_id, state=caller.brain.index_state(item_id))
