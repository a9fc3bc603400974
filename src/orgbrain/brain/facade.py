"""The Brain facade: the one object every transport (CLI, HTTP, MCP) talks to.

It holds a ``BrainContext`` (the ports, settings and reader) and calls the services with
it; no service holds a ``Brain``, and the facade exposes no port.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Literal, cast

from .. import forget as forgetting
from .. import sweep as sweeping
from .. import writes
from ..context import BrainContext
from ..errors import InvalidInput, NotFound, OrgBrainError
from ..ids import new_id
from ..indexer import Embedded, Indexer, IndexReport
from ..model import STORAGE_CLASSES, Forgotten, Item, Passage, SearchResult, StorageClass
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
from .jobs import JobsFacade
from .loop import LoopFacade
from .memory import MemoryFacade
from .moving import MovingFacade
from .space import SpaceFacade
from .writeback import WriteBackFacade

__all__ = ["PASSAGE_AROUND", "WAITS", "Brain", "IndexReport", "NoteInput", "Wait", "check_wait"]

Wait = Literal["ack", "derived"]
"""How long a write blocks: until it is durable (``ack``), or until its derivation is
done too (``derived``)."""
WAITS: tuple[Wait, ...] = ("ack", "derived")
PASSAGE_AROUND = 600
"""How many bytes of a file's text a passage shows on each side of a cited range."""


def check_wait(wait: object) -> Wait:
    """``wait`` if it is one of ``WAITS``; else ``InvalidInput`` (before anything is written)."""
    if wait == "ack" or wait == "derived":
        return wait
    raise InvalidInput(f"wait is ack or derived, not {wait!r}")


