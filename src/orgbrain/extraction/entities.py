"""Entity mentions by shape, word list and what the brain already knows.

Candidates from every rule are ranked (a known name first, then exact shapes such as
emails and codes, then names, then word-list and CamelCase guesses) and kept greedily
when they do not overlap one kept before, so each character belongs to one mention.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .gazetteer import COMPANIES, FIRST_NAMES, NOT_NAMES, SYSTEMS
from .names import recognisable
from .types import Found

__all__ = ["find_entities", "looks_like_person"]

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_HANDLE = re.compile(r"(?<![\w.@])@[A-Za-z][\w-]*(?:\.[\w-]+)*")
_CODE = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b")
_CAP = r"[A-Z][a-zà-öø-ÿ]+(?:[-'\u2019][A-Z]?[a-zà-öø-ÿ]+)?"
_PAIR = re.compile(
    rf"\b(?P<first>{_CAP})(?:\s+(?:van|von|de|da|del|der|di|le|la|bin|al)?\s*{_CAP})+"
)
_WORD = re.compile(r"\b[A-Za-z][\w.+-]*[A-Za-z0-9+]|\b[A-Za-z]\b")
_CAMEL = re.compile(r"\b[A-Z]?[a-z]+(?:[A-Z][a-z0-9]*)+[A-Z]*\b|\b[A-Z][a-z]+[A-Z]{2,}\b")
_TEAM = re.compile(
    r"\b(?:(?P<cap>(?:[A-Z][\w&-]*\s+){0,2}[A-Z][\w&-]*)|(?P<low>[a-z][\w-]*))"
    r"\s+(?P<kind>team|squad|guild|chapter|crew|tribe|pod)\b"
    r"|\b(?:Team|Squad)\s+(?P<named>[A-Z][\w-]*)"
)
_PROJECT = re.compile(
    r"\b(?:[Pp]roject|[Oo]peration|[Ii]nitiative)\s+(?P<a>[A-Z][\w-]*)"
    r"|\b(?:the\s+)?(?P<b>[A-Z][\w-]*)\s+(?:project|initiative|programme|program|epic)\b"
)
_COMPANY = re.compile(
    r"\b(?P<name>[A-Z][\w&]*(?:\s+[A-Z][\w&]*){0,2})\s+"
    r"(?:Inc\.?|Ltd\.?|LLC|GmbH|Corp\.?|Corporation|plc|AG|S\.A\.|B\.V\.|Limited)(?!\w)"
)
# Word-list systems that are also plain English words: matched only as capitalised.
_EXACT_CASE = frozenset(
    "go vector linear segment temporal slack notion spark bun vault consul tempo argo nexus "
    "lambda zoom flask rails envoy loki vue react ruby java unleash vite cypress prisma "
    "retool renovate backstage snowflake helm nomad vercel kotlin scala elixir swagger "
    "sentry".split()
)
_NOT_TEAM_WORDS = frozenset(
    "the a an our my your their his her its this that whole entire same new other every "
    "each which what core full small big one two first second of in on for to with and".split()
)
_SYSTEMS_LOWER = {s.lower(): s for s in SYSTEMS}
_AMBIGUOUS_NAMES = frozenset({"Will", "Mark", "Jan", "Frank", "May", "Grace", "Rosa"})
_FIRST = FIRST_NAMES - _AMBIGUOUS_NAMES

# Rank of each rule: lower wins an overlap.
_KNOWN, _EXACT, _NAMED, _PAIR_RANK, _LIST, _GUESS = range(6)


def looks_like_person(word: str) -> bool:
    return word in _FIRST


def find_entities(text: str, known: Sequence[tuple[str, str]] = ()) -> list[Found]:
    candidates: list[tuple[int, int, int, str, str]] = []  # rank, start, end, type, value

    def add(rank: int, start: int, end: int, type_: str) -> None:
        candidates.append((rank, start, end, type_, text[start:end]))

    if known:
        pattern, types = _known_pattern(tuple(known))
        if pattern is not None:
            for m in pattern.finditer(text):
                add(_KNOWN, m.start(), m.end(), types[m.group(0).casefold()])
    for m in _EMAIL.finditer(text):
        add(_EXACT, m.start(), m.end(), "email")
    for m in _CODE.finditer(text):
        add(_EXACT, m.start(), m.end(), "code")
    for m in _HANDLE.finditer(text):
        end = m.end()
        while text[end - 1] in ".-":
            end -= 1
        add(_EXACT, m.start(), end, "handle")
    for m in _TEAM.finditer(text):
        if m.group("named"):
            add(_NAMED, m.start(), m.end(), "team")
            continue
        group = "cap" if m.group("cap") else "low"
        start = m.start(group)
        for word in m.group(group).split():
            if word.lower() not in _NOT_TEAM_WORDS:
                break
            start = text.index(word, start) + len(word)
            while text[start].isspace():
                start += 1
        if start < m.start("kind"):
            add(_NAMED, start, m.end(), "team")
    for m in _PROJECT.finditer(text):
        group = "a" if m.group("a") else "b"
        if m.group(group) not in NOT_NAMES:
            add(_NAMED, m.start(group), m.end(group), "project")
    for m in _COMPANY.finditer(text):
        add(_NAMED, m.start(), m.end(), "company")
    for m in _PAIR.finditer(text):
        first = m.group("first")
        if first in _FIRST:
            words = m.group(0).split()
            # "Priya Raman Tuesday": stop at the first word that is not a name.
            end = m.start() + len(first)
            for word in words[1:]:
                if word in NOT_NAMES or word in SYSTEMS or word in COMPANIES:
                    break
                end = text.index(word, end) + len(word)
            add(_PAIR_RANK, m.start(), end, "person")
    for m in _WORD.finditer(text):
        word = m.group(0)
        lower = word.lower()
        if lower in _SYSTEMS_LOWER and (word in SYSTEMS or lower not in _EXACT_CASE):
            add(_LIST, m.start(), m.end(), "system")
        elif word in COMPANIES:
            add(_LIST, m.start(), m.end(), "company")
        elif word in _FIRST:
            add(_GUESS, m.start(), m.end(), "person")
    for m in _CAMEL.finditer(text):
        if m.group(0) not in COMPANIES:
            add(_GUESS, m.start(), m.end(), "system")
    candidates.sort(key=lambda c: (c[0], c[1] - c[2], c[1]))
    taken: list[tuple[int, int]] = []
    kept: list[Found] = []
    for _rank, start, end, type_, value in candidates:
        if any(start < e and s < end for s, e in taken):
            continue
        taken.append((start, end))
        kept.append(Found(type_, value, start, end))
    kept.sort(key=lambda f: (f.start, f.end))
    return kept


@lru_cache(maxsize=64)
def _known_pattern(
    known: tuple[tuple[str, str], ...],
) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    types: dict[str, str] = {}
    for type_, value in known:
        value = value.strip()
        # A known "The" or "current" would be found in every text after it.
        if len(value) >= 2 and recognisable(Found(type_, value, 0, len(value))):
            types.setdefault(value.casefold(), type_)
    if not types:
        return None, types
    parts = []
    for value in sorted(types, key=len, reverse=True):
        body = re.escape(value)
        left = r"(?<!\w)" if value[0].isalnum() or value[0] == "_" else ""
        right = r"(?!\w)" if value[-1].isalnum() or value[-1] == "_" else ""
        parts.append(left + body + right)
    return re.compile("|".join(parts), re.IGNORECASE), types
