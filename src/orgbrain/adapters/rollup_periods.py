"""Which running counts of the event log a window reads (``Store.rolled_counts``), for
both stores: whole UTC months (``M2026-11``) and days (``D2026-11-05``) from the roll-up
table, and the events themselves for the part of a day the window starts in.

A window from ``since`` to the end of time splits into: the events in
``[since, first midnight at or after since)``; the days from that midnight up to the first
month start at or after it; every month from there on. Each event is in exactly one of
the three, so the counts are exact. When that midnight is early in its month, the month's
row less the days before the midnight is the same sum over fewer rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from ..errors import InvalidInput
from ..ports import EVENT_ROLLUPS

__all__ = ["ALL_MONTHS", "Window", "lenses", "rolled_fields", "window"]

ALL_MONTHS = ("M", "N")
"""Every month row: ``M...`` periods sort between these."""


@dataclass(frozen=True, slots=True)
class Window:
    raw: tuple[datetime, datetime] | None
    """Read these events themselves: at or after the first, before the second (UTC)."""
    days: tuple[str, str] | None
    """Day rows with a period in ``[first, second)``, added."""
    months: tuple[str, str]
    """Month rows with a period in ``[first, second)``, added."""
    less: tuple[str, str] | None = None
    """Day rows with a period in ``[first, second)``, taken away: the start of a month
    whose row is added whole, when that is fewer days than the rest of the month."""


def window(since: datetime | None) -> Window:
    """The parts a window from ``since`` (None: ever; no zone: UTC) reads: the fewest day
    rows, adding the days to the month's end or taking the days before from its row."""
    if since is None:
        return Window(None, None, ALL_MONTHS)
    start = (since if since.tzinfo else since.replace(tzinfo=UTC)).astimezone(UTC)
    day = start.date() if start.timetz() == time(0, tzinfo=UTC) else start.date() + timedelta(1)
    midnight = datetime.combine(day, time(0), tzinfo=UTC)
    raw = (start, midnight) if start < midnight else None
    first = day.replace(day=1)
    if day == first:
        return Window(raw, None, (f"M{first:%Y-%m}", "N"))
    after = _next_month(day)
    if (day - first).days < (after - day).days:  # the month's row, less its first days
        return Window(raw, None, (f"M{first:%Y-%m}", "N"), (f"D{first}", f"D{day}"))
    return Window(raw, (f"D{day}", f"D{after}"), (f"M{after:%Y-%m}", "N"))


def _next_month(d: date) -> date:
    return date(d.year + 1, 1, 1) if d.month == 12 else date(d.year, d.month + 1, 1)


def rolled_fields(kind: str) -> tuple[str, ...]:
    """The fields ``kind``'s events are counted by; InvalidInput for a kind not rolled up."""
    fields = EVENT_ROLLUPS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise InvalidInput(f"events of kind {kind!r} are not counted as they come")
    return fields


def lenses(actor: str | None, scopes: Sequence[str] | None) -> list[str]:
    """The roll-up rows' lens a count reads: everyone's (``''``), one actor's, or the
    sum over some scopes (an event has one scope, so the sum counts each once)."""
    if actor is not None and scopes is not None:
        raise InvalidInput("running counts are by actor or by scopes, not both")
    if actor is not None:
        return [f"actor:{actor}"]
    if scopes is not None:
        return [f"scope:{s}" for s in dict.fromkeys(scopes)]
    return [""]


def merged(rows: Sequence[tuple[tuple[object, ...], int]]) -> Mapping[tuple[object, ...], int]:
    """Counts by key, summed."""
    out: dict[tuple[object, ...], int] = {}
    for key, n in rows:
        if n:
            out[key] = out.get(key, 0) + n
    return out
