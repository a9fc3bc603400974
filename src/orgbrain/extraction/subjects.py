"""What a unit of text is about: the noun phrases whose attribute it states.

"Audit Committee: chair Maria Lopez" is about the Audit Committee; "Security policy: VPN
tokens expire every 30 days" about VPN tokens (the policy is where it is said); "Risk
Committee - please welcome Tom Reyes, our new chair" about the Risk Committee, named
before the dash. A unit's subjects are the left-hand sides of the labels that head it
("X:", "X - " at the start of its line, when the unit follows them) and the noun phrase
the unit opens with, each read up to a function word, a change word, a value or a
punctuation mark; words in brackets belong to it ("Jira (cloud) tokens"). The last word
outside brackets is the phrase's head ("committee", "tokens"); the words before it and in
brackets are its modifiers, which tell one thing of a kind from another.

No tagger reads the words, so a phrase may run on into its verb ("VPN tokens expire"):
the verb is then its head and the noun before it a modifier. A phrase followed by a
comma or by an article is an opener or an address ("bad news all, GA slips", "quick
reminder the hotel cap is"), not a subject, and reads as none. The reading is used one
way only, where a missing subject costs nothing: two units whose subjects' modifiers
each say nothing the other unit says are about two things (``derive/restated.py``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..analysis import STOPWORDS, letter_words, stem
from .cues import CUE

__all__ = ["Phrase", "labels", "subjects", "titled"]


@dataclass(frozen=True, slots=True)
class Phrase:
    """A noun phrase a unit is about: the stems of its ``words`` in order (those in
    brackets too) and of its ``head``, the last word outside brackets."""

    words: tuple[str, ...]
    head: str

    @property
    def modifiers(self) -> frozenset[str]:
        """The words that tell this thing from others of its kind."""
        return frozenset(self.words) - {self.head}

    def ending_at(self, heads: Collection[str]) -> Phrase:
        """The phrase cut after the first of ``heads`` before its own head: a head another
        unit's phrase reads ("Jira tokens") shows this one ran on into its verb ("VPN
        tokens expire"); words in brackets after the head stay ("Clinic (Northside)")."""
        last = len(self.words) - 1 - self.words[::-1].index(self.head)
        for at, word in enumerate(self.words[:last]):
            if word in heads:
                return Phrase(self.words[: at + 1], word)
        return self


_MAX_WORDS = 6
"""The most words a subject phrase holds: a longer run is a clause, not a name."""
_TOKEN = re.compile(r"[^\W_](?:[\w'\u2019.-]*[^\W_])?|\S")
_JOINS = frozenset("&+/")
"""Marks inside a name ("Audit & Risk", "WMS/scanner", "orange + yellow")."""
_LEADING = frozenset(
    "the a an our your their its this these that those all any each every my his her".split()
)
"""Words a phrase may open with that are not part of it."""
_ARTICLES = frozenset("the a an our your their my".split())
"""Words that open a noun phrase: one after a run of words opens the subject, and the run
is an opener ("quick reminder the hotel cap is now $320")."""
_FUNCTION = frozenset("every per via within across".split())
"""Function words the shared stopword list leaves out: they end a phrase."""
_SAID_IN = frozenset(
    stem(w)
    for w in """update notice note memo minutes agenda recap summary digest newsletter news
    bulletin announcement reminder report brief briefing changelog policy rules guide
    guidelines handbook manual procedure standard faq wiki doc document decision proposal""".split()
)
"""Kinds of document or message: a phrase headed by one ("Facilities update:", "IT
policy:", "Yard rules:") says where a unit is said, not what it is about."""
_LABEL = re.compile(
    r"[ \t]*(?:[-*+•>][ \t]+)?\**([^:\n\u2013\u2014|]{1,60}?)\**(?::|[ \t][\u2013\u2014-])[ \t]+"
)
"""A line's label: a short left-hand side before a colon or a spaced dash."""
_CHAT = re.compile(r"[ \t]*(?:\[[^\]\n]*\][ \t]*(?:[\w.-]+:[ \t]+)?|@\w+[ \t:]+)")
"""A chat line's channel and speaker ("[#finance] rosa.m: ", "@here ")."""
_HEADERS = frozenset("subject re fwd fw from to cc bcc date sent".split())
"""A message's header labels: what follows them is the subject line, not a value."""


