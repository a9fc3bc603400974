"""How the SQLite store writes a time and a flag (ISO 8601 text and 0/1) and its SQL
differs (``?`` marks, lists spelled out, rows numbered by ``rowid``); ``adapters/sql``
holds the rest, as the PostgreSQL store's."""

from __future__ import annotations

from datetime import datetime

from ..sql.dialect import Dialect
from ..sql.rows import ITEM_COLUMNS, Rows, stored_key

__all__ = ["DIALECT", "ITEM_COLUMNS", "ROWS", "item_from_row", "item_values", "stored_key"]


def _text(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


ROWS = Rows(time=_text, when=_time, flag=int)
DIALECT = Dialect(ROWS, mark="?", arrays=False, pos="rowid", lock_rows="")
item_values = ROWS.item_values
item_from_row = ROWS.item_from_row
