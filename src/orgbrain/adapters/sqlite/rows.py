"""How the SQLite store writes a time and a flag (ISO 8601 text and 0/1; the job queue's
times at a fixed width) and where its SQL differs (``?`` marks, lists spelled out, rows
numbered by ``rowid``); ``adapters/sql`` holds the rest, as the PostgreSQL store's."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from ..sql.dialect import Dialect
from ..sql.rows import ITEM_COLUMNS, Rows, stored_key

__all__ = [
    "DIALECT",
    "ITEM_COLUMNS",
    "JOBS_DIALECT",
    "ROWS",
    "item_from_row",
    "item_values",
    "job_stamp",
    "stored_key",
]


def _text(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def job_stamp(value: datetime | None) -> str | None:
    """A job's time: fixed width (microseconds always written, in UTC), so the queue's
    text order is time order (``run_after <= ?``, ``lease_until <= ?``)."""
    return None if value is None else value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def _time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


ROWS = Rows(time=_text, when=_time, flag=int)
DIALECT = Dialect(
    ROWS, mark="?", arrays=False, pos="rowid", seq="rowid", find="instr", lock_rows=""
)
JOBS_DIALECT = replace(DIALECT, rows=replace(ROWS, time=job_stamp))
item_values = ROWS.item_values
item_from_row = ROWS.item_from_row
