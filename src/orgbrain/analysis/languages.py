"""The languages text analysis knows, each a record of data: adding one is a data
module and a line here, not a branch in the code that reads it (``detect.py`` then
recognises it by its stopwords)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Unsupported
from . import english, french, german, spanish

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Language", "get_language"]

DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True)
class Language:
    """What analysis needs to know of one language."""

    code: str
    stopwords: frozenset[str]
    """Lower-case words that say nothing of what a text is about."""
    suffixes: tuple[tuple[str, str], ...]
    """``(suffix, replacement)`` pairs for ``stem``, tried in order."""
    fillers: re.Pattern[str]
    """Phrases that name nothing a text must say (``key_terms`` drops them)."""
    elided: re.Pattern[str] | None = None
    """An elided word glued to the next by an apostrophe ("l'équipe", "qu'il"), which
    ``stem`` and ``key_terms`` take off: the word after it is the one that says something."""
    names_by_case: bool = True
    """Whether a capital letter inside a sentence marks a name. Not in German, which
    capitalises every noun: "Wann ist der nächste Gabelstaplerkurs?" names no one."""
    compounds: bool = False
    """Whether it glues words into one ("Urlaubsantrag"), which keyword search then meets
    by their parts (``compounds.py``)."""
    function_words: frozenset[str] = frozenset()
    """Lower-case words that, capitalised, name no one ("Ab sofort", "Au revoir", "¿Lo
    vemos?"): read by ``extraction/named.py``. English's are read by position instead."""
    noun_markers: frozenset[str] = frozenset()
    """Words after which a capitalised word is a common noun ("der", "im", "meine")."""
    adjective_endings: tuple[str, ...] = ()
    """Endings of a lower-case adjective that marks the capitalised word after it as a
    common noun ("kurze Info")."""
    noun_suffixes: tuple[str, ...] = ()
    """Endings only common nouns have ("-ung", "-heit")."""


_FRENCH_ELIDED = re.compile(r"^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['\u2019](?=\w)")

LANGUAGES = {
    "en": Language("en", english.STOPWORDS, english.SUFFIXES, english.FILLERS),
    "de": Language(
        "de",
        german.STOPWORDS,
        german.SUFFIXES,
        german.FILLERS,
        names_by_case=False,
        compounds=True,
        function_words=german.FUNCTION_WORDS,
        noun_markers=german.NOUN_MARKERS,
        adjective_endings=german.ADJECTIVE_ENDINGS,
        noun_suffixes=german.NOUN_SUFFIXES,
    ),
    "fr": Language(
        "fr",
        french.STOPWORDS,
        french.SUFFIXES,
        french.FILLERS,
        _FRENCH_ELIDED,
        function_words=french.STOPWORDS,
    ),
    "es": Language(
        "es", spanish.STOPWORDS, spanish.SUFFIXES, spanish.FILLERS, function_words=spanish.STOPWORDS
    ),
}


def get_language(code: str) -> Language:
    """The data for ``code``; ``Unsupported`` for a language with none."""
    try:
        return LANGUAGES[code]
    except KeyError:
        known = ", ".join(sorted(LANGUAGES))
        raise Unsupported(f"no text analysis for language {code!r} (known: {known})") from None
