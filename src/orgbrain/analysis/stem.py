"""Stemming: words to a common stem, and the stems of a whole text."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .detect import detect_language
from .languages import DEFAULT_LANGUAGE, get_language
from .words import words

__all__ = ["stem", "text_stems", "topic_words"]


@lru_cache(maxsize=1 << 16)
def stem(word: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A crude suffix stripper, enough to match "painted" with "painting" when judging
    whether a hit covers a query's terms (ranking uses FTS5's Porter stemmer). A final
    "e" goes too, as Porter's does: "escalates" loses "es", so "escalate" must lose its
    "e" to meet it (and "database" its plural, "release" "released"). Cached: the gate
    stems every word of the hits it reads, and words repeat (a search's hits were ~25k
    uncached calls, 8% of a LoCoMo search; docs/journal.md, issue 17 cost).

    Accents are folded first ("Prüfung" and "Prufung", "réunion" and "reunion" meet, as
    the keyword index folds them), and an elided article goes ("l'équipe": "equip")."""
    lang = get_language(language)
    w = re.sub(r"['\u2019]s$", "", word.lower())
    if lang.elided is not None:
        w = lang.elided.sub("", w)
    if not w.isascii():
        w = _fold(w)
    for suffix, replacement in lang.suffixes:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + replacement
            break
    return w[:-1] if w.endswith("e") and len(w) > 3 else w


def _fold(word: str) -> str:
    """``word`` without its accents ("ß" as "ss", as tantivy's ascii_fold has it)."""
    decomposed = unicodedata.normalize("NFKD", word.replace("ß", "ss"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def text_stems(text: str, language: str | None = None) -> frozenset[str]:
    """The stems of every word of ``text``, in ``language`` (by default the one it is
    written in, ``detect_language``). Cached by text: the gate and the learned
    ranker read the same items' text over and over (a store's hits repeat across
    searches; 8k texts of a few kB at most)."""
    return _read(text, language or detect_language(text))[0]


def topic_words(text: str, language: str | None = None) -> frozenset[str]:
    """The stems of the words of ``text`` that say what it is about: three letters or
    more and no stopword ("the", "we", "use"; dropped before stemming, so that "notes",
    whose stem is "not", stays). Two texts share a topic when they share several
    (``retrieve.topics``'s ``SAME_TOPIC``). ``language`` as for ``text_stems``."""
    return _read(text, language or detect_language(text))[1]


@lru_cache(maxsize=1 << 13)
def _read(text: str, language: str) -> tuple[frozenset[str], frozenset[str]]:
    """``text_stems`` and ``topic_words`` in one pass over the words: a search reads
    both of its first candidates (freshness the topics, the gate and the ranker the
    stems)."""
    stop = get_language(language).stopwords
    every: set[str] = set()
    topic: set[str] = set()
    for word in words(text):
        s = stem(word, language)
        every.add(s)
        if len(word) > 2 and word.lower().replace("\u2019", "'") not in stop:
            topic.add(s)
    return frozenset(every), frozenset(topic)
