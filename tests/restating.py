"""What the restatement tests share: two dated notes derived in a brain that holds a
couple of unrelated ones, and what the older note's statements became."""

from __future__ import annotations

from datetime import UTC, datetime

from orgbrain import Brain
from orgbrain.model import Statement

SEP = datetime(2026, 9, 3, tzinfo=UTC)
OCT = datetime(2026, 10, 7, tzinfo=UTC)
NOV = datetime(2026, 11, 16, tzinfo=UTC)
OTHER = (
    "The design review happens on Thursdays.",
    "Support answers tickets within one business day.",
)


def derived(brain: Brain, *notes: tuple[str, datetime]) -> list[str]:
    """The ids of ``notes`` (text, date), each added and derived after ``OTHER``."""
    for body in OTHER:
        brain.add_note(body)
    return [brain.add_note(text, occurred_at=at, wait="derived").id for text, at in notes]


def ended(brain: Brain, older: str, newer: str) -> list[str]:
    """The objects of the older note's statements that ended, once the newer is derived."""
    old, _ = derived(brain, (older, SEP), (newer, NOV))
    return [s.object for s in brain.statements(item_id=old, current=None) if not s.current]


def values(brain: Brain, item_id: str) -> list[Statement]:
    """The item's value statements, current or not."""
    return [s for s in brain.statements(item_id=item_id, current=None) if s.predicate == "value"]
