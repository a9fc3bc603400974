"""The facade's history side: an item's previous versions (a source key written again
never mutates in place) and the supersession chain through it, both ways."""

from __future__ import annotations

from collections.abc import Iterator

from .. import derive
from ..context import BrainContext
from ..errors import InvalidInput, NotFound
from ..model import History, Item, Version

__all__ = ["HistoryFacade", "read_version", "version_of"]


class HistoryFacade:
    """``Brain``'s history methods (one class of the facade, by use case)."""

    _ctx: BrainContext

    def versions(self, item_id: str) -> list[Version]:
        """A visible item's previous versions, newest first (files and notes keep one each
        time their source key was written with other content)."""
        item = self._ctx.get(item_id)
        return self._ctx.versions.versions(self._ctx.workspace, item.id, self._ctx.visibility)

    def history(self, item_id: str) -> History:
        """A visible item with its previous versions (newest first) and the supersession
        chain through it both ways (nearest link first), each link with its origin and
        reason (``explicit``: a write named it; ``derived``: its statements were
        replaced). Every claim is listed: when two writes said they superseded the same
        item, both links show, and ``item.superseded_by`` names the first, which stays."""
        ctx = self._ctx
        item, back, forward = derive.chain(ctx, item_id)
        kept = ctx.versions.versions(ctx.workspace, item.id, ctx.visibility)
        return History(
            item=item,
            version=len(kept) + 1,
            versions=tuple(kept),
            supersedes=tuple(back),
            superseded_by=tuple(forward),
        )

    def version_of(self, item_id: str, number: int) -> tuple[Item, Version | None]:
        """A visible item and its version ``number``: None when that is the current one
        (the item itself). ``NotFound`` for a number it never had."""
        return version_of(self._ctx, item_id, number)


def version_of(ctx: BrainContext, item_id: str, number: int) -> tuple[Item, Version | None]:
    """``HistoryFacade.version_of`` with ``ctx``'s reader."""
    item = ctx.get(item_id)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise InvalidInput(f"a version is a number from 1, not {number!r}")
    kept = ctx.versions.versions(ctx.workspace, item.id, ctx.visibility)
    current = len(kept) + 1
    if number == current:
        return item, None
    for v in kept:
        if v.number == number:
            return item, v
    raise NotFound(f"{item.id} has versions 1 to {current}; no version {number}")


def read_version(
    ctx: BrainContext, item_id: str, number: int, start: int = 0, end: int | None = None
) -> Iterator[bytes]:
    """A file version's raw bytes (the current one's too, by its number), or the
    half-open range [start, end) of them."""
    item, version = version_of(ctx, item_id, number)
    if item.storage_class != "file":
        raise InvalidInput(
            f"{item.id} is a {item.storage_class}; its versions' text is in its history"
        )
    blob_key = item.blob_key if version is None else version.blob_key
    if blob_key is None:
        raise NotFound(f"version {number} of {item.id} has no stored bytes")
    return ctx.blobs.stream(blob_key, start, end)