def subjects(
    text: str, start: int, end: int, stops: Sequence[tuple[int, int]] = ()
) -> list[Phrase]:
    """The phrases ``text[start:end]`` (one unit of ``text``) is about: the labels its
    line opens with, up to where the unit starts, and the phrase the unit opens with
    (after its own labels). ``stops`` are spans no phrase reads into (the values the
    caller compares: "chair Dr Priya Raman" is about a chair, not Dr Priya Raman)."""
    line_start = text.rfind("\n", 0, start) + 1
    stops = [*stops, *(m.span() for m in CUE.finditer(text, line_start, end))]
    chat = _CHAT.match(text, line_start, end)
    found: list[Phrase] = []
    at = _labels(text, chat.end() if chat else line_start, end, stops, found)
    if text[at:start].strip():  # the line's labels head another sentence: not this one's
        found = []
        at = _labels(text, start, end, stops, found)
    opening = _phrase(text, at, end, stops)
    if opening is not None:
        found.append(opening)
    return found


def labels(line: str) -> list[Phrase]:
    """The labels ``line`` opens with ("priya.n: NA reps — ...": priya.n, NA reps), each
    less the kind of document it names ("Leeds office guide:": Leeds office)."""
    found: list[Phrase] = []
    _labels(line, 0, len(line), [m.span() for m in CUE.finditer(line)], found, place=True)
    return found


def titled(line: str) -> Phrase | None:
    """The phrase a title opens with, less the kind of document it names ("Leeds office
    guide": Leeds office; "Facilities update": Facilities)."""
    return _phrase(line, 0, len(line), [m.span() for m in CUE.finditer(line)], place=True)


def _labels(
    text: str,
    at: int,
    end: int,
    stops: Sequence[tuple[int, int]],
    found: list[Phrase],
    *,
    place: bool = False,
) -> int:
    """Read the labels from ``at`` on into ``found``; where they end."""
    while (label := _LABEL.match(text, at, end)) is not None:
        if len(label.group(1).split()) > _MAX_WORDS:
            break
        if label.group(1).strip().casefold() not in _HEADERS:
            phrase = _phrase(text, label.start(1), label.end(1), stops, place=place)
            if phrase is not None:
                found.append(phrase)
        at = label.end()
    return at


def _phrase(
    text: str, start: int, end: int, stops: Sequence[tuple[int, int]], *, place: bool = False
) -> Phrase | None:
    """The noun phrase ``text[start:end]`` opens with, or None. One headed by a kind of
    document or message is where a unit is said, not what it is about: None, or, as a
    ``place``, the phrase without those words ("Leeds office guide": Leeds office)."""
    words: list[tuple[str, bool]] = []  # stem, in brackets
    depth = 0
    for m in _TOKEN.finditer(text, start, end):
        token = m.group(0)
        if any(a <= m.start() < b for a, b in stops):
            if stem(token.lower()) in _SAID_IN and not place:
                return None  # "Facilities update": a change word, here a kind of message
            break
        if token == "(":
            depth += 1
            continue
        if token == ")":
            if not depth:
                break
            depth -= 1
            continue
        if token in _JOINS:
            continue
        if not token[0].isalnum():
            if depth:
                continue
            if token == ",":
                return None  # an opener or an address ("bad news ppl, GA slips ..."),
            break  # or a list: not what the unit is about
        if any(c.isdigit() for c in token):
            continue  # a code ("KR3", "FP-3"): the values that end a phrase are ``stops``
        word = token.lower()
        base = re.split(r"['\u2019]", word)[0]  # "we're", "that's": a pronoun's
        if base in STOPWORDS or base in _FUNCTION or base in _LEADING:
            if depth or (not words and word in _LEADING):
                continue
            if word in _ARTICLES:
                return None  # an opener ("quick reminder the hotel cap ..."), not a subject
            break
        words += [(stem(w), depth > 0) for w in letter_words(word)]
        if len(words) > _MAX_WORDS:
            return None
    if place:  # "Leeds office guide (rev 2)": Leeds office (rev)
        kept = [i for i, (w, bracketed) in enumerate(words) if not bracketed and w not in _SAID_IN]
        last = kept[-1] if kept else -1
        words = [(w, b) for i, (w, b) in enumerate(words) if i <= last or b or w not in _SAID_IN]
    heads = [w for w, bracketed in words if not bracketed]
    if not heads or heads[-1] in _SAID_IN:
        return None
    return Phrase(tuple(w for w, _ in words), heads[-1])
