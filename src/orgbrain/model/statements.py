"""Typed statements derived from items, their evidence, supersession links, and
disagreements between current statements."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from .items import ByteRange, Item, Origin

__all__ = [
    "STATEMENT_TYPES",
    "Disagreement",
    "Evidence",
    "Statement",
    "StatementType",
    "Superseding",
]

StatementType = Literal["fact", "preference", "event", "decision"]
STATEMENT_TYPES: tuple[StatementType, ...] = ("fact", "preference", "event", "decision")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One place a statement was read from: the item, the exact bytes, the sentence, and
    the extraction tier that found it there."""

    item_id: str
    byte_range: ByteRange | None
    text: str
    tier: str
    confidence: float
    at: datetime


@dataclass(frozen=True, slots=True)
class Statement:
    """A typed claim about an entity, derived from the items that state it.

    ``valid_from`` is when it became true (its first evidence's ``occurred_at``, else a date
    in the sentence, else the write time); ``valid_to`` and ``superseded_by`` are set, never
    cleared, when a later statement of the same subject and predicate replaces it.
    ``evidence`` counts the places that state it (the same claim again corroborates it).
    ``conflicts`` names current statements from other sources that disagree with it at an
    overlapping time. Its scope is the narrowest of its sources'.
    """

    id: str
    workspace: str
    type: StatementType
    subject_id: str
    subject: str
    predicate: str
    object: str
    object_id: str | None
    scope: str
    item_id: str
    byte_range: ByteRange | None
    text: str
    tier: str
    confidence: float
    valid_from: datetime
    origin: Origin
    valid_to: datetime | None = None
    superseded_by: str | None = None
    replaces: str | None = None
    evidence: int = 1
    conflicts: tuple[str, ...] = ()

    @property
    def current(self) -> bool:
        return self.superseded_by is None and self.valid_to is None

    def holds_at(self, at: datetime) -> bool:
        """True when the statement was the current belief at ``at``."""
        return self.valid_from <= at and (self.valid_to is None or at < self.valid_to)


@dataclass(frozen=True, slots=True)
class Superseding:
    """One link of a supersession chain: ``new`` supersedes ``old``, said by ``origin``
    (``reason`` explicit: a write named it; derived: its statements were replaced;
    judged: the supersession judge said so, and ``why`` holds its version, probability
    and deciding signals)."""

    new: Item
    old: Item
    origin: Origin
    reason: str
    why: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Two current statements of one subject and predicate that disagree."""

    a: Statement
    b: Statement
