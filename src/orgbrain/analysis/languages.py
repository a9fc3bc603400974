"""The languages text analysis knows, each a record of data: adding one is a data
module and a line here, not a branch in the code that reads it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Unsupported
from . import english

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


LANGUAGES = {
    "en": Language("en", english.STOPWORDS, english.SUFFIXES, english.FILLERS),
}


def get_language(code: str) -> Language:
    """The data for ``code``; ``Unsupported`` for a language with none."""
    try:
        return LANGUAGES[code]
    except KeyError:
        known = ", ".join(sorted(LANGUAGES))
        raise Unsupported(f"no text analysis for language {code!r} (known: {known})") from None
