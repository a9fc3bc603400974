"""Tokenising: the ways of cutting text into words, each kept for the reason it differs.

- ``words``: every word as written, one inner apostrophe kept ("don't", "Caroline's").
- ``label_words``: words as a name spells them, every inner apostrophe kept ("O'Brien's"
  is one word, so that a name matches itself, possessive and all).
- ``letter_words``: runs of two or more letters, no digits: the words a subject or a
  label is made of, where "Q3" or "v2" says no more than a number would.
- ``plain_words``: runs of letters and digits, split at apostrophes and underscores: for
  comparing spellings of the same words ("Day-1 plan" and "day 1 plan").
"""

from __future__ import annotations

import re

__all__ = [
    "LETTER_WORD",
    "WORD",
    "label_words",
    "letter_words",
    "plain_words",
    "words",
]

WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?", re.UNICODE)
LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
_LABEL_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
_PLAIN_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Every word of ``text``, as written."""
    return WORD.findall(text)  # WORD has no groups: whole words


def label_words(text: str) -> list[str]:
    """The words of ``text``, every inner apostrophe kept."""
    return _LABEL_WORD.findall(text)


def letter_words(text: str) -> list[str]:
    """The runs of two or more letters in ``text``, as written."""
    return LETTER_WORD.findall(text)


def plain_words(text: str) -> list[str]:
    """The runs of letters and digits in ``text``, as written."""
    return _PLAIN_WORD.findall(text)
