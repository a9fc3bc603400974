"""The seams between the core and the outside world, as ``typing.Protocol`` classes.

Adapters live in ``orgbrain.adapters``; every adapter of a port passes the same contract
suite in ``tests/contract``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Literal, Protocol, get_args, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from .model import (
    Edge,
    Evidence,
    Item,
    ItemSketch,
    Proposal,
    ProposalState,
    Statement,
    StorageClass,
    Version,
)
from .scopes import Visibility

__all__ = [
    "EVENT_ROLLUPS",
    "RECORD_KINDS",
    "BlobStore",
    "Embedder",
    "ItemFilter",
    "Job",
    "JobBacklog",
    "JobPage",
    "JobQueue",
    "JobRequest",
    "JobState",
    "JobTiming",
    "Page",
    "PrefixedEmbedder",
    "QueryEmbedder",
    "Record",
    "RecordKind",
    "RecordPage",
    "Reranker",
    "ScoredId",
    "Store",
    "Tokenizer",
    "Vector",
]

Vector = NDArray[np.float32]
ScoredId = tuple[str, float]


@dataclass(frozen=True, slots=True)
class ItemFilter:
    """Which items a listing holds; forgotten (tombstoned) items never, unless asked."""

    storage_class: StorageClass | None = None
    storage_classes: tuple[StorageClass, ...] | None = None
    kind: str | None = None
    indexed: bool | None = None
    name_contains: str | None = None
    parent_id: str | None = None
    run_id: str | None = None
    tombstoned: bool = False
    forgotten_only: bool = False
    """Only tombstoned items (what ``forget.finish_forgets`` looks through)."""
    newest_first: bool = False
    """List in reverse write order (the cursor then pages backwards)."""


@dataclass(frozen=True, slots=True)
class Page:
    items: tuple[Item, ...]
    next_cursor: str | None


RecordKind = Literal[
    "items", "versions", "edges", "statements", "evidence", "events", "proposals", "jobs"
]
"""What a store holds, kind by kind, as a move to another store carries it
(``Store.export_records``); in the order a move copies them."""
RECORD_KINDS: tuple[RecordKind, ...] = get_args(RecordKind)

Record = Mapping[str, object]
"""One stored row as a move carries it between stores of any kind: its columns by name
(times as aware datetimes, flags as booleans, JSON columns as their text), an event's
sequence number as ``id``, and an item's stored vectors as ``vectors`` (rows of float32,
its own first; None when it has none)."""


EVENT_ROLLUPS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "search": ("surface", "spoke", "latency_ms", "error"),
        "gate": ("decision",),
        "review": ("outcome", "waited_s"),
        "writeback": (),
    }
)
"""The event kinds a ``Store`` keeps running counts of, and the fields it counts them by
(``Store.rolled_counts``): per UTC day and month, by anyone, per actor and per ``scope``,
kept in the same transaction as each event (docs/loop.md, "Counting at scale")."""


@dataclass(frozen=True, slots=True)
class RecordPage:
    records: tuple[Record, ...]
    next_after: int | None
    """Where the next page starts (pass it as ``after``); None when this was the last."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension. ``name`` names the
    model (two adapters giving the same vectors give the same name). A model that wants
    text before queries and passages states it as ``prefixes`` (``PrefixedEmbedder``);
    an embedder without it puts none."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vector:
        """Return an ``(len(texts), dim)`` float32 array of L2-normalised rows."""
        ...


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An embedder with a cheaper path for one search query (lower precision, say): its
    vector only ranks documents that ``embed`` gave theirs, so it may differ from
    ``embed([text])[0]`` by rounding, never in meaning."""

    def embed_query(self, text: str) -> Vector:
        """``text``'s ``(dim,)`` float32 unit vector."""
        ...


@runtime_checkable
class PrefixedEmbedder(Embedder, Protocol):
    @property
    def prefixes(self) -> tuple[str, str]:
        """(query prefix, passage prefix): e5-style models want ("query: ", "passage: ")."""
        ...


