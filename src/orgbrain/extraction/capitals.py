"""Which capitalised words are names, in a language that capitalises more than names.

German capitalises every noun, so "Info aus der Werkleitung: Ab sofort übernimmt Marco
Lange die Frühschicht" holds one name, not five; French and Spanish capitalise as English
does, but a function word opening a phrase ("Au revoir", "¿Lo vemos?") is still no name.
The signals are grammatical and general, the words they read are the language's data
(``analysis.Language``): a capitalised function word; a word with a common noun's ending
("-ung", "-heit"); a lone capitalised word after an article, a fused preposition, a
possessive or an inflected adjective ("in der Montage", "kurze Info", "die alten
Boards"). A run of capitalised words ("Marco Lange", "TÜV Süd", "Hoffmann Group"), a word
with an inner capital or a digit ("SoMa", "INV-01") and a lone word after no such word
("in Trello", "über Michael") stay names.
"""

from __future__ import annotations

import re

from ..analysis import Language

__all__ = ["trim_common"]

_WORD = re.compile(r"\S+")
_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+$")


def trim_common(text: str, start: int, written: str, language: Language) -> tuple[int, str] | None:
    """The name in the capitalised run ``written`` at ``start`` of ``text`` once the
    words that are not names are taken off its front, as ``(start, written)``; None
    when none is left."""
    if not language.function_words and not language.noun_markers:
        return start, written  # English: its readers take care of a sentence's first word
    words = [(start + m.start(), m.group(0)) for m in _WORD.finditer(written)]
    end = start + len(written)
    dropped = ""
    while words:
        at, word = words[0]
        if _marked(word):
            break
        low = word.casefold()
        before = dropped or _word_before(text, at)
        alone = len(words) == 1
        if (
            (low in language.function_words and (alone or bool(language.noun_markers)))
            or _noun_suffix(low, language)
            or (alone and _marks_noun(before, bool(dropped), language))
        ):
            dropped = word
            words.pop(0)
            continue
        break
    if not words:
        return None
    return words[0][0], text[words[0][0] : end]


def _marked(word: str) -> bool:
    """An acronym, an inner capital or a digit: a name however it stands ("TÜV",
    "SoMa-Projekte", "INV-01")."""
    return any(c.isdigit() for c in word) or sum(c.isupper() for c in word) >= 2


def _noun_suffix(low: str, language: Language) -> bool:
    last = low.rsplit("-", 1)[-1]
    return any(last.endswith(s) and len(last) >= len(s) + 3 for s in language.noun_suffixes)


def _word_before(text: str, at: int) -> str:
    m = _BEFORE.search(text[max(0, at - 30) : at])
    return "" if m is None else m.group(1)


def _marks_noun(before: str, in_run: bool, language: Language) -> bool:
    """Whether ``before`` makes the capitalised word after it a common noun: an article
    or the like, or an inflected adjective written lower-case (or opening the run)."""
    low = before.casefold()
    if low in language.noun_markers:
        return True
    return (
        (in_run or before.islower())
        and len(low) > 3
        and low not in language.stopwords
        and low.endswith(language.adjective_endings)
    )
