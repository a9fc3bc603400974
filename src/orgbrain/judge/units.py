"""A note read as units for judging: each sentence, list line, ``Label: value`` line or
table row, with its values and names, the text with them masked by their type, and the
line it sits under (a table's header row, a list's heading, the note's title) as context.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from ..analysis import detect_language, stopwords, sure_language, text_stems
from ..extraction.cues import CUE, planned, temporary
from ..extraction.named import names_in
from ..extraction.qualifiers import qualifiers
from ..extraction.quiet import NEGATION, states_nothing
from ..extraction.sentences import split_units
from ..extraction.shorthand import values_of
from ..extraction.values import Value

__all__ = ["FAMILIES", "JUnit", "units_of"]

MIN_CHARS = 8
"""Shorter units ("Thanks!", "| --- |") say nothing to replace."""
MAX_UNITS = 60
"""A longer note is judged on its first units: a pair's cost grows with both sides."""

_RULE = re.compile(r"^[\s|:\-=+*_#]*$")
_MASK = {
    "money": "amount",
    "percent": "percentage",
    "quantity": "number",
    "number": "number",
    "date": "date",
    "weekday": "weekday",
    "time": "time",
    "name": "name",
    "link": "link",
    "email": "address",
    "phone": "phone",
}


@dataclass(frozen=True, slots=True)
class JUnit:
    """One unit: ``text[start:end]`` of its note, its ``kind`` (``sentence``, ``label``,
    ``row``, ``heading``), its ``values`` and ``names`` (offsets into ``text``),
    ``masked`` (the text with each value and name replaced by its type's word), and
    ``context``: the line above it that says what it is about, or ``""``."""

    start: int
    end: int
    kind: str
    text: str
    masked: str
    values: tuple[Value, ...]
    names: tuple[Value, ...]
    context: str
    stems: frozenset[str]
    tokens: frozenset[str]
    """Its words and numbers as written, lower-cased, but the commonest."""
    context_stems: frozenset[str]
    lang: str
    """The language it was read in: its own where its words tell, else its note's."""
    qualified: Mapping[str, frozenset[str]] = field(compare=False)
    """The ``qualifiers`` of its context and its text (production, staging, a site)."""
    cues: Mapping[str, bool] = field(compare=False)
    """What it says besides its values: a change word (``change``), a question or hedge
    (``nothing``), a one-off exception, a plan, a negation, and each family of
    ``cues.json``."""

    @property
    def first_cell(self) -> str:
        """A table row's first cell, lower-cased ("sat" of "| Sat | 10:00 |")."""
        if self.kind != "row":
            return ""
        cells = [c.strip() for c in self.text.strip().strip("|").split("|")]
        return cells[0].casefold() if cells else ""


def units_of(body: str) -> list[JUnit]:
    """The units of ``body`` worth judging, in order."""
    out: list[JUnit] = []
    title = ""
    header = ""
    heading = ""
    prev_row_end = -2
    language = detect_language(body)  # for a unit with no word to tell ("| Messschieber | 12 |")
    for u in split_units(body):
        text = body[u.start : u.end]
        if not title:
            title = text.strip()
        if u.kind == "heading":
            heading = text.strip("# \t")
            continue
        if u.kind == "row":
            line_start = body.rfind("\n", 0, u.start) + 1
            if line_start > prev_row_end + 1:  # a new table: its first row is its header
                header = text
                prev_row_end = u.end
                continue
            prev_row_end = u.end
        if len(text.strip()) < MIN_CHARS or _RULE.match(text):
            continue
        context = header if u.kind == "row" else heading or ("" if text.strip() == title else title)
        out.append(_unit(u.start, u.end, u.kind, text, context, language))
        if len(out) >= MAX_UNITS:
            break
    return out


_TOKEN = re.compile(r"[^\W_]+")
FAMILIES = ("continues", "adds", "proposes", "ends")
"""The families of ``cues.json``, each a signal of the judge."""


@cache
def _raw() -> dict[str, object]:
    text = resources.files(__package__).joinpath("cues.json").read_text("utf-8")
    loaded: dict[str, object] = json.loads(text)
    return loaded


def _alternation(phrases: list[str]) -> re.Pattern[str]:
    # the longest first, so "nicht mehr" is read before "nicht"
    ordered = sorted(phrases, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, ordered)) + r")\b", re.IGNORECASE)


@cache
def _lexicons() -> dict[str, re.Pattern[str]]:
    raw = _raw()
    return {family: _alternation(raw[family]) for family in FAMILIES}  # type: ignore[arg-type]


@cache
def _said(lang: str) -> dict[str, re.Pattern[str]] | None:
    """The lists of ``cues.json``'s ``by_language`` for ``lang``, family by family; None
    for English, which ``extraction``'s readers read."""
    by_language = _raw()["by_language"]
    assert isinstance(by_language, dict)
    families = {k: v for k, v in by_language.items() if not k.startswith("_")}
    if not all(lang in words for words in families.values()):
        return None
    return {family: _alternation(words[lang]) for family, words in families.items()}


def _cues(text: str, lang: str) -> dict[str, bool]:
    """What ``text`` says besides its values, read in ``lang``: English by the readers of
    ``extraction`` (regular expressions of English), another language by its lists (the
    English readers misread it: German "was" is "what", not a change)."""
    said = _said(lang)
    if said is None:
        cues = {
            "change": bool(CUE.search(text)),
            "nothing": states_nothing(text),
            "temporary": temporary(text),
            "planned": planned(text),
            "negated": bool(NEGATION.search(text)),
        }
    else:
        question = text.strip().endswith("?") or "\u00bf" in text
        cues = {family: bool(rx.search(text)) for family, rx in said.items()}
        cues["nothing"] = cues["nothing"] or question
    return cues | {family: bool(rx.search(text)) for family, rx in _lexicons().items()}


def _unit(start: int, end: int, kind: str, text: str, context: str, language: str) -> JUnit:
    # its names, stems (context's too), stopwords and cues in one language: its own where
    # its words tell, else its note's
    lang = sure_language(text) or language
    values = tuple(values_of(text))
    names = tuple(n for n in names_in(text, lang) if not any(_over(n, v) for v in values))
    stop = stopwords(lang)
    return JUnit(
        start=start,
        end=end,
        kind=kind,
        text=text,
        masked=mask(text, (*values, *names)),
        values=values,
        names=names,
        context=context,
        stems=text_stems(mask(text, (*values, *names), blank=True), lang),
        tokens=frozenset(t for t in _TOKEN.findall(text.casefold()) if t not in stop),
        context_stems=text_stems(context, lang),
        lang=lang,
        qualified=qualifiers(f"{context} {text}"),
        cues=_cues(text, lang),
    )


def _over(a: Value, b: Value) -> bool:
    return a.start < b.end and b.start < a.end


def mask(text: str, found: tuple[Value, ...], *, blank: bool = False) -> str:
    """``text`` with each value replaced by its type's word (or by nothing)."""
    out: list[str] = []
    at = 0
    for v in sorted(found, key=lambda v: v.start):
        if v.start < at:
            continue
        out.append(text[at : v.start])
        out.append("" if blank else _MASK.get(v.kind, "value"))
        at = v.end
    out.append(text[at:])
    return "".join(out)
