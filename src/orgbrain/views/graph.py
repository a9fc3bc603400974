"""Edges and what the graph tools return: a mention, a link, a neighbourhood."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..model import Edge, Hop, Link, Mention, Neighborhood
from ._base import View
from .items import ItemView, OriginView

__all__ = ["EdgeList", "EdgeView", "HopView", "LinkView", "MentionView", "NeighborhoodView"]

# The store's idempotency key for one mention span: it keeps a mention from being
# recorded twice and means nothing to a reader.
_INTERNAL_PROPS = frozenset({"dedupe"})


class EdgeView(View):
    id: str
    workspace: str
    type: str
    src: str
    dst: str
    origin: OriginView
    props: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, e: Edge) -> EdgeView:
        return cls(
            id=e.id,
            workspace=e.workspace,
            type=e.type,
            src=e.src,
            dst=e.dst,
            origin=OriginView.of(e.origin),
            props={k: v for k, v in e.props.items() if k not in _INTERNAL_PROPS},
        )

    def to_model(self) -> Edge:
        return Edge(
            id=self.id,
            workspace=self.workspace,
            type=self.type,
            src=self.src,
            dst=self.dst,
            origin=self.origin.to_model(),
            props=dict(self.props),
        )


class EdgeList(View):
    item_id: str
    edges: list[EdgeView]


class MentionView(View):
    entity: ItemView
    edge: EdgeView
    entity_created: bool
    edge_created: bool

    @classmethod
    def of(cls, m: Mention, *, body_chars: int | None = None) -> MentionView:
        return cls(
            entity=ItemView.of(m.entity, body_chars=body_chars),
            edge=EdgeView.of(m.edge),
            entity_created=m.entity_created,
            edge_created=m.edge_created,
        )

    def to_model(self) -> Mention:
        return Mention(
            self.entity.to_model(), self.edge.to_model(), self.entity_created, self.edge_created
        )


class LinkView(View):
    edge: EdgeView
    created: bool

    @classmethod
    def of(cls, link: Link) -> LinkView:
        return cls(edge=EdgeView.of(link.edge), created=link.created)

    def to_model(self) -> Link:
        return Link(self.edge.to_model(), self.created)


class HopView(View):
    depth: int
    items: list[ItemView]
    edges: list[EdgeView]
    truncated: bool = Field(description="Whether the per-hop caps left items or edges out")

    @classmethod
    def of(cls, h: Hop, *, body_chars: int | None = None) -> HopView:
        return cls(
            depth=h.depth,
            items=[ItemView.of(i, body_chars=body_chars) for i in h.items],
            edges=[EdgeView.of(e) for e in h.edges],
            truncated=h.truncated,
        )

    def to_model(self) -> Hop:
        return Hop(
            self.depth,
            tuple(i.to_model() for i in self.items),
            tuple(e.to_model() for e in self.edges),
            self.truncated,
        )


class NeighborhoodView(View):
    center: ItemView
    hops: list[HopView]

    @classmethod
    def of(cls, n: Neighborhood, *, body_chars: int | None = None) -> NeighborhoodView:
        return cls(
            center=ItemView.of(n.center, body_chars=body_chars),
            hops=[HopView.of(h, body_chars=body_chars) for h in n.hops],
        )

    def to_model(self) -> Neighborhood:
        return Neighborhood(self.center.to_model(), tuple(h.to_model() for h in self.hops))
