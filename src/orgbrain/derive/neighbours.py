"""An item's neighbours: what the restating and judging steps compare it with."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis import key_terms
from ..context import BrainContext
from ..model import Item

__all__ = ["KEY_TERMS", "NEIGHBOURS", "neighbours"]

NEIGHBOURS = 8
"""Items read per stream (vector and keyword, notes and sections) for a derived item."""
KEY_TERMS = 12
"""The most words of its value sentences a derived item's keyword look-up asks for."""


def neighbours(ctx: BrainContext, item: Item, said: Sequence[str]) -> list[Item]:
    """The notes and sections of ``item``'s scope nearest it by its vector and by the words
    of ``said`` (its sentences worth comparing), ``NEIGHBOURS`` per stream, itself and
    its own sections left out."""
    ws, vis = ctx.workspace, ctx.visibility
    ids: set[str] = set()
    vectors = ctx.items.embedding_of(ws, item.id)
    terms = key_terms(" ".join(said), max_terms=KEY_TERMS)
    for cls in ("note", "section"):
        if vectors is not None:
            ids.update(i for i, _ in ctx.search.vector_search(ws, cls, vectors[0], NEIGHBOURS, vis))
        if terms:
            ids.update(i for i, _ in ctx.search.keyword_search(ws, cls, terms, NEIGHBOURS, vis))
    ids.discard(item.id)
    found = ctx.get_many(sorted(ids))
    return [
        o
        for o in found.values()
        if o.storage_class in ("note", "section")
        and o.scope == item.scope
        and o.tombstoned_at is None
        and o.parent_id != item.id
    ]
