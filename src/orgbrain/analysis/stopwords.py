"""Stopwords: the words of a language that say nothing of what a text is about."""

from __future__ import annotations

from .languages import DEFAULT_LANGUAGE, get_language

__all__ = ["STOPWORDS", "stopwords"]


def stopwords(language: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """The lower-case stopwords of ``language``."""
    return get_language(language).stopwords


STOPWORDS = stopwords()
"""The default language's stopwords, for the many callers that test one word at a time."""
