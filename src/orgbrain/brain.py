"""The Brain facade: the one object every transport (CLI, HTTP, MCP) talks to."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from .errors import InvalidInput, NotFound, OrgBrainError, TooLarge
from .ids import new_id
from .indexer import Indexer, IndexReport, embed_texts
from .ingest.sniff import MEDIA_TYPES, detect_format
from .model import (
    STORAGE_CLASSES,
    Item,
    Origin,
    SearchResult,
    storage_class_for,
    utcnow,
)
from .ports import BlobStore, Embedder, ItemFilter, Page, Reranker, Store
from .retrieve import Searcher, SearchPlan, get_plan
from .scopes import Principal, Visibility, parse_scope
from .settings import Settings

if TYPE_CHECKING:
    from .agents.inject import InjectPolicy, TurnContext

__all__ = ["Brain", "IndexReport", "NoteInput"]

MAX_NOTE_CHARS = 100_000
_BAD_NAME = re.compile(r"[\x00-\x1f/\\]")


@dataclass(frozen=True, slots=True)
class NoteInput:
    """One note to write, as ``Brain.add_note`` takes it."""

    body: str
    kind: str = "note"
    label: str | None = None
    scope: str | None = None
    source_key: str | None = None
    occurred_at: datetime | None = None
    run_id: str | None = None
    source: str = "note"


@dataclass(frozen=True, slots=True)
class _Parts:
    store: Store
    blobs: BlobStore
    embedder: Embedder
    reranker: Reranker | None
    settings: Settings


class Brain:
    """One workspace's memory, seen by one reader.

    ``Brain.open(path)`` is the embedded default: a local owner who sees everything.
    ``brain.for_principal(p)`` is the same brain seen through a principal's scopes.
    """

    def __init__(
        self,
        store: Store,
        blobs: BlobStore,
        embedder: Embedder,
        *,
        settings: Settings | None = None,
        reranker: Reranker | None = None,
        workspace: str | None = None,
        principal: Principal | None = None,
        actor: str = "human:local",
    ) -> None:
        s = settings or Settings()
        self._parts = _Parts(store, blobs, embedder, reranker, s)
        self.workspace = principal.workspace if principal else (workspace or s.workspace)
        self.principal = principal
        self.visibility = principal.visibility if principal else Visibility.everything()
        self.actor = actor if principal is None else _actor_of(principal)
        self._searcher = Searcher(store, embedder, reranker)
        self._indexer = Indexer(store, blobs, embedder, s.embed_batch)
        bind = getattr(store, "bind_embedder", None)
        if bind is not None:
            bind(embedder.name, embedder.dim)

    # -- construction -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        workspace: str | None = None,
    ) -> Brain:
        """Open (or create) an embedded brain: ``<path>/brain.sqlite`` and ``<path>/blobs``."""
        from .compose import open_embedded

        return open_embedded(path, embedder=embedder, settings=settings, workspace=workspace)

    def for_principal(self, principal: Principal) -> Brain:
        """The same brain, seen and written by ``principal`` (its scopes, its workspace)."""
        p = self._parts
        return Brain(
            p.store,
            p.blobs,
            p.embedder,
            settings=p.settings,
            reranker=p.reranker,
            principal=principal,
        )

    @property
    def store(self) -> Store:
        return self._parts.store

    @property
    def embedder(self) -> Embedder:
        return self._parts.embedder

    def close(self) -> None:
        self._parts.store.close()

    def __enter__(self) -> Brain:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- add ----------------------------------------------------------------------------

    def add_file(
        self,
        source: str | Path | bytes,
        *,
        name: str | None = None,
        kind: str = "file",
        label: str | None = None,
        scope: str | None = None,
        source_key: str | None = None,
        occurred_at: datetime | None = None,
        index: bool = False,
        run_id: str | None = None,
    ) -> Item:
        """Store a file's bytes and an unindexed item (findable by name, not answerable).

        The same ``source_key`` (default ``file:<name>``) updates that item in place: the
        same bytes change nothing; new bytes take it out of answers until reindexed.
        """
        cap = self._parts.settings.max_file_bytes
        if isinstance(source, bytes):
            if name is None:
                raise InvalidInput("a name is needed to add bytes")
            data = source
        else:
            path = Path(source)
            if not path.is_file():
                raise NotFound(f"no such file: {path}")
            if path.stat().st_size > cap:
                raise TooLarge(f"{path.name} is {path.stat().st_size} bytes; the cap is {cap}")
            data = path.read_bytes()
            name = name or path.name
        name = _clean_name(name)
        if len(data) > cap:
            raise TooLarge(f"{name} is {len(data)} bytes; the cap is {cap}")
        fmt = detect_format(data, name)
        scope = self._write_scope(scope)
        key = source_key or (f"file:{name}" if scope == "org" else f"file:{scope}:{name}")
        digest = hashlib.sha256(data).hexdigest()
        store, ws = self._parts.store, self.workspace
        existing = store.get_by_source_key(ws, key, Visibility.everything())
        if existing is not None and not self.visibility.allows(existing.scope):
            raise InvalidInput(f"source key {key!r} is taken")
        if existing is not None and existing.storage_class != "file":
            raise InvalidInput(f"source key {key!r} belongs to a {existing.storage_class}")
        if existing is not None and existing.content_hash == digest and existing.scope == scope:
            item = existing
        else:
            item_id = existing.id if existing else new_id("fil")
            blob_key = f"workspaces/{ws}/{item_id}/{name}"
            if existing is not None and existing.blob_key and existing.blob_key != blob_key:
                self._parts.blobs.delete_prefix(existing.blob_key)
            self._parts.blobs.put(blob_key, [data], max_bytes=cap)
            item = store.put_item(
                Item(
                    id=item_id,
                    workspace=ws,
                    kind=kind,
                    storage_class="file",
                    label=label or (existing.label if existing else "") or name,
                    body="",
                    source_key=key,
                    indexed=False,
                    scope=scope,
                    origin=self._origin("add", run_id),
                    blob_key=blob_key,
                    occurred_at=occurred_at,
                    name=name,
                    media_type=MEDIA_TYPES[fmt],
                    size=len(data),
                    content_hash=digest,
                )
            )
            if existing is not None:
                unindex = getattr(store, "unindex_children", None)
                if unindex is not None:
                    unindex(ws, item.id)
        if index and not item.indexed:
            self.index(item.id)
            item = self.get(item.id)
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
    ) -> Item:
        """Write a fact straight in: embedded and answerable once this returns (fsynced)."""
        note = NoteInput(body, kind, label, scope, source_key, occurred_at, run_id, source)
        return self.add_notes([note])[0]

    def add_notes(self, notes: Sequence[NoteInput]) -> list[Item]:
        """Write many notes in one transaction (all or nothing), embedded in batches."""
        items = [self._note_item(n) for n in notes]
        keys = [i.source_key for i in items]
        if len(set(keys)) != len(keys):
            raise InvalidInput("two notes in one batch share a source key")
        vectors = embed_texts(
            self._parts.embedder,
            [f"{i.label}\n{i.body}" for i in items],
            self._parts.settings.embed_batch,
        )
        return self._parts.store.put_items(list(zip(items, vectors, strict=True)))

    def _note_item(self, n: NoteInput) -> Item:
        text = n.body.strip() if isinstance(n.body, str) else ""
        if not text:
            raise InvalidInput("a note needs a body")
        if len(text) > MAX_NOTE_CHARS:
            raise TooLarge(f"a note is at most {MAX_NOTE_CHARS} characters; got {len(text)}")
        cls = storage_class_for(n.kind)
        if cls in ("file", "section"):
            raise InvalidInput(f"kind {n.kind!r} is reserved for files; add the file instead")
        scope = self._write_scope(n.scope)
        label = (n.label or _first_line(text)).strip()
        ws = self.workspace
        key = n.source_key or _content_key("note", f"{scope}\n{n.kind}\n{text}".encode())
        existing = self._parts.store.get_by_source_key(ws, key, Visibility.everything())
        taken = existing is not None and (
            existing.storage_class in ("file", "section")
            or not self.visibility.allows(existing.scope)
        )
        if taken:
            raise InvalidInput(f"source key {key!r} is taken")
        return Item(
            id=existing.id if existing else new_id("not"),
            workspace=ws,
            kind=n.kind,
            storage_class=cls,
            label=label,
            body=text,
            source_key=key,
            indexed=True,
            scope=scope,
            origin=self._origin(n.source, n.run_id),
            occurred_at=n.occurred_at,
            summary=_first_line(text),
        )

    # -- index --------------------------------------------------------------------------

    def index(self, item_id: str) -> IndexReport:
        """Make an added file answerable. Raises on a bad file after recording the error."""
        item = self.get(item_id)
        return self._indexer.index(item)

    def pending(self) -> list[Item]:
        """Files added but not yet indexed (and not failed)."""
        out: list[Item] = []
        cursor: str | None = None
        while True:
            page = self._parts.store.list_items(
                self.workspace,
                ItemFilter(storage_class="file", indexed=False),
                self.visibility,
                limit=500,
                cursor=cursor,
            )
            out += [i for i in page.items if i.index_error is None]
            if page.next_cursor is None:
                return out
            cursor = page.next_cursor

    def index_pending(
        self,
        ids: Sequence[str] | None = None,
        *,
        progress: Callable[[IndexReport], None] | None = None,
    ) -> list[IndexReport]:
        """Index ``ids`` (default: every pending file); one bad file never stops the rest.

        One report per id, in order. The files' texts are embedded together in batches
        (``Indexer.index_many``) and each file commits on its own, so a crash loses at
        most the files not yet committed, which stay pending.
        """
        if ids is None:
            return self._indexer.index_many(self.pending(), progress=progress)
        reports: dict[int, IndexReport] = {}
        found: list[tuple[int, Item]] = []
        for position, item_id in enumerate(ids):
            try:
                found.append((position, self.get(item_id)))
            except OrgBrainError as exc:
                reports[position] = IndexReport(item_id, item_id, 0, exc.message, exc.code)
                if progress is not None:
                    progress(reports[position])
        indexed = self._indexer.index_many([item for _, item in found], progress=progress)
        for (position, _), report in zip(found, indexed, strict=True):
            reports[position] = report
        return [reports[position] for position in range(len(ids))]

    # -- read ---------------------------------------------------------------------------

    def get(self, item_id: str) -> Item:
        item = self._parts.store.get_item(self.workspace, item_id, self.visibility)
        if item is None or not self.visibility.allows(item.scope):
            raise NotFound(f"no item {item_id}")
        return item

    def items(
        self,
        *,
        kind: str | None = None,
        storage_class: str | None = None,
        indexed: bool | None = None,
        name: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page:
        if storage_class is not None and storage_class not in STORAGE_CLASSES:
            raise InvalidInput(f"unknown storage class {storage_class!r}")
        if not 1 <= limit <= 1000:
            raise InvalidInput("limit must be between 1 and 1000")
        page = self._parts.store.list_items(
            self.workspace,
            ItemFilter(storage_class=storage_class, kind=kind, indexed=indexed, name_contains=name),
            self.visibility,
            limit=limit,
            cursor=cursor,
        )
        return Page(
            tuple(i for i in page.items if self.visibility.allows(i.scope)), page.next_cursor
        )

    def sections(self, file_id: str) -> list[Item]:
        file = self.get(file_id)
        page = self._parts.store.list_items(
            self.workspace,
            ItemFilter(storage_class="section", parent_id=file.id),
            self.visibility,
            limit=1000,
        )
        return sorted(
            (s for s in page.items if self.visibility.allows(s.scope)),
            key=lambda s: s.ordinal or 0,
        )

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        plan: SearchPlan | str | None = None,
        kind: str | None = None,
    ) -> SearchResult:
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("a search needs a query")
        if k is not None and k < 1:
            raise InvalidInput("k must be at least 1")
        if isinstance(plan, str):
            p = get_plan(plan)
        else:
            p = plan or get_plan(self._parts.settings.plan)
        return self._searcher.search(
            self.workspace, query.strip()[:4000], p, self.visibility, k=k, kind=kind
        )

    def read_file(self, item_id: str, *, section: int | str | None = None) -> Iterator[bytes]:
        """Stream a file's raw bytes, a section's exact range, or a section item's range.

        ``section`` is a section's ordinal (1-based, as shown) or id within the file.
        """
        item = self.get(item_id)
        if item.storage_class == "section":
            target = item
        elif item.storage_class == "file":
            if section is None:
                assert item.blob_key is not None
                return self._parts.blobs.stream(item.blob_key)
            target = self._section_of(item, section)
        else:
            raise InvalidInput(f"{item.id} is a {item.storage_class}; it has no file to read")
        if target.text_key is None or target.byte_range is None:
            raise NotFound(f"{target.id} has no stored text range")
        return self._parts.blobs.stream(
            target.text_key, target.byte_range.start, target.byte_range.end
        )

    def _section_of(self, file: Item, section: int | str) -> Item:
        sections = self.sections(file.id)
        if isinstance(section, int) or (isinstance(section, str) and section.isdigit()):
            n = int(section)
            if not 1 <= n <= len(sections):
                raise NotFound(f"{file.id} has {len(sections)} sections; no section {n}")
            return sections[n - 1]
        for s in sections:
            if s.id == section:
                return s
        raise NotFound(f"no section {section} in {file.id}")

    def counts(self) -> dict[str, int]:
        return self._parts.store.counts(self.workspace)

    # -- agents -------------------------------------------------------------------------

    def context_for_turn(
        self, message: str, anchors: Sequence[str] = (), *, policy: InjectPolicy | None = None
    ) -> TurnContext:
        """Read injection for one agent turn: cited items within the token budget, or
        nothing. Never raises: a failing search gives an empty context, logged."""
        from .agents.inject import context_for_turn

        return context_for_turn(self, message, anchors, policy=policy)

    def recent_turns(self, limit: int = 20) -> list[dict[str, object]]:
        """The latest logged injection turns, newest first (a principal sees only its own)."""
        from .agents.inject import recent_turns

        return recent_turns(self, limit)

    def acting_as(self, actor: str) -> Brain:
        """The same brain and reader, writing with another origin actor (e.g. an agent)."""
        if not actor or ":" not in actor:
            raise InvalidInput("an actor looks like agent:<name> or human:<name>")
        p = self._parts
        twin = Brain(
            p.store,
            p.blobs,
            p.embedder,
            settings=p.settings,
            reranker=p.reranker,
            workspace=self.workspace,
            principal=self.principal,
            actor=actor,
        )
        twin.actor = actor
        return twin

    # -- helpers ------------------------------------------------------------------------

    def _write_scope(self, scope: str | None) -> str:
        if self.principal is not None:
            return self.principal.check_write_scope(scope or "org")
        return parse_scope(scope)

    def _origin(self, source: str, run_id: str | None) -> Origin:
        return Origin(self.actor, source, utcnow(), run_id)


def _actor_of(p: Principal) -> str:
    return f"{'agent' if p.agent else 'human'}:{p.user_id}"


def _clean_name(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not base or base in (".", "..") or _BAD_NAME.search(base) or len(base) > 255:
        raise InvalidInput(f"invalid file name {name!r}")
    return base


def _content_key(prefix: str, data: bytes) -> str:
    return f"{prefix}:{hashlib.sha256(data).hexdigest()[:24]}"


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
