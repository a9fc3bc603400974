"""The outbox's relay: work a write owes, recorded in the write's own transaction
(``ports.outbox``), asked for after the commit.

A write that owes derivation (notes, a file's indexed sections) hands the store an
``Owed`` row (``owe_derive``) with its items; after the commit the writer relays its own
row at once, and whatever a crash left between the commit and that relay is relayed by
the next open of the brain, the start-up sweep and every round of a worker. Relaying is
idempotent, so two relays of one row (the writer's and a worker's) do no harm: the
contextual keys are computed again from what the store holds, a derive job's key is the
item's id and a digest of its text (asked twice, it is one job), and the row is dropped
only after both are done.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..context import BrainContext
from ..graph import rekey_around
from ..ids import new_id
from ..ports import Owed
from ..scopes import Visibility
from .queue import DERIVE_KIND, enqueue_derive

__all__ = ["owe_derive", "relay"]

log = logging.getLogger("orgbrain.outbox")
_PAGE = 100


def owe_derive(ctx: BrainContext, *, rekey: Sequence[str] | None = None) -> Owed:
    """What a write of notes or sections owes: their derivation, asked for as ``ctx``'s
    writer. With ``rekey`` (notes), the contextual keys around the written items and
    around ``rekey`` (the items they supersede) are computed again first."""
    payload: dict[str, object] = {"asker": ctx.asker()}
    if rekey is not None:
        payload["rekey"] = list(rekey)
    return Owed(new_id("owe"), DERIVE_KIND, ctx.actor, payload)


def relay(ctx: BrainContext, ids: Sequence[str] | None = None) -> int:
    """Carry out owed work (``ids``, the rows of one write; None: every row, oldest
    first) and drop each row once it is; returns how many were. A row of a kind this
    version does not know is left for one that does."""
    if ctx.store.read_only:
        return 0  # a replica's primary relays
    done = 0
    while True:
        rows = ctx.outbox.owed(ids=ids, limit=_PAGE)
        carried = [row.id for row in rows if _carry(ctx, row)]
        ctx.outbox.settle_owed(carried)
        done += len(carried)
        if ids is not None or len(rows) < _PAGE or len(carried) < len(rows):
            return done


def _carry(ctx: BrainContext, row: Owed) -> bool:
    if row.kind != DERIVE_KIND:
        log.warning("owed work %s of unknown kind %r left in the outbox", row.id, row.kind)
        return False
    subjects = list(row.subjects)
    rekey = row.payload.get("rekey")
    if isinstance(rekey, list):
        # Written words and supersessions change the keys of the turns around them.
        rekey_around(ctx.store, row.workspace, [*subjects, *map(str, rekey)])
    asker = row.payload.get("asker")
    if ctx.jobs is not None and isinstance(asker, dict):
        items = ctx.items.get_items(row.workspace, subjects, Visibility.everything())
        found = [items[i] for i in subjects if i in items]
        enqueue_derive(ctx.jobs, row.workspace, row.actor, asker, found)
    return True
