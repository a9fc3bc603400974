"""One PostgreSQL database, shared by the store, the job queue and the key store: a
psycopg 3 connection pool, read and write transactions, and one bound on every statement.

Every connection runs in UTC with ``statement_timeout`` set to the store's timeout, so no
statement outlives it; inside a request (``orgbrain.deadline``) a transaction is bounded
by what is left of the request's deadline instead, when that is shorter. A commit returns
once PostgreSQL has made it durable (``synchronous_commit`` as the server has it: on by
default). A failure of the server, of the network or of the bound is ``Unavailable``;
a value PostgreSQL cannot hold (a NUL character in text, a number out of range) is
``InvalidInput``, and the transaction stores nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ... import deadline
from ...errors import InvalidInput, Unavailable

try:
    import psycopg
    from psycopg import errors as pg_errors
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
    from psycopg.rows import DictRow, dict_row
    from psycopg_pool import ConnectionPool, PoolTimeout
except ImportError as exc:  # pragma: no cover - exercised by test_postgres_extra
    raise Unavailable(
        f"a postgresql:// store needs the postgres extra: pip install 'orgbrain[postgres]' ({exc})"
    ) from exc

__all__ = ["Connection", "Database", "is_postgres_url"]

Connection = psycopg.Connection[DictRow]

DEFAULT_TIMEOUT_S = 30.0
"""How long one statement may run, and how long a caller waits for a free connection."""


def is_postgres_url(value: object) -> bool:
    """Whether ``value`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return isinstance(value, str) and value.startswith(("postgresql://", "postgres://"))


def _options(url: str, timeout_s: float) -> str:
    """The connection string with UTC and the statement timeout added to its options."""
    params = conninfo_to_dict(url)
    ours = f"-c timezone=UTC -c jit=off -c statement_timeout={max(1, int(timeout_s * 1000))}"
    given = str(params.get("options") or "").strip()
    params["options"] = f"{given} {ours}".strip()
    return make_conninfo("", **params)


class Database:
    """A connection pool over ``url`` (``what`` names its user in errors)."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        min_size: int = 1,
        max_size: int = 10,
        what: str = "store",
        vectors: bool = False,
    ) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self._what = what
        self._vectors = vectors
        self.closed = False
        self._lock = threading.Lock()
        try:
            self._conninfo = _options(url, timeout_s)
        except psycopg.ProgrammingError as exc:
            raise Unavailable(f"invalid PostgreSQL URL for the {what}: {exc}") from exc
        self._pool: ConnectionPool[Connection] = ConnectionPool(
            self._conninfo,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True, "row_factory": dict_row},
            configure=self._configure if vectors else None,
            timeout=timeout_s,
            open=False,
            name=f"orgbrain-{what}",
        )

    def connect(self) -> Connection:
        """One connection of its own, outside the pool (migrations use it)."""
        try:
            return psycopg.connect(self._conninfo, autocommit=True, row_factory=dict_row)
        except psycopg.Error as exc:
            raise Unavailable(f"cannot reach the {self._what} database: {exc}") from exc

    def open(self) -> None:
        """Start the pool (after migrations: its connections load the vector type)."""
        self._pool.open()

    def _configure(self, conn: Connection) -> None:
        from pgvector.psycopg import register_vector

        register_vector(conn)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A pooled connection in autocommit: each statement sees the latest commits."""
        with self._guard(), self._pool.connection() as conn:
            bound = deadline.remaining()
            if bound is None or bound >= self.timeout_s:
                yield conn
                return
            with conn.transaction():
                _bound(conn, bound)
                yield conn

    @contextmanager
    def tx(self) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self._guard(), self._pool.connection() as conn, conn.transaction():
            bound = deadline.remaining()
            if bound is not None and bound < self.timeout_s:
                _bound(conn, bound)
            yield conn

    @contextmanager
    def _guard(self) -> Iterator[None]:
        if self.closed:
            raise Unavailable(f"the {self._what} is closed")
        try:
            yield
        except pg_errors.QueryCanceled as exc:
            raise Unavailable(f"the {self._what} took too long: {exc}") from exc
        except (pg_errors.DeadlockDetected, pg_errors.SerializationFailure) as exc:
            raise Unavailable(f"the {self._what} is busy: {exc}") from exc
        except pg_errors.ReadOnlySqlTransaction as exc:
            raise Unavailable(
                f"the {self._what} database is read only (a replica?): writes go to the "
                f"primary ({_first_line(exc)})"
            ) from exc
        except psycopg.OperationalError as exc:
            raise Unavailable(f"the {self._what} database failed: {exc}") from exc
        except PoolTimeout as exc:
            raise Unavailable(f"no free connection to the {self._what} database: {exc}") from exc
        except psycopg.DataError as exc:
            # SQLSTATE class 22, or psycopg refusing a value before sending it: the data
            # given cannot be stored or compared here (SQLite would take a NUL; this not).
            raise InvalidInput(f"a value the {self._what} cannot hold: {_first_line(exc)}") from exc

    def close(self) -> None:
        with self._lock:
            if self.closed:
                return
            self.closed = True
        self._pool.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _bound(conn: Connection, seconds: float) -> None:
    """Bound the rest of this transaction by ``seconds`` (what the request has left)."""
    if seconds <= 0:
        raise Unavailable("the request's deadline has passed")
    conn.execute(
        "SELECT set_config('statement_timeout', %s, true)", (str(max(1, int(seconds * 1000))),)
    )


def one(conn: Connection, sql: str, params: Any = None) -> DictRow | None:
    """The first row ``sql`` returns, or None."""
    return conn.execute(sql, params).fetchone()
