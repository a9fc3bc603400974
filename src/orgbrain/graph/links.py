"""The graph agents grow by hand: mentions of named things, custom links, neighbourhoods.

Entities are items of storage class ``entity``, found again by their canonical
``(type, normalised value)`` and a source key derived from it. An entity takes the
narrowest scope of its sources, so a name first seen in a private note stays private: the
same name in an org document is a different (org) entity. Nothing here ever merges items;
``SAME_AS`` is an edge like any other.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence

from ..context import BrainContext
from ..errors import Forbidden, InvalidInput
from ..ids import new_id
from ..model import Canonical, Edge, Hop, Item, Link, Mention, Neighborhood
from ..scopes import Visibility, narrowest_scope
from .context_keys import SEQUENCE_EDGE, refresh_keys

__all__ = [
    "MAX_EDGES_PER_HOP",
    "MAX_HOPS",
    "MAX_ITEMS_PER_HOP",
    "RESERVED_EDGE_TYPES",
    "Hop",
    "Link",
    "Mention",
    "Neighborhood",
    "entity_for",
    "entity_source_key",
    "link",
    "neighborhood",
    "normalise_edge_type",
    "normalise_type",
    "normalise_value",
    "observe_mention",
    "put_system_edge",
    "visible_edges",
]

MAX_HOPS = 2
MAX_ITEMS_PER_HOP = 50
MAX_EDGES_PER_HOP = 100
# Read per node: enough to fill a hop past the edges seen at the hop before.
EDGES_READ_PER_NODE = 2 * MAX_EDGES_PER_HOP + 1
# Created by indexing alone: a hand-made one would forge a file's structure.
RESERVED_EDGE_TYPES = frozenset({"HAS_SECTION"})
MAX_VALUE_CHARS = 200
MAX_SPAN_TEXT_CHARS = 1000
MAX_NOTE_CHARS = 2000

_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_EDGE_TYPE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")


# -- names ------------------------------------------------------------------------------


def normalise_type(type_: str) -> str:
    """``"Person"`` and ``" person "`` are one type; words join with underscores."""
    t = re.sub(r"[\s-]+", "_", type_.strip().lower()) if isinstance(type_, str) else ""
    if not _TYPE.match(t):
        raise InvalidInput(
            f"invalid entity type {type_!r}: a short word such as person, company or project"
        )
    return t


def normalise_value(value: str) -> str:
    """The form two spellings of one name share: NFKC, case-folded, single spaces."""
    v = " ".join(unicodedata.normalize("NFKC", value).casefold().split())
    if not v:
        raise InvalidInput("a mention needs a value (the name it refers to)")
    if len(v) > MAX_VALUE_CHARS:
        raise InvalidInput(f"an entity value is at most {MAX_VALUE_CHARS} characters")
    return v


def entity_source_key(type_: str, value: str, scope: str) -> str:
    """Stable identity of an entity: its canonical pair, and its scope unless org.

    Hashed, so no value (which may hold any character) can collide with another's key.
    """
    material = f"{type_}\n{value}" if scope == "org" else f"{scope}\n{type_}\n{value}"
    return f"entity:{type_}:{hashlib.sha256(material.encode()).hexdigest()[:24]}"


# -- entities and mentions --------------------------------------------------------------


def entity_for(
    ctx: BrainContext,
    type_: str,
    value: str,
    sources: Sequence[Item],
    *,
    run_id: str | None = None,
) -> tuple[Item, bool]:
    """Find or create the entity ``(type, value)`` for ``sources``; return it and whether
    it is new. Its scope is the narrowest of the sources'; incomparable scopes (two teams,
    a team and a user) fail closed with ``Forbidden``."""
    t, v = normalise_type(type_), normalise_value(value)
    try:
        scope = narrowest_scope([s.scope for s in sources])
    except Forbidden as exc:
        raise Forbidden(f"cannot place entity {t}:{v}: {exc.message}") from None
    if ctx.principal is not None:
        scope = ctx.principal.check_write_scope(scope)
    key = entity_source_key(t, v, scope)
    ws = ctx.workspace
    existing = ctx.items.get_by_source_key(ws, key, Visibility.everything(), scope=scope)
    if existing is not None:
        if existing.storage_class != "entity":
            raise InvalidInput(f"source key {key!r} belongs to a {existing.storage_class}")
        return existing, False
    label = " ".join(unicodedata.normalize("NFKC", value).split())
    text = f"{label} ({t})"
    item = Item(
        id=new_id("ent"),
        workspace=ws,
        kind=t,
        storage_class="entity",
        label=label,
        body=text,
        summary=text,
        source_key=key,
        indexed=True,
        scope=scope,
        origin=ctx.origin("mention", run_id),
        canonical=Canonical(t, v),
    )
    vector = ctx.embedder.embed([text])[0]
    saved = ctx.items.put_item(item, vector)
    # Two writers racing on one key both land on one row; the id that row kept wins.
    return saved, saved.id == item.id


def observe_mention(
    ctx: BrainContext,
    item_id: str,
    type_: str,
    value: str,
    text: str,
    *,
    start: int | None = None,
    end: int | None = None,
    run_id: str | None = None,
) -> Mention:
    """Attach the name ``value`` (of ``type_``) to ``item_id`` with the span it came from.

    The same mention (item, entity, span, text) observed twice is one edge.
    """
    item = ctx.get(item_id)
    if item.storage_class == "entity":
        raise InvalidInput(f"{item.id} is an entity; mentions come from files, sections, notes")
    span = text.strip() if isinstance(text, str) else ""
    if not span:
        raise InvalidInput("a mention needs the text it was read from")
    if len(span) > MAX_SPAN_TEXT_CHARS:
        raise InvalidInput(f"mention text is at most {MAX_SPAN_TEXT_CHARS} characters")
    for name, at in (("start", start), ("end", end)):
        if at is not None and at < 0:
            raise InvalidInput(f"{name} must not be negative")
    if start is not None and end is not None and end < start:
        raise InvalidInput(f"end ({end}) is before start ({start})")
    entity, entity_created = entity_for(ctx, type_, value, [item], run_id=run_id)
    digest = hashlib.sha256(span.encode()).hexdigest()[:16]
    edge = Edge(
        id=new_id("edg"),
        workspace=ctx.workspace,
        type="MENTIONS",
        src=item.id,
        dst=entity.id,
        origin=ctx.origin("mention", run_id),
        props={
            "text": span,
            "start": start,
            "end": end,
            "run_id": run_id,
            "dedupe": f"{start}:{end}:{digest}",
        },
    )
    saved = ctx.edges.put_edge(edge)
    return Mention(entity, saved, entity_created, saved.id == edge.id)


# -- links ------------------------------------------------------------------------------


def normalise_edge_type(type_: str) -> str:
    t = re.sub(r"[\s-]+", "_", type_.strip().upper()) if isinstance(type_, str) else ""
    if not _EDGE_TYPE.match(t):
        raise InvalidInput(
            f"invalid edge type {type_!r}: letters, digits and underscores, e.g. DEPENDS_ON"
        )
    if t in RESERVED_EDGE_TYPES:
        raise Forbidden(f"{t} is reserved: only indexing links a file to its sections")
    return t


def link(
    ctx: BrainContext,
    src: str,
    dst: str,
    type_: str,
    *,
    note: str | None = None,
    run_id: str | None = None,
) -> Link:
    """A custom edge between two items the caller can see; the same link again is a no-op.

    ``SAME_AS`` is recorded like any other type: a soft claim, never a merge.
    """
    t = normalise_edge_type(type_)
    if src == dst:
        raise InvalidInput("an item cannot be linked to itself")
    if note is not None and len(note) > MAX_NOTE_CHARS:
        raise InvalidInput(f"a link note is at most {MAX_NOTE_CHARS} characters")
    a, b = ctx.get(src), ctx.get(dst)
    props: dict[str, object] = {"run_id": run_id}
    if note is not None and note.strip():
        props["note"] = note.strip()
    edge = Edge(
        id=new_id("edg"),
        workspace=ctx.workspace,
        type=t,
        src=a.id,
        dst=b.id,
        origin=ctx.origin("link", run_id),
        props=props,
    )
    saved = ctx.edges.put_edge(edge)
    return Link(saved, saved.id == edge.id)


def put_system_edge(ctx: BrainContext, type_: str, src: str, dst: str, source: str) -> Edge:
    """An edge the system knows to be true (e.g. the order of turns in one session), of any
    type but a reserved one, between two visible items; the same edge again is a no-op.
    Every ``FOLLOWED_BY`` edge is written here (derive's ``sequence`` step, loaders through
    ``Brain.link_system``), and its two ends' keys follow it (``context_keys.py``)."""
    t = type_ if type_ in (SEQUENCE_EDGE, "SIMILAR_TO") else normalise_edge_type(type_)
    a, b = ctx.get(src), ctx.get(dst)
    edge = Edge(new_id("edg"), ctx.workspace, t, a.id, b.id, ctx.origin(source))
    saved = ctx.edges.put_edge(edge)
    if t == SEQUENCE_EDGE:  # each turn is found by the other's words too (context_keys.py)
        refresh_keys(ctx.store, ctx.workspace, [a.id, b.id])
    return saved


