"""Which items are a conversation's turns: read by search (how people talk) and by
derivation (what a turn may state), so it lives below both."""

from __future__ import annotations

from .model import Item, ItemSketch

__all__ = ["CONVERSATION_KINDS", "TURN_KIND", "is_conversational"]

TURN_KIND = "turn"
"""The kind to write a conversation's turn with (a chat message may say ``message``)."""
CONVERSATION_KINDS = frozenset({TURN_KIND, "message"})
"""The kinds of item that are a conversation's turns: one speaker's line, "Speaker: ..."."""


def is_conversational(item: Item | ItemSketch) -> bool:
    """Whether ``item`` is a turn of a conversation (its kind is in ``CONVERSATION_KINDS``):
    the only items that the conversation readings (vocatives, speakers, listeners, short
    filler) apply to."""
    return item.kind.strip().lower() in CONVERSATION_KINDS
