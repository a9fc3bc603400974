"""Search plans: retrieval described as typed data, with named presets for ablations."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ..errors import InvalidInput
from ..model import StorageClass

__all__ = ["PLANS", "SearchPlan", "Stream", "StreamKind", "get_plan"]

StreamKind = Literal["vector", "keyword"]


@dataclass(frozen=True, slots=True)
class Stream:
    kind: StreamKind
    storage_class: StorageClass
    weight: float = 1.0

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.storage_class}"


def _streams(*kinds: StreamKind) -> tuple[Stream, ...]:
    classes: tuple[StorageClass, ...] = ("file", "section", "note")
    return tuple(Stream(k, c) for k in kinds for c in classes)


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """Everything that decides what a search returns, and nothing else."""

    name: str
    streams: tuple[Stream, ...] = field(default_factory=lambda: _streams("vector", "keyword"))
    per_stream: int = 50
    rrf_k: int = 60
    half_life_days: float = 90.0
    freshness_floor: float = 0.25
    k_default: int = 5
    k_max: int = 8
    floor_abs: float = 0.02
    floor_rel: float = 0.6
    body_chars: int = 4000
    embed_chars: int = 2000

    def with_limits(self, *, k_max: int, floors: bool) -> SearchPlan:
        """The same ranking with other output limits (evaluation wants deep, unfloored lists)."""
        return replace(
            self,
            k_max=k_max,
            per_stream=max(self.per_stream, k_max),
            floor_abs=self.floor_abs if floors else 0.0,
            floor_rel=self.floor_rel if floors else 0.0,
        )

    @property
    def uses_vectors(self) -> bool:
        return any(s.kind == "vector" for s in self.streams)


PLANS: dict[str, SearchPlan] = {
    "hybrid": SearchPlan("hybrid"),
    "bm25": SearchPlan("bm25", streams=_streams("keyword")),
    "dense": SearchPlan("dense", streams=_streams("vector")),
}


def get_plan(name: str) -> SearchPlan:
    try:
        return PLANS[name]
    except KeyError:
        raise InvalidInput(
            f"unknown search plan {name!r}; known: {', '.join(sorted(PLANS))}"
        ) from None
