"""How the SQLite store writes a time and a flag: ISO 8601 text and 0/1
(``adapters/sql/rows.py`` maps the rest, as the PostgreSQL store does)."""

from __future__ import annotations

from datetime import datetime

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
]


def _text(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


ROWS = Rows(time=_text, when=_time, flag=int)
item_values = ROWS.item_values
item_from_row = ROWS.item_from_row
edge_values = ROWS.edge_values
edge_from_row = ROWS.edge_from_row
