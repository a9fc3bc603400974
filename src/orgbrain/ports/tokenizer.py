"""Counting and cutting text in tokens."""

from __future__ import annotations

from typing import Protocol

__all__ = ["Tokenizer"]


class Tokenizer(Protocol):
    """Counts and cuts text in tokens."""

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` of at most ``max_tokens`` tokens."""
        ...
