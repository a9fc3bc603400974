"""What a search returns: hits, each with its citation (and the passage around it), the
statements it replaced or that replaced it, and the verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from .items import ByteRange, Item, Locator

__all__ = [
    "SAME_SLOT",
    "Citation",
    "Hit",
    "NewerAnswer",
    "Passage",
    "Replacement",
    "SearchResult",
    "Verdict",
]

Verdict = Literal["none", "single", "many", "conflict"]

SAME_SLOT = "SAME_SLOT"
"""The edge, newer item to older, of two items the supersession judge read as answering
one slot without deciding the newer replaced the older: what makes ``NewerAnswer``."""


@dataclass(frozen=True, slots=True)
class Citation:
    """Where a hit came from: enough to stream the exact bytes back."""

    item_id: str
    file_id: str | None
    label: str
    blob_key: str | None
    text_key: str | None
    byte_range: ByteRange | None
    locator: Locator
    file_name: str | None = None
    """The cited file's name as it was added (blob keys carry no user-supplied names)."""

    def describe(self) -> str:
        """One line a person can follow: file, where in it, and the exact bytes."""
        loc = self.locator
        parts = []
        if self.blob_key:
            parts.append(self.file_name or self.blob_key.rsplit("/", 1)[-1])
        if loc.heading_path:
            parts.append(loc.breadcrumb)
        elif not self.blob_key or self.item_id != self.file_id:
            parts.append(self.label or self.item_id)
        if loc.sheet and loc.heading_path != (loc.sheet,):
            parts.append(f"sheet {loc.sheet}")
        if loc.page_start is not None:
            pages = (
                f"p. {loc.page_start}"
                if loc.page_end in (None, loc.page_start)
                else f"pp. {loc.page_start}-{loc.page_end}"
            )
            parts.append(pages)
        if self.byte_range is not None:
            # Half-open, as everywhere in orgbrain; written so, so nobody pastes the end
            # into an (inclusive) HTTP Range and gets one byte too many.
            parts.append(f"bytes [{self.byte_range.start}, {self.byte_range.end})")
        return " · ".join(parts)


@dataclass(frozen=True, slots=True)
class Passage:
    """A cited text in its place: the text just before it, the cited text itself (a
    section's exact byte range), and the text just after, from the same text blob.
    ``at_start`` / ``at_end``: nothing more of the file lies before / after."""

    item_id: str
    before: str
    text: str
    after: str
    byte_range: ByteRange | None
    locator: Locator
    at_start: bool = True
    at_end: bool = True


@dataclass(frozen=True, slots=True)
class Hit:
    item: Item
    score: float
    fused: float
    citation: Citation
    ranks: dict[str, int] = field(default_factory=dict)
    superseded_by: Citation | None = None
    """The newer item that replaced this one, in the search's time frame."""
    supersedes: Citation | None = None
    """The older item this one replaced (what the belief was before)."""
    conflicts: tuple[str, ...] = ()
    """Items holding current statements that disagree with this one's."""
    replaces: tuple[Replacement, ...] = ()
    """Statements of older items that this hit's statements replaced (each citing the
    older item), whether or not the older item as a whole is superseded."""
    replaced_by: tuple[Replacement, ...] = ()
    """This hit's statements that newer items replaced (each citing the newer item): a
    note that says two things, one of them replaced, stays current but says which."""
    newer_answer: NewerAnswer | None = None
    """A newer hit that answers what this one answers, where the judge was not sure it
    replaced this one: this hit is an older answer (``retrieve/older.py``)."""
    rerank: str = ""
    """What the reranker did with it: empty in the brain's own order, the reranker's name
    when it placed it, ``skipped: <why>`` when it failed and the brain's order stood."""

    @property
    def replaces_in_part(self) -> tuple[Replacement, ...]:
        """``replaces`` less what ``supersedes`` already says (another older item)."""
        said = self.supersedes.item_id if self.supersedes else None
        return tuple(r for r in self.replaces if r.citation.item_id != said)

    @property
    def replaced_in_part(self) -> tuple[Replacement, ...]:
        """``replaced_by`` less what ``superseded_by`` already says."""
        said = self.superseded_by.item_id if self.superseded_by else None
        return tuple(r for r in self.replaced_by if r.citation.item_id != said)


@dataclass(frozen=True, slots=True)
class NewerAnswer:
    """A newer hit of the same search on this one's slot, as the supersession judge read
    the two (``probability``, below its bar to say the newer replaced the older):
    ``citation`` cites it, ``written`` is its date."""

    citation: Citation
    written: datetime
    probability: float

    def describe(self, older: datetime) -> str:
        return (
            f"an older answer, from {older:%Y-%m-%d}; newer, from {self.written:%Y-%m-%d}: "
            f"{self.citation.describe()}"
        )


@dataclass(frozen=True, slots=True)
class Replacement:
    """One statement a newer one replaced, seen from a search hit: ``subject``'s
    ``predicate`` was ``old`` and is ``new`` now (the newer statement's object: "GitHub
    Actions", or "retired" for a thing that is gone). ``citation`` is the other item: the
    older one on the hit that replaced it, the newer one on the hit that held it."""

    subject: str
    predicate: str
    old: str
    new: str
    citation: Citation

    def describe(self) -> str:
        return f"{self.subject} {self.predicate.replace('_', ' ')}: {self.old} -> {self.new}"


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    hits: tuple[Hit, ...]
    verdict: Verdict
    reason: str
    """Why, with the gate's numbers (for logs, evaluations and ``--json``)."""
    top_score: float
    plan: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    mode: str = "current"
    """current, history or as_of: which belief the search answered with."""
    as_of: datetime | None = None
    entities: tuple[str, ...] = ()
    """The entities the query named (the graph stream's anchors), by label."""
    route: str = ""
    """Why the streams were weighted as they were (the read router's call)."""
    window: str = ""
    """The query's time as read, and the days it stands for ("last week:
    2026-11-23..2026-11-29"); empty when it names none (``retrieve.when``)."""
    why: str = ""
    """Why, in words a reader understands, with no number (``retrieve.grounds``): what
    every transport shows."""
    tier: str = ""
    """Which tier decided the verdict: ``gate``, ``judge`` or ``llm`` (the chat model, on
    a close call); "" when only the score floors did."""

    @property
    def speak(self) -> bool:
        return bool(self.hits)
