"""The graph stream, the read router and time frames: what the typed graph adds to a search.

**Graph stream.** Entities the query names (exact canonical match of its word n-grams,
then fuzzy: an entity whose every word is in the query, or a person's first name) → the
items whose statements about them answer what the query asks of them (its predicate or
object named, or the type it asks for). A query that is only a name ("tell me about
Priya") lists every statement about it, then the items that mention it. A ranked list
like any other stream's, fused by rank; a query that asks something of an entity gets no
vote for items that merely name it (in a conversation, most lines name someone).

**Router.** How much each stream counts depends on the query: one anchored on an entity
the brain knows leans on the graph ("tell me about Priya"), one holding an exact code
(``ACME-1247``) leans on keywords, anything else (a paraphrase) is left to the plan.

**Time frames.** ``current`` (the default) ranks a superseded item below what superseded
it; ``history`` leaves the order alone; ``as_of`` answers as the brain believed at a date:
nothing that happened after it, and a supersession only if its successor came by then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from ..analysis import STOPWORDS, label_words, stem, text_stems
from ..context import BrainContext
from ..errors import InvalidInput
from ..model import Item, ItemSketch, Statement, StatementType
from .query import CODE, Query, asked_type
from .terms import coverage

__all__ = [
    "CODE",
    "CURRENT",
    "GraphMatch",
    "Mode",
    "Route",
    "TimeFrame",
    "asked_type",
    "graph_stream",
    "route",
    "time_frame",
]

Mode = Literal["current", "history", "as_of"]

MAX_NGRAM = 4
FUZZY_CANDIDATES = 10
MENTIONS_READ = 50
STATEMENTS_READ = 100
GRAPH_DEPTH = 50
"""The most items the graph stream lists."""

# Words that ask about a thing without saying what: "tell me about Priya".
_FILLER = frozenset("tell know anything everything something info information".split())


@dataclass(frozen=True, slots=True)
class TimeFrame:
    """Which belief a search answers with: ``current``, ``history``, or ``as_of`` ``at``."""

    mode: Mode = "current"
    at: datetime | None = None

    def exists(self, item: Item | ItemSketch) -> bool:
        """Whether ``item`` had happened (or been written) by the frame's date."""
        return self.mode != "as_of" or self.at is None or item.when <= self.at

    def holds(self, s: Statement) -> bool:
        """Whether statement ``s`` held at the frame's time (``current``: now)."""
        return s.holds_at(self.at) if self.mode == "as_of" and self.at else s.current

    def supersedes(self, successor: Item | ItemSketch | None) -> bool:
        """Whether a successor counts as superseding in this frame."""
        if successor is None or self.mode == "history":
            return False
        return self.exists(successor)


CURRENT = TimeFrame()


def time_frame(mode: Mode | None, as_of: datetime | None) -> TimeFrame:
    """The frame a search asks for: ``as_of`` alone means ``as_of``; a naive date-time is
    taken as UTC."""
    if as_of is not None and as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=UTC)
    if mode is None:
        mode = "as_of" if as_of is not None else "current"
    if mode not in ("current", "history", "as_of"):
        raise InvalidInput(f"mode is current, history or as_of, not {mode!r}")
    if mode == "as_of" and as_of is None:
        raise InvalidInput("mode as_of needs a date (as_of)")
    if mode != "as_of" and as_of is not None:
        raise InvalidInput(f"as_of goes with mode as_of, not {mode}")
    return TimeFrame(mode, as_of)


@dataclass(frozen=True, slots=True)
class GraphMatch:
    """The entities a query names and the items the graph ranks for it, each with why
    (``support``): a statement about a named entity whose predicate or object the
    question asks about (or of the type it asks for); for a query that is only a name
    ("tell me about Priya"), any statement or mention of it."""

    entities: tuple[Item, ...]
    ranked: tuple[str, ...]
    asked: StatementType | None
    support: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Route:
    keyword_share: float
    graph_weight: float
    reason: str


