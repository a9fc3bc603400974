"""A value stated anew: the older unit's one value of a kind that the newer unit, stating
a change (or issuing the older one again, or as a later version of its document), gives
another ("Retention: 14 days", then "retention raised to 35 days"); and a phone number
or extension the newer note names as the old one."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...extraction.cues import change_cue
from ...extraction.quiet import NEGATION, states_nothing
from ...extraction.states import STATUS
from ...extraction.values import Value, marked_old, same_slot
from ...retrieve.terms import stem
from ..versions import one_document
from .guards import said_for_another
from .table import column, under
from .units import (
    INITIALS,
    LABEL,
    MIN_SHARED,
    Pair,
    Said,
    held_back,
    shared_words,
    spelled,
    with_title,
)

__all__ = ["REISSUED", "number_gone", "restated_values"]


def restated_values(old: Said, new: Said, siblings: Sequence[Said]) -> list[Pair]:
    """Values of ``old`` that ``new`` states anew (``siblings``: ``old``'s item's units,
    read once by ``restate``)."""
    if not (new.cue or _reissued(old, new) or _new_version(old, new)):
        return []
    shared = old.titled & new.stems | _spelled_out(old, new)
    pairs: list[Pair] = []
    for before in old.values:
        if before.kind == STATUS:
            continue  # ``states.state_changed``
        header = column(old, before)
        if not (_alone(old, new, before) or header):
            continue  # two of a kind in the older unit: which one changed?
        now = [
            v
            for v in new.values
            if same_slot(v, before) and len(shared) + _nouns(v, before) >= MIN_SHARED
        ]
        if header and not _alone(old, new, before):
            now = [v for v in now if under(new, v, header)]  # a table's row: its own column
        again = [v for v in now if v.key == before.key]
        if any(not marked_old(new.text, v) for v in again):
            continue  # the older value is still stated: not replaced
        held = {v.key for v in old.values if same_slot(v, before)}
        fresh = [v for v in now if v.key not in held and not marked_old(new.text, v)]
        if len({v.key for v in fresh}) != 1 or said_for_another(
            old, new, before, fresh[0], siblings
        ):
            continue
        # the words shared, in the unit or else in its title ("Strategic accounts -
        # engagement model" over "• QBR every quarter"), before the count's noun
        label = (
            shared_words(old.text, shared)
            or shared_words(with_title(old), shared)
            or tuple(before.unit.split())
        )
        pairs.append(Pair(old, new, before, fresh[0], label))
    return pairs


def _spelled_out(a: Said, b: Said) -> frozenset[str]:
    """The stems of the capitalised words one unit spells out that the other writes as
    their initials ("you need TL sign-off", "Benefits Team Leader sign-off"): one thing,
    however each writes it."""
    out: set[str] = set()
    for short, full in ((a, b), (b, a)):
        for m in INITIALS.finditer(short.text):
            found = spelled(m.group(0), full.text)
            if found is not None:
                out |= {stem(w.lower()) for w in found.group(0).split()}
    return frozenset(out)


def _alone(old: Said, new: Said, before: Value) -> bool:
    """Whether ``before`` is the only value of its kind in the older unit that the newer
    does not say again: "Car mileage: 45p per mile ..., 25p thereafter", then "rises to
    48p per mile (... 25p after)": the one no longer said is the one that changed."""
    kept = {v.key for v in new.values if same_slot(v, before) and not marked_old(new.text, v)}
    others = [v for v in old.values if v is not before and same_slot(v, before)]
    return all(v.key in kept and v.key != before.key for v in others)


def _nouns(a: Value, b: Value) -> int:
    """How many words two counts' nouns share: shared words too ("Retention: 14 days",
    "retention raised to 35 days")."""
    return len(set(a.unit.split()) & set(b.unit.split()))


REISSUED = 0.5
"""The least share of its own words a later unit must give to repeating an older one's to
restate it without a change word."""


def _reissued(old: Said, new: Said) -> bool:
    """Whether ``new`` is ``old`` issued again, in its words but for a value ("requests
    must be submitted at least 10 working days before", then "at least 20 working days
    before ..., so rosters can be covered"): it repeats every word of the older unit, four
    or more, and not only as a few of its own (``REISSUED``). A word the older unit has
    and the newer lacks is another thing ("all contractors must complete 2 modules",
    "all visitors must complete 1 module"; "Kellaway WTP", "Brennan WTP")."""
    shared = len(old.stems & new.stems)
    if old.stems - new.stems or shared < 4 or shared < REISSUED * len(new.stems):
        return False
    return not (held_back(new.text) or states_nothing(new.text))


def _new_version(old: Said, new: Said) -> bool:
    """Whether ``new`` is a line of a later version of ``old``'s document
    (``versions.py``: "WXM-HP-03 rev F" after "HACCP plan WXM-HP-03", a reply to its
    subject) that states something, not a question, a hedge, a plan or an exception; read
    after its label ("What's different: a pass reads 100 RLU" is no question)."""
    said = LABEL.sub("", new.text, count=1)
    return one_document(old.item, new.item) and change_cue(said, heading=True)


_DIALS = ("phone", "extension")
_OLD_NUMBER = re.compile(
    r"\b(?:old|former|previous|existing)\s+(?:[^\W\d]+\s+){0,2}?(\d[\d -]{1,14}\d)"
    r"|(\d[\d -]{1,14}\d)\s+(?:number\s+|line\s+)?(?:will\s+be\s+|is\s+being\s+|has\s+been\s+)?"
    r"(?:switched\s+off|turned\s+off|retired|withdrawn|closed|stops?\s+working|no\s+longer)",
    re.IGNORECASE,
)
"""Digits named as the number before ("the old 1190 number", "0800 046 1190 will be
switched off")."""


def number_gone(old: Said, new: Said, units: Sequence[Said]) -> list[Pair]:
    """A phone number or extension the newer unit states as a change ("New 24/7 incident
    line from today: 0800 046 2277") where a unit of its item names the older unit's one
    number as the old one, by its digits or its last three or more ("The old 1190 number
    will be switched off"): the same line, whatever each sentence calls it, so no words
    need be shared. A number not named old may be a second line beside the first."""
    if not new.cue or NEGATION.search(new.text):
        return []
    pairs: list[Pair] = []
    for kind in _DIALS:
        was = [v for v in old.values if v.kind == kind]
        now = {v.key: v for v in new.values if v.kind == kind and not marked_old(new.text, v)}
        if len(was) != 1 or len(now) != 1 or was[0].key in now:
            continue
        if any(_names_old(u.text, was[0].key) for u in units):
            (after,) = now.values()
            label = shared_words(old.text, old.stems)
            pairs.append(Pair(old, new, was[0], after, label))
    return pairs


def _names_old(text: str, key: str) -> bool:
    """Whether ``text`` names the number ``key`` (its digits) as the old one."""
    for m in _OLD_NUMBER.finditer(text):
        digits = re.sub(r"\D", "", m.group(1) or m.group(2))
        if len(digits) >= 3 and key.endswith(digits):
            return True
    return False
