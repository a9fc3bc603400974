"""Three tiers in a row: patterns, then a small classifier, then an LLM when one is set.

Each later tier sees what the earlier ones found and only adds (or re-scores) claims;
a tier that fails leaves the earlier result as it was. Of the entities they found, only
those a person would recognise are returned (``names.recognisable``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .names import recognisable
from .patterns import PatternExtractor
from .types import Extraction, Found

__all__ = ["Refiner", "TieredExtractor"]


class Refiner(Protocol):
    """A tier after the patterns: given the text and the result so far, a better result."""

    def refine(
        self, text: str, found: Extraction, *, known: Sequence[tuple[str, str]] = ()
    ) -> Extraction: ...


class TieredExtractor:
    def __init__(self, refiners: Sequence[Refiner] = ()) -> None:
        self.patterns = PatternExtractor()
        self.refiners = tuple(refiners)

    def extract(self, text: str, *, known: Sequence[tuple[str, str]] = ()) -> Extraction:
        found = self.patterns.extract(text, known=known)
        for refiner in self.refiners:
            found = refiner.refine(text, found, known=known)
        # A claim's subject stays a statement's subject, but only a name is a mention: the
        # graph and item pages draw mentions, and "Trigger cycles" names nothing to draw.
        drawn = tuple(
            f
            for f in found.entities
            if recognisable(f, text) and not _part_of_a_longer(f, found.entities)
        )
        return Extraction(drawn, found.claims)


def _part_of_a_longer(found: Found, entities: Sequence[Found]) -> bool:
    # "Chen" read as a surname inside "Bo Chen", which a claim then named in full: one
    # person, not two.
    return any(
        e.type == found.type
        and e.start <= found.start
        and found.end <= e.end
        and (e.start, e.end) != (found.start, found.end)
        for e in entities
    )
