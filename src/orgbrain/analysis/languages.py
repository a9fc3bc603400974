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
    ),
    "fr": Language("fr", french.STOPWORDS, french.SUFFIXES, french.FILLERS, _FRENCH_ELIDED),
    "es": Language("es", spanish.STOPWORDS, spanish.SUFFIXES, spanish.FILLERS),
}


def get_language(code: str) -> Language:
    """The data for ``code``; ``Unsupported`` for a language with none."""
    try:
        return LANGUAGES[code]
    except KeyError:
        known = ", ".join(sorted(LANGUAGES))
        raise Unsupported(f"no text analysis for language {code!r} (known: {known})") from None
