"""How the PostgreSQL store writes a time and a flag: ``timestamptz`` and ``boolean``,
read back (``dict_row``) as aware datetimes in UTC and booleans (``adapters/sql/rows.py``
maps the rest, as the SQLite store does)."""

from __future__ import annotations

from datetime import UTC, datetime

from ..sql.rows import ITEM_COLUMNS, Rows, shown_key, stored_key

__all__ = [
    "ITEM_COLUMNS",
    "ROWS",
    "edge_from_row",
    "edge_values",
    "item_from_row",
    "item_values",
    "shown_key",
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
item_values = ROWS.item_values
item_from_row = ROWS.item_from_row
edge_values = ROWS.edge_values
edge_from_row = ROWS.edge_from_row
