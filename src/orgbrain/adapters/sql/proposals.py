"""The store's write-back proposals, for both SQL stores: one part of the store, kept
apart like its edges and log. Proposals live in their own table, never among items, so
no read of items can meet one; a state changes only from ``pending``, once
(compare-and-set in one UPDATE)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ...model import Proposal, ProposalState
from ..records import TABLES
from .dialect import Part

__all__ = ["Proposals"]

_COLUMNS = TABLES["proposals"].columns
_INSERT = (
    f"INSERT INTO proposals ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
    "ON CONFLICT (id) DO NOTHING"
)


class Proposals(Part):
    """Write-back proposals (``model.Proposal``)."""

    def put_proposal(self, proposal: Proposal) -> tuple[Proposal, bool]:
        d, p = self._dialect, proposal
        with self._tx() as conn:
            created = conn.execute(d.sql(_INSERT), d.rows.proposal_values(p)).rowcount == 1
            row = conn.execute(
                d.sql("SELECT * FROM proposals WHERE workspace = ? AND id = ?"),
                (p.workspace, p.id),
            ).fetchone()
        return d.rows.proposal_from_row(row), created

    def proposal(self, workspace: str, proposal_id: str) -> Proposal | None:
        d = self._dialect
        with self._read() as conn:
            row = conn.execute(
                d.sql("SELECT * FROM proposals WHERE workspace = ? AND id = ?"),
                (workspace, proposal_id),
            ).fetchone()
        return None if row is None else d.rows.proposal_from_row(row)

    def proposals(
        self,
        workspace: str,
        *,
        scopes: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        run_id: str | None = None,
        limit: int = 100,
    ) -> list[Proposal]:
        d = self._dialect
        sql = "SELECT * FROM proposals WHERE workspace = ?"
        params: list[object] = [workspace]
        for column, values in (("scope", scopes), ("state", states)):
            if values is not None:
                if not values:
                    return []
                cond, more = d.any_of(column, values)
                sql, params = f"{sql} AND {cond}", params + more
        if run_id is not None:
            sql += " AND run_id = ?"
            params.append(run_id)
        sql += f" ORDER BY {d.pos} LIMIT ?"
        params.append(limit)
        with self._read() as conn:
            return [d.rows.proposal_from_row(r) for r in conn.execute(d.sql(sql), params)]

    def pending_proposals(
        self, workspace: str, *, scopes: Sequence[str] | None = None
    ) -> tuple[int, datetime | None]:
        d = self._dialect
        sql = (
            "SELECT count(*) AS n, min(created_at) AS oldest FROM proposals "
            "WHERE workspace = ? AND state = 'pending'"
        )
        params: list[object] = [workspace]
        if scopes is not None:
            if not scopes:
                return 0, None
            cond, more = d.any_of("scope", scopes)
            sql, params = f"{sql} AND {cond}", params + more
        with self._read() as conn:
            row = conn.execute(d.sql(sql), params).fetchone()
        return int(row["n"]), d.rows.when(row["oldest"])

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
        d = self._dialect
        at = d.rows.time(decided_at)
        with self._tx() as conn:
            cur = conn.execute(
                d.sql(
                    "UPDATE proposals SET state = ?, decided_by = ?, decided_at = ?, "
                    "review_reason = ?, label = coalesce(?, label), body = coalesce(?, body) "
                    "WHERE workspace = ? AND id = ? AND state = 'pending'"
                ),
                (state, decided_by, at, reason, label, body, workspace, proposal_id),
            )
            return cur.rowcount == 1

    def proposal_written(self, workspace: str, proposal_id: str, item_id: str) -> None:
        with self._tx() as conn:
            conn.execute(
                self._dialect.sql(
                    "UPDATE proposals SET item_id = ? WHERE workspace = ? AND id = ? "
                    "AND item_id IS NULL"
                ),
                (item_id, workspace, proposal_id),
            )
