"""What a move was asked to do, and what it did and found (plain data)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import InvalidInput

__all__ = ["BlobCheck", "CountCheck", "MoveOptions", "MoveReport", "ProbeCheck", "Verification"]


@dataclass(frozen=True, slots=True)
class MoveOptions:
    """``batch``: records per page (one transaction each, one checkpoint each).
    ``sample``: how many blobs the verification hashes on both sides (None: every one;
    every blob's size is compared either way). ``probes``: how many searches it asks
    both brains. ``copy_blobs``: False when the new brain keeps its blobs where the old
    one has them (the same folder or bucket): they are neither copied nor looked for."""

    batch: int = 500
    sample: int | None = 50
    probes: int = 5
    copy_blobs: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.batch <= 10_000:
            raise InvalidInput(f"a batch is 1 to 10000 records, not {self.batch}")
        if self.sample is not None and self.sample < 0:
            raise InvalidInput(f"the blob sample is a count or all, not {self.sample}")
        if not 0 <= self.probes <= 100:
            raise InvalidInput(f"probes are 0 to 100 searches, not {self.probes}")


@dataclass(frozen=True, slots=True)
class CountCheck:
    """How many records of one kind one workspace holds on each side."""

    kind: str
    workspace: str
    source: int
    target: int

    @property
    def ok(self) -> bool:
        return self.source == self.target


@dataclass(frozen=True, slots=True)
class BlobCheck:
    """The blobs the new brain's items and versions name, looked at on both sides."""

    named: int = 0
    """Distinct blob keys named."""
    sized: int = 0
    """Those whose size was compared (all that the source holds)."""
    hashed: int = 0
    """Those whose bytes were hashed (SHA-256) on both sides."""
    missing: tuple[str, ...] = ()
    """Keys the source holds and the new brain does not (at most 20 listed)."""
    differ: tuple[str, ...] = ()
    """Keys whose size or hash differs (at most 20 listed)."""
    absent_in_source: int = 0
    """Keys named that the source did not hold either (nothing to copy)."""

    @property
    def ok(self) -> bool:
        return not self.missing and not self.differ


@dataclass(frozen=True, slots=True)
class ProbeCheck:
    """One search asked of both brains, and the top hit of each."""

    workspace: str
    query: str
    source_top: str | None
    target_top: str | None

    @property
    def ok(self) -> bool:
        return self.source_top == self.target_top


@dataclass(frozen=True, slots=True)
class Verification:
    counts: tuple[CountCheck, ...]
    blobs: BlobCheck
    probes: tuple[ProbeCheck, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.counts) and self.blobs.ok and all(p.ok for p in self.probes)


@dataclass(frozen=True, slots=True)
class MoveReport:
    """A move's outcome: what this run copied (a resumed run copies only what was left),
    and the verification of the whole."""

    source: str
    target: str
    resumed: bool
    copied: Mapping[str, int]
    """New records by kind this run, and ``blobs``, ``blob_bytes`` and ``keys``."""
    verification: Verification
    seconds: float
    vectors: str = "copied"
    """How the vectors came over: ``copied`` as stored (no embedding was run)."""
    notes: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.verification.ok
