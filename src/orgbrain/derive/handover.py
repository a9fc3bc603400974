"""A thing handed on to a named holder: "From Monday Priya Lal picks up release sign-off",
"Tom Okafor is picking up UG extension requests", "Daniel Reyes will be your HR Business
Partner", "Kwame will lead it", "J&E Hall are doing spiral freezer PPMs".

Organisations write a new owner, approver, chair or contractor as a person or firm doing a
verb of taking something on, not only as "X takes over" or "report to X". A name followed
by one of those verbs is the new holder (``handed_to``); a sentence with one states a
change on its own (``hands_over``), unless it is a passing cover ("this week only"), a
plan, a question or a denial (``change_cue``'s own guards, and a negation)."""

from __future__ import annotations

import re

from ..extraction.cues import change_cue
from ..extraction.quiet import NEGATION
from ..extraction.values import Value

__all__ = ["handed_to", "hands_over"]

_TAKES_UP = re.compile(
    r"(?:\s+\([^)]{0,40}\))?,?\s+(?:(?:now|also)\s+)?(?:"
    r"(?:picks?|picked|is\s+picking|are\s+picking|will\s+pick|'s\s+picking)\s+up|"
    r"(?:will|'ll)\s+(?:now\s+)?(?:be\s+(?:your|our|the)|lead|head\s+up|chair|own|run|"
    r"sign\s+off|handle|look\s+after|take\s+on)|"
    r"(?:is|are)\s+(?:now\s+)?(?:leading|heading\s+up|chairing|doing|handling|running)|"
    r"(?:takes?|took|is\s+taking)\s+on|steps?\s+in\s+as|stepping\s+in\s+as|"
    r"(?:has\s+been|is|was)\s+appointed|joins\s+as)\b",
    re.IGNORECASE,
)
"""After a name: a verb of taking a thing on."""


def handed_to(text: str, name: Value) -> bool:
    """Whether ``name`` in ``text`` is followed by a verb of taking a thing on ("Priya
    Lal picks up release sign-off", "Kwame will lead it")."""
    return _TAKES_UP.match(text, name.end) is not None


def hands_over(text: str, names: tuple[Value, ...]) -> bool:
    """Whether ``text`` hands a thing on to one of ``names``: a change in itself, unless
    negated ("Dana is not picking up expenses") or held back as ``change_cue`` holds
    back a change (a plan, a passing cover, a question, a hedge)."""
    if NEGATION.search(text) or not any(handed_to(text, n) for n in names):
        return False
    return change_cue(text, heading=True)
