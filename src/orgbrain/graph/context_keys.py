"""Contextual keys: a conversation turn is found by its neighbours' words too.

A reply ("Yes, last Tuesday!") means little without the turn before it. Where the system
knows the order of turns (a ``FOLLOWED_BY`` edge: one note of a run to the next), each end
gets the other's body as keys (``Store.set_keys``): keyword-only text, searched with its
label and body, never shown, cited or embedded. An item's keys are the bodies of the turn
before it and the turn after it, each cut at ``KEYS_CAP`` characters (docs/journal.md,
"Issue 17, contextual keys": LoCoMo dev ranking recall@10 0.749 -> 0.782, the default
plan's neighbour boost off, which the keys replace).

Turns are notes: only a note gets keys, and only a note lends its words (a file's
sections carry their context in their labels, and their text changes by re-indexing,
which no key follows). A neighbour lends its words only when a reader who finds the item
could read the neighbour too, and only while it is live:

- the same scope as the item (a private turn's words never make an org turn findable);
- not forgotten (tombstoned) and not superseded.

Whatever changes a neighbour's words or standing (an edit, a move to another scope, a
forget, a supersession) calls ``rekey_around``, which computes the keys of the items
around it again from what the store holds now. The store itself empties an item's own
keys when it moves to another scope or is tombstoned (``Store.set_keys``). Keys are
computed with the store's own view of everything (``Visibility.everything``), never the
asker's, so who wrote the edge cannot change what they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from ..model import Edge, Item
from ..ports import EdgeStore, ItemStore, SearchStore, Store
from ..scopes import Visibility

__all__ = [
    "KEYS_CAP",
    "KEYS_MARK",
    "SEQUENCE_EDGE",
    "KeyedStore",
    "around",
    "backfill_keys",
    "context_keys",
    "lends",
    "refresh_keys",
    "rekey_around",
]


class KeyedStore(ItemStore, EdgeStore, SearchStore, Protocol):
    """The roles keeping keys fresh reads and writes: items, the edges between them, and
    the keys searched with them."""


SEQUENCE_EDGE = "FOLLOWED_BY"
KEYS_CAP = 500
"""Characters of each neighbour's body kept in an item's keys. Measured with the real evals
(docs/journal.md, "Issue 17, contextual keys"): 500 is as good as no cap on LoCoMo (whose
turns are all shorter) and better than 150 or 300 on LongMemEval, whose assistant turns run
to thousands of characters and would otherwise outweigh the turn's own words."""
KEYS_MARK = "context_keys"
"""The store mark a migration sets to ``pending`` when the one-off back-fill is due."""
_BATCH = 200
_SETTLE_ROUNDS = 4
"""Writes of one batch's keys at most while other writers keep changing its neighbours;
each of those changes recomputes the keys itself afterwards."""
_EDGES_PER_ITEM = 20
"""Sequence edges read per item: a turn has one before and one after; more is a custom
writer's business, and only the oldest of each side counts."""


def lends(neighbour: Item | None, item: Item) -> bool:
    """Whether ``neighbour``'s words may stand in ``item``'s keys: a note of the same
    scope, live."""
    return (
        neighbour is not None
        and neighbour.storage_class == "note"
        and neighbour.scope == item.scope
        and neighbour.tombstoned_at is None
        and neighbour.superseded_by is None
    )


def context_keys(item: Item, before: Item | None, after: Item | None) -> str:
    """``item``'s keys: the bodies of the turns before and after it that may lend their
    words (``lends``), each cut at ``KEYS_CAP`` characters."""
    if item.storage_class != "note" or item.tombstoned_at is not None:
        return ""
    parts = [n.body[:KEYS_CAP] for n in (before, after) if n is not None and lends(n, item)]
    return "\n".join(p for p in parts if p)


