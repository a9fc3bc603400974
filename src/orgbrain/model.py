"""The brain's data model: items, edges, origins, citations, and the results the services
return (search results, index reports, graph walks, injected context).

The results live here, not beside the services that make them, so that the transports'
views (``orgbrain.views``) are built from core data alone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, NamedTuple

__all__ = [
    "PROPOSAL_STATES",
    "RUN_OUTCOMES",
    "STATEMENT_TYPES",
    "STORAGE_CLASSES",
    "ByteRange",
    "Canonical",
    "Citation",
    "ContextItem",
    "Decision",
    "Disagreement",
    "Edge",
    "Evidence",
    "Forgotten",
    "History",
    "Hit",
    "Hop",
    "IndexReport",
    "Item",
    "ItemSketch",
    "Link",
    "Locator",
    "Mention",
    "Neighborhood",
    "Origin",
    "Passage",
    "Proposal",
    "ProposalState",
    "Provenance",
    "Replacement",
    "RunOutcome",
    "RunProducts",
    "SearchResult",
    "Statement",
    "StatementType",
    "StorageClass",
    "Story",
    "Superseding",
    "TurnContext",
    "Verdict",
    "Version",
    "WriteBackAck",
    "item_count",
    "storage_class_for",
    "utcnow",
]

StorageClass = Literal["file", "section", "note", "entity", "statement"]
STORAGE_CLASSES: tuple[StorageClass, ...] = ("file", "section", "note", "entity", "statement")
Verdict = Literal["none", "single", "many", "conflict"]
StatementType = Literal["fact", "preference", "event", "decision"]
STATEMENT_TYPES: tuple[StatementType, ...] = ("fact", "preference", "event", "decision")
Decision = Literal["injected", "nothing", "failed"]
Provenance = Literal["anchor", "search"]


def utcnow() -> datetime:
    return datetime.now(UTC)


def storage_class_for(kind: str) -> StorageClass:
    """Map a free-text kind to where it is stored: anything unknown is a note."""
    k = kind.strip().lower()
    if k in STORAGE_CLASSES:
        return k
    return "note"


@dataclass(frozen=True, slots=True)
class Origin:
    """Who wrote an item, through what, in which run, and when."""

    actor: str
    source: str
    at: datetime
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class Canonical:
    """A (type, value) pair for finding the same thing again, e.g. ("person", "priya")."""

    type: str
    value: str


@dataclass(frozen=True, slots=True)
class ByteRange:
    """Half-open byte range ``[start, end)`` in the text blob a section was cut from."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad byte range {self.start}..{self.end}")

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Locator:
    """Where inside a file a section lives, beyond its byte range."""

    page_start: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    heading_path: tuple[str, ...] = ()

    @property
    def breadcrumb(self) -> str:
        return " > ".join(self.heading_path)


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    workspace: str
    kind: str
    storage_class: StorageClass
    label: str
    body: str
    source_key: str
    indexed: bool
    scope: str
    origin: Origin
    summary: str = ""
    blob_key: str | None = None
    text_key: str | None = None
    byte_range: ByteRange | None = None
    locator: Locator = field(default_factory=Locator)
    canonical: Canonical | None = None
    occurred_at: datetime | None = None
    parent_id: str | None = None
    ordinal: int | None = None
    name: str | None = None
    media_type: str | None = None
    size: int | None = None
    content_hash: str | None = None
    index_error: str | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    tombstoned_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    embedding: tuple[float, ...] | None = None

    @property
    def when(self) -> datetime:
        """The time freshness counts from: when it happened, else when it was written."""
        return self.occurred_at or self.origin.at


