"""Key terms: the words of a text a keyword search for it looks for."""

from __future__ import annotations

from .detect import detect_language
from .languages import get_language
from .words import WORD

__all__ = ["key_terms"]


def key_terms(text: str, *, max_terms: int = 32, language: str | None = None) -> list[str]:
    """Lower-cased distinct words of ``text`` minus the stopwords and filler phrases of
    ``language`` (by default the one ``text`` is written in, ``detect_language``), in
    order of appearance: what a keyword search for it looks for."""
    lang = get_language(language or detect_language(text))
    seen: dict[str, None] = {}
    for match in WORD.finditer(lang.fillers.sub(" ", text).lower()):
        word = match.group(0).replace("\u2019", "'")
        if lang.elided is not None:
            word = lang.elided.sub("", word)
        if word in lang.stopwords or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
        if len(seen) >= max_terms:
            break
    return list(seen)
