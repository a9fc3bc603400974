"""Whether a span names a thing, and whether it is a thing a person would recognise.

Two questions, asked of every candidate the rules produce:

- ``names_something``: could the span be a subject at all? Not a function word or a
  phrase that opens with one ("The", "To", "If you need to", "It is possible to": the
  start of a clause the rules cut short), not a lone letter, not bare numbers or an
  option ("1000...60000", "-n"). A phrase is no clause either: one that ends on a
  function word ("pip will first try to", "branches only") was cut short mid-clause,
  and one with an auxiliary or modal inside ("dpkg cannot ensure that triggers",
  "triggers is as follows") has its verb in it; an unclosed bracket ("branch (Note")
  was cut mid-aside. A closed class of words, kept as data, not a list of bad phrases.
- ``recognisable``: is it an entity the graph and item pages should draw? Anything a
  typed rule found (a person, team, system, project, company, code, email, handle) that
  names something; a plain noun phrase (a ``topic``, a statement's subject such as
  "Trigger cycles" or "title") only with a name's shape: a capital past a word's first
  letter ("URL", "OpenSSH", "PAM modules"), or a code identifier's joins ("util-linux",
  "nss-systemd", "SPDX-License-Identifier"). A capital at the head of the span alone is
  no evidence: sentences, lines and headings start with one.
"""

from __future__ import annotations

import re

from .types import Found

__all__ = ["FUNCTION_WORDS", "names_something", "recognisable"]

FUNCTION_WORDS = frozenset(
    # determiners and quantifiers
    "the a an this that these those some any no every each all both either neither few "
    "many most much more less other another such several own same "
    # pronouns
    "i me my mine we us our ours you your yours he him his she her hers it its they them "
    "their theirs itself themselves yourself ourselves one ones who whom whose which what "
    "there here everyone everything someone something anyone anything nobody nothing "
    # prepositions
    "of to in on at by for from with without into onto over under below above between "
    "through during before after since until upon about against among across along "
    "around behind beyond near off out per via than like as "
    # conjunctions and subordinators
    "and or but nor so yet if when while because although though unless whether where "
    "whereas once then thus hence however therefore also just only even still not "
    # auxiliaries and modals
    "is are was were be been being am do does did done have has had having can could "
    "may might must shall should will would let lets let's it's there's that's "
    # sentence adverbs a clause opens with
    "please note usually often sometimes always never now currently".split()
)
_VERBS = frozenset(
    # auxiliaries and modals, and their negations: a phrase holding one is a clause
    "is are was were be been being am do does did have has had can could may might must "
    "shall should will would cannot can't won't don't doesn't didn't isn't aren't wasn't "
    "weren't hasn't haven't shouldn't wouldn't couldn't mustn't".split()
)
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[\w'\u2019]+(?:[-/][\w'\u2019]+)*")
_INNER_CAPITAL = re.compile(r"\w[a-z0-9]*[A-Z]|\b[A-Z]{2,}")
_JOINED = re.compile(r"[A-Za-z0-9][-_.+][A-Za-z0-9]|[A-Za-z][0-9]|[0-9][A-Za-z]")
_OPENS = re.compile(r"(?:^|[.!?:;|>#*\n\-]|\d\.)\s*[\"'`(\[]*$")
"""What may stand before a span that starts a sentence, a line, a cell or a heading."""


def _word(value: str) -> str:
    return value.casefold().replace("\u2019", "'")


def names_something(value: str, *, phrase: bool = True) -> bool:
    """Whether ``value`` could name a thing: it has a letter, it is not a lone letter
    or an option, and it is not a function word; a ``phrase`` (a topic, read off a
    clause) does not open with one either."""
    value = value.strip()
    words = _WORD.findall(value)
    if not words or not _LETTER.search(value) or value.startswith("-"):
        return False
    if len(re.sub(r"\W", "", value)) < 2:
        return False
    if phrase and not _whole_phrase(value, words):
        return False
    head = words[0] if phrase else value
    return not _function_word(head)


def _function_word(word: str) -> bool:
    # An acronym is a name, whatever word it spells ("IT desk", "US office", "ON call").
    return _word(word) in FUNCTION_WORDS and not (word.isupper() and len(word) > 1)


def _whole_phrase(value: str, words: list[str]) -> bool:
    """Whether a multi-word phrase reads as a name rather than a clause cut short."""
    if value.count("(") != value.count(")") or value.count("[") != value.count("]"):
        return False
    if len(words) < 2:
        return True
    if _function_word(words[-1]):
        return False
    return not any(_word(w) in _VERBS and not w.isupper() for w in words[1:])


def recognisable(found: Found, text: str = "") -> bool:
    """Whether ``found`` (read from ``text``) is an entity to draw: a typed mention that
    names something, or a topic with a name's shape or capitalised mid-sentence."""
    if found.type != "topic":
        return names_something(found.value, phrase=False)
    if not names_something(found.value):
        return False
    if _INNER_CAPITAL.search(found.value) or _JOINED.search(found.value):
        return True
    before = text[max(0, found.start - 40) : found.start]
    return found.value[:1].isupper() and bool(text) and not _OPENS.search(before)
