"""Where the two SQL stores' SQL differs, named once: the parameter mark, how a value is
matched against a list, the columns that number rows and events, and how a read holds
its rows. The queries both stores run are written once, with ``?`` marks (``Dialect.sql``
writes them as the backend wants them); a query only one backend can run stays in that
backend's module, written out in its own SQL."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from .rows import Rows

__all__ = ["Connection", "Cursor", "Dialect", "Part"]


class Cursor(Protocol):
    """What the shared queries use of a ``sqlite3.Cursor`` or a psycopg cursor."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> Sequence[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """A ``sqlite3.Connection`` or a psycopg connection (rows read by column name)."""

    def execute(self, sql: str, params: Any = ..., /) -> Cursor: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    rows: Rows
    """How this backend stores a time and a flag."""
    mark: str
    """The parameter mark: ``?`` (SQLite) or ``%s`` (psycopg)."""
    arrays: bool
    """Whether a list binds as one array parameter (PostgreSQL's ``= ANY(%s)``), or is
    spelled out one mark a value (SQLite's ``IN (?, ?)``)."""
    pos: str
    """The column that numbers a table's rows in the order they were written: ``rowid``
    in SQLite, ``pk`` in PostgreSQL."""
    seq: str
    """The column that numbers the event log in the order events were logged: ``rowid``
    in SQLite, ``seq`` in PostgreSQL (taken under a per-workspace lock, see its
    ``log_event``)."""
    find: str
    """The function that finds text in text (its 1-based place, 0 when absent):
    ``instr`` in SQLite, ``strpos`` in PostgreSQL."""
    lock_rows: str
    """What a SELECT in a write transaction ends with to hold the rows it read until the
    transaction ends: `` FOR UPDATE`` in PostgreSQL; nothing in SQLite, where the one
    write transaction already holds the whole database."""

    def sql(self, text: str) -> str:
        """``text``, written with ``?`` marks (and no ``%``), in this backend's marks."""
        assert "%" not in text, "a literal % would be read as a mark by psycopg"
        return text if self.mark == "?" else text.replace("?", self.mark)

    def any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """A condition (``?`` marks) that ``column`` is one of ``values``, and its
        parameters."""
        if self.arrays:
            return f"{column} = ANY(?)", [list(values)]
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)


class Part(ABC):
    """One part of a SQL store or queue (edges, statements, versions, proposals, jobs),
    run over its dialect, reads and write transactions."""

    _dialect: Dialect

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]:
        """A connection that sees the latest commits."""

    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]:
        """One write transaction: committed when the block ends, rolled back if it raises."""
