"""The Brain facade: the one object every transport (CLI, HTTP, MCP) talks to.

It holds a ``BrainContext`` (the ports, settings and reader) and calls the services with
it; no service holds a ``Brain``, and the facade exposes no port.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import cast

from .. import adding, writes
from .. import forget as forgetting
from .. import sweep as sweeping
from ..adding import WAITS, Wait, check_wait
from ..context import BrainContext
from ..errors import InvalidInput
from ..indexer import Indexer, IndexReport
from ..model import STORAGE_CLASSES, Forgotten, Item, SearchResult, StorageClass
from ..ports import Embedder, ItemFilter, Page, QueryEmbedder
from ..retrieve import (
    Mode,
    Searcher,
    SearchPlan,
    Trace,
    check_surface,
    get_plan,
    logged_search,
    time_frame,
)
from ..scopes import Principal, Visibility
from ..settings import Settings
from ..writes import FileSource, NoteInput
from .graph import GraphFacade
from .history import HistoryFacade
from .indexing import IndexingFacade
from .jobs import JobsFacade
from .loop import LoopFacade
from .memory import MemoryFacade
from .moving import MovingFacade
from .reading import PASSAGE_AROUND, ReadingFacade
from .space import SpaceFacade
from .writeback import WriteBackFacade

__all__ = ["PASSAGE_AROUND", "WAITS", "Brain", "IndexReport", "NoteInput", "Wait", "check_wait"]


class Brain(
    IndexingFacade,
    ReadingFacade,
    JobsFacade,
    GraphFacade,
    MemoryFacade,
    HistoryFacade,
    WriteBackFacade,
    LoopFacade,
    MovingFacade,
    SpaceFacade,
):
    """One workspace's memory, seen by one reader.

    ``Brain.open(path)`` is the embedded default: a local owner who sees everything.
    ``brain.for_principal(p)`` is the same brain seen through a principal's scopes.
    """

    def __init__(self, ctx: BrainContext) -> None:
        self._ctx = ctx
        self._searcher = Searcher(ctx)
        self._indexer = Indexer(ctx)

    # -- construction -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        workspace: str | None = None,
        blobs: str | None = None,
    ) -> Brain:
        """Open (or create) a brain: an embedded one in folder ``path``
        (``<path>/brain.sqlite`` and ``<path>/blobs``), or, for a ``postgresql://`` URL
        (or ``ORGBRAIN_STORE`` in the settings, with no path), one on PostgreSQL
        (docs/postgres.md). ``blobs`` (or ``settings.blobs``, ``ORGBRAIN_BLOBS``) puts
        files' bytes in an S3-compatible bucket instead, ``s3://bucket/prefix``
        (docs/s3.md)."""
        from ..compose import open_context

        if blobs is not None:
            settings = replace(settings or Settings(), blobs=blobs)
        return cls(open_context(path, embedder=embedder, settings=settings, workspace=workspace))

    @classmethod
    def in_memory(
        cls,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        workspace: str | None = None,
    ) -> Brain:
        """A new brain held in this process's memory: the same rules as an embedded one,
        nothing written to disk, gone when the process ends (for tests and throwaway
        brains; docs/architecture.md)."""
        from ..compose import open_memory

        return cls(open_memory(embedder=embedder, settings=settings, workspace=workspace))

    def for_principal(self, principal: Principal) -> Brain:
        """The same brain, seen and written by ``principal`` (its scopes, its workspace)."""
        return Brain(self._ctx.for_principal(principal))

    def for_workspace(self, workspace: str) -> Brain:
        """The same ports, seen by their local owner in ``workspace`` (for the server and
        workers, which serve every workspace of a store)."""
        return Brain(replace(self._ctx, workspace=workspace, principal=None))

    def acting_as(self, actor: str) -> Brain:
        """The same brain and reader, writing with another origin actor (e.g. an agent)."""
        return Brain(self._ctx.acting_as(actor))

    def via(self, surface: str) -> Brain:
        """The same brain and reader, its searches logged as coming from ``surface``
        (``cli``, ``http``, ``mcp``, ``tool``; ``python`` by default): what
        ``orgbrain stats`` counts them under."""
        return Brain(replace(self._ctx, surface=check_surface(surface)))

    def with_clock(self, clock: Callable[[], datetime]) -> Brain:
        """The same brain and reader on another clock: what "now" is to it, so what
        "last week" in a query means and what freshness counts from (an evaluation asks
        each question on its own date). Unlike ``as_of`` it hides nothing."""
        return Brain(replace(self._ctx, clock=clock))

    def without_search_log(self) -> Brain:
        """The same brain and reader, its searches not logged (evaluations, which search
        thousands of times and are no one's use of the brain)."""
        return Brain(replace(self._ctx, search_log=False))

    @property
    def surface(self) -> str:
        return self._ctx.surface

    @property
    def workspace(self) -> str:
        return self._ctx.workspace

    @property
    def principal(self) -> Principal | None:
        return self._ctx.principal

    @property
    def visibility(self) -> Visibility:
        return self._ctx.visibility

    @property
    def actor(self) -> str:
        return self._ctx.actor

    @property
    def settings(self) -> Settings:
        return self._ctx.settings

    def close(self) -> None:
        if self._ctx.jobs is not None:
            self._ctx.jobs.close()
        self._ctx.store.close()

    def __enter__(self) -> Brain:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def check_store(self) -> None:
        """Raise unless the store answers a read."""
        self._ctx.items.get_item(self.workspace, "readyz", Visibility.everything())

    def sweep(self, grace: timedelta = sweeping.GRACE) -> sweeping.SweepReport:
        """Finish the forgets a crash interrupted, then remove blobs no committed item
        names and partial writes older than ``grace``, in every workspace (``sweep.py``)."""
        return sweeping.sweep(self._ctx, grace)

    def warm_up(self) -> None:
        """Load the embedding model now (the first embed loads it; it stays loaded), and
        its query path when it has one (``QueryEmbedder``: packed at its first query)."""
        embedder = self._ctx.embedder
        embedder.embed(["warm up"])
        if isinstance(embedder, QueryEmbedder):
            embedder.embed_query("warm up")

    # -- add ----------------------------------------------------------------------------

    def add_file(
        self,
        source: FileSource,
        *,
        name: str | None = None,
        kind: str = "file",
        label: str | None = None,
        scope: str | None = None,
        source_key: str | None = None,
        occurred_at: datetime | None = None,
        index: bool = False,
        run_id: str | None = None,
        wait: Wait = "ack",
        supersedes: Sequence[str] = (),
    ) -> Item:
        """Store a file's bytes and an unindexed item (findable by name, not answerable).

        ``source`` is a path, the bytes, or a binary stream (read in pieces, never whole).
        The same ``source_key`` (default ``file:<name>``) names the same item: the same
        bytes change nothing; new bytes become its current version (out of answers until
        reindexed: at once, when the previous one was indexed) and the previous one stays
        in its history, bytes and all.
        ``supersedes`` names visible files or notes this one replaces (checked before
        anything is stored). ``wait="derived"`` (with ``index``) returns once its sections'
        derivation is done.
        """
        return adding.add_file(
            self._ctx,
            source,
            name=name,
            kind=kind,
            label=label,
            scope=scope,
            source_key=source_key,
            occurred_at=occurred_at,
            index=index,
            run_id=run_id,
            wait=wait,
            supersedes=supersedes,
        )

    def add_note(
        self,
        body: str,
        *,
        kind: str = "note",
        label: str | None = None,
        scope: str | None = None,
        source_key: str | None = None,
        occurred_at: datetime | None = None,
        run_id: str | None = None,
        source: str = "note",
        wait: Wait = "ack",
        supersedes: Sequence[str] = (),
    ) -> Item:
        """Write a fact straight in: embedded and answerable once this returns (fsynced).

        The same ``source_key`` with other text makes this the item's current version and
        keeps the previous one in its history. ``supersedes`` names visible files or
        notes this replaces (checked before anything is written). Its derivation
        (entities, statements, supersession, edges) is queued; with ``wait="derived"``
        this returns once that is done too (``Unavailable`` after
        ``settings.derive_wait_s``: the note is written, its derivation goes on)."""
        note = NoteInput(
            body, kind, label, scope, source_key, occurred_at, run_id, source, supersedes
        )
        return self.add_notes([note], wait=wait)[0]

    def add_notes(self, notes: Sequence[NoteInput], *, wait: Wait = "ack") -> list[Item]:
        """Write many notes in one transaction (all or nothing), embedded in batches."""
        check_wait(wait)
        items = writes.add_notes(self._ctx, notes)
        return self._waited(items, wait)

    def _waited(self, items: list[Item], wait: Wait) -> list[Item]:
        if wait == "derived":
            self.wait_derived(items, self._ctx.settings.derive_wait_s)
            found = self.get_many([i.id for i in items])
            items = [found.get(i.id, i) for i in items]
        return items

    # -- read ---------------------------------------------------------------------------

    def get(self, item_id: str) -> Item:
        return self._ctx.get(item_id)

    def get_many(self, ids: Sequence[str]) -> dict[str, Item]:
        """The visible items among ``ids``, by id."""
        return self._ctx.get_many(ids)

    def items(
        self,
        *,
        kind: str | None = None,
        storage_class: str | None = None,
        storage_classes: Sequence[str] | None = None,
        indexed: bool | None = None,
        name: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
        newest_first: bool = False,
    ) -> Page:
        """Visible items, oldest first (``newest_first``: the latest first), a page at a
        time; ``storage_classes`` lists only those classes (e.g. files and notes, without
        the sections cut from the files)."""
        for c in (storage_class, *(storage_classes or ())):
            if c is not None and c not in STORAGE_CLASSES:
                raise InvalidInput(f"unknown storage class {c!r}")
        if not 1 <= limit <= 1000:
            raise InvalidInput("limit must be between 1 and 1000")
        page = self._ctx.items.list_items(
            self.workspace,
            ItemFilter(
                storage_class=cast("StorageClass | None", storage_class),
                storage_classes=None
                if storage_classes is None
                else tuple(cast("StorageClass", c) for c in storage_classes),
                kind=kind,
                indexed=indexed,
                name_contains=name,
                newest_first=newest_first,
            ),
            self.visibility,
            limit=limit,
            cursor=cursor,
        )
        return Page(tuple(i for i in page.items if self._ctx.visible(i)), page.next_cursor)

    def sections(self, file_id: str) -> list[Item]:
        """A file's sections in order, all of them."""
        return self._ctx.sections_of(self.get(file_id).id)

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        plan: SearchPlan | str | None = None,
        kind: str | None = None,
        mode: Mode | None = None,
        as_of: datetime | None = None,
    ) -> SearchResult:
        """Cited hits for ``query`` and the verdict on them (``single``, ``many``,
        ``conflict`` or ``none``).

        ``mode`` ``current`` (the default) answers with the current belief: a superseded
        item ranks below what superseded it and says so. ``history`` leaves supersession
        out of the ranking (still marked). ``as_of`` (or just passing ``as_of``) answers as
        the brain believed at that date: nothing that happened later counts."""
        return self.search_traced(query, k=k, plan=plan, kind=kind, mode=mode, as_of=as_of)[0]

    def search_traced(
        self,
        query: str,
        *,
        k: int | None = None,
        plan: SearchPlan | str | None = None,
        kind: str | None = None,
        evidence_depth: int | None = None,
        mode: Mode | None = None,
        as_of: datetime | None = None,
    ) -> tuple[SearchResult, Trace]:
        """``search``, and what it saw on the way to its verdict (for evaluations)."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("a search needs a query")
        frame = time_frame(mode, as_of)
        if k is not None and k < 1:
            raise InvalidInput("k must be at least 1")
        if isinstance(plan, str):
            p = get_plan(plan)
        else:
            p = plan or get_plan(self._ctx.settings.plan)
        ctx = self._ctx
        with logged_search(ctx, ctx.surface, k=max(1, min(k or p.k_default, p.k_max))) as seen:
            result, trace = self._searcher.search_traced(
                query.strip()[:4000], p, k=k, kind=kind, evidence_depth=evidence_depth, frame=frame
            )
            seen.found(result)
        return result, trace

    def counts(self) -> dict[str, int]:
        return self._ctx.edges.counts(self.workspace)

    # -- forget --------------------------------------------------------------------------

    def forget(self, item_id: str, *, reason: str) -> Forgotten:
        """Take an item (and a file's sections) out of every stream and read at once: a
        tombstone with ``reason``, logged with its actor. Scoped like a write."""
        return forgetting.forget(self._ctx, item_id, reason)

    def erase(self, item_id: str, *, reason: str) -> Forgotten:
        """``forget``, and delete the raw bytes and extracted text, blanking the row: only
        the audit record (who, when, why) is left."""
        return forgetting.forget(self._ctx, item_id, reason, erase=True)