def graph_stream(ctx: BrainContext, query: Query, frame: TimeFrame = CURRENT) -> GraphMatch:
    """The graph stream's ranking for ``query``, read with the context's eyes."""
    entities = _named(ctx, query)
    asked = query.asked_type
    if not entities:
        return GraphMatch((), (), asked)
    ids = [e.id for e in entities]
    ws, vis = ctx.workspace, ctx.visibility
    statements = ctx.statements.statements(ws, vis, subject_ids=ids, limit=STATEMENTS_READ)
    statements += ctx.statements.statements(ws, vis, object_ids=ids, limit=STATEMENTS_READ)

    rest = _unnamed_terms(query, entities)

    def rank(s: Statement) -> tuple[bool, bool, bool, float]:
        asked_of = _asked_about(s, rest, asked)
        return (not asked_of, s.type != asked, not frame.holds(s), -s.valid_from.timestamp())

    ranked: dict[str, None] = {}
    support: dict[str, str] = {}
    for s in sorted(statements, key=rank):
        if frame.mode != "history" and not frame.holds(s):
            continue  # a belief ended before the frame's time is no answer in it
        if s.item_id not in support and _asked_about(s, rest, asked):
            support[s.item_id] = f"states {s.subject} {s.predicate.replace('_', ' ')}"
        # A query that asks something of the entity lists only what answers it: every
        # item naming a person in a conversation would be noise, not a vote.
        if not rest or s.item_id in support:
            ranked.setdefault(s.item_id, None)
    if rest:
        top = tuple(list(ranked)[:GRAPH_DEPTH])
        return GraphMatch(tuple(entities), top, asked, {i: support[i] for i in top})
    mentioning: list[str] = []
    for e in entities:
        for edge in ctx.edges.edges_of(ws, e.id, vis, types=["MENTIONS"], limit=MENTIONS_READ):
            mentioning.append(edge.src)
    found = ctx.get_many(sorted(set(mentioning) - ranked.keys()))
    for item in sorted(found.values(), key=lambda i: i.when, reverse=True):
        if frame.exists(item):
            ranked.setdefault(item.id, None)
            support.setdefault(item.id, "mentions " + entities[0].label)
    top = tuple(list(ranked)[:GRAPH_DEPTH])
    return GraphMatch(tuple(entities), top, asked, {i: support[i] for i in top if i in support})


def _unnamed_terms(query: Query, entities: Sequence[Item]) -> list[str]:
    """The query's content words that are not the entities' names: what it asks of them."""
    named = {w for e in entities for w in label_words(e.label.casefold())}
    return [w for w in query.folded if w not in STOPWORDS and w not in named and w not in _FILLER]


def _asked_about(s: Statement, rest: Sequence[str], asked: StatementType | None) -> bool:
    """Whether statement ``s`` answers what the query asks of its entity: the query asks
    nothing else, asks for this type, or names the predicate, the object or a word of the
    sentence it was read from (by stem prefix: "owns" asks for an ``owner``; "where are
    postmortems written?" asks what "postmortems are written in Notion" says, read as
    ``uses``)."""
    if not rest or s.type == asked:
        return True
    words = text_stems(f"{s.predicate.replace('_', ' ')} {s.object} {s.text}")
    return coverage([stem(w) for w in rest], words) > 0


def _named(ctx: BrainContext, query: Query) -> list[Item]:
    """Entities the query names: exact canonical n-grams, then fuzzy."""
    words, lowered = query.words, query.folded
    grams = {
        " ".join(lowered[i : i + n])
        for n in range(1, MAX_NGRAM + 1)
        for i in range(len(lowered) - n + 1)
    }
    grams = {g for g in grams if g not in STOPWORDS}
    ws, vis = ctx.workspace, ctx.visibility
    found = {e.id: e for e in ctx.statements.entities_named(ws, sorted(grams), vis)}
    terms = [w for w in lowered if w not in STOPWORDS]
    if terms:
        capital = {w.casefold() for w in words if w[:1].isupper()}
        for entity_id, _ in ctx.search.keyword_search(ws, "entity", terms, FUZZY_CANDIDATES, vis):
            if entity_id in found:
                continue
            entity = ctx.get_many([entity_id]).get(entity_id)
            if entity is None:
                continue
            parts = label_words(entity.label.casefold())  # "service-to-service calls"
            if set(parts) <= set(lowered) or (
                entity.kind == "person" and parts and parts[0] in capital
            ):
                found[entity.id] = entity
    return list(found.values())


def route(query: Query, entities: Sequence[Item], keyword_share: float) -> Route:
    """Stream weights for ``query``: graph for an entity-anchored query, keywords for an
    exact code, the plan's own balance otherwise."""
    if query.has_code:
        return Route(max(keyword_share, 0.75), 1.0 if entities else 0.0, "exact code")
    if entities:
        anchored = not _unnamed_terms(query, entities)  # "tell me about Priya"
        weight = 2.0 if anchored else 1.0
        return Route(keyword_share, weight, "entity-anchored" if anchored else "names an entity")
    return Route(keyword_share, 0.0, "paraphrase")