def visible_edges(
    ctx: BrainContext,
    item_id: str,
    *,
    types: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[Edge]:
    """Edges of a visible item, each kept only when both its ends are visible: checked in
    the store query and again here."""
    item = ctx.get(item_id)
    edges = ctx.edges.edges_of(ctx.workspace, item.id, ctx.visibility, types=types, limit=limit)
    seen = set(ctx.get_many(sorted({e.src for e in edges} | {e.dst for e in edges})))
    return [e for e in edges if e.src in seen and e.dst in seen]


# -- neighbourhood ----------------------------------------------------------------------


def neighborhood(ctx: BrainContext, item_id: str, hops: int = 1) -> Neighborhood:
    """Walk ``hops`` (1-2) steps out from ``item_id`` through visible items and edges.

    Each hop keeps at most ``MAX_ITEMS_PER_HOP`` new items and ``MAX_EDGES_PER_HOP``
    edges, in the store's (insertion) order; an edge is kept only when both its ends are.
    """
    if not isinstance(hops, int) or not 1 <= hops <= MAX_HOPS:
        raise InvalidInput(f"hops must be 1 or {MAX_HOPS}")
    center = ctx.get(item_id)
    vis, ws = ctx.visibility, ctx.workspace
    seen: dict[str, Item] = {center.id: center}
    seen_edges: set[str] = set()
    frontier = [center.id]
    out: list[Hop] = []
    for depth in range(1, hops + 1):
        candidates: list[Edge] = []
        more = False  # a node has edges beyond what one hop can read
        for node in frontier:
            edges = ctx.edges.edges_of(ws, node, vis, limit=EDGES_READ_PER_NODE)
            more = more or len(edges) == EDGES_READ_PER_NODE
            for e in edges:
                if e.id not in seen_edges:
                    seen_edges.add(e.id)
                    candidates.append(e)
        others = {e.dst if e.src in seen else e.src for e in candidates}
        found = ctx.get_many(sorted(others - seen.keys()))
        new: dict[str, Item] = {}
        kept: list[Edge] = []
        truncated = more
        for e in candidates:
            if len(kept) >= MAX_EDGES_PER_HOP:
                truncated = True
                break
            ends = []
            for end in (e.src, e.dst):
                known = seen.get(end) or new.get(end)
                if known is None:
                    item = found.get(end)
                    # get_many made the second check, in code (ctx.visible).
                    if item is None:
                        break
                    if len(new) >= MAX_ITEMS_PER_HOP:
                        truncated = True
                        break
                    new[end] = item
                    known = item
                ends.append(known)
            if len(ends) == 2:
                kept.append(e)
        seen.update(new)
        out.append(Hop(depth, tuple(new.values()), tuple(kept), truncated))
        frontier = list(new)
        if not frontier:
            break
    return Neighborhood(center, tuple(out))
