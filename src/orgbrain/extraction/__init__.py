"""TEMPORARY (lead's tree, replaced by the extraction branch on merge)."""

from __future__ import annotations

from typing import Any

from .types import Claim, Extraction, Extractor, Found

__all__ = ["Claim", "Extraction", "Extractor", "Found", "default_extractor"]


def default_extractor(chat: Any = None, *, embedder: Any = None) -> Extractor:
    raise NotImplementedError("extraction branch not merged yet")