class ItemSketch(NamedTuple):
    """What a search weighs of an item before it cites it (``Store.item_sketches``): a
    narrow read of a search's ~100 candidates, each a plain tuple, where building an
    ``Item`` of 30 fields for each was most of the candidates' cost; the hits are read
    in full. ``when`` is ``Item.when``; the other fields are ``Item``'s (``run_id`` its
    ``origin.run_id``)."""

    id: str
    workspace: str
    scope: str
    kind: str
    storage_class: StorageClass
    label: str
    body: str
    indexed: bool
    parent_id: str | None
    run_id: str | None
    when: datetime
    supersedes: str | None
    superseded_by: str | None
    tombstoned_at: datetime | None

    @classmethod
    def of(cls, item: Item) -> ItemSketch:
        """The sketch of an item read in full."""
        return cls(
            item.id,
            item.workspace,
            item.scope,
            item.kind,
            item.storage_class,
            item.label,
            item.body,
            item.indexed,
            item.parent_id,
            item.origin.run_id,
            item.when,
            item.supersedes,
            item.superseded_by,
            item.tombstoned_at,
        )


@dataclass(frozen=True, slots=True)
class Edge:
    id: str
    workspace: str
    type: str
    src: str
    dst: str
    origin: Origin
    props: dict[str, object] = field(default_factory=dict)


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

    @property
    def speak(self) -> bool:
        return bool(self.hits)


def item_count(counts: Mapping[str, int]) -> int:
    """How many items ``Store.counts`` says there are, of every class (indexed or not;
    forgotten ones and edges apart)."""
    return sum(counts.get(c, 0) for c in STORAGE_CLASSES)


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


# -- the graph -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mention:
    """One observed mention: the entity it names, the edge to it, and whether either is new."""

    entity: Item
    edge: Edge
    entity_created: bool
    edge_created: bool


@dataclass(frozen=True, slots=True)
class Link:
    edge: Edge
    created: bool


@dataclass(frozen=True, slots=True)
class Hop:
    """What one step out from the frontier reached, within the per-hop caps."""

    depth: int
    items: tuple[Item, ...]
    edges: tuple[Edge, ...]
    truncated: bool


@dataclass(frozen=True, slots=True)
class Neighborhood:
    center: Item
    hops: tuple[Hop, ...]

    @property
    def items(self) -> tuple[Item, ...]:
        return tuple(i for h in self.hops for i in h.items)

    @property
    def edges(self) -> tuple[Edge, ...]:
        return tuple(e for h in self.hops for e in h.edges)


# -- statements -----------------------------------------------------------------------


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
    (``reason`` explicit: a write named it; derived: its statements were replaced)."""

    new: Item
    old: Item
    origin: Origin
    reason: str


@dataclass(frozen=True, slots=True)
class Story:
    """An item's write story: when it was acknowledged, how its derivation went step by
    step, the statements it holds, what it supersedes and what superseded it, and for a
    file its audit pass, step by step."""

    item: Item
    acknowledged_at: datetime
    derivation: str
    """none, queued, running, done or failed."""
    steps: tuple[dict[str, object], ...]
    statements: tuple[Statement, ...]
    supersedes: tuple[Superseding, ...]
    superseded_by: tuple[Superseding, ...]
    error: str | None = None
    audit: str = "none"
    """A file's audit pass (docs/audit.md): none, queued, running, done or failed."""
    audit_steps: tuple[dict[str, object], ...] = ()
    audit_error: str | None = None