class Tokenizer(Protocol):
    """Counts and cuts text in tokens."""

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` of at most ``max_tokens`` tokens."""
        ...


class Reranker(Protocol):
    """Judges how well each passage answers a query: one score per document, higher is
    better, in the documents' order. Raises ``OrgBrainError`` when it cannot judge (the
    search then keeps its own order: reads fail open)."""

    @property
    def name(self) -> str: ...

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]: ...


class BlobStore(Protocol):
    """Raw bytes by key. ``put`` is atomic: a failed or oversize put leaves nothing."""

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int | None = None) -> int: ...

    def read(self, key: str) -> bytes: ...

    def stream(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]: ...

    def size(self, key: str) -> int: ...

    def exists(self, key: str) -> bool: ...

    def delete_prefix(self, prefix: str) -> None: ...

    def keys(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        """Every blob under ``prefix`` (a folder), with when it was last written."""
        ...

    def clear_partial(self, older_than: datetime) -> int:
        """Remove what puts that never finished left behind (a crash mid-write) and that
        is older than ``older_than``; return how many were removed."""
        ...

    def settled_before(self) -> datetime | None:
        """A time before which every put into this store has finished or was abandoned
        by a writer that is gone: when no other live process may be writing, the moment
        this process began to (its own puts start after it). None when another writer
        lives, or the store cannot tell: then only a blob's age says it is abandoned."""
        ...


class Store(Protocol):
    """Items, edges and their indexes for many workspaces.

    Every method takes the workspace and filters on it; every read takes a ``Visibility``
    and applies it inside the query, so limits are filled with visible rows. Writes commit
    durably (fsynced) before they return.
    """

    embedding_dim: int | None
    read_only: bool
    """True where the store takes no writes (a PostgreSQL replica): a write fails with
    ``Unavailable``, and upkeep that writes on open is left to the primary."""

    def close(self) -> None: ...

    def bind_embedder(self, name: str, dim: int, prefixes: tuple[str, str] = ("", "")) -> None:
        """Record the embedding space (``space.py``) this store's vectors live in, or
        refuse with ``Conflict`` an embedder of another space instead of mixing vectors."""
        ...

    def put_item(self, item: Item, embedding: Vector | None = None) -> Item:
        """Insert, or update the item with the same (workspace, scope, source_key). An
        update that replaces a file's bytes or a note's text keeps what the row held as a
        previous version (``versions``), in the same transaction.

        ``embedding`` is one vector, or rows of vectors: the item's own first, then its
        passages' (``vector_search`` scores an item by its best row)."""
        ...

    def put_items(self, items: Sequence[tuple[Item, Vector | None]]) -> list[Item]:
        """``put_item`` for many, in one transaction: all or nothing."""
        ...

    def get_item(self, workspace: str, item_id: str, visibility: Visibility) -> Item | None: ...

    def get_items(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, Item]: ...

    def item_sketches(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, ItemSketch]:
        """``get_items``' narrow read: for each of ``ids`` that ``get_items`` would give,
        its ``ItemSketch`` (what a search weighs of a candidate), by id."""
        ...

    def get_by_source_key(
        self, workspace: str, source_key: str, visibility: Visibility, *, scope: str
    ) -> Item | None:
        """The item ``source_key`` names in ``scope``. A source key is unique per
        (workspace, scope): the same key in two scopes is two items, so a writer never
        learns of, updates or moves an item in a scope it cannot see."""
        ...

    def list_items(
        self,
        workspace: str,
        filter: ItemFilter,
        visibility: Visibility,
        *,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page: ...

    def commit_index(
        self,
        file: Item,
        file_embedding: Vector | None,
        sections: Sequence[tuple[Item, Vector]],
        edge_origin_actor: str,
    ) -> list[Item]:
        """Atomically: mark the file indexed, upsert its sections by source key, link
        ``HAS_SECTION`` edges, and drop sections of this file not in ``sections``.

        Only if the item still holds the version ``file`` was read as (its content hash
        and blob key); otherwise ``Conflict``, and nothing is written."""
        ...

    def set_index_error(
        self, workspace: str, item_id: str, error: str | None, *, content_hash: str | None = None
    ) -> None:
        """Record (or clear) why a file could not be indexed; with ``content_hash``, only
        while the item still holds that version (a newer one is not blamed)."""
        ...

    def unindex_children(self, workspace: str, parent_id: str) -> None:
        """Take a file's sections out of answers (their file's bytes changed)."""
        ...

    def set_keys(self, workspace: str, keys: Mapping[str, str]) -> None:
        """Set items' keys (item id -> text): keyword-only text, searched by
        ``keyword_search`` with the item's label and body, and nothing else: never in an
        ``Item``, a citation or a vector. Every process's keyword index sees the change.
        A later ``put_item`` keeps an item's keys, unless it moves the item to another
        scope or tombstones it: then they are emptied (they were chosen for where the item
        was). Unknown ids are skipped."""
        ...

    def keyword_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        terms: Sequence[str],
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        """BM25 over label, body and keys (``set_keys``) of answerable items, best first
        (higher is better)."""
        ...

    def vector_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        vector: Vector,
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        """Cosine similarity over answerable items' embeddings, best first; an item of
        several vectors scores its best one and is listed once."""
        ...

    def put_edge(self, edge: Edge) -> Edge:
        """Insert an edge; the same (type, src, dst, key) again returns the existing one."""
        ...

    def edges_of(
        self,
        workspace: str,
        item_id: str,
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[Edge]:
        """Edges with ``item_id`` at either end (of ``types``, if given) whose both ends
        ``visibility`` allows, oldest first; at most ``limit`` of them."""
        ...

    def edges_around(
        self,
        workspace: str,
        item_ids: Sequence[str],
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> dict[str, list[Edge]]:
        """``edges_of`` for each of ``item_ids`` in one read: by id, its edges (of
        ``types``) whose both ends ``visibility`` allows, oldest first, at most ``limit``
        each; an edge between two of the ids is listed under both, and an id without
        edges is left out."""
        ...

    def counts(self, workspace: str) -> dict[str, int]:
        """Items per class (``file``, ``note``, ...) and indexed per class
        (``file_indexed``), forgotten ones apart (``forgotten``), and ``edges``."""
        ...

    def workspaces(self) -> list[str]:
        """Every workspace that holds an item, sorted."""
        ...

    def log_event(
        self, workspace: str, kind: str, record: dict[str, object], *, durable: bool = True
    ) -> int:
        """Append a JSON record to the workspace's log (e.g. kind "turn"); returns its id.

        ``durable=False`` is for statistics (a search event): committed and readable at
        once, in order, but not flushed to disk on its own, so a crash of the machine (not
        of the process) may lose it until the next durable write flushes the log."""
        ...

    def events(
        self, workspace: str, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        """The most recent records of ``kind``, newest first, each with ``id`` and ``at``."""
        ...

    def events_after(
        self,
        workspace: str,
        after: int,
        *,
        kinds: Sequence[str] | None = None,
        subject: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, object]]:
        """Records after sequence number ``after`` (of ``kinds``, about item ``subject``),
        oldest first, each with ``id`` (its sequence number, increasing), ``kind``, ``at``."""
        ...

    def event_counts(
        self,
        workspace: str,
        kind: str,
        by: Sequence[str],
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        """How many records of ``kind`` there are per distinct value of their fields
        ``by`` (a tuple in that order; a field a record lacks is None, and a value keeps
        its JSON type: ``true`` is ``True``), counting only those logged at or after
        ``since``, by ``actor``, and whose ``scope`` field is one of ``scopes``.
        ``by`` names plain top-level fields (letters, digits, ``_``); else InvalidInput."""
        ...

    def rolled_counts(
        self,
        workspace: str,
        kind: str,
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        """Exactly ``event_counts(workspace, kind, EVENT_ROLLUPS[kind], since=since,
        actor=actor, scopes=scopes)``, read from the running counts kept with each event
        (whole days and months) and the events of the part of a day ``since`` falls in: its
        cost grows with the days in the window and the distinct values counted, not with
        the events. ``kind`` is one of ``EVENT_ROLLUPS``, and ``actor`` and ``scopes`` are
        not given together; else InvalidInput."""
        ...

    # -- the typed graph ----------------------------------------------------------------

    def entities_named(
        self, workspace: str, values: Sequence[str], visibility: Visibility
    ) -> list[Item]:
        """Visible entities whose canonical value is one of ``values``."""
        ...

    def embedding_of(self, workspace: str, item_id: str) -> Vector | None:
        """An item's vectors, one row each (its own first), or None."""
        ...

    def put_statement(self, statement: Statement) -> tuple[Statement, bool]:
        """Insert a statement with its first evidence, or return the one with its id
        (and whether it is new). Idempotent: the same id again changes nothing."""
        ...

    def add_evidence(self, workspace: str, statement_id: str, evidence: Evidence) -> bool:
        """Another place stating a statement (corroboration); False if already recorded."""
        ...

    def statements(
        self,
        workspace: str,
        visibility: Visibility,
        *,
        ids: Sequence[str] | None = None,
        subject_ids: Sequence[str] | None = None,
        object_ids: Sequence[str] | None = None,
        predicate: str | None = None,
        item_id: str | None = None,
        item_ids: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        linked_to: Sequence[str] | None = None,
        current: bool | None = None,
        conflicted: bool = False,
        live: bool = True,
        limit: int = 500,
    ) -> list[Statement]:
        """Statements matching every filter given, oldest ``valid_from`` first. ``live``
        keeps only those with evidence in a visible item that is not forgotten;
        ``item_id``: those with evidence in that item, ``item_ids``: in any of those;
        ``linked_to``: those on the other side of a supersession link of any of those
        statements (that one of them replaced, or that replaced one of them)."""
        ...

    def evidence(self, workspace: str, statement_id: str, visibility: Visibility) -> list[Evidence]:
        """Where a statement was read, in visible items that are not forgotten."""
        ...

    def end_statement(
        self, workspace: str, statement_id: str, valid_to: datetime, superseded_by: str
    ) -> bool:
        """Close a current statement (once): valid until ``valid_to``, replaced by
        ``superseded_by``."""
        ...

    def flag_conflict(self, workspace: str, a: str, b: str) -> None:
        """Mark two statements as disagreeing (both kept, both flagged)."""
        ...

    def versions(self, workspace: str, item_id: str, visibility: Visibility) -> list[Version]:
        """An item's previous versions, newest first (none if ``visibility`` does not
        allow its scope). Kept for files and notes when their content was replaced."""
        ...

    def erase_versions(self, workspace: str, item_id: str) -> list[str]:
        """Delete an item's previous versions; return the blob keys they named, for the
        caller to delete (``erase``)."""
        ...

    def purge_derived(self, workspace: str, item_ids: Sequence[str], *, erase: bool) -> list[str]:
        """Take what derivation copied of the forgotten items ``item_ids`` out of the store:
        their statement evidence (a statement left with none goes, and what it replaced
        holds again), their mention edges, and the entities nothing else names (deleted;
        their ids are returned). Links at them (``supersedes``, ``superseded_by``) move to
        the next live claim or are cleared. With ``erase``, every edge touching them and
        their derivation log go too, and no erased word is left in the store's files."""
        ...

    def supersede_item(self, edge: Edge) -> bool:
        """Record a ``SUPERSEDES`` edge (new ``src`` → old ``dst``): the old item's
        ``superseded_by`` and the new one's ``supersedes`` are set once, never moved."""
        ...

    # -- write-back proposals -----------------------------------------------------------

    def put_proposal(self, proposal: Proposal) -> tuple[Proposal, bool]:
        """Store a proposal, or return the one with its id (and whether it is new)."""
        ...

    def proposal(self, workspace: str, proposal_id: str) -> Proposal | None:
        """One proposal, whoever may see it (the caller checks)."""
        ...

    def proposals(
        self,
        workspace: str,
        *,
        scopes: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        run_id: str | None = None,
        limit: int = 100,
    ) -> list[Proposal]:
        """Proposals at one of ``scopes`` (None: any), in one of ``states``, of one run;
        oldest first."""
        ...

    def pending_proposals(
        self, workspace: str, *, scopes: Sequence[str] | None = None
    ) -> tuple[int, datetime | None]:
        """The review inbox's size: how many proposals at one of ``scopes`` (None: any)
        are pending, and when the oldest of them was stored (None when none is)."""
        ...

    def decide_proposal(
        self,
        workspace: str,
        proposal_id: str,
        state: ProposalState,
        *,
        decided_by: str,
        decided_at: datetime,
        reason: str | None,
        label: str | None = None,
        body: str | None = None,
    ) -> bool:
        """Move a pending proposal to ``state`` (with an edited label or body); False if
        it was no longer pending. Once: two reviewers cannot both decide."""
        ...

    def proposal_written(self, workspace: str, proposal_id: str, item_id: str) -> None:
        """Record the note a written or approved proposal became (once)."""
        ...

    # -- moving house (orgbrain migrate) ------------------------------------------------

    def export_records(self, kind: RecordKind, *, after: int = 0, limit: int = 500) -> RecordPage:
        """Up to ``limit`` records of ``kind``, every workspace's, forgotten ones too, in
        the order they are stored, from just past position ``after`` (0: the first)."""
        ...

    def import_records(
        self, kind: RecordKind, records: Sequence[Record], *, mark: tuple[str, str] | None = None
    ) -> int:
        """Store exported records exactly as they were (ids, numbers, times, origins,
        scopes, vectors), in one transaction, with the keyword and vector indexes that
        follow from them; a record already here (its id, or its numbered place) is left
        as it is, so importing a page again adds nothing. With ``mark`` (name, value),
        record that value under the name in the same transaction (``mark``). Returns how
        many records were new."""
        ...

    def count_records(self, kind: RecordKind) -> dict[str, int]:
        """How many records of ``kind`` each workspace holds (forgotten ones too)."""
        ...

    def mark(self, name: str) -> str | None:
        """The value last recorded under ``name`` (``import_records``, ``set_mark``, or a
        migration that asks for a one-off pass), or None."""
        ...

    def set_mark(self, name: str, value: str) -> None:
        """Record ``value`` under ``name`` (a one-off pass done, say)."""
        ...


# -- durable jobs -------------------------------------------------------------------------

JobState = Literal["queued", "running", "done", "failed"]


@dataclass(frozen=True, slots=True)
class Job:
    """One unit of durable background work, as its queue holds it.

    ``key`` is its identity within the workspace: asking again with the same key gives
    this job back instead of a second one. ``subject`` is the item it is about, if any.
    ``attempts`` counts claims; a claim holds the job until ``lease_until``.
    """

    id: str
    workspace: str
    kind: str
    key: str
    payload: Mapping[str, object]
    state: JobState
    attempts: int
    max_attempts: int
    run_after: datetime
    actor: str
    created_at: datetime
    updated_at: datetime
    subject: str | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None
    last_error: str | None = None
    finished_at: datetime | None = None


JobRequest = tuple[str, Mapping[str, object], str | None]
"""One job asked for in ``JobQueue.enqueue_many``: its key, payload and subject."""


@dataclass(frozen=True, slots=True)
class JobPage:
    jobs: tuple[Job, ...]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class JobBacklog:
    """How many of one kind's jobs are in one state, and when the oldest was asked for."""

    kind: str
    state: JobState
    count: int
    oldest: datetime
    """The oldest one's ``created_at``."""


@dataclass(frozen=True, slots=True)
class JobTiming:
    """A done job's kind, when it was asked for and when it was done."""

    kind: str
    created_at: datetime
    finished_at: datetime


class JobQueue(Protocol):
    """Durable jobs with leases. Every write is durable (fsynced) before it returns, and
    every adapter passes ``tests/contract/test_jobs_contract.py``.

    A job is ``queued`` until a worker claims it (``running``, under a lease), then
    ``done`` or ``failed``; a failure with a retry goes back to ``queued`` until its
    ``run_after``. A ``running`` job whose lease has expired (its worker died) is
    claimable again. Only the lease's owner may extend, complete or fail a job, so a
    worker that lost its lease cannot overwrite the outcome of the one that took it over.
    """

    def close(self) -> None: ...

    def enqueue(
        self,
        workspace: str,
        kind: str,
        key: str,
        payload: Mapping[str, object],
        *,
        actor: str,
        subject: str | None = None,
        max_attempts: int = 5,
    ) -> Job:
        """Add a queued job, or return the job that already has ``(workspace, key)``:
        never a second one. A ``done`` job is returned as it is (it is not run again); a
        ``failed`` one is queued again, its attempts reset (an explicit retry)."""
        ...

    def enqueue_many(
        self,
        workspace: str,
        kind: str,
        requests: Sequence[JobRequest],
        *,
        actor: str,
        max_attempts: int = 5,
    ) -> list[Job]:
        """``enqueue`` for many jobs of one kind, in one durable write (all or nothing)."""
        ...

    def claim(
        self,
        owner: str,
        kinds: Sequence[str],
        *,
        limit: int = 1,
        lease_s: float = 60.0,
        keys: tuple[str, Sequence[str]] | None = None,
    ) -> list[Job]:
        """Atomically take up to ``limit`` ready jobs of ``kinds`` of one workspace, oldest
        first: queued ones whose ``run_after`` has come and running ones whose lease
        expired. The workspace is one with no job of ``kinds`` running under a live lease
        if there is one, then the one served least recently (the latest ``updated_at`` of
        its claimed or settled jobs of ``kinds``), then the one with the oldest ready job:
        a slow job never holds another workspace's jobs, and workspaces take turns.
        Each job is ``running`` under ``owner`` for ``lease_s`` seconds, its ``attempts``
        one higher. A job whose lease expired on its last attempt is failed instead.

        ``keys``, a workspace and keys in it, takes (and fails) only those jobs: a
        writer waiting for its own writes' jobs leaves every other job to the workers."""
        ...

    def extend(self, job_ids: Sequence[str], owner: str, lease_s: float) -> list[str]:
        """Renew ``owner``'s leases on ``job_ids`` for ``lease_s`` seconds from now;
        returns the ids it still holds."""
        ...

    def complete(self, job_id: str, owner: str) -> bool:
        """Mark a job ``owner`` holds ``done``; False if it no longer holds it."""
        ...

    def fail(self, job_id: str, owner: str, error: str, *, retry_in: float | None = None) -> bool:
        """Record ``error`` on a job ``owner`` holds: queued again ``retry_in`` seconds
        from now while attempts remain, else (or with no ``retry_in``) ``failed``. False
        if ``owner`` no longer holds it."""
        ...

    def get(self, job_id: str) -> Job | None: ...

    def find(self, workspace: str, keys: Sequence[str]) -> dict[str, Job]:
        """The jobs with these keys in ``workspace``, by key (absent keys left out)."""
        ...

    def list_jobs(
        self,
        workspace: str | None,
        *,
        state: JobState | None = None,
        kind: str | None = None,
        actor: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> JobPage:
        """Jobs newest first (of one workspace, or all for ``None``), a page at a time."""
        ...

    def counts(self) -> dict[JobState, int]:
        """How many jobs are in each state, across workspaces."""
        ...

    def backlog(self, workspace: str, *, actor: str | None = None) -> list[JobBacklog]:
        """``workspace``'s queued, running and failed jobs (asked for by ``actor``, None:
        anyone's) per kind and state: how many, and the oldest one's ``created_at``;
        sorted by kind, then state. Kinds and states with no job are left out."""
        ...

    def finished(
        self,
        workspace: str,
        *,
        actor: str | None = None,
        since: datetime | None = None,
        limit: int = 1000,
    ) -> list[JobTiming]:
        """``workspace``'s done jobs (by ``actor``; done at or after ``since``), the most
        recently asked for first, at most ``limit``."""
        ...


__all__ += ["Chat"]  # appended here so the list above stays as other branches edit it


@runtime_checkable
class Chat(Protocol):
    """An LLM behind an OpenAI-compatible chat API: messages in, the reply's text out."""

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json: bool = False,
        timeout: float | None = None,
    ) -> str:
        """The assistant's reply to ``messages`` (``role``/``content`` maps); ``json`` asks
        the model for a JSON object. Raises ``Unavailable`` when the server fails."""
        ...
