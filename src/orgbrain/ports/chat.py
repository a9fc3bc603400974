"""An LLM behind an OpenAI-compatible chat API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

__all__ = ["Chat"]


@runtime_checkable
class Chat(Protocol):
    """An LLM behind an OpenAI-compatible chat API: messages in, the reply's text out."""

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json: bool = False,
        timeout: float | None = None,
    ) -> str:
        """The assistant's reply to ``messages`` (``role``/``content`` maps); ``json`` asks
        the model for a JSON object. Raises ``Unavailable`` when the server fails."""
        ...
