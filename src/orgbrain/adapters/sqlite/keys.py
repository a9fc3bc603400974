"""API keys in the brain's SQLite file, under their own named migrations.

The keys table sits beside the brain's tables (one file, one ``migrations`` table) but is
never joined with them: a key store needs only the path.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from ...errors import InvalidInput, NotFound, Unavailable
from ...keys import PERMISSIONS, ApiKey, Permission, StoredKey
from .schema import migrate

__all__ = ["KEY_MIGRATIONS", "SQLiteKeyStore"]

KEY_MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "keys_0001_api_keys",
        """
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            workspace TEXT NOT NULL,
            user_id TEXT NOT NULL,
            team_ids TEXT NOT NULL DEFAULT '[]',
            agent INTEGER NOT NULL DEFAULT 0,
            permissions TEXT NOT NULL,
            label TEXT NOT NULL DEFAULT '',
            secret_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
        CREATE INDEX api_keys_workspace ON api_keys (workspace, created_at);
        """,
    ),
    (
        # The web UI's signed-out sessions (docs/ui.md): every server over this file
        # refuses them; a row is forgotten once its session would have expired anyway.
        "keys_0002_ended_sessions",
        """
        CREATE TABLE ended_sessions (
            id TEXT PRIMARY KEY,
            key_id TEXT NOT NULL,
            until TEXT NOT NULL
        );
        CREATE INDEX ended_sessions_until ON ended_sessions (until);
        """,
    ),
)


class SQLiteKeyStore:
    """One connection guarded by a lock: lookups are single-row primary-key reads."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            migrate(self._conn, KEY_MIGRATIONS)
        except sqlite3.Error as exc:
            raise Unavailable(f"cannot open the key store {self.path}: {exc}") from exc
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def for_brain(cls, brain_dir: str | Path) -> SQLiteKeyStore:
        """The key store inside a brain folder (the file ``Brain.open`` uses)."""
        root = Path(brain_dir)
        if root.exists() and not root.is_dir():
            raise InvalidInput(f"{root} exists and is not a brain folder")
        root.mkdir(parents=True, exist_ok=True)
        return cls(root / "brain.sqlite")

    def _check(self) -> sqlite3.Connection:
        if self._closed:
            raise Unavailable("the key store is closed")
        return self._conn

    def add(self, key: ApiKey, secret_hash: str) -> ApiKey:
        with self._lock:
            conn = self._check()
            try:
                conn.execute(
                    "INSERT INTO api_keys (id, workspace, user_id, team_ids, agent, permissions, "
                    "label, secret_hash, created_at, revoked_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        key.id,
                        key.workspace,
                        key.user_id,
                        json.dumps(sorted(key.team_ids)),
                        int(key.agent),
                        ",".join(sorted(key.permissions)),
                        key.label,
                        secret_hash,
                        key.created_at.isoformat(),
                        None if key.revoked_at is None else key.revoked_at.isoformat(),
                    ),
                )
            except sqlite3.IntegrityError:
                raise InvalidInput(f"key id {key.id} exists") from None
        return key

    def find(self, key_id: str) -> StoredKey | None:
        with self._lock:
            row = self._check().execute("SELECT * FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        return None if row is None else StoredKey(_key_from_row(row), row["secret_hash"])

    def list_keys(self, workspace: str | None = None) -> list[ApiKey]:
        sql, params = "SELECT * FROM api_keys", []
        if workspace is not None:
            sql, params = sql + " WHERE workspace = ?", [workspace]
        with self._lock:
            rows = self._check().execute(sql + " ORDER BY created_at, id", params).fetchall()
        return [_key_from_row(r) for r in rows]

    def revoke(self, key_id: str, at: datetime) -> ApiKey:
        with self._lock:
            conn = self._check()
            conn.execute(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
                (at.isoformat(), key_id),
            )
            row = conn.execute("SELECT * FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        if row is None:
            raise NotFound(f"no key {key_id}")
        return _key_from_row(row)

    def workspaces(self) -> list[str]:
        with self._lock:
            rows = self._check().execute("SELECT DISTINCT workspace FROM api_keys").fetchall()
        return sorted(r[0] for r in rows)

    def end_session(self, session_id: str, key_id: str, until: datetime) -> None:
        now = datetime.now(UTC)
        with self._lock:
            conn = self._check()
            conn.execute("DELETE FROM ended_sessions WHERE until < ?", (_ts(now),))
            conn.execute(
                "INSERT OR IGNORE INTO ended_sessions (id, key_id, until) VALUES (?, ?, ?)",
                (session_id, key_id, _ts(until)),
            )

    def session_ended(self, session_id: str) -> bool:
        with self._lock:
            row = (
                self._check()
                .execute("SELECT 1 FROM ended_sessions WHERE id = ?", (session_id,))
                .fetchone()
            )
        return row is not None

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()


def _ts(when: datetime) -> str:
    # Fixed width in UTC, so string order is time order.
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def _key_from_row(row: sqlite3.Row) -> ApiKey:
    perms: frozenset[Permission] = frozenset(
        p for p in PERMISSIONS if p in row["permissions"].split(",")
    )
    revoked = row["revoked_at"]
    return ApiKey(
        id=row["id"],
        workspace=row["workspace"],
        user_id=row["user_id"],
        permissions=perms,
        created_at=datetime.fromisoformat(row["created_at"]),
        team_ids=frozenset(json.loads(row["team_ids"])),
        agent=bool(row["agent"]),
        label=row["label"],
        revoked_at=None if revoked is None else datetime.fromisoformat(revoked),
    )
