"""Sweep what a crash left: work a write owed and had not asked for yet
(``derive.outbox``), forgets it interrupted (``forget.finish_forgets``), blobs no
committed row names (left between their write and the item's commit), and partial writes
(temporary files) of puts that never finished.

A blob is in use when an item of its workspace names it: its raw bytes (``blob_key``),
their version folder (``<item>/<version>/…``, the extracted text beside them included),
or a text blob (``text_key``); and so is every blob a kept previous version of the item
names, the same way (``Store.versions``). An upload in flight in another process (its
blob written, its row not yet committed) is never swept: only what is older than the
grace period is removed, or, when the blob store can tell that no other writer is alive
(``BlobStore.settled_before``: a killed server's leftovers), whatever was written before
this process began to write.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from .context import BrainContext
from .derive.outbox import relay
from .forget import finish_forgets
from .model import Item
from .scopes import Visibility
from .writes import version_folder

__all__ = ["GRACE", "SweepReport", "sweep", "sweep_blobs"]

GRACE = timedelta(hours=1)
Named = list[tuple[str | None, str | None]]
"""The (blob key, text key) pairs an item and its kept versions name."""


@dataclass(frozen=True, slots=True)
class SweepReport:
    blobs_removed: int
    partial_removed: int
    forgets_finished: int = 0
    """Forgets a crash had interrupted, finished first (``forget.finish_forgets``)."""
    owed_relayed: int = 0
    """Writes whose owed work (derivation, keys) a crash had left in the outbox."""


def sweep(ctx: BrainContext, grace: timedelta = GRACE) -> SweepReport:
    """Every workspace: owed work relayed (``derive.outbox``) and interrupted forgets
    finished first (an erase's blobs go with them, at once), then ``sweep_blobs``."""
    relayed = relay(ctx)
    workspaces = ctx.edges.workspaces()
    finished = finish_forgets(replace(ctx, actor="system:sweep"), workspaces)
    swept = sweep_blobs(ctx, workspaces, grace)
    return replace(swept, forgets_finished=finished, owed_relayed=relayed)


def sweep_blobs(ctx: BrainContext, workspaces: list[str], grace: timedelta = GRACE) -> SweepReport:
    """Remove unnamed blobs of ``workspaces`` and partial writes, older than ``grace``."""
    cutoff = ctx.clock() - grace
    settled = ctx.blobs.settled_before()
    if settled is not None:
        cutoff = max(cutoff, settled)
    removed = 0
    for ws in workspaces:
        named: dict[str, Named] = {}
        for key, written in list(ctx.blobs.keys(f"workspaces/{ws}")):
            parts = key.split("/")
            if written >= cutoff or len(parts) < 4:
                continue
            item_id = parts[2]
            if item_id not in named:
                named[item_id] = _named_by(ctx, ws, item_id)
            if not any(_in_use(key, blob, text) for blob, text in named[item_id]):
                ctx.blobs.delete_prefix(key)  # and the folders it leaves empty
                removed += 1
    return SweepReport(removed, ctx.blobs.clear_partial(cutoff))


def _named_by(ctx: BrainContext, workspace: str, item_id: str) -> Named:
    """The (blob key, text key) pairs of an item and of its kept versions."""
    everything = Visibility.everything()
    item: Item | None = ctx.items.get_item(workspace, item_id, everything)
    if item is None:
        return []
    kept = ctx.versions.versions(workspace, item_id, everything)
    return [(item.blob_key, item.text_key), *((v.blob_key, v.text_key) for v in kept)]


def _in_use(key: str, blob_key: str | None, text_key: str | None) -> bool:
    if key in (blob_key, text_key):
        return True
    folder = version_folder(blob_key)
    return folder is not None and key.startswith(f"{folder}/")
