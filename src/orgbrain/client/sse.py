"""Reading a ``text/event-stream`` body: the events ``GET /v1/events`` sends."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["ServerSentEvent", "parse_sse"]


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    id: str | None
    event: str
    data: str


def parse_sse(chunks: Iterable[bytes]) -> Iterator[ServerSentEvent]:
    """Events from a stream's bytes as they arrive; comments (heartbeats) are skipped.

    Follows the HTML standard's parsing rules for the fields orgbrain sends: ``id``,
    ``event`` and ``data`` (several ``data`` lines join with newlines); a blank line ends
    an event.
    """
    buffer = b""
    event_id: str | None = None
    kind = ""
    data: list[str] = []
    for chunk in chunks:
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8")
            if not line:
                if data:
                    yield ServerSentEvent(event_id, kind or "message", "\n".join(data))
                kind, data = "", []
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "id":
                event_id = value
            elif name == "event":
                kind = value
            elif name == "data":
                data.append(value)
