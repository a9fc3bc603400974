"""One SQLite file, shared by the store and the job queue: a connection per thread (WAL,
``synchronous=FULL``) and write transactions that are fsynced when they return."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...errors import Unavailable

__all__ = ["Database"]


class Database:
    """Connections to ``path`` for one adapter (``what`` names it in errors)."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0, what: str = "brain") -> None:
        self.path = Path(path)
        self._timeout = timeout
        self._what = what
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()
        self._write_lock = threading.RLock()
        self.closed = False

    def conn(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use."""
        if self.closed:
            raise Unavailable(f"the {self._what} is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(
                    self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
                )
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA foreign_keys = ON")
                # A deleted row's bytes are zeroed, not left in a free page (erase).
                conn.execute("PRAGMA secure_delete = ON")
            except sqlite3.Error as exc:
                raise Unavailable(
                    f"cannot open the {self._what} database {self.path}: {exc}"
                ) from exc
            self._local.conn = conn
            with self._conns_lock:
                self._conns.append(conn)
        return conn

    @contextmanager
    def tx(self, *, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction; COMMIT is fsynced (WAL + synchronous=FULL) before return.
        A database another process holds past the timeout is ``Unavailable``.

        ``durable=False`` commits with ``synchronous=NORMAL``: the frames reach the WAL
        (every reader sees them, a process crash keeps them) without an fsync of their
        own; the next durable commit's fsync, or a checkpoint, takes them to disk. Power
        loss or an OS crash before then rolls back such commits (never corrupts)."""
        with self._write_lock:
            conn = self.conn()
            if not durable:
                conn.execute("PRAGMA synchronous = NORMAL")
            try:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    raise Unavailable(f"the {self._what} is busy: {exc}") from exc
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            finally:
                if not durable:
                    conn.execute("PRAGMA synchronous = FULL")

    def close(self) -> None:
        with self._conns_lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()
        self.closed = True
