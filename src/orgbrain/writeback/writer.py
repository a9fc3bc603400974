"""The writer port: what turns a run's work products into at most three proposals.

A writer gets the products and two tools, ``search`` (what the brain already holds) and
``propose`` (one draft; a fourth is refused). It asks itself the seed's four questions:
useful in a month? about the organisation, not just this task? useful to a new
teammate? a fact, decision, rule, owner, definition or gotcha? Proposing nothing is a
valid outcome. Two writers exist: ``OfflineWriter`` (no LLM; the extraction tiers) and
``LLMWriter`` (an OpenAI-compatible chat model through ``ports.Chat``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..model import RunProducts, SearchResult

__all__ = ["KINDS", "MAX_PROPOSALS", "PERSONAL", "Draft", "Writer", "WriterTools"]

MAX_PROPOSALS = 3
KINDS = ("fact", "decision", "rule", "owner", "definition", "gotcha", "preference")
"""What a proposal may be: the seed's six kinds, and a personal preference."""
PERSONAL = "user"
"""A draft's scope for a personal fact: the run's user's own scope."""


@dataclass(frozen=True, slots=True)
class Draft:
    """One proposal as a writer makes it, before the gate. ``scope`` is ``org``,
    ``team:<id>`` or ``user`` (the run's user, whoever that is)."""

    kind: str
    body: str
    confidence: float
    scope: str = "org"
    label: str = ""
    evidence: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()


@dataclass(slots=True)
class WriterTools:
    """The writer's two tools over the brain, as the run's owner sees it."""

    search_fn: Callable[[str], SearchResult]
    drafts: list[Draft] = field(default_factory=list)
    searches: int = 0

    def search(self, query: str) -> SearchResult:
        self.searches += 1
        return self.search_fn(query)

    def propose(self, draft: Draft) -> bool:
        """Keep ``draft``; False (and not kept) once three are kept or it repeats one."""
        if len(self.drafts) >= MAX_PROPOSALS:
            return False
        if any(d.body.strip().casefold() == draft.body.strip().casefold() for d in self.drafts):
            return False
        self.drafts.append(draft)
        return True


class Writer(Protocol):
    name: str

    def write(self, products: RunProducts, tools: WriterTools) -> None:
        """Search and propose (``tools.propose``) what of ``products`` is worth keeping."""
        ...
