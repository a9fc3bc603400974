"""Moving house (``orgbrain migrate``): an embedded brain copied into a server store and a
bucket, resumably, then verified (docs/postgres.md, "Moving house")."""

from ..move_report import BlobCheck, CountCheck, MoveOptions, MoveReport, ProbeCheck, Verification
from .copy import MARK, House, Progress, move, source_fingerprint
from .verify import verify

__all__ = [
    "MARK",
    "BlobCheck",
    "CountCheck",
    "House",
    "MoveOptions",
    "MoveReport",
    "ProbeCheck",
    "Progress",
    "Verification",
    "move",
    "source_fingerprint",
    "verify",
]
