"""What an extractor returns: entity mentions, typed statements, and the tiers' protocol.

Offsets are into the text given to ``extract`` and half-open: ``text[f.start:f.end]`` is
the mention as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal, Protocol

__all__ = [
    "ENTITY_TYPES",
    "SUBJECT_TYPES",
    "Claim",
    "Extraction",
    "Extractor",
    "Found",
    "StatementType",
    "Tier",
]

StatementType = Literal["fact", "preference", "event", "decision"]
Tier = Literal["pattern", "classifier", "llm"]

STATEMENT_TYPES: tuple[StatementType, ...] = ("fact", "preference", "event", "decision")
ENTITY_TYPES = ("person", "team", "project", "system", "company", "code", "email", "handle")
# A statement's subject may also be a plain noun phrase ("billing", "deploy freeze"): a
# ``topic``. Topics are returned as entities only when a claim is about them.
SUBJECT_TYPES = (*ENTITY_TYPES, "topic")


@dataclass(frozen=True, slots=True)
class Found:
    """One mention: its type (one of ``SUBJECT_TYPES``), display value and span."""

    type: str
    value: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Claim:
    """One typed statement, with the sentence it came from as evidence.

    ``subject`` is what the statement is about: for ownership the owned thing, for a
    preference the person. ``predicate`` is canonical snake_case, so that two statements
    about the same (subject, predicate) with different objects can supersede each other.
    """

    type: StatementType
    subject: Found
    predicate: str
    object: str
    object_entity: Found | None
    start: int
    end: int
    valid_from: date | None
    replaces: str | None
    tier: Tier
    confidence: float
    change: bool = False
    """The sentence says its value is a change ("Going forward, ...", "... is now ..."): it
    replaces what the subject held before under the same wording, whatever the predicate's
    kind (docs/graph.md)."""


@dataclass(frozen=True, slots=True)
class Extraction:
    entities: tuple[Found, ...]
    claims: tuple[Claim, ...]


class Extractor(Protocol):
    def extract(self, text: str, *, known: Sequence[tuple[str, str]] = ()) -> Extraction:
        """Entities and statements in ``text``; ``known`` holds (type, value) pairs the
        brain already has: a known name found in the text is a mention of that type."""
        ...
