"""What changed: an item's write story, statements, conflicts, and the derivation events
as a server-sent event stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ...brain import Brain
from ...errors import InvalidInput
from ...model import StatementType
from ...views import ConflictList, ConflictView, EventView, StatementList, StatementView, StoryView
from ..auth import Reader, context_of
from ..problems import problem_responses
from .items import ItemId

__all__ = [
    "EVENT_KINDS",
    "HEARTBEAT_S",
    "MAX_SEQ",
    "POLL_S",
    "EventKind",
    "router",
    "sse_comment",
    "sse_event",
]

router = APIRouter(prefix="/v1", tags=["memory"])

EventKind = Literal["derive", "derived"]
EVENT_KINDS: tuple[EventKind, ...] = ("derive", "derived")
POLL_S = 0.25
"""How often a following stream looks for new events."""
HEARTBEAT_S = 15.0
"""How long a following stream stays silent before it sends a comment (proxies close idle
connections)."""
PAGE = 200
MAX_SEQ = 2**63 - 1
"""The largest sequence number SQLite can hold (its rowids)."""

_READ_ERRORS = problem_responses(400, 401, 403, 404, 422, 503)

EVENTS_DESCRIPTION = """\
Derivation events as [server-sent events](https://html.spec.whatwg.org/multipage/server-sent-events.html),
oldest first, each one

```
id: <sequence number>
event: <kind>
data: <EventView as JSON>
```

Sequence numbers increase with every event: resume after the last one you saw with
`?after=N` or the `Last-Event-ID` header (which wins when both are sent, as a browser's
`EventSource` sends it when it reconnects). You see events about items you may see.

By default (`follow=false`) the stream sends what is there now (at most `limit` events)
and closes. With `follow=true` it stays open and sends new events as they are logged
(looked for every 0.25 s), a comment line (`: keep-alive`) after 15 s of silence, and
closes after `timeout` seconds (or the server's own limit, an hour by default) or `limit`
events; reconnect with `Last-Event-ID` to go on.
"""


@router.get(
    "/items/{item_id}/story",
    response_model=StoryView,
    summary="An item's write story: acknowledgement, derivation steps, statements, supersession",
    responses=_READ_ERRORS,
)
def get_story(caller: Reader, item_id: ItemId) -> StoryView:
    return StoryView.of(caller.brain.story(item_id))


@router.get(
    "/statements",
    response_model=StatementList,
    summary="Statements about an entity, or held by an item, oldest first",
    responses=_READ_ERRORS,
)
def list_statements(
    caller: Reader,
    about: Annotated[
        str | None,
        Query(min_length=1, max_length=200, description="An entity's id (ent_...) or a name"),
    ] = None,
    item_id: Annotated[
        str | None,
        Query(min_length=1, max_length=200, description="Statements this item holds instead"),
    ] = None,
    type: Annotated[
        list[StatementType] | None,
        Query(max_length=4, description="Only these types (repeat the parameter)"),
    ] = None,
    current: Annotated[
        Literal["true", "false", "all"],
        Query(description="true: current ones; false: superseded or ended ones; all"),
    ] = "true",
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> StatementList:
    if (about is None) == (item_id is None):
        raise InvalidInput("say about= (an entity) or item_id= (an item), one of them")
    found = caller.brain.statements(
        about=about,
        item_id=item_id,
        types=type or None,
        current={"true": True, "false": False, "all": None}[current],
        limit=limit,
    )
    return StatementList(statements=[StatementView.of(s) for s in found])


@router.get(
    "/conflicts",
    response_model=ConflictList,
    summary="Pairs of current statements from different sources that disagree",
    responses=_READ_ERRORS,
)
def list_conflicts(
    caller: Reader, limit: Annotated[int, Query(ge=1, le=1000)] = 200
) -> ConflictList:
    return ConflictList(conflicts=[ConflictView.of(d) for d in caller.brain.conflicts(limit)])


@router.get(
    "/events",
    summary="Derivation events as server-sent events, resumable by sequence number",
    description=EVENTS_DESCRIPTION,
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "A text/event-stream of events",
            # One schema per event, as OpenAPI 3.2's itemSchema reads a stream: the
            # fields of the text/event-stream format; data is an EventView as JSON.
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string", "description": "The sequence number"},
                            "event": {"type": "string", "enum": ["derive", "derived"]},
                            "data": {"type": "string", "description": "An EventView as JSON"},
                        },
                        "required": ["id", "event", "data"],
                    }
                }
            },
        },
        **_READ_ERRORS,
    },
)
async def stream_events(
    request: Request,
    caller: Reader,
    after: Annotated[
        int, Query(ge=0, le=MAX_SEQ, description="Send events after this sequence number")
    ] = 0,
    kind: Annotated[
        list[EventKind] | None, Query(max_length=2, description="Only these kinds (repeatable)")
    ] = None,
    follow: Annotated[bool, Query(description="Stay open for new events (default false)")] = False,
    timeout: Annotated[
        float, Query(gt=0, le=3600, description="With follow: close after this many seconds")
    ] = 300.0,
    limit: Annotated[
        int, Query(ge=1, le=10_000, description="Close after sending this many events")
    ] = 1000,
    last_event_id: Annotated[
        int | None,
        Header(
            alias="Last-Event-ID",
            ge=0,
            le=MAX_SEQ,
            description="The last sequence number seen; resume after it (wins over after)",
        ),
    ] = None,
) -> StreamingResponse:
    start = after if last_event_id is None else last_event_id
    kinds = tuple(kind or EVENT_KINDS)
    # The first page is read before answering, so a bad request fails as a problem.
    first = await run_in_threadpool(
        caller.brain.events_page, start, kinds=kinds, limit=min(PAGE, limit)
    )
    timeout = min(timeout, context_of(request).config.stream_max_s)
    feed = _feed(request, caller.brain, start, first, kinds, follow=follow, timeout=timeout)
    return StreamingResponse(
        _limited(feed, limit),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _feed(
    request: Request,
    brain: Brain,
    start: int,
    first: tuple[list[dict[str, object]], int],
    kinds: tuple[str, ...],
    *,
    follow: bool,
    timeout: float,
) -> AsyncGenerator[str, None]:
    """Events after ``start`` as SSE text; without ``follow``, until the feed is read."""
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    before, (page, cursor) = start, first
    while True:
        for event in page:
            yield sse_event(EventView.of(event))
            quiet_since = time.monotonic()
        # A page may hold only events this reader may not see: the cursor still moves.
        caught_up = cursor == before
        if caught_up and not follow:
            return
        if follow:
            if time.monotonic() >= deadline or await request.is_disconnected():
                return
            if time.monotonic() - quiet_since >= HEARTBEAT_S:
                yield sse_comment("keep-alive")
                quiet_since = time.monotonic()
            if caught_up:
                await asyncio.sleep(POLL_S)
        before = cursor
        page, cursor = await run_in_threadpool(brain.events_page, cursor, kinds=kinds, limit=PAGE)


async def _limited(feed: AsyncGenerator[str, None], limit: int) -> AsyncIterator[str]:
    """``feed`` until ``limit`` events were sent (comments do not count)."""
    sent = 0
    async with aclosing(feed):
        async for chunk in feed:
            yield chunk
            if chunk.startswith("id: "):
                sent += 1
                if sent >= limit:
                    return


def sse_event(event: EventView) -> str:
    """One event in the text/event-stream format (its JSON is one line)."""
    return f"id: {event.id}\nevent: {event.kind}\ndata: {event.model_dump_json()}\n\n"


def sse_comment(text: str) -> str:
    return f": {text}\n\n"
