"""What both SQL stores keep of an item's previous versions, and when: only what a writer
wrote is versioned (files' bytes, notes' text), copied in the transaction that replaces
it. Sections and entities are derived and cut again from their source; a file's
indexing, a tombstone, or a flag (``indexed``, ``superseded_by``) is no new version. A
forgotten row's content is never copied back into view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["COPIED", "OLD_ROW_COLUMNS", "VERSIONED_CLASSES", "content_changed"]

VERSIONED_CLASSES = ("file", "note")
"""The classes whose previous content is kept: what a writer wrote, not what was derived."""

COPIED = (
    "label",
    "body",
    "summary",
    "blob_key",
    "text_key",
    "content_hash",
    "size",
    "media_type",
    "name",
    "occurred_at",
    "origin_actor",
    "origin_source",
    "origin_run",
    "origin_at",
)
"""The columns of the replaced row that ``item_versions`` keeps."""

OLD_ROW_COLUMNS = ("class", *COPIED, "tombstoned_at", "supersedes", "superseded_by")
"""What a store's ``_put`` reads of the row it is about to update."""


def content_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether writing ``new`` over the row ``old`` replaces what a writer wrote: a file's
    bytes, or a note's label, text or time. Indexing (the extracted body, the text key),
    flags and tombstones are not content."""
    if old["class"] not in VERSIONED_CLASSES or old["class"] != new["class"]:
        return False
    if old["tombstoned_at"] is not None or new["tombstoned_at"] is not None:
        return False  # forgotten content stays out of reads; forgetting is no new version
    if old["class"] == "file":
        return (old["blob_key"], old["content_hash"]) != (new["blob_key"], new["content_hash"])
    fields = ("label", "body", "occurred_at")
    return any(old[f] != new[f] for f in fields)
