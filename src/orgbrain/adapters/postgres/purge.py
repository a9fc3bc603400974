"""The server store's side of forgetting (``sql/purge.py``): dropping rows with their
keyword postings and statistics (their vectors cascade).

PostgreSQL keeps a deleted or updated row's old version in its table's pages until
``VACUUM`` marks the space free and later writes reuse it; an erase does not wait for
that. docs/forget.md tells an operator what to run where erased text must leave the disk
at once (``VACUUM FULL`` of the tables an erase touches).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ..sql.dialect import Connection
from ..sql.purge import Purge as SharedPurge
from .db import Connection as PgConnection
from .pending import Pending

__all__ = ["Purge"]


class Purge(SharedPurge):
    def _drop_items(self, conn: Connection, workspace: str, ids: Sequence[str]) -> None:
        pg = cast(PgConnection, conn)
        pending = Pending()
        for item_id in ids:
            pg.execute(
                "DELETE FROM edges WHERE workspace = %s AND (src = %s OR dst = %s)",
                (workspace, item_id, item_id),
            )
            row = pg.execute(
                "SELECT pk, class, kw_len FROM items WHERE workspace = %s AND id = %s FOR UPDATE",
                (workspace, item_id),
            ).fetchone()
            if row is None:
                continue
            pk = int(row["pk"])
            if row["kw_len"] is not None:
                pending.drop_postings(pg, pk, workspace, row["class"], int(row["kw_len"]))
            pg.execute("DELETE FROM items WHERE pk = %s", (pk,))  # vectors cascade
        pending.flush(pg)
