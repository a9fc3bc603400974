"""What a service holds: the ports, the settings and who is reading and writing.

Services (indexing, search, injection, the graph, and next derivation, write-back and
audit) take a ``BrainContext``, never the ``Brain`` facade, so the facade stays the one
entry point and nothing reaches a store through it. The two scope rules live here once:
``visible(item)`` is the second check, in code, of every read (the store query is the
first), and ``write_scope(scope)`` is where a write may land.

A service reaches the store through the role it uses (``ctx.items``, ``ctx.search``,
``ctx.edges``, ...: the same object, typed as one ``ports`` role), so mypy shows which
roles each service needs. ``ctx.store`` is for what needs the store as a whole (closing
it, ``read_only``, moving a brain, a re-embed's ``SpaceMover``) or several roles at once
(``graph.context_keys.KeyedStore``, ``stats.CountedStore``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from .errors import InvalidInput, NotFound
from .model import Item, ItemSketch, Origin, utcnow
from .ports import (
    BlobStore,
    Chat,
    EdgeStore,
    Embedder,
    EventStore,
    ItemFilter,
    ItemStore,
    JobQueue,
    OutboxStore,
    ProposalStore,
    Reranker,
    SearchStore,
    StatementStore,
    Store,
    Tokenizer,
    TransferStore,
    VersionStore,
)
from .scopes import Principal, Visibility, parse_scope
from .settings import Settings

__all__ = ["BrainContext", "actor_of"]


def actor_of(principal: Principal) -> str:
    return f"{'agent' if principal.agent else 'human'}:{principal.user_id}"


class _NoTokenizer:
    """Counts by whitespace; the composition root gives a real tokenizer."""

    def count(self, text: str) -> int:
        return len(text.split())

    def truncate(self, text: str, max_tokens: int) -> str:
        return " ".join(text.split()[: max(max_tokens, 0)])


def _no_tokenizer() -> Tokenizer:
    return _NoTokenizer()


@dataclass(frozen=True, slots=True)
class BrainContext:
    """One workspace's ports, seen by one reader (``principal``; ``None`` is the local
    owner, who sees everything) and written with one origin ``actor``."""

    store: Store
    """The whole store: for composing, closing and moving a brain; a service uses the role
    accessors below."""
    blobs: BlobStore
    embedder: Embedder
    settings: Settings = field(default_factory=Settings)
    workspace: str = "default"
    principal: Principal | None = None
    actor: str = "human:local"
    tokenizer: Tokenizer = field(default_factory=_no_tokenizer)
    reranker: Reranker | None = None
    clock: Callable[[], datetime] = utcnow
    # Durable background work (orgbrain.jobs); None for a context built without one.
    jobs: JobQueue | None = None
    chat: Chat | None = None
    """An LLM for the extractor's last tier, when one is configured."""
    surface: str = "python"
    """Where this reader's searches come from (``python``, ``cli``, ``http``, ``mcp``,
    ``tool``): each search is a ``search`` event naming it (docs/loop.md)."""
    search_log: bool = True
    """Whether searches are logged as events; evaluations, which search thousands of
    times, turn it off."""

    # -- the store, one role at a time (the same object as ``store``) -----------------------

    @property
    def items(self) -> ItemStore:
        return self.store

    @property
    def search(self) -> SearchStore:
        return self.store

    @property
    def edges(self) -> EdgeStore:
        return self.store

    @property
    def events(self) -> EventStore:
        return self.store

    @property
    def statements(self) -> StatementStore:
        return self.store

    @property
    def versions(self) -> VersionStore:
        return self.store

    @property
    def proposals(self) -> ProposalStore:
        return self.store

    @property
    def outbox(self) -> OutboxStore:
        return self.store

    @property
    def transfer(self) -> TransferStore:
        return self.store

    @property
    def visibility(self) -> Visibility:
        return self.principal.visibility if self.principal else Visibility.everything()

    # -- the two scope rules ------------------------------------------------------------

    def visible(self, item: Item | ItemSketch | None, seen: Visibility | None = None) -> bool:
        """The second check, in code: this workspace, a scope the reader may see, not
        tombstoned. Every read of items applies it after the store query did. ``seen``:
        ``visibility``, when the caller has it (it is built anew on every read)."""
        return (
            item is not None
            and item.workspace == self.workspace
            and (seen or self.visibility).allows(item.scope)
            and item.tombstoned_at is None
        )

    def write_scope(self, scope: str | None) -> str:
        """Where a write asked for ``scope`` lands: a principal only writes its own scopes
        (``Forbidden`` otherwise); the local owner writes any valid scope."""
        if self.principal is not None:
            return self.principal.check_write_scope(scope or "org")
        return parse_scope(scope)

    # -- reads every service needs ------------------------------------------------------

    def get(self, item_id: str) -> Item:
        """The visible item ``item_id``, or ``NotFound`` (an invisible one reads as absent)."""
        item = self.items.get_item(self.workspace, item_id, self.visibility)
        if item is None or not self.visible(item):
            raise NotFound(f"no item {item_id}")
        return item

    def get_many(self, ids: Sequence[str]) -> dict[str, Item]:
        """The visible items among ``ids``, by id; the others are left out."""
        if not ids:
            return {}
        seen = self.visibility
        found = self.items.get_items(self.workspace, ids, seen)
        return {i: item for i, item in found.items() if self.visible(item, seen)}

    def get_sketches(self, ids: Sequence[str]) -> dict[str, ItemSketch]:
        """``get_many``'s narrow read (``Store.item_sketches``): what a search weighs of the
        visible items among ``ids``, by id."""
        if not ids:
            return {}
        seen = self.visibility
        found = self.items.item_sketches(self.workspace, ids, seen)
        return {i: sketch for i, sketch in found.items() if self.visible(sketch, seen)}

    def each_item(self, filter: ItemFilter) -> Iterator[Item]:
        """Every visible item ``filter`` lists, page after page (a listing may hold many
        thousands)."""
        cursor: str | None = None
        while True:
            page = self.items.list_items(
                self.workspace, filter, self.visibility, limit=1000, cursor=cursor
            )
            yield from (i for i in page.items if self.visible(i))
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def sections_of(self, file_id: str) -> list[Item]:
        """Every visible section of ``file_id``, in order."""
        found = self.each_item(ItemFilter(storage_class="section", parent_id=file_id))
        return sorted(found, key=lambda s: s.ordinal or 0)

    def origin(self, source: str, run_id: str | None = None) -> Origin:
        return Origin(self.actor, source, self.clock(), run_id)

    def asker(self) -> dict[str, object]:
        """Who asks for background work, as a job's payload records it: the worker reads
        with these eyes (``jobs.index.Asker`` reads it back)."""
        p = self.principal
        return {
            "workspace": self.workspace,
            "actor": self.actor,
            "user_id": p.user_id if p else None,
            "team_ids": sorted(p.team_ids) if p else [],
            "agent": p.agent if p else False,
        }

    # -- the same ports, another reader -------------------------------------------------

    def for_principal(self, principal: Principal) -> BrainContext:
        return replace(
            self, principal=principal, workspace=principal.workspace, actor=actor_of(principal)
        )

    def acting_as(self, actor: str) -> BrainContext:
        if not actor or ":" not in actor:
            raise InvalidInput("an actor looks like agent:<name> or human:<name>")
        return replace(self, actor=actor)
