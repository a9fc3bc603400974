"""Which language a text is in, cheaply: the known language whose stopwords it uses most.

Function words are most of any sentence ("der", "und", "ist"; "le", "et", "est"; "el",
"y", "es"), and every language analysis knows has its list of them already, so counting
hits needs no model and no new data. Ties, and texts with no hit at all (a label, a
name, a code), go to the default language, English: its analysis is what every text got
before there were others, so a text too short to tell keeps it. (Telling a label by the
letters only one language writes, "ä", "ñ", was tried and dropped: names carry accents,
and "Release manager: Tomás Ortega" read as Spanish.)
"""

from __future__ import annotations

from functools import lru_cache

from .languages import DEFAULT_LANGUAGE, LANGUAGES
from .words import words

__all__ = ["detect_language", "sure_language"]

_SHORT_DAYS = frozenset({"Mon"})
"""A weekday cut short that is another language's stopword ("mon": French "my")."""


def detect_language(text: str) -> str:
    """The code of the known language ``text`` is most likely in (``LANGUAGES``)."""
    return sure_language(text) or DEFAULT_LANGUAGE


@lru_cache(maxsize=1 << 14)
def sure_language(text: str) -> str | None:
    """``detect_language``'s reading, None where the text has no stopword of any language
    to read it by (a label, a name, a list of terms: "Urlaubsantrag: Personalportal"):
    there the default is a guess, and a reader comparing languages must know it is one."""
    hits = dict.fromkeys(LANGUAGES, 0)
    for word in words(text):
        if sum(c.isupper() for c in word) >= 2:
            continue  # a code or an acronym ("CET", "API"), not a word of the sentence
        if (len(word) < 2 and word.isupper()) or word in _SHORT_DAYS:
            # an initial, a list's letter, a table's Y/N (not "à", "y", "a" as written
            # in a sentence); English's "Mon" of a rota or a timetable (French "mon" is
            # written small but at a sentence's start): English tables read as French
            # took their judge and their bars from French
            continue
        w = word.lower().replace("\u2019", "'")
        for code, language in LANGUAGES.items():
            if w in language.stopwords:
                hits[code] += 1
    if not any(hits.values()):
        return None
    # A tie goes to the default: another language must out-count English to win it.
    return max(hits, key=lambda code: (hits[code], code == DEFAULT_LANGUAGE))
