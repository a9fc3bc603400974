"""The store's write-back proposals: one part of ``SQLiteStore``, kept apart like
``graphlog.py``. Proposals live in their own table, never among items, so no read of
items can meet one; a state changes only from ``pending``, once (compare-and-set)."""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime

from ...model import Proposal, ProposalState
from .rows import ROWS

__all__ = ["Proposals"]


class Proposals(ABC):
    """Write-back proposals (``model.Proposal``)."""

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def put_proposal(self, proposal: Proposal) -> tuple[Proposal, bool]:
        p = proposal
        with self._tx() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO proposals (id, workspace, run_id, actor, kind, label, "
                "body, scope, confidence, sensitivity, evidence, supersedes, state, reason, "
                "writer, item_id, decided_by, decided_at, review_reason, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ROWS.proposal_values(p),
            )
            created = cur.rowcount == 1
            row = conn.execute(
                "SELECT * FROM proposals WHERE workspace = ? AND id = ?", (p.workspace, p.id)
            ).fetchone()
        return ROWS.proposal_from_row(row), created

    def proposal(self, workspace: str, proposal_id: str) -> Proposal | None:
        row = (
            self._conn()
            .execute(
                "SELECT * FROM proposals WHERE workspace = ? AND id = ?", (workspace, proposal_id)
            )
            .fetchone()
        )
        return None if row is None else ROWS.proposal_from_row(row)

    def proposals(
        self,
        workspace: str,
        *,
        scopes: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        run_id: str | None = None,
        limit: int = 100,
    ) -> list[Proposal]:
        sql = "SELECT * FROM proposals WHERE workspace = ?"
        params: list[object] = [workspace]
        for column, values in (("scope", scopes), ("state", states)):
            if values is not None:
                if not values:
                    return []
                sql += f" AND {column} IN ({', '.join('?' * len(values))})"
                params += list(values)
        if run_id is not None:
            sql += " AND run_id = ?"
            params.append(run_id)
        sql += " ORDER BY rowid LIMIT ?"
        params.append(limit)
        return [ROWS.proposal_from_row(r) for r in self._conn().execute(sql, params)]

    def pending_proposals(
        self, workspace: str, *, scopes: Sequence[str] | None = None
    ) -> tuple[int, datetime | None]:
        sql = "SELECT count(*), min(created_at) FROM proposals WHERE workspace = ? AND state = ?"
        params: list[object] = [workspace, "pending"]
        if scopes is not None:
            if not scopes:
                return 0, None
            sql += f" AND scope IN ({', '.join('?' * len(scopes))})"
            params += list(scopes)
        n, oldest = self._conn().execute(sql, params).fetchone()
        return int(n), None if oldest is None else datetime.fromisoformat(oldest)

    def decide_proposal(
        self,
        workspace: str,
        proposal_id: str,
        state: ProposalState,
        *,
        decided_by: str,
        decided_at: datetime,
        reason: str | None,
        label: str | None = None,
        body: str | None = None,
    ) -> bool:
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE proposals SET state = ?, decided_by = ?, decided_at = ?, "
                "review_reason = ?, label = coalesce(?, label), body = coalesce(?, body) "
                "WHERE workspace = ? AND id = ? AND state = 'pending'",
                (
                    state,
                    decided_by,
                    ROWS.time(decided_at),
                    reason,
                    label,
                    body,
                    workspace,
                    proposal_id,
                ),
            )
            return cur.rowcount == 1

    def proposal_written(self, workspace: str, proposal_id: str, item_id: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE proposals SET item_id = ? WHERE workspace = ? AND id = ? "
                "AND item_id IS NULL",
                (item_id, workspace, proposal_id),
            )
