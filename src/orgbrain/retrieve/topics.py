"""Freshness by topic: a candidate is fresh or stale against the candidates on its own
topic (``freshness.by_topic``), and this says which candidates share one."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..analysis import topic_words
from ..context import BrainContext
from .candidate import Candidate
from .freshness import NEWER, by_topic
from .replacements import replaced_pairs

__all__ = ["SAME_TOPIC", "freshen_by_topic"]

SAME_TOPIC = 3
"""Two candidates whose texts share this many words that carry meaning
(``terms.topic_words``) are on one topic for freshness (``freshness.by_topic``): one
shared word is as often chance ("day", a first name), and two often are ("first day",
"new"); long texts share three on any topic, and are then compared as before."""


def freshen_by_topic(ctx: BrainContext, scored: list[Candidate], names: Sequence[str]) -> None:
    """Each candidate's freshness against its own topic (``freshness.by_topic``), its
    score with it. Two candidates share a topic when their texts share
    ``SAME_TOPIC`` words that carry meaning, when both name one of ``names`` (the
    query's proper names: "Kestrel" in an old project card and in a status line of a
    quarterly update), or when the derivation linked them (one replaced the other,
    or a statement of it: two ways of saying one thing, read from the store once,
    when neither the words nor the names tell)."""
    items = [c.item for c in scored if c.item is not None]
    if len(items) < len(scored) or not items:
        return
    written = [item.when for item in items]
    if max(written) - min(written) < NEWER:
        return
    topics: dict[int, frozenset[str]] = {}
    named: dict[int, frozenset[str]] = {}
    linked: set[frozenset[str]] | None = None

    def words_of(i: int) -> frozenset[str]:
        # Read only for the candidates compared: a list's long texts cost its stems.
        if i not in topics:
            topics[i] = topic_words(items[i].body)
        return topics[i]

    def names_of(i: int) -> frozenset[str]:
        if i not in named:
            named[i] = frozenset(n for n in names if _names(items[i].body, n))
        return named[i]

    def related(i: int, j: int) -> bool:
        nonlocal linked
        if len(words_of(i) & words_of(j)) >= SAME_TOPIC or (names and names_of(i) & names_of(j)):
            return True
        if linked is None:
            linked = replaced_pairs(ctx, [item.id for item in items])
            linked.update(
                frozenset((item.id, other))
                for item in items
                for other in (item.superseded_by, item.supersedes)
                if other is not None
            )
        return frozenset((items[i].id, items[j].id)) in linked

    fresh = by_topic([c.fresh for c in scored], written, related)
    for c, f in zip(scored, fresh, strict=True):
        if f != c.fresh and c.fresh > 0:
            c.score = c.fused * f * c.factor  # not ``*= f / fresh``: no float noise
            c.fresh = f


def _names(text: str, name: str) -> bool:
    """Whether ``text`` writes ``name`` (a query's proper name, lower-cased) as a name:
    capitalised ("the Planning Committee", not "the quarterly planning offsite"), the
    rest in any case, perhaps longer ("Kestrel's")."""
    return (
        re.search(rf"(?<!\w){re.escape(name[:1].upper())}(?i:{re.escape(name[1:])})", text)
        is not None
    )
