"""One query, read once: what a search's stages need of its text.

A search used to read its query's text in every stage that needed something of it (its
terms, its names twice, the names its asking clause needs, where that clause starts, its
time, the words the graph and the router read, the type of statement it asks for), and
each read of the evidence read the names again. ``Query`` holds the text and reads each
of these on first use only (``functools.cached_property``: a stage that does not need a
reading, as a plan without a graph the query's words, never pays for it); a search makes
one and hands it down its stages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from ..analysis import compound_parts, detect_language, get_language, label_words
from ..model import StatementType
from ..ports import Vector
from .terms import asked_names, asking_start, content_terms, query_names, query_terms
from .when import TimeReading, Window, read_time

__all__ = ["CODE", "Query", "asked_type"]

CODE = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b")
"""A ticket- or incident-like code (ACME-1247, INC-42): exact, so keywords find it."""

_ASKS: tuple[tuple[StatementType, re.Pattern[str]], ...] = (
    ("preference", re.compile(r"\b(prefer\w*|like[sd]?|favou?rite|dislike[sd]?|want[s]?)\b")),
    ("decision", re.compile(r"\b(decide[sd]?|decision\w*|agree[sd]?|chose|choice)\b")),
    ("event", re.compile(r"\b(happen\w*|when did|shipped|launched|released|outage)\b")),
)


def asked_type(query: str) -> StatementType | None:
    """The statement type a question asks for, if it names one ("what does Priya
    prefer?" asks for preferences)."""
    q = query.lower()
    for type_, pattern in _ASKS:
        if pattern.search(q):
            return type_
    return None


# Not slotted and compared by identity: ``cached_property`` keeps each reading in the
# instance's ``__dict__`` (which a frozen dataclass still lets it write).
@dataclass(frozen=True, eq=False)
class Query:
    """A query's ``text`` as read at ``now`` (the search's reference time: its ``as_of``
    date, else the clock), with ``embed`` to turn text into the query's vector (None: a
    query with no vector)."""

    text: str
    now: datetime
    embed: Callable[[str], Vector] | None = field(default=None, repr=False)

    @cached_property
    def lang(self) -> str:
        """The language it is written in (``analysis.detect_language``): a hit's words are
        stemmed in it, so both sides strip the same suffixes."""
        return detect_language(self.text)

    @cached_property
    def terms(self) -> list[str]:
        """What the keyword streams search for (``terms.query_terms``)."""
        return query_terms(self.text)

    @cached_property
    def searched(self) -> list[str]:
        """What the keyword streams search for: its ``terms``, then in a language that
        glues words the parts of its compounds ("Urlaubsantrag": "urlaub", "antrag", ...;
        ``analysis.compounds``), which the engines index beside each text too. Not among
        the ``terms`` a hit is judged to cover: most parts are no word at all."""
        if not get_language(self.lang).compounds:
            return self.terms
        parts = [p for t in self.terms for p in compound_parts(t)]
        return list(dict.fromkeys([*self.terms, *parts]))

    @cached_property
    def names(self) -> list[str]:
        """Its proper names, lower-cased (``terms.query_names``)."""
        return query_names(self.text)

    @cached_property
    def asking(self) -> int:
        """Where its asking clause begins (``terms.asking_start``), 0 for none."""
        return asking_start(self.text)

    @cached_property
    def asked_names(self) -> list[str]:
        """The names a hit must name: those of its asking clause (``terms.asked_names``)."""
        return asked_names(self.text, self.names, start=self.asking if self.names else 0)

    @cached_property
    def content(self) -> list[str]:
        """Its terms less its names: what it asks about them (``terms.content_terms``)."""
        return content_terms(self.terms, self.names)

    @cached_property
    def time(self) -> TimeReading:
        """Its time, read against ``now`` (``when.read_time``)."""
        return read_time(self.text, self.now, asking=lambda: self.asking)

    @property
    def window(self) -> Window | None:
        return self.time.window

    @cached_property
    def time_terms(self) -> list[str]:
        """The terms of the words that say its time (none without a window)."""
        window = self.time.window
        return query_terms(window.phrase) if window is not None else []

    @cached_property
    def untimed(self) -> list[str]:
        """``content`` less the terms of its time."""
        said = set(self.time_terms)
        return [t for t in self.content if t not in said]

    @cached_property
    def words(self) -> list[str]:
        """Its words as written (``analysis.label_words``), what the graph matches names
        against."""
        return label_words(self.text)

    @cached_property
    def folded(self) -> list[str]:
        """``words``, case-folded."""
        return [w.casefold() for w in self.words]

    @cached_property
    def asked_type(self) -> StatementType | None:
        """The statement type it asks for (``asked_type``)."""
        return asked_type(self.text)

    @cached_property
    def has_code(self) -> bool:
        """Whether it holds an exact code (``CODE``)."""
        return CODE.search(self.text) is not None

    @cached_property
    def vector(self) -> Vector | None:
        """Its vector: of what it asks, less its time. No text says "four weeks ago", and
        the window does the reading of it (docs/journal.md, issue 17, time)."""
        if self.embed is None:
            return None
        return self.embed(self.time.rest or self.text)
