"""A value stated anew: the older unit's one value of a kind that the newer unit, stating
a change (or issuing the older one again, or as a later version of its document, or
setting a value against the older one: "the 10th, not the 14th"), gives another
("Retention: 14 days", then "retention raised to 35 days"); and a phone number or
extension the newer note names as the old one. Two amounts counted per two things are two
rates ("GBP 9 per duty", "GBP 32 per night")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...analysis import stem
from ...extraction.cues import CUE, change_cue
from ...extraction.quiet import NEGATION, states_nothing
from ...extraction.shorthand import values_of
from ...extraction.states import STATUS
from ...extraction.values import Value, marked_old, same_slot
from ..versions import one_document
from .guards import said_for_another
from .table import a_row, column, under
from .units import (
    LABEL,
    MIN_SHARED,
    Pair,
    Said,
    content_stems,
    held_back,
    shared_words,
    spelled_out,
    stems,
    with_title,
)

__all__ = ["REISSUED", "number_gone", "restated_values"]


def restated_values(old: Said, new: Said, siblings: Sequence[Said]) -> list[Pair]:
    """Values of ``old`` that ``new`` states anew (``siblings``: ``old``'s item's units,
    read once by ``restate``)."""
    if not (
        new.cue
        or _led_by_change(new)
        or _reissued(old, new)
        or _new_version(old, new)
        or _names_before(old, new)
    ):
        return []
    shared = old.titled & new.stems | spelled_out(old, new)
    pairs: list[Pair] = []
    for before in old.values:
        if before.kind == STATUS:
            continue  # ``states.state_changed``
        header = column(old, before)
        labels = _labels(old, before)
        listed = _listed(labels, new, before)
        if not (
            _alone(old, new, before)
            or header
            or listed
            or (not labels and _none_kept(old, new, before))
        ):
            continue  # two of a kind in the older unit: which one changed?
        # a table row's cells are said under their column's header ("Property settle
        # limit" over "| B (handler) | £10,000 |"): its words count as the row's
        said = shared | (content_stems(header) & new.stems)
        now = [
            v
            for v in new.values
            if same_slot(v, before)
            and len(said) + _nouns(v, before) >= MIN_SHARED
            and not _other_basis(old, before, new, v)
        ]
        if header and not _alone(old, new, before):
            now = [v for v in now if under(new, v, old, before)]  # a table's row: its own column
        elif listed and not _alone(old, new, before):
            now = [v for v in now if v.start in listed]  # a list's item: its own label
        again = [v for v in now if v.key == before.key]
        if any(not marked_old(new.text, v) for v in again):
            continue  # the older value is still stated: not replaced
        held = {v.key for v in old.values if same_slot(v, before)}
        if any(v.key not in held and marked_old(new.text, v) for v in now):
            continue  # it names another value as the one it replaces ("moves off Sunday")
        fresh = [v for v in now if v.key not in held and not marked_old(new.text, v)]
        if len({v.key for v in fresh}) > 1:
            fresh = _paired(new, before, fresh)
        elif not fresh and len(said) >= MIN_SHARED:
            fresh = _set_instead(new, before)
        if len({v.key for v in fresh}) != 1 or said_for_another(
            old, new, before, fresh[0], siblings
        ):
            continue
        # the words shared, in the unit or else in its title ("Strategic accounts -
        # engagement model" over "• QBR every quarter"), before the count's noun
        label = (
            shared_words(f"{old.text}\n{header}", said)
            or shared_words(with_title(old), shared)
            or tuple(before.unit.split())
        )
        pairs.append(Pair(old, new, before, fresh[0], label))
    return pairs


_PER = re.compile(r"\s*(?:per|a|an|each|every|/)\s*([^\W\d_]{3,})", re.IGNORECASE)
"""What an amount is counted per ("GBP 9 per duty", "£32 a night", "45p/mile")."""


def _other_basis(old: Said, before: Value, new: Said, now: Value) -> bool:
    """Whether two amounts are each counted per another thing ("Meal allowance: GBP 9
    per duty", "night stop: GBP 32 per night"): two rates, not one changed."""
    if before.kind != "money":
        return False
    a, b = _PER.match(old.text, before.end), _PER.match(new.text, now.end)
    return a is not None and b is not None and stem(a.group(1).lower()) != stem(b.group(1).lower())


def _led_by_change(new: Said) -> bool:
    """Whether the clause that opens ``new``'s line, stating no value, says a change for
    what follows it ("nadia: update from go/no-go — still 2 P1s open on SSO, so GA is Tue
    5 May"), and ``new`` itself is no question, hedge, plan or exception."""
    body = new.item.body
    lead = body[body.rfind("\n", 0, new.start) + 1 : new.start]
    return (
        bool(lead.strip())
        and not values_of(lead)
        and CUE.search(lead) is not None
        and not held_back(lead)
        and change_cue(new.text, heading=True)
        and not held_back(new.text)
    )


def _names_before(old: Said, new: Said) -> bool:
    """Whether ``new`` names a value of ``old`` as the one before, beside another of its
    kind ("we publish on the 10th of the prior month, not the 14th", "above 40 kt (was 45
    kt)"): a value set against the one it replaces states a change without a change word.
    Not a question, a hedge, a plan or an exception (``change_cue``)."""
    before = {v.key for v in old.values}
    named = [v for v in new.values if v.key in before and marked_old(new.text, v)]
    return any(
        same_slot(v, w) and v.key != w.key and not marked_old(new.text, w)
        for v in named
        for w in new.values
    ) and change_cue(new.text, heading=True)


def _paired(new: Said, before: Value, fresh: list[Value]) -> list[Value]:
    """Of a newer unit's several new values of a kind, the one it sets against ``before``
    ("packs are due 21 May rather than 14 May", beside "committee has slipped to 4
    June"): the nearest to where it names ``before`` as the one before, in the same
    sentence ("the 10th, not the 14th. bids still close on the 3rd": not the 3rd); where
    it does not name it, the one it sets something to (``_set_to``)."""
    named = [v for v in new.values if v.key == before.key and marked_old(new.text, v)]
    if not named:
        return _set_to(new, fresh)
    at = named[0]
    near = [
        v for v in fresh if not _STOP.search(new.text, min(v.end, at.end), max(v.start, at.start))
    ]
    if not near:
        return []
    nearest = min(near, key=lambda v: abs(v.start - at.start))
    return [v for v in near if v.key == nearest.key]


def _set_to(new: Said, fresh: list[Value]) -> list[Value]:
    """Of several new values of a kind, the one a change sets something to, when one
    is ("no-show rate has been ~6% since Feb, so raising the cap to 5%"); else all."""
    to = [v for v in fresh if _TO.search(new.text, max(0, v.start - 16), v.start)]
    return to if len({v.key for v in to}) == 1 else fresh


_TO = re.compile(r"(?<!\bup\s)\bto\s+(?:about\s+|around\s+|roughly\s+|~)?$", re.IGNORECASE)


def _set_instead(new: Said, before: Value) -> list[Value]:
    """The one value ``new`` states where it names ``before`` as the one it replaces,
    when that value is of another kind ("This replaces the '6 weeks before' guidance:
    ... Learning Support Plans must be finalised by Friday 20 March"): a deadline once
    counted back from an event, now a date. None where it names no value before, or
    states more than one other."""
    if not any(v.key == before.key and marked_old(new.text, v) for v in new.values):
        return []
    other = [
        v for v in new.values if v.kind not in (STATUS, before.kind) and not marked_old(new.text, v)
    ]
    return other if len({v.key for v in other}) == 1 else []


_STOP = re.compile(r"[.;!?](?:\s|$)")
"""Where a sentence ends, written or not with a capital after it."""


_ITEM_LABEL = re.compile(r"(?:^|[|,;:(])\s*((?:[^\W\d_][\w-]*\s+){1,3})$")
"""The words a value of a list follows, after the list's last mark ("Fe 2.0 mm | Non-Fe
2.5 mm | Stainless 3.5 mm": "Stainless")."""
_NEAR = 4
"""The most words before a newer value that may say which list item it is."""


def _listed(labels: dict[int, frozenset[str]], new: Said, before: Value) -> set[int]:
    """Where ``new`` states a value for the item of a list in ``old`` that ``before``
    is ("Test pieces: Fe 2.0 mm | Non-Fe 2.5 mm | Stainless 3.5 mm", then "stainless
    test piece 3.0 mm, Fe and non-Fe as they are"): the offsets of its values of that
    kind said just after the item's label, and after no other item's. Empty where the
    older unit is no list of labelled values (``labels``: ``_labels`` of it)."""
    if not labels:
        return set()
    mine = labels[before.start]
    theirs = frozenset().union(*(w for at, w in labels.items() if at != before.start)) - mine
    found = set()
    for v in new.values:
        if not same_slot(v, before):
            continue
        near = content_stems(" ".join(new.text[: v.start].split()[-_NEAR:]))
        if mine <= near and not theirs & near:
            found.add(v.start)
    return found


def _labels(old: Said, before: Value) -> dict[int, frozenset[str]]:
    """The label of each value of ``before``'s kind in ``old``, by offset, when ``old``
    lists them each after a label of its own ("Chicken 75 C | Pork 70 C"); else empty
    (no labels, or one label said twice: "up to £20k | up to £200k")."""
    labels: dict[int, frozenset[str]] = {}
    for v in old.values:
        if same_slot(v, before):
            m = _ITEM_LABEL.search(old.text, 0, v.start)
            if m is None:
                return {}
            labels[v.start] = content_stems(m.group(1))
    if len(labels) < 2 or not all(labels.values()) or len(set(labels.values())) < len(labels):
        return {}
    return labels


def _alone(old: Said, new: Said, before: Value) -> bool:
    """Whether ``before`` is the only value of its kind in the older unit that the newer
    does not say again: "Car mileage: 45p per mile ..., 25p thereafter", then "rises to
    48p per mile (... 25p after)": the one no longer said is the one that changed. The
    same value said twice is one ("approved before 14:30 go in that day's run; after
    14:30 next working day")."""
    kept = {v.key for v in new.values if same_slot(v, before) and not marked_old(new.text, v)}
    others = [v for v in old.values if v.key != before.key and same_slot(v, before)]
    return all(v.key in kept for v in others)


def _none_kept(old: Said, new: Said, before: Value) -> bool:
    """Whether the newer unit says none of the older unit's values of ``before``'s kind
    but one of its own: "Courier collects at 11:00 and 15:00", then "courier going down
    to one run a day, 13:30 pickup": the one replaces them all. Not the cells of a row
    ("| Purchase orders | up to £20k | up to £200k |": which column changed?), nor a
    labelled list's values (the caller's ``_labels``), each changed beside its label."""
    if a_row(old):
        return False
    mine = {v.key for v in new.values if same_slot(v, before) and not marked_old(new.text, v)}
    theirs = {v.key for v in old.values if same_slot(v, before)}
    return len(mine) == 1 and not mine & theirs


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
    "all visitors must complete 1 module"; "Kellaway WTP", "Brennan WTP"), unless the
    newer item heads the unit with it ("Onboard sales - summer" over "Trolley float: GBP
    75 (mixed coins/notes), signed out from Crew Room safe", after "Onboard sales: each
    trolley float is GBP 50 in mixed coins/notes, signed out from Crew Room safe")."""
    shared = len(old.stems & new.stems)
    lacking = old.stems - new.stems - _headings(new)
    if lacking or shared < 4 or shared < REISSUED * len(new.stems):
        return False
    return not (held_back(new.text) or states_nothing(new.text))


_HEADING_WORDS = 8
"""The most words of a line that heads what follows it."""


def _headings(said: Said) -> frozenset[str]:
    """The stems of the lines above ``said`` in its item that head it: its title, and
    the short lines that state no value ("Onboard sales - summer")."""
    lines = said.item.body[: said.start].split("\n")[:-1]
    return frozenset(
        w
        for at, text in enumerate(lines)
        if at == 0 or (not values_of(text) and len(text.split()) <= _HEADING_WORDS)
        for w in stems(text, values_of(text))
    )


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
