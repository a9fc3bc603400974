"""An item's previous versions, kept when its content is replaced."""

from __future__ import annotations

from typing import Protocol

from ..model import Version
from ..scopes import Visibility

__all__ = ["VersionStore"]


class VersionStore(Protocol):
    """Previous versions of files and notes: read, and erased when their item is."""

    def versions(self, workspace: str, item_id: str, visibility: Visibility) -> list[Version]:
        """An item's previous versions, newest first (none if ``visibility`` does not
        allow its scope). Kept for files and notes when their content was replaced."""
        ...

    def erase_versions(self, workspace: str, item_id: str) -> list[str]:
        """Delete an item's previous versions; return the blob keys they named, for the
        caller to delete (``erase``)."""
        ...