class Brain(
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
        self._ctx.store.get_item(self.workspace, "readyz", Visibility.everything())

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
        ctx = self._ctx
        if check_wait(wait) == "derived" and not index:
            raise InvalidInput(
                "wait='derived' needs index=True: a file is derived from its sections, "
                "which indexing cuts"
            )
        clean = writes.name_of(source, name)
        where = ctx.write_scope(scope)
        if source_key is not None:
            key = source_key
        elif isinstance(source, str | Path) and name is None:
            key = writes.path_key(Path(source), ctx.settings.root, where)
        else:
            key = writes.default_file_key(clean, where)
        existing = writes.file_key(ctx, key, where)
        item_id = existing.id if existing else new_id("fil")
        replaced = writes.superseded_items(ctx, supersedes, where, item_id)
        stored = writes.put_bytes(ctx, source, clean, item_id)
        item = writes.store_file(
            ctx,
            stored,
            existing,
            item_id=item_id,
            key=key,
            kind=kind,
            label=label,
            scope=where,
            occurred_at=occurred_at,
            run_id=run_id,
        )
        if replaced:
            writes.record_supersedes(ctx, item, replaced, run_id)
            item = self.get(item.id)
        if index and not item.indexed:
            self.index(item.id)
            item = self.get(item.id)
        elif existing is not None and existing.indexed and not item.indexed:
            item = self._reindexed(item)
        if wait == "derived" and item.indexed:
            self.wait_derived(self.sections(item.id), ctx.settings.derive_wait_s)
        return item

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

    # -- index --------------------------------------------------------------------------

    def index(self, item_id: str) -> IndexReport:
        """Make an added file answerable. Raises on a bad file after recording the error."""
        return self._indexer.index(self.get(item_id))

    def _reindexed(self, item: Item) -> Item:
        """A file whose indexed version was replaced by new bytes, indexed at once so it
        keeps answering; new bytes that fail to index leave it failed, as ``index`` would
        (its state says why), and the add itself stands."""
        with contextlib.suppress(OrgBrainError):
            self.index(item.id)
        return self.get(item.id)

    def pending(self) -> list[Item]:
        """Files added but not yet indexed (and not failed)."""
        added = self._ctx.each_item(ItemFilter(storage_class="file", indexed=False))
        return [i for i in added if i.index_error is None]

    def index_pending(
        self,
        ids: Sequence[str] | None = None,
        *,
        progress: Callable[[IndexReport], None] | None = None,
        on_embedded: Callable[[Embedded], None] | None = None,
    ) -> list[IndexReport]:
        """Index ``ids`` (default: every pending file); one bad file never stops the rest.

        One report per id, in order. The files' texts are embedded together in batches
        (``Indexer.index_many``) and each file commits on its own, so a crash loses at
        most the files not yet committed, which stay pending. ``on_embedded`` hears the
        bytes and sections each embedding call stood for (a progress bar's steps).
        """
        if ids is None:
            return self._indexer.index_many(
                self.pending(), progress=progress, on_embedded=on_embedded
            )
        reports: dict[int, IndexReport] = {}
        found: list[tuple[int, Item]] = []
        for position, item_id in enumerate(ids):
            try:
                found.append((position, self.get(item_id)))
            except OrgBrainError as exc:
                reports[position] = IndexReport(item_id, item_id, 0, exc.message, exc.code)
                if progress is not None:
                    progress(reports[position])
        indexed = self._indexer.index_many(
            [item for _, item in found], progress=progress, on_embedded=on_embedded
        )
        for (position, _), report in zip(found, indexed, strict=True):
            reports[position] = report
        return [reports[position] for position in range(len(ids))]

    def set_index_error(self, item_id: str, error: str | None) -> None:
        """Record (or clear) why a visible file could not be indexed."""
        item = self.get(item_id)
        self._ctx.store.set_index_error(self.workspace, item.id, error)

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
        page = self._ctx.store.list_items(
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

    def read_file(
        self,
        item_id: str,
        *,
        section: int | str | None = None,
        version: int | None = None,
        start: int = 0,
        end: int | None = None,
    ) -> Iterator[bytes]:
        """Stream a file's raw bytes, a section's exact range, or a section item's range.

        ``section`` is a section's ordinal (1-based, as shown) or id within the file.
        ``version`` reads the raw bytes of one of the file's versions (``history``
        numbers them; sections are cut from the current version only). ``start`` and
        ``end`` (half-open) read only those bytes of the raw file, from the blob store
        itself (a ranged GET on S3), not by skipping.
        """
        if version is not None:
            if section is not None:
                raise InvalidInput("sections are cut from the current version: give one")
            return self._read_version(item_id, version, start, end)
        item = self.get(item_id)
        if item.storage_class == "file" and section is None:
            assert item.blob_key is not None
            return self._ctx.blobs.stream(item.blob_key, start, end)
        if (start, end) != (0, None):
            raise InvalidInput("a byte range reads a file's raw bytes; a section is read whole")
        if item.storage_class == "section":
            target = item
        elif item.storage_class == "file":
            assert section is not None
            target = self._section_of(item, section)
        else:
            raise InvalidInput(f"{item.id} is a {item.storage_class}; it has no file to read")
        if target.text_key is None or target.byte_range is None:
            raise NotFound(f"{target.id} has no stored text range")
        return self._ctx.blobs.stream(
            target.text_key, target.byte_range.start, target.byte_range.end
        )

    def passage(self, item_id: str, *, around: int = PASSAGE_AROUND) -> Passage:
        """A visible item's text in its place: a section's exact byte range with up to
        ``around`` bytes of the file's text on each side (what a citation points at, shown
        where it stands); a file's opening text; a note's or entity's body."""
        if not 0 <= around <= 64 * 1024:
            raise InvalidInput("around is 0 to 65536 bytes")
        item = self.get(item_id)
        if item.storage_class == "section" and item.text_key and item.byte_range:
            r = item.byte_range
            lo = max(0, r.start - around)
            data = b"".join(self._ctx.blobs.stream(item.text_key, lo, r.end + around))
            cut, tail = r.start - lo, r.end - lo
            at_start, at_end = lo == 0, len(data) < tail + around
            return Passage(
                item.id,
                _edge(data[:cut], trim_start=not at_start),
                data[cut:tail].decode("utf-8", "replace"),
                _edge(data[tail:], trim_end=not at_end),
                r,
                item.locator,
                at_start=at_start,
                at_end=at_end,
            )
        if item.storage_class == "file" and item.text_key:
            want = 4 * around
            head = b"".join(self._ctx.blobs.stream(item.text_key, 0, want))
            at_end = len(head) < want
            text = _edge(head, trim_end=not at_end)
            return Passage(item.id, "", text, "", None, item.locator, at_end=at_end)
        return Passage(item.id, "", item.body, "", item.byte_range, item.locator)

    def _section_of(self, file: Item, section: int | str) -> Item:
        sections = self.sections(file.id)
        if isinstance(section, int) or (section.isascii() and section.isdigit()):
            n = int(section)
            if not 1 <= n <= len(sections):
                raise NotFound(f"{file.id} has {len(sections)} sections; no section {n}")
            return sections[n - 1]
        for s in sections:
            if s.id == section:
                return s
        raise NotFound(f"no section {section} in {file.id}")

    def counts(self) -> dict[str, int]:
        return self._ctx.store.counts(self.workspace)

    # -- forget --------------------------------------------------------------------------

    def forget(self, item_id: str, *, reason: str) -> Forgotten:
        """Take an item (and a file's sections) out of every stream and read at once: a
        tombstone with ``reason``, logged with its actor. Scoped like a write."""
        return forgetting.forget(self._ctx, item_id, reason)

    def erase(self, item_id: str, *, reason: str) -> Forgotten:
        """``forget``, and delete the raw bytes and extracted text, blanking the row: only
        the audit record (who, when, why) is left."""
        return forgetting.forget(self._ctx, item_id, reason, erase=True)


def _edge(data: bytes, *, trim_start: bool = False, trim_end: bool = False) -> str:
    """Text cut out of the middle of a file: a character split by the cut is dropped, and
    so is the partial line at a cut, when the piece holds a whole line besides."""
    text = data.decode("utf-8", "ignore")
    if trim_start and "\n" in text[:-1]:
        text = text[text.index("\n") + 1 :]
    if trim_end and "\n" in text[1:]:
        text = text[: text.rindex("\n", 1) + 1]
    return text
