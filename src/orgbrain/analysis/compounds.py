"""Compound words: the parts a keyword search may meet a long German word by.

German writes as one word what English writes as several: "Urlaubsantrag" is an
"Antrag auf Urlaub", "Weiterbildungsbudget" the "Budget" for "Weiterbildung". A keyword
index of whole words never meets the two. No dictionary of German is shipped, so a long
word is split at every point that leaves at least ``MIN_PART`` letters on each side, and
each head and tail becomes a term of its own: the head with a linking "s" ("Urlaubs")
and without it ("Urlaub") both appear, and so does the real head ("antrag"), beside
strings that are no word at all ("rlaubsantrag"). Those cost nothing: a term that no
text holds matches nothing. Both sides are split, the query's words (``key_terms``) and
the indexed text's (the keyword engines), so "Urlaubsantrag" meets "Antrag auf Urlaub"
and "Antrag auf Urlaub" meets "Urlaubsantrag" (docs/journal.md, "Issue 39").

Only languages that glue words (``Language.compounds``) are split: English's long words
are derived ("documentation"), and splitting them would only add noise.
"""

from __future__ import annotations

from functools import lru_cache

from .detect import detect_language
from .languages import get_language
from .words import LETTER_WORD

__all__ = ["MIN_COMPOUND", "MIN_PART", "compound_parts", "text_compound_parts"]

MIN_COMPOUND = 9
"""Letters a word needs to be split: "Tankkarte" is, "Getriebe" is not."""
MIN_PART = 4
"""Letters each part keeps: "Tank", "Karte", never "Rat" out of "Betriebsrat"."""


@lru_cache(maxsize=1 << 14)
def compound_parts(word: str) -> tuple[str, ...]:
    """The heads and tails of lower-cased ``word`` (``MIN_PART`` letters at least), when it
    has ``MIN_COMPOUND`` letters or more; none otherwise."""
    w = word.lower()
    if len(w) < MIN_COMPOUND or not w.isalpha():
        return ()
    cuts = range(MIN_PART, len(w) - MIN_PART + 1)
    return tuple(dict.fromkeys([*(w[:i] for i in cuts), *(w[i:] for i in cuts)]))


def text_compound_parts(text: str, language: str | None = None) -> str:
    """The parts of every long word of ``text`` as one space-separated text, when its
    language (by default the one it is written in) glues words; "" otherwise. What a
    keyword engine indexes beside the text itself."""
    if not get_language(language or detect_language(text)).compounds:
        return ""
    seen: dict[str, None] = {}
    for word in LETTER_WORD.findall(text):
        seen.update(dict.fromkeys(compound_parts(word)))
    return " ".join(seen)
