"""The facade's graph and agent side: edges, mentions, links, neighbourhoods, read
injection and the workspace's log."""

from __future__ import annotations

from collections.abc import Sequence

from .. import graph, inject
from ..context import BrainContext
from ..model import Edge
from ..ports import Tokenizer

__all__ = ["MAX_EDGES", "GraphFacade"]

MAX_EDGES = 1000
"""The most edges ``Brain.edges`` lists for one item."""


class GraphFacade:
    """``Brain``'s graph, injection and log methods (one class of the facade, by use case)."""

    _ctx: BrainContext

    def edges(
        self, item_id: str, *, types: Sequence[str] | None = None, limit: int = MAX_EDGES
    ) -> list[Edge]:
        """A visible item's first edges (at most ``limit``, itself at most ``MAX_EDGES``),
        each shown only when both its ends are visible: checked in the store query and
        again here."""
        return graph.visible_edges(
            self._ctx, item_id, types=types, limit=max(0, min(limit, MAX_EDGES))
        )

    def observe_mention(
        self,
        item_id: str,
        type_: str,
        value: str,
        text: str,
        *,
        start: int | None = None,
        end: int | None = None,
        run_id: str | None = None,
    ) -> graph.Mention:
        """Attach the name ``value`` (of ``type_``) to ``item_id`` with its span."""
        return graph.observe_mention(
            self._ctx, item_id, type_, value, text, start=start, end=end, run_id=run_id
        )

    def link(
        self,
        src: str,
        dst: str,
        type_: str,
        *,
        note: str | None = None,
        run_id: str | None = None,
    ) -> graph.Link:
        """A custom edge between two visible items; the same link again is a no-op."""
        return graph.link(self._ctx, src, dst, type_, note=note, run_id=run_id)

    def link_system(self, type_: str, src: str, dst: str, source: str) -> Edge:
        """An edge of any type (``FOLLOWED_BY`` included) written by the system, e.g. a
        loader that knows the order of turns; both ends must be visible."""
        return graph.put_system_edge(self._ctx, type_, src, dst, source)

    def neighborhood(self, item_id: str, hops: int = 1) -> graph.Neighborhood:
        """Walk 1-2 hops out from ``item_id`` through visible items and edges."""
        return graph.neighborhood(self._ctx, item_id, hops)

    # -- agents -------------------------------------------------------------------------

    def context_for_turn(
        self,
        message: str,
        anchors: Sequence[str] = (),
        *,
        policy: inject.InjectPolicy | None = None,
        tokenizer: Tokenizer | None = None,
    ) -> inject.TurnContext:
        """Read injection for one agent turn: cited items within the token budget, or
        nothing. Never raises: a failing search gives an empty context, logged."""
        return inject.context_for_turn(
            self._ctx, message, anchors, policy=policy, tokenizer=tokenizer
        )

    def recent_turns(self, limit: int = 20) -> list[dict[str, object]]:
        """The latest logged injection turns, newest first (a principal sees only its own)."""
        return inject.recent_turns(self._ctx, limit)

    def log_event(self, kind: str, record: dict[str, object]) -> int:
        """Append a JSON record to this workspace's log; returns its id."""
        return self._ctx.events.log_event(self._ctx.workspace, kind, record)

    def events(
        self, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        """The workspace's most recent records of ``kind``, newest first."""
        return self._ctx.events.events(self._ctx.workspace, kind, limit=limit, actor=actor)