def around(store: KeyedStore, workspace: str, item_ids: Iterable[str]) -> set[str]:
    """The items linked to any of ``item_ids`` by a sequence edge (either side)."""
    out: set[str] = set()
    for item_id, edges in _sequence_edges(store, workspace, sorted(set(item_ids))).items():
        out.update(e.dst if e.src == item_id else e.src for e in edges)
    return out


def refresh_keys(store: KeyedStore, workspace: str, item_ids: Iterable[str]) -> int:
    """Compute the keys of ``item_ids`` again from their sequence neighbours as the store
    holds them now, and store them; returns how many items were looked at.

    The keys are read and written in two transactions, so another writer may change a
    neighbour in between (a forget that has already recomputed these keys without the
    forgotten words): after writing, the keys are computed once more and written again
    until a computation agrees with what was written. What the last write holds was read
    after it, so a change that lands later runs its own recompute after this one."""
    ids = sorted(set(item_ids))
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH]
        keys = _computed(store, workspace, batch)
        for _ in range(_SETTLE_ROUNDS):
            store.set_keys(workspace, keys)
            again = _computed(store, workspace, batch)
            if again == keys:
                break
            keys = again
        else:
            store.set_keys(workspace, keys)
    return len(ids)


def _computed(store: KeyedStore, workspace: str, batch: Sequence[str]) -> dict[str, str]:
    """The keys of ``batch`` from their sequence neighbours as the store holds them now."""
    everything = Visibility.everything()
    items = store.get_items(workspace, batch, everything)
    sides: dict[str, tuple[str | None, str | None]] = {}
    around_batch = _sequence_edges(store, workspace, list(items))
    for item_id in items:
        edges = around_batch.get(item_id, [])
        before = next((e.src for e in edges if e.dst == item_id and e.src != item_id), None)
        after = next((e.dst for e in edges if e.src == item_id and e.dst != item_id), None)
        sides[item_id] = (before, after)
    wanted = {n for pair in sides.values() for n in pair if n is not None}
    neighbours = store.get_items(workspace, sorted(wanted - items.keys()), everything)
    neighbours.update(items)
    return {
        item_id: context_keys(
            items[item_id],
            neighbours.get(before) if before else None,
            neighbours.get(after) if after else None,
        )
        for item_id, (before, after) in sides.items()
    }


def rekey_around(store: KeyedStore, workspace: str, item_ids: Iterable[str]) -> int:
    """After ``item_ids`` changed their words or standing (edited, moved to another
    scope, forgotten, superseded): the keys of their sequence neighbours, and their own,
    computed again. Items with no sequence edge cost one read each; returns how many
    items were looked at."""
    changed = set(item_ids)
    linked = around(store, workspace, changed)
    return refresh_keys(store, workspace, linked | changed) if linked else 0


def backfill_keys(store: Store) -> int:
    """The one-off pass a migration asks for (``KEYS_MARK`` pending): keys for every item
    at either end of a sequence edge, in every workspace; returns how many were looked at.
    Run again, it changes nothing."""
    if store.read_only or store.mark(KEYS_MARK) != "pending":
        return 0  # a replica searches without the keys until the primary fills them
    ends: dict[str, set[str]] = {}
    after = 0
    while True:
        page = store.export_records("edges", after=after, limit=5000)
        for r in page.records:
            if r["type"] == SEQUENCE_EDGE:
                ends.setdefault(str(r["workspace"]), set()).update((str(r["src"]), str(r["dst"])))
        if page.next_after is None:
            break
        after = page.next_after
    done = sum(refresh_keys(store, ws, ids) for ws, ids in sorted(ends.items()))
    store.set_mark(KEYS_MARK, "done")
    return done


def _sequence_edges(
    store: KeyedStore, workspace: str, item_ids: Sequence[str]
) -> dict[str, list[Edge]]:
    """Each of ``item_ids``' sequence edges, in one read (ids without any are left out)."""
    return store.edges_around(
        workspace, item_ids, Visibility.everything(), types=[SEQUENCE_EDGE], limit=_EDGES_PER_ITEM
    )
