"""Pairs that read as a change but are not one: two things of a kind each with its own
value ("Leeds depot", "Bristol depot"; "Harbour Point", "Eastfield"), or another line of
the older note said again. Each is read from the two units' words and their notes'
text; what the typed statements settle is ``typed.py``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...analysis import LETTER_WORD, STOPWORDS, plain_words, stem
from ...extraction.context import apart_in_kind, context, words_of
from ...extraction.states import STATUS
from ...extraction.subjects import Phrase, subjects
from ...extraction.values import Value, same_slot
from ..handover import a_person
from .units import INITIALS, LABEL, Pair, Said, line, spelled, spelled_pairs, stems

__all__ = ["named_apart", "said_for_another", "two_things"]


def two_things(p: Pair) -> bool:
    """Whether the two units are about two things (``extraction/subjects.py``): their
    subjects' modifiers ("VPN tokens", "Jira (cloud) tokens") are some on each side and
    none of them a word of the other unit's line or title; or two of their subjects have
    one head and so differ ("Leeds depot", "Bristol depot": "night shift" is said of
    both). Where one's phrase holds the other's head before its own last word, it ran on
    into its verb and ends there ("VPN tokens expire"). A unit whose subject has no
    modifiers ("Retention: 14 days", "Tokens expire ...") or none read is about whatever
    the other is about.

    What each unit inherits from its context counts too (``extraction/context.py``): two
    notes' titles, headings, line labels or channels naming two things of one kind
    ("Leeds office guide", "Lisbon office guide"; "#launch-atlas", "#launch-beacon"; "NA
    reps —", "for EMEA"), unless the newer unit names the older's too. And a newer unit
    whose new name is what the older unit's context is about says the same thing from
    the other side ("Pricing Committee — ... Owns list price changes", then "List price
    changes go to Pricing Committee"): no change of it; but a new name with a word of its
    own is another thing ("Crew Notice - SOU", then "briefings move out of B12 to the new
    Crew Centre")."""
    if _apart_in_context(p):
        return True
    olds, news = _subjects(p.old, p.was), _subjects(p.new, p.now)
    # a name one side spells out and the other writes as its initials is said by both
    # ("Duty Ops Manager", "DOM phone"), as either writes it
    both = frozenset(
        stem(w.lower())
        for initials, words in spelled_pairs(p.old, p.new)
        for w in (initials, *words.split())
    )
    old_words, new_words = _words(p.old) | both, _words(p.new) | both

    def apart(a: frozenset[str], b: frozenset[str]) -> bool:
        return bool(a and b) and not a & new_words and not b & old_words

    old_heads, new_heads = {x.head for x in olds}, {y.head for y in news}
    olds = [x.ending_at(new_heads) for x in olds]
    news = [y.ending_at(old_heads) for y in news]
    return apart(
        frozenset(w for x in olds for w in x.modifiers),
        frozenset(w for y in news for w in y.modifiers),
    ) or any(x.head == y.head and apart(x.modifiers, y.modifiers) for x in olds for y in news)


def named_apart(p: Pair) -> bool:
    """Whether a value's two units each name a thing the other's whole note never says
    ("fuel deliveries to Harbour Point are Tuesday & Friday", "Eastfield fuel is
    Wednesday only now"): two places, sites or products, each with its own value. Not a
    person (who said it, or who holds the thing), nor a name's own change."""
    if p.was.kind in ("name", STATUS):
        return False
    common = p.old.stems & p.new.stems
    return bool(_own_names(p.old, p.new.item.body, common)) and bool(
        _own_names(p.new, p.old.item.body, common)
    )


def _own_names(said: Said, other: str, common: frozenset[str]) -> list[Value]:
    """The names ``said`` holds that name which one of the ``common`` things it is (a
    word both units say stands beside it: "Eastfield fuel", "fuel deliveries to Harbour
    Point"), not a person's, none of whose words ``other`` says."""
    words = words_of(other)
    return [
        n
        for n in said.names
        if not a_person(written := said.text[n.start : n.end])
        and words_of(n.key)  # not "C" of "75°C"
        and not words_of(n.key) & words
        and not n.key.startswith(("#", "@"))
        and not _abbreviated(written, other)
        and stems(_near(said.text, n), ()) & common
    ]


def _near(text: str, name: Value) -> str:
    """The three words before ``name`` and the two after it."""
    before = text[: name.start].split()[-3:]
    after = text[name.end :].split()[:2]
    return " ".join(before + after)


def _abbreviated(name: str, other: str) -> bool:
    """Whether ``other`` writes ``name`` as its initials, or spells out the words
    ``name`` is the initials of ("Duty Manager", "DM"); the initials may run on into a
    bracketed word's ("Associate Dean (Research)", "ADR")."""
    if INITIALS.fullmatch(name):
        return spelled(name, other) is not None
    initials = "".join(w[0] for w in name.split())
    return (
        2 <= len(initials) <= 4
        and initials.isupper()
        and re.search(rf"(?<![\w-]){initials}[A-Z]?(?![\w-])", other) is not None
    )


def _apart_in_context(p: Pair) -> bool:
    """Whether the pair's contexts are two things of one kind, or the newer's new name is
    what the older's context is about (``two_things``)."""
    old, new = context(p.old.item.body, p.old.start), context(p.new.item.body, p.new.start)
    states = p.was.kind == STATUS and p.now.kind == STATUS
    if apart_in_kind(old, new, p.old.text, p.new.text, states=states):
        return True
    now = words_of(p.now.key) if p.now.kind == "name" else frozenset()
    return any(x.words and set(x.words) == now for x in old.phrases)


def _subjects(said: Said, value: Value) -> list[Phrase]:
    """The subjects of ``said``, read up to its values and ``value``."""
    stops = [(said.start + v.start, said.start + v.end) for v in (*said.values, value)]
    return subjects(said.item.body, said.start, said.end, stops)


def _words(said: Said) -> frozenset[str]:
    """The stems of every word of the line ``said`` lies in, and its ``titled``."""
    at = line(said.item.body, said.start)
    return said.titled | {stem(w) for w in LETTER_WORD.findall(at.lower())}


def said_for_another(
    old: Said, new: Said, before: Value, now: Value, siblings: Sequence[Said]
) -> bool:
    """Whether another line of the older note states ``now`` under a label the newer unit
    names, where ``old``'s own label is one it does not ("At home base (EXT, BHD): max
    6h", "At outstations: max 4h"; then "outstation airport standby is capped at 4h"):
    the newer unit says that line again, it does not change ``old``'s value."""
    said = _label_words(new.text)
    mine = _line_label(old.item.body, old.start)
    if not mine or mine & said:
        return False
    for u in siblings:
        theirs = _line_label(u.item.body, u.start)
        if (
            u.start != old.start
            and theirs & said
            and any(v.key == now.key and same_slot(v, before) for v in u.values)
        ):
            return True
    return False


def _line_label(body: str, start: int) -> frozenset[str]:
    """The words of the label the line holding ``start`` opens with ("At outstations:",
    "P2:"), if it has one."""
    label = LABEL.match(line(body, start))
    return _label_words(label.group(1)) if label else frozenset()


def _label_words(text: str) -> frozenset[str]:
    return frozenset(
        stem(w) for w in plain_words(text.lower()) if len(w) > 1 and w not in STOPWORDS
    )
