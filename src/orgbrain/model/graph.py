"""The graph as the services return it: observed mentions, links, and a walk out from an
item hop by hop."""

from __future__ import annotations

from dataclasses import dataclass

from .items import Edge, Item

__all__ = [
    "Hop",
    "Link",
    "Mention",
    "Neighborhood",
]


@dataclass(frozen=True, slots=True)
class Mention:
    """One observed mention: the entity it names, the edge to it, and whether either is new."""

    entity: Item
    edge: Edge
    entity_created: bool
    edge_created: bool


@dataclass(frozen=True, slots=True)
class Link:
    edge: Edge
    created: bool


@dataclass(frozen=True, slots=True)
class Hop:
    """What one step out from the frontier reached, within the per-hop caps."""

    depth: int
    items: tuple[Item, ...]
    edges: tuple[Edge, ...]
    truncated: bool


@dataclass(frozen=True, slots=True)
class Neighborhood:
    center: Item
    hops: tuple[Hop, ...]

    @property
    def items(self) -> tuple[Item, ...]:
        return tuple(i for h in self.hops for i in h.items)

    @property
    def edges(self) -> tuple[Edge, ...]:
        return tuple(e for h in self.hops for e in h.edges)
