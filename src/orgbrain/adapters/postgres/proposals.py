"""The store's write-back proposals: one part of ``PostgresStore``, kept apart like
``graphlog.py``. Proposals live in their own table, never among items; a state changes
only from ``pending``, once (compare-and-set in one UPDATE)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime

from ...model import Proposal, ProposalState
from .db import Connection
from .rows import ROWS

__all__ = ["Proposals"]

_COLUMNS = (
    "id, workspace, run_id, actor, kind, label, body, scope, confidence, sensitivity, "
    "evidence, supersedes, state, reason, writer, item_id, decided_by, decided_at, "
    "review_reason, created_at"
)


class Proposals(ABC):
    """Write-back proposals (``model.Proposal``)."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]: ...

    def put_proposal(self, proposal: Proposal) -> tuple[Proposal, bool]:
        p = proposal
        with self._tx() as conn:
            row = conn.execute(
                f"INSERT INTO proposals ({_COLUMNS}) VALUES ({', '.join(['%s'] * 20)}) "
                "ON CONFLICT (id) DO NOTHING RETURNING *",
                ROWS.proposal_values(p),
            ).fetchone()
            created = row is not None
            if row is None:
                row = conn.execute(
                    "SELECT * FROM proposals WHERE workspace = %s AND id = %s",
                    (p.workspace, p.id),
                ).fetchone()
        assert row is not None
        return ROWS.proposal_from_row(row), created

    def proposal(self, workspace: str, proposal_id: str) -> Proposal | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT * FROM proposals WHERE workspace = %s AND id = %s",
                (workspace, proposal_id),
            ).fetchone()
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
        sql = "SELECT * FROM proposals WHERE workspace = %s"
        params: list[object] = [workspace]
        for column, values in (("scope", scopes), ("state", states)):
            if values is not None:
                if not values:
                    return []
                sql += f" AND {column} = ANY(%s)"
                params.append(list(values))
        if run_id is not None:
            sql += " AND run_id = %s"
            params.append(run_id)
        sql += " ORDER BY pk LIMIT %s"
        params.append(limit)
        with self._read() as conn:
            return [ROWS.proposal_from_row(r) for r in conn.execute(sql, params)]

    def pending_proposals(
        self, workspace: str, *, scopes: Sequence[str] | None = None
    ) -> tuple[int, datetime | None]:
        sql = "SELECT count(*) AS n, min(created_at) AS oldest FROM proposals "
        sql += "WHERE workspace = %s AND state = 'pending'"
        params: list[object] = [workspace]
        if scopes is not None:
            if not scopes:
                return 0, None
            sql += " AND scope = ANY(%s)"
            params.append(list(scopes))
        with self._read() as conn:
            row = conn.execute(sql, params).fetchone()
        assert row is not None
        return int(row["n"]), row["oldest"]

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
                "UPDATE proposals SET state = %s, decided_by = %s, decided_at = %s, "
                "review_reason = %s, label = coalesce(%s, label), body = coalesce(%s, body) "
                "WHERE workspace = %s AND id = %s AND state = 'pending'",
                (state, decided_by, decided_at, reason, label, body, workspace, proposal_id),
            )
            return cur.rowcount == 1

    def proposal_written(self, workspace: str, proposal_id: str, item_id: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE proposals SET item_id = %s WHERE workspace = %s AND id = %s "
                "AND item_id IS NULL",
                (item_id, workspace, proposal_id),
            )
