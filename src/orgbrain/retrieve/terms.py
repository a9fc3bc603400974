"""Query terms for the keyword streams: words that carry meaning, nothing else."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ..analysis import (
    DEFAULT_LANGUAGE,
    STOPWORDS,
    WORD,
    detect_language,
    get_language,
    key_terms,
    stem,
)
from ..analysis.calendar import MONTHS, WEEKDAYS

__all__ = [
    "asked_names",
    "content_terms",
    "coverage",
    "holds_any",
    "is_code",
    "query_names",
    "query_terms",
]


def query_terms(query: str, *, max_terms: int = 32) -> list[str]:
    """The terms a keyword stream searches for: ``analysis.key_terms`` of ``query``."""
    return key_terms(query, max_terms=max_terms)


# Capitalised, but dates rather than names: a question's "in May" or "20 Sept" is a time
# constraint. Every language's months and weekdays, written out or cut to four letters;
# not the three-letter cuts, which are names too ("Jan", "Mai"), but English's "May".
_CALENDAR = frozenset(w for w in (*MONTHS, *WEEKDAYS) if len(w) >= 4) | {"may"}
_CONTRACTED = re.compile(r"['\u2019](?:s|d|m|ve|ll|re)$")
"""What a word's apostrophe adds: a possessive ("Caroline's"), or a verb ("I'd", "I've",
"I'm": the pronoun, capitalised wherever it stands, is no name)."""
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"\u201c(\u00bf\u00a1]\s*)$")  # "¿Quién", "¡Hola"


def is_code(word: str) -> bool:
    """Whether ``word`` is written like an acronym or a code rather than a name: two or
    more capitals ("UK", "PrP", "KRAS") or a digit ("G94P", "BMP4", "3T3")."""
    return any(c.isdigit() for c in word) or sum(c.isupper() for c in word) >= 2


def query_names(query: str, *, max_names: int = 8) -> list[str]:
    """Lower-cased proper names in ``query``: capitalised words not opening a sentence,
    not stopwords (English's or the query's language's), calendar words or codes
    (``is_code``), a possessive or a contracted verb dropped ("Caroline's" -> "caroline",
    "I'd" -> "i", a stopword); none in a language
    that capitalises more than names (``Language.names_by_case``).

    A question about a named thing is only answered by text that names it. Codes stay
    ordinary terms: text spells them too many ways ("4-PBA" / "4-phenylbutyrate",
    "UK" / "United Kingdom", "NIH 3T3" / "3T3 fibroblasts") for their absence to mean
    the text is about something else.
    """
    language = get_language(detect_language(query))
    if not language.names_by_case:
        return []  # every German noun has a capital: no name can be told by it
    own = language.stopwords  # "Quién" after "¿" is no name either
    seen: dict[str, None] = {}
    for match in WORD.finditer(query):
        word = match.group(0)
        if not word[0].isupper() or _SENTENCE_START.search(query[: match.start()]):
            continue
        if is_code(_CONTRACTED.sub("", word)):
            continue
        name = _CONTRACTED.sub("", word.lower())
        if name in STOPWORDS or name in own or name in _CALENDAR or len(name) < 2:
            continue
        seen.setdefault(name, None)
        if len(seen) >= max_names:
            break
    return list(seen)


_ASKING = re.compile(
    r"(?:[,;]|\s[-\u2013\u2014])\s+(?=(?:what|which|who|whom|whose|where|when|why|how|am|is|are|was|were|do|does|"
    r"did|can|could|should|would|will|may|must|shall|have|has)\b[^,;]*\?\s*$)",
    re.IGNORECASE,
)
"""Where the asking clause begins in a question that first sets its scene: a comma (a
semicolon, or a dash between spaces: "We've had an incident on the York job - which
safety advisor do I phone?"), then a question word or auxiliary that runs, with no other
comma, to the closing question mark ("I'm swapping my on-call shift with Tom next week,
where do I set that up?")."""


def asking_start(query: str) -> int:
    """Where ``query``'s asking clause begins (``_ASKING``): 0 for a question that sets no
    scene of its own."""
    starts = [m.end() for m in _ASKING.finditer(query)]
    return starts[-1] if starts else 0


def asked_names(
    query: str, names: list[str] | None = None, *, start: int | None = None
) -> list[str]:
    """The proper names of ``query`` (``names``, default ``query_names(query)``) that a
    hit must name: those of its asking clause (from ``start``, default
    ``asking_start(query)``). A question that sets its scene in a clause
    of its own before asking ("flying Berlin to San Francisco next month, am I allowed to
    book business?", "our Figma subscription renews next month, who do I send the quote
    to?") asks the clause after the comma; the names before it say whose case it is, and
    the note that answers (the travel policy, who owns vendor contracts) need not name
    them. A question without such a clause needs all of its names."""
    names = query_names(query) if names is None else names
    if start is None:
        start = asking_start(query) if names else 0
    if not start:
        return names
    asked = set(query_names(query[start:]))
    return [n for n in names if n in asked]


def content_terms(terms: list[str], names: list[str]) -> list[str]:
    """``terms`` less the names (possessive or not): what the question asks about them."""
    named = set(names)
    return [t for t in terms if re.sub(r"['\u2019]s$", "", t) not in named]


@lru_cache(maxsize=1 << 13)
def _joined(stems: frozenset[str]) -> str:
    """``stems`` as one string, each after a newline: a prefix test in one C-level search."""
    return "\n" + "\n".join(stems)


def holds_any(
    terms: Sequence[str], stems: frozenset[str], language: str = DEFAULT_LANGUAGE
) -> bool:
    """Whether ``coverage(terms, stems, language)`` is above 0, without counting the rest."""
    joined = None
    for term in terms:
        t = stem(term, language)
        if t in stems:
            return True
        if len(t) >= 3:
            joined = _joined(stems) if joined is None else joined
            if "\n" + t in joined:
                return True
    return False


def coverage(terms: list[str], stems: frozenset[str], language: str = DEFAULT_LANGUAGE) -> float:
    """Share of ``terms`` whose stem is in ``stems``, or (three letters or more) is a
    prefix of one of them (a nickname, a longer form); 1.0 for no terms. ``language``
    stems the terms; ``stems`` must be a text's stems in the same one (``text_stems(text,
    language)``), so that both sides strip the same suffixes."""
    if not terms:
        return 1.0
    # One loop, no helper a term: a search's learned stage makes ~270 of these tests.
    held = 0
    joined = None
    for term in terms:
        t = stem(term, language)
        if t in stems:
            held += 1
        elif len(t) >= 3:
            joined = _joined(stems) if joined is None else joined
            held += "\n" + t in joined
    return held / len(terms)
