"""An item read as units for restating: each clause that states a value or a name
(``Said``), the pair of an older and a newer one (``Pair``), and the small readings of
a unit's words and lines that every kind of restatement shares."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from ...analysis import LETTER_WORD, STOPWORDS, stem
from ...extraction.context import LABEL
from ...extraction.cues import CUE, change_cue, planned, temporary, titled_change
from ...extraction.dates import find_dates
from ...extraction.named import names_in
from ...extraction.qualifiers import qualifiers
from ...extraction.quiet import HEDGE, NEGATION
from ...extraction.sentences import split_units
from ...extraction.shorthand import values_of
from ...extraction.states import STATUS, cell_statuses, statuses_in
from ...extraction.values import Value
from ...model import Item
from ..documents import revised_title
from ..handover import hands_over
from .gone import gone_name

__all__ = [
    "INITIALS",
    "LABEL",
    "MIN_SHARED",
    "PREDICATE",
    "Pair",
    "Said",
    "beside",
    "changes",
    "content_stems",
    "held_back",
    "line",
    "one_sentence",
    "said_in",
    "shared_words",
    "spelled",
    "spelled_out",
    "starts_after",
    "stems",
    "title",
    "with_title",
]

PREDICATE = "value"
MIN_SHARED = 2
"""Words (stems) an older and a newer sentence must share besides their values."""
_LABEL_WORDS = 6


@dataclass(frozen=True, slots=True)
class Said:
    """One clause of an item that states a value or a name."""

    item: Item
    start: int
    end: int
    values: tuple[Value, ...]  # offsets into the unit's text
    names: tuple[Value, ...]
    stems: frozenset[str]
    cue: bool
    titled: frozenset[str] = field(compare=False)
    """``stems`` and, when it lies below it, its item's first line's: what a card's line
    ("Owner: Lena Fischer") is about is often said only in its title."""
    qualified: Mapping[str, frozenset[str]] = field(compare=False)
    """The ``qualifiers`` of the unit and, when it lies below it, of its item's first line
    (a title often names what it is about: "Postgres config (production)")."""

    @property
    def text(self) -> str:
        return self.item.body[self.start : self.end]


@dataclass(frozen=True, slots=True)
class Pair:
    old: Said
    new: Said
    was: Value
    now: Value
    shared: tuple[str, ...]  # the older unit's shared words, in order
    gone_in: frozenset[str] = frozenset()
    """The words of the unit that said the older name is gone, when another unit of the
    same item names the new one ("Airflow is being switched off." beside "analytics
    orchestration is now Dagster.")."""
    pointed: bool = False
    """The newer unit points at a new name without saying the older is gone
    (``names.replaced``): where the typed rules read both sides, they decide."""
    left: bool = False
    """The older name is the newer note's writer, who says they are leaving and hands the
    thing on (``names.replaced``): the subject the older unit gives it need not be said."""


def said_in(item: Item) -> list[Said]:
    """The clauses of ``item`` that state a value or a name."""
    out: list[Said] = []
    first = title(item)
    about = stems(first, values_of(first))
    # a document titled as a change states one on every line below its title
    update = "\n" in item.body.strip() and (titled_change(first) or revised_title(item.body)[1])
    asked: frozenset[str] = frozenset()  # the words of the FAQ question last asked
    for start, end in _clauses(item.body):
        text = item.body[start:end]
        at = line(item.body, start)
        if _ASKED.match(at):
            asked = stems(at, ())
        answers = _ANSWER.match(at) is not None
        said = statuses_in(text)
        cells = [
            v for v in cell_statuses(item.body, start, end) if v.key not in {s.key for s in said}
        ]
        found = sorted(values_of(text) + said + cells, key=lambda v: v.start)
        names = names_in(text)
        if not (found or names) or text.rstrip().endswith("?") or HEDGE.search(text):
            continue  # a question or a hedge states no value
        if _UNDECIDED.match(text):
            continue
        own = stems(text, found)
        below = start >= len(first)
        titled = (own | about if below else own) | (asked if answers else frozenset())
        qualified = qualifiers(f"{first}\n{text}" if below else text)
        # an exception that opens the line ("Sat 11 Apr ONLY - sign on at Hangar 3") holds
        # for every clause after it on that line
        lead = item.body[item.body.rfind("\n", 0, start) + 1 : start]
        cue = change_cue(text, heading=below and update) and not temporary(lead)
        out.append(Said(item, start, end, tuple(found), tuple(names), own, cue, titled, qualified))
    return out


_ASKED = re.compile(r"[^\w\n]*Q:\s")
_ANSWER = re.compile(r"[^\w\n]*A:\s")
"""An FAQ's question and answer lines ("Q: Who do I contact about custody forms?", "A:
Tom Hale, ext 4471"): what an answer is about is said in its question, which counts
as its title."""


def title(item: Item) -> str:
    """An item's first line: a document's title, when lines follow it."""
    return item.body.split("\n", 1)[0]


def with_title(said: Said) -> str:
    """``said``'s text under its item's first line."""
    return f"{title(said.item)}\n{said.text}"


def line(body: str, at: int) -> str:
    """The line of ``body`` that holds offset ``at``."""
    end = body.find("\n", at)
    return body[body.rfind("\n", 0, at) + 1 : end if end >= 0 else len(body)]


_CLAUSE = re.compile(r",\s+(?:and|but|while|whereas)\s+|\s+--?\s+|\s+[\u2014\u2013]\s+")
"""Where a sentence joins clauses that may each state a value ("self-assessments are now
due Nov 21, and manager reviews move to Dec 5"); not at a semicolon, which often joins
one thought ("the guide wrongly said every 3 years; the policy has always been every 4")."""


def _clauses(body: str) -> list[tuple[int, int]]:
    """The spans of ``body``'s units (``split_units``), each cut at ``_CLAUSE``."""
    spans: list[tuple[int, int]] = []
    for unit in split_units(body):
        at = unit.start
        for cut in _CLAUSE.finditer(body, unit.start, unit.end):
            if cut.start() > at:
                spans.append((at, cut.start()))
            at = cut.end()
        if unit.end > at:
            spans.append((at, unit.end))
    return spans


def one_sentence(a: Said, b: Said) -> bool:
    """Whether ``a`` and ``b`` are clauses of one sentence, cut at ``_CLAUSE``."""
    first, second = (a, b) if a.start < b.start else (b, a)
    between = first.item.body[first.end : second.start]
    return _CLAUSE.fullmatch(between) is not None and not held_back(second.text)


_UNDECIDED = re.compile(
    r"\W*(?:ideas?|proposals?|proposed|options?|suggestions?|draft|brainstorm|questions?)"
    r"(?:\s+(?:raised|made|floated|submitted|from\s+\w+))?\s*:",
    re.IGNORECASE,
)
"""A line labelled as not decided ("Idea: move the billing alerts to Opsgenie", "Idea
raised: relocate the sampler fridge")."""


def changes(said: Said) -> bool:
    """Whether ``said`` may restate an older unit: a change stated with a value, or a
    name said to be gone."""
    return (
        (said.cue and bool(said.values or said.names))
        or any(v.kind == STATUS for v in said.values)
        or any(gone_name(said.text, n) for n in said.names)
        or hands_over(said.text, said.names)
    )


def stems(text: str, values: Sequence[Value]) -> frozenset[str]:
    """The unit's content words, stemmed, without its values and its change words."""
    for v in reversed(values):
        text = text[: v.start] + " " * (v.end - v.start) + text[v.end :]
    return content_stems(CUE.sub(_unspoken, text))


def content_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s words (``LETTER_WORD``) that are not stopwords."""
    return frozenset(stem(w) for w in LETTER_WORD.findall(text.lower()) if w not in STOPWORDS)


def _unspoken(m: re.Match[str]) -> str:
    """A change's words, blanked; of a span "from X to", only its two ends ("From
    Monday send custody forms to Mercy": the forms are what it is about)."""
    said = m.group(0)
    if said[:4].lower() == "from" and said[-2:].lower() == "to":
        return f"     {said[4:-2]}  "
    return " "


def held_back(text: str) -> bool:
    """Whether ``text`` denies, only plans, or makes a passing exception of what it says
    ("Atlas is not on hold", "we plan to ...", "this week only"): no change word makes it
    a change."""
    return bool(NEGATION.search(text)) or planned(text) or temporary(text)


def starts_after(text: str, today: date) -> bool:
    """Whether ``text`` says its change starts on a day after ``today`` ("from 1 July
    2027 the usage charge will be $2.58"): until then, what it changes still holds. A
    day written without its year is not read."""
    return any(
        d.value is not None
        and d.value > today
        and _STARTING.search(text[max(0, d.start - 30) : d.start])
        for d in find_dates(text)
    )


_STARTING = re.compile(
    r"\b(?:from|effective|starting|as\s+of|with\s+effect\s+from|w/?e/?f|begins?|on)\s+(?:the\s+)?$",
    re.IGNORECASE,
)


def beside(units: list[Said], said: Said) -> list[Said]:
    """The units of the same item just before and after ``said``."""
    at = units.index(said)
    return units[at + 1 : at + 2] + units[max(0, at - 1) : at]


def shared_words(text: str, shared: frozenset[str]) -> tuple[str, ...]:
    """The first words of ``text`` whose stems are ``shared``, in order: a pair's label."""
    seen: dict[str, None] = {}
    for w in LETTER_WORD.findall(text.lower()):
        if stem(w) in shared and w not in STOPWORDS:
            seen.setdefault(w, None)
    return tuple(seen)[:_LABEL_WORDS]


INITIALS = re.compile(r"(?<![\w-])[A-Z]{2,4}(?![\w-])")
"""Capitals written as a name's initials ("TL", "DM")."""


def spelled(initials: str, text: str) -> re.Match[str] | None:
    """The capitalised words of ``text`` that ``initials`` are the initials of ("Team
    Leader" for "TL", "Associate Dean (Research)" for "ADR", "Sales & Marketing" for
    "SM"), if it spells them out."""
    run = r"(?<!\w)" + _SPELLED_GAP.join(rf"{c}[a-z]+" for c in initials) + r"(?!\w)"
    return re.search(run, text)


_SPELLED_GAP = r"[\s(]+(?:(?:of|and|for|the|&)[\s(]+)?"
"""Between the words initials spell out: a space or a bracket, perhaps a small word."""


def spelled_pairs(a: Said, b: Said) -> list[tuple[str, str]]:
    """Each set of initials one unit writes with the capitalised words the other spells
    them out as ("TL", "Team Leader"): one thing, however each writes it."""
    return [
        (m.group(0), found.group(0))
        for short, full in ((a, b), (b, a))
        for m in INITIALS.finditer(short.text)
        if (found := spelled(m.group(0), full.text)) is not None
    ]


def spelled_out(a: Said, b: Said) -> frozenset[str]:
    """The stems of the words one unit spells out that the other writes as their initials
    (``spelled_pairs``: "you need TL sign-off", "Benefits Team Leader sign-off")."""
    return frozenset(stem(w.lower()) for _, words in spelled_pairs(a, b) for w in words.split())
