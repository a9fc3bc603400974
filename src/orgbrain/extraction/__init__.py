"""Text to structure: entity mentions and typed statements, in three tiers.

Patterns (deterministic rules, always on), then a small offline classifier over sentence
embeddings (when an embedder is given), then an LLM (when a chat model is configured).
Pure: no store, no I/O beyond the ports passed in.
"""

from __future__ import annotations

from ..ports import Chat, Embedder
from .patterns import PatternExtractor
from .tiered import Refiner, TieredExtractor
from .types import (
    ENTITY_TYPES,
    STATEMENT_TYPES,
    SUBJECT_TYPES,
    Claim,
    Extraction,
    Extractor,
    Found,
    StatementType,
    Tier,
)

__all__ = [
    "ENTITY_TYPES",
    "STATEMENT_TYPES",
    "SUBJECT_TYPES",
    "TIERS",
    "Claim",
    "Extraction",
    "Extractor",
    "Found",
    "PatternExtractor",
    "Refiner",
    "StatementType",
    "Tier",
    "TieredExtractor",
    "default_extractor",
]

TIERS: tuple[Tier, ...] = ("pattern", "classifier", "llm")


def default_extractor(
    chat: Chat | None = None,
    *,
    embedder: Embedder | None = None,
    tiers: tuple[str, ...] = TIERS,
) -> Extractor:
    """Patterns; then the classifier when ``embedder`` is given; then the LLM when
    ``chat`` is. ``tiers`` narrows which of them run (the eval compares them)."""
    refiners: list[Refiner] = []
    if "classifier" in tiers and embedder is not None:
        from .classifier import StatementClassifier

        refiners.append(StatementClassifier.packaged(embedder))
    if "llm" in tiers and chat is not None:
        from .llm import LLMTier

        refiners.append(LLMTier(chat))
    return TieredExtractor(refiners)
