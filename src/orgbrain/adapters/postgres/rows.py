"""How the PostgreSQL store writes a time and a flag (``timestamptz`` and ``boolean``,
read back by ``dict_row`` as aware datetimes in UTC and booleans) and its SQL differs
(``%s`` marks, a list bound as one array, rows numbered by ``pk``); ``adapters/sql`` holds
the rest, as the SQLite store's."""

from __future__ import annotations

from datetime import UTC, datetime

from ..sql.dialect import Dialect
from ..sql.rows import ITEM_COLUMNS, Rows, stored_key

__all__ = [
    "DIALECT",
    "ITEM_COLUMNS",
    "ROWS",
    "item_from_row",
    "item_values",
    "stored_key",
    "utc",
]


def utc(value: datetime | None) -> datetime | None:
    """A time as ``timestamptz`` keeps it: one without a zone is taken as UTC (the session's
    zone), so comparing it with what the row gives back compares instants."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def _time(value: datetime | None) -> datetime | None:
    return value


ROWS = Rows(time=utc, when=_time, flag=bool)
DIALECT = Dialect(
    ROWS, mark="%s", arrays=True, pos="pk", seq="seq", find="strpos", lock_rows=" FOR UPDATE"
)
item_values = ROWS.item_values
item_from_row = ROWS.item_from_row
