"""``GET /v1/items/{id}/content``: a file's bytes, or one section's exact text range.

A single ``Range: bytes=a-b`` (or ``a-`` or ``-n``) is honoured with 206; one starting at
or past the end is 416. Anything else in a Range header (other units, several ranges,
bad syntax) is ignored, as RFC 9110 allows, and the whole content is sent.

Uploaded bytes are anyone's: every answer says ``X-Content-Type-Options: nosniff``, and a
file of a type a browser would run in this origin (HTML, SVG, XML, scripts: anything not
in ``INLINE_SAFE``) is sent as an attachment, so a link to it downloads and never renders.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from starlette.responses import StreamingResponse

from ...errors import InvalidInput
from ...ingest.sniff import MEDIA_TYPES
from ..auth import Reader
from ..problems import RangeNotSatisfiable, problem_responses
from .items import ItemId

__all__ = ["INLINE_SAFE", "disposition", "parse_range", "router"]

router = APIRouter(prefix="/v1", tags=["items"])

TEXT_PLAIN = "text/plain; charset=utf-8"
_DIGITS = re.compile(r"[0-9]{1,19}")
_BINARY: dict[str, Any] = {"schema": {"type": "string", "format": "binary"}}
_CONTENT_TYPES = sorted({"text/plain", "application/octet-stream", *MEDIA_TYPES.values()})
INLINE_SAFE = frozenset(
    {
        "text/plain",
        "text/markdown",
        "text/csv",
        "text/x-rst",
        "application/json",
        "application/pdf",
        "image/png",
        "image/jpeg",
        "image/gif",
    }
)
"""Types a browser shows without running anything in the page's origin."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """``[start, end)`` of a single byte range, None to send everything; 416 if it starts
    past the end."""
    if header is None:
        return None
    unit, sep, spec = header.partition("=")
    if not sep or unit.strip().lower() != "bytes" or "," in spec:
        return None
    first, dash, last = (p.strip() for p in spec.partition("-"))
    if (
        not dash
        or (first and not _DIGITS.fullmatch(first))
        or (last and not _DIGITS.fullmatch(last))
    ):
        return None
    if not first:
        if not last:
            return None
        n = int(last)
        if n == 0 or size == 0:
            raise RangeNotSatisfiable(f"range {header!r} is empty", size)
        return max(0, size - n), size
    start = int(first)
    if last and int(last) < start:
        return None
    if start >= size:
        raise RangeNotSatisfiable(f"range {header!r} starts past the end ({size} bytes)", size)
    end = min(size, int(last) + 1) if last else size
    return start, end


@router.get(
    "/items/{item_id}/content",
    summary="A file's raw bytes, or a section's exact text",
    response_class=StreamingResponse,
    responses={
        200: {"description": "The content", "content": {t: _BINARY for t in _CONTENT_TYPES}},
        206: {"description": "One byte range", "content": {t: _BINARY for t in _CONTENT_TYPES}},
        **problem_responses(400, 401, 403, 404, 416, 422, 503),
    },
)
def read_content(
    caller: Reader,
    item_id: ItemId,
    section: Annotated[
        str | None,
        Query(max_length=200, description="A section's ordinal (1-based) or id within the file"),
    ] = None,
    start: Annotated[
        int | None,
        Query(ge=0, le=2**62, description="First byte, as a citation's byte range gives it"),
    ] = None,
    end: Annotated[
        int | None,
        Query(ge=0, le=2**62, description="End byte, exclusive, as a citation gives it"),
    ] = None,
    version: Annotated[
        int | None,
        Query(ge=1, le=2**31, description="A version of the file, as its history numbers it"),
    ] = None,
    range_header: Annotated[str | None, Header(alias="Range", max_length=200)] = None,
) -> StreamingResponse:
    """orgbrain's byte ranges are half-open everywhere (``[start, end)``: JSON, Python and
    a citation's text); ``?start=&end=`` takes a citation's numbers as they are. A ``Range``
    header is HTTP's own, inclusive: ``bytes=start-(end-1)``."""
    if start is not None or end is not None:
        range_header = _as_range_header(start, end)
    brain = caller.brain
    item = brain.get(item_id)
    if version is not None:
        if section is not None:
            raise InvalidInput("sections are cut from the current version: give one")
        item, kept = brain.version_of(item.id, version)
        if kept is not None:  # the version's name, size and type, as it was
            item = replace(item, name=kept.name, size=kept.size, media_type=kept.media_type)
    whole_file = item.storage_class == "file" and section is None and item.size is not None
    if whole_file:
        assert item.size is not None
        size, media = item.size, item.media_type or "application/octet-stream"
        # The range is checked before the blob is opened, so a 416 leaves nothing open.
        wanted = parse_range(range_header, size)
        # Only the wanted bytes are read from the blob store (one ranged GET on S3).
        first, stop = wanted if wanted is not None else (0, None)
        chunks = brain.read_file(item.id, version=version, start=first, end=stop)
    else:
        # A section is a few kilobytes of extracted text: read it, then cut the range.
        data = b"".join(brain.read_file(item.id, section=section, version=version))
        size, media = len(data), TEXT_PLAIN
        wanted = parse_range(range_header, size)
        chunks = iter([data if wanted is None else data[wanted[0] : wanted[1]]])
    headers = {"Accept-Ranges": "bytes", "X-Content-Type-Options": "nosniff"}
    if item.storage_class == "file" and whole_file:
        headers["Content-Disposition"] = disposition(item.name or item.id, media)
    if wanted is None:
        headers["Content-Length"] = str(size)
        return StreamingResponse(chunks, media_type=media, headers=headers)
    start, end = wanted
    headers["Content-Length"] = str(end - start)
    headers["Content-Range"] = f"bytes {start}-{end - 1}/{size}"
    return StreamingResponse(chunks, status_code=206, media_type=media, headers=headers)


def _as_range_header(start: int | None, end: int | None) -> str:
    first = start or 0
    if end is not None and end <= first:
        raise InvalidInput(f"an empty byte range [{first}, {end}): end must be past start")
    return f"bytes={first}-" + ("" if end is None else str(end - 1))


def disposition(name: str, media: str) -> str:
    """``inline`` for a type in ``INLINE_SAFE``, else ``attachment``, with the file's name."""
    named = _inline(name)
    if media.split(";")[0].strip().lower() in INLINE_SAFE:
        return named
    return "attachment" + named[len("inline") :]


def _inline(name: str) -> str:
    from urllib.parse import quote

    ascii_name = name.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    return f"inline; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"
