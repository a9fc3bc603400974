"""Stemming: words to a common stem, and the stems of a whole text."""

from __future__ import annotations

import re
from functools import lru_cache

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
    uncached calls, 8% of a LoCoMo search; docs/journal.md, issue 17 cost)."""
    w = re.sub(r"['\u2019]s$", "", word.lower())
    for suffix, replacement in get_language(language).suffixes:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + replacement
            break
    return w[:-1] if w.endswith("e") and len(w) > 3 else w


def text_stems(text: str, language: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """The stems of every word of ``text``. Cached by text: the gate and the learned
    ranker read the same items' text over and over (a store's hits repeat across
    searches; 8k texts of a few kB at most)."""
    return _read(text, language)[0]


def topic_words(text: str, language: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """The stems of the words of ``text`` that say what it is about: three letters or
    more and no stopword ("the", "we", "use"; dropped before stemming, so that "notes",
    whose stem is "not", stays). Two texts share a topic when they share several
    (``retrieve.topics``'s ``SAME_TOPIC``)."""
    return _read(text, language)[1]


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