@dataclass(frozen=True, slots=True)
class Version:
    """A previous version of an item, kept when the same source key was written again with
    other content (a file's new bytes, a note's new text): what it held, who wrote it, and
    when it was replaced. ``number`` counts from 1 in write order; the item itself holds
    the newest (``History.version``). A file version's ``blob_key`` and ``text_key`` still
    name its bytes and extracted text, so it stays readable and citable."""

    item_id: str
    number: int
    label: str
    body: str
    summary: str
    origin: Origin
    replaced_at: datetime
    blob_key: str | None = None
    text_key: str | None = None
    content_hash: str | None = None
    size: int | None = None
    media_type: str | None = None
    name: str | None = None
    occurred_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class History:
    """An item's history: the item (its current version, numbered ``version``), its
    previous versions newest first, and the supersession chain through it both ways,
    nearest link first, each with its origin and reason."""

    item: Item
    version: int
    versions: tuple[Version, ...]
    supersedes: tuple[Superseding, ...]
    superseded_by: tuple[Superseding, ...]


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Two current statements of one subject and predicate that disagree."""

    a: Statement
    b: Statement


# -- read injection -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One injected item as the model sees it: where it came from and what was kept."""

    id: str
    label: str
    kind: str
    storage_class: str
    scope: str
    origin: Provenance
    score: float | None
    citation: str
    body: str
    truncated: bool


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What one turn gets: the block to prepend (empty when the brain stays quiet)."""

    text: str
    items: tuple[ContextItem, ...]
    tokens: int
    decision: Decision
    reason: str
    """Why, with the search's numbers (for the turn log and ``--json``)."""
    top_score: float = 0.0
    scores: tuple[float, ...] = ()
    dropped_anchors: tuple[str, ...] = ()
    latency_ms: float = 0.0
    event_id: int | None = None
    budget: int = 0
    error: str | None = field(default=None, repr=False)
    why: str = ""
    """Why, in words a reader understands (``SearchResult.why``), with no score."""


# -- write-back ---------------------------------------------------------------------------

RunOutcome = Literal["succeeded", "blocked", "completed"]
RUN_OUTCOMES: tuple[RunOutcome, ...] = ("succeeded", "blocked", "completed")
ProposalState = Literal["pending", "written", "approved", "rejected", "skipped"]
PROPOSAL_STATES: tuple[ProposalState, ...] = (
    "pending",
    "written",
    "approved",
    "rejected",
    "skipped",
)


@dataclass(frozen=True, slots=True)
class RunProducts:
    """What a finished run hands to write-back: its outcome, summary, decisions and
    artefacts (at most ``writeback.MAX_PRODUCT_CHARS`` characters in all), and whose run
    it was. ``user_id`` is the person the run worked for: a personal fact lands in their
    scope, and with no user a personal fact is skipped, never widened to org."""

    run_id: str
    outcome: RunOutcome
    summary: str
    decisions: tuple[str, ...] = ()
    artefacts: tuple[str, ...] = ()
    user_id: str | None = None
    scope: str = "org"
    """Where the run's organisation knowledge belongs (``org`` or ``team:<id>``)."""

    @property
    def text(self) -> str:
        """Everything the writer reads, in order: summary, decisions, artefacts."""
        return "\n".join((self.summary, *self.decisions, *self.artefacts))


@dataclass(frozen=True, slots=True)
class Proposal:
    """One thing a write-back pass proposed to remember, and what the gate (then, for the
    inbox, a reviewer) made of it.

    ``state``: ``written`` (the gate wrote it straight in), ``pending`` (waiting in the
    review inbox), ``approved`` / ``rejected`` (a reviewer decided), ``skipped`` (the gate
    dropped it; ``reason`` says why). ``item_id`` is the note it became, once written.
    ``scope`` is where it is stored and where it lands if approved; a proposal is visible
    only to whoever may approve it. It is never searched or injected while pending."""

    id: str
    workspace: str
    run_id: str
    actor: str
    kind: str
    label: str
    body: str
    scope: str
    confidence: float
    sensitivity: tuple[str, ...]
    """Why it is sensitive (no secret text): empty when it is not."""
    evidence: tuple[str, ...]
    """The lines of the run's work products it came from."""
    supersedes: tuple[str, ...]
    """Items it would replace, when written."""
    state: ProposalState
    reason: str
    """The gate's reason for its decision."""
    created_at: datetime
    writer: str = "offline"
    item_id: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    review_reason: str | None = None


@dataclass(frozen=True, slots=True)
class WriteBackAck:
    """A write-back request's acknowledgement: the pass is a durable job (``job_id``,
    ``state`` queued, running, done or failed). ``created`` is False when this run was
    already written back (one pass per run). Once the pass is done, ``counts`` says how
    many proposals the gate wrote, queued for review and skipped (by state; no text),
    and ``proposals`` holds those this reader may review."""

    run_id: str
    job_id: str
    state: str
    created: bool
    proposals: tuple[Proposal, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None
