"""A thing's state said later as another ("Status: In progress", then "KR3 Atlas: PAUSED
until Q1"): a state is only ever the latest, so no change word is needed."""

from __future__ import annotations

import re

from ...analysis import STOPWORDS, stem
from ...extraction.named import names_in
from ...extraction.states import STATUS
from .units import MIN_SHARED, Pair, Said, held_back, shared_words, title, with_title

__all__ = ["state_changed"]


def state_changed(old: Said, new: Said) -> list[Pair]:
    """A thing's state said later as another ("Status: In progress" under "Project Atlas
    (warehouse consolidation)", then "KR3 Atlas: PAUSED until Q1"): a state is only ever
    the latest, so no change word is needed. Each unit gives one kind of state
    (``statuses_in``), they share ``MIN_SHARED`` words counting titles, and they do not
    each name a thing the other does not (Atlas on track, Borealis at risk: two
    projects). A negated, planned, conditional or temporary unit ("Atlas is not on
    hold", "we plan to put Atlas on hold", "if the vendor slips, Atlas goes on hold",
    "the demo is paused while we fix the projector") changes nothing."""
    was = {v.key: v for v in old.values if v.kind == STATUS}
    now = {v.key: v for v in new.values if v.kind == STATUS}
    if len(was) != 1 or len(now) != 1 or was.keys() == now.keys():
        return []
    if held_back(new.text) or _IF.search(new.text):
        return []  # "if the vendor slips again, Atlas goes on hold"
    shared = old.titled & new.titled
    named_old, named_new = _named(old), _named(new)
    if len(shared) < MIN_SHARED and not (named_old & named_new) - _NOT_A_THING:
        return []  # neither many words nor the thing's own name in common
    if named_old - new.titled and named_new - old.titled:
        return []
    label = shared_words(with_title(old), shared)
    (before,), (after,) = was.values(), now.values()
    return [Pair(old, new, before, after, label)]


_IF = re.compile(r"\b(?:if|unless|while|in\s+case)\b", re.IGNORECASE)
"""A state said on a condition, or while something lasts."""
_NOT_A_THING = frozenset(stem(w) for w in "project team service weekly status update".split())
"""Words of a name that do not tell one thing from another ("Project Atlas", "Project
Borealis")."""


def _named(said: Said) -> frozenset[str]:
    """The stems of the words of the names ``said`` holds, and its title's when it lies
    below it: not a channel, a handle or a code ("#announcements", "KR3"), nor a state
    written in capitals ("PAUSED")."""
    first = title(said.item)
    below = said.start >= len(first)
    text = f"{first}\n{said.text}" if below else said.text
    at = len(first) + 1 if below else 0
    states = [(at + v.start, at + v.end) for v in said.values if v.kind == STATUS]
    return frozenset(
        stem(w)
        for n in names_in(text)
        if not any(a <= n.start < b for a, b in states)
        for w in n.key.split()
        if w.isalpha() and w not in STOPWORDS
    )
