"""What indexing and forgetting report back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .items import StorageClass

__all__ = [
    "Forgotten",
    "IndexReport",
]


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What ``forget`` or ``erase`` did: the item, how many items left every stream with it
    (a file's sections), whether its bytes and text were erased, and the audit record."""

    item_id: str
    storage_class: StorageClass
    items: int
    erased: bool
    reason: str
    actor: str
    at: datetime
    event_id: int


@dataclass(frozen=True, slots=True)
class IndexReport:
    """How indexing one file went: its sections, or the error recorded on it."""

    item_id: str
    label: str
    sections: int
    error: str | None = None
    error_code: str | None = None
    # True when the fault was not the file's (the embedder, or the store at commit): the
    # file stays pending, nothing is recorded on it, and the same work may succeed later.
    retry: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None
