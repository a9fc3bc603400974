"""Why the brain spoke or stayed silent, in words a reader understands.

The gate decides on cosines and term shares (``verdict.membership``), and its reason says
so with its numbers: right for a log, meaningless to a person ("cosine >= 0.35 or terms
>= 50%"). ``grounds_of`` reads what decided (the hit, the rule, the question's words it
holds and misses) into ``Grounds``; ``plain_reason`` says it in one sentence, with no
number in it. Every transport shows that sentence (``SearchResult.why``); the technical
reason stays in ``SearchResult.reason``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ..analysis import text_stems
from ..model import ItemSketch, Verdict
from .answerable import lacking
from .evidence import TIME_SLACK
from .plan import Gate
from .query import Query
from .terms import holds_any
from .verdict import HitEvidence, Membership, Rule
from .when import Window

__all__ = ["Grounds", "grounds_of", "plain_reason", "tier_of"]

Ground = Rule | Literal["ranked", "empty", "too_far"]
"""The gate's rule, or: ``ranked`` (a plan with no gate spoke by score alone), ``empty``
(nothing was found), ``too_far`` (the score floor: nothing found was near)."""

LABEL_CHARS = 60

# Inline Markdown a heading may carry (`code`, **strong**, _emphasis_, [text](url)):
# the sentence is text, and every transport shows it as text.
_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(?<![\w*_])(\*{1,2}|_{1,2})(?=\S)(.+?)(?<=\S)\1(?![\w*_])")


@dataclass(frozen=True, slots=True)
class Grounds:
    """What decided a search's verdict, as a reader would be told it.

    ``label`` and ``noun``: the hit that answered, or the closest one when none did (its
    label and its class: note, section, file); ``shared`` and ``missing``: the question's
    words it holds and lacks, as the question wrote them; ``names``: the question's names
    it holds, ``unnamed``: those it does not; ``asks``: it only asks about the thing;
    ``far``: it would answer, but the hits closest to the question are about something
    else; ``graph``: what the typed graph says it states; ``window``: the question's time,
    which the hit's date falls in; ``replaced_by``: the label of what has since replaced it.
    """

    ground: Ground
    label: str = ""
    noun: str = "note"
    shared: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    unnamed: tuple[str, ...] = ()
    asks: bool = False
    far: bool = False
    graph: str = ""
    window: str = ""
    replaced_by: str = ""
    lacks: str = ""
    """The kind of value the question asks for that the hit does not hold (the judge's)."""
    said: str = ""
    """The chat model's why, when it decided (``verdict_llm``)."""


def tier_of(ground: Ground) -> str:
    """Which tier decided a verdict on ``ground``: the chat model (``llm``), the
    answerability ``judge`` or the ``gate``; "" when none ran (the score floors, or a plan
    with no gate)."""
    if ground in ("llm_answers", "llm_silent"):
        return "llm"
    if ground in ("answers", "unanswered"):
        return "judge"
    return "" if ground in ("ranked", "empty", "too_far") else "gate"


def grounds_of(
    query: Query,
    read: Sequence[tuple[ItemSketch, ItemSketch | None]],
    evidence: Sequence[HitEvidence],
    gated: Membership | None,
    *,
    spoke: bool,
    gate: Gate | None,
    window: Window | None = None,
) -> Grounds:
    """The grounds of a verdict on ``query``: ``read`` are the hits the gate read, the
    closest first, each with what has since replaced it (or None); ``evidence`` is the
    gate's reading of them, ``gated`` its decision: None when the gate did not decide, as
    when the plan has none and the score floors kept hits (``spoke``) or the floors left
    none to decide on."""
    if not read:
        return Grounds("empty")
    if gated is None:
        item, newer = read[0]
        if not spoke:
            return Grounds("too_far", _label(item.label), item.storage_class)
        return _read(query, item, "ranked", window, newer)
    if gated.hit is not None:
        item, newer = read[gated.hit]
        g = _read(query, item, gated.rule, window, newer)
        graph = evidence[gated.hit].graph if gated.rule == "graph" else None
        return replace(g, said=gated.said) if graph is None else replace(g, graph=graph)
    # None answered: the closest is the hit holding most of the question, else the first.
    top = list(evidence[: len(read)])
    n = max(range(len(top)), key=lambda i: (top[i].coverage, -i)) if top else 0
    g = _read(query, read[n][0], gated.rule, None, None)
    e = top[n] if top else None
    best = max((x.cosine for x in top if x.cosine is not None), default=None)
    far = bool(e and gate and e.matches(gate) and not e.near(best, gate))
    lacks = ""
    if gated.rule == "unanswered":  # the judge's silence says what the closest lacks
        lacks = lacking(query.text, f"{read[n][0].label}\n{read[n][0].body}")
    return replace(g, asks=bool(e and e.asks), far=far, lacks=lacks, said=gated.said)


def plain_reason(g: Grounds, verdict: Verdict) -> str:
    """``g`` in one sentence: "Answers: ...", "Close but not an answer: ...", "Nothing
    answers: ...", or, for a conflict, "The best answers disagree: ..."."""
    closest = f'the closest {g.noun}, "{g.label}",'
    if g.ground == "empty" or g.ground == "no_hits":
        return "Nothing answers: the brain holds nothing on this yet"
    if g.ground == "too_far":
        return f"Nothing answers: {closest} is far from what was asked"
    if g.ground == "llm_silent":
        return f"Close but not an answer: the chat model read {closest} and says: {g.said}"
    if g.ground == "unanswered" and not g.asks and not g.unnamed:
        return _unanswered(g, closest)
    if g.ground in ("unmatched", "unanswered"):
        if g.asks:
            return f"Nothing answers: {closest} only asks about it"
        if g.unnamed:
            return f"Nothing answers: {closest} does not name {_words(g.unnamed, 'or')}"
        if g.far:
            return (
                f'Close but not an answer: "{g.label}" names what was asked, but the '
                f"{g.noun}s closest to the question are about something else"
            )
        if not g.shared:
            return f"Nothing answers: {closest} shares no words with the question"
        if len(g.shared) == 1:
            return f"Nothing answers: {closest} shares only the word {_quoted(g.shared)}"
        lacks = f" but not {_words(g.missing, 'or', quote=True)}" if g.missing else ""
        return f"Close but not an answer: {closest} has {_quoted(g.shared)}{lacks}"
    head = "The best answers disagree" if verdict == "conflict" else "Answers"
    said = _answer(g)
    if g.window and g.ground == "matches" and not g.shared:
        said = f'"{g.label}" dates from {g.window}, the time asked about'
    elif g.window:
        said += f", and dates from {g.window}"
    if g.replaced_by:
        said += f'; "{g.replaced_by}" has since replaced it'
    return f"{head}: {said}"


def _unanswered(g: Grounds, closest: str) -> str:
    """The judge's silence: what the closest hit shares with the question, and what it
    lacks (the kind of value asked for, else the answer itself)."""
    if not g.shared:
        lacks = f"holds no {g.lacks}" if g.lacks else "does not say what was asked"
        return f"Nothing answers: {closest} shares no words with the question and {lacks}"
    lacks = f"holds no {g.lacks}" if g.lacks else "does not say what was asked"
    return f"Close but not an answer: {closest} is about {_quoted(g.shared)} but {lacks}"


def _answer(g: Grounds) -> str:
    label = f'"{g.label}"'
    if g.ground == "graph":
        if g.graph.startswith("supersedes"):
            return f"{label} replaces an older {g.noun} that answered this"
        return f"the brain's graph records that {label} {g.graph}"
    if g.ground == "close_alone":
        return f"{label} is close to the question and mentions {_words(g.names, 'and')}"
    if g.ground == "some_name":
        return f"{label} mentions {_words(g.names, 'and')}, whom the question asks about"
    if g.ground == "ranked":
        return f"{label} is the closest match"
    if g.ground == "llm_answers":
        return f"{label}, the chat model says: {g.said}"
    if g.ground == "answers":
        held = f", with {_quoted(g.shared)}" if g.shared else ""
        return f"{label} says what was asked{held}"
    if g.shared:
        return f"{label} mentions {_quoted(g.shared)}"
    return f"{label} is about what was asked"


def _read(
    query: Query,
    item: ItemSketch,
    ground: Ground,
    window: Window | None,
    newer: ItemSketch | None,
) -> Grounds:
    """What ``item`` holds of ``query`` (``window``: its time, as the search narrowed
    it): its words, shared and missing, and its names."""
    names, required, text = query.names, query.asked_names, query.text
    asked = query.untimed if window is not None else query.content
    lang = query.lang  # both sides stemmed alike, as the gate does (evidence)
    stems = text_stems(f"{item.label}\n{item.body}", lang)
    held = [t for t in asked if holds_any([t], stems, lang)]
    timely = window is not None and not window.askers and window.holds(item.when, TIME_SLACK)
    return Grounds(
        ground,
        _label(item.label),
        item.storage_class,
        shared=tuple(_as_written(text, t) for t in held),
        missing=tuple(_as_written(text, t) for t in asked if t not in held),
        names=tuple(_as_written(text, n) for n in names if holds_any([n], stems, lang)),
        unnamed=tuple(_as_written(text, n) for n in required if not holds_any([n], stems, lang)),
        window=window.phrase if timely and window is not None else "",
        replaced_by="" if newer is None else _label(newer.label),
    )


def _label(label: str) -> str:
    # A section's label is its breadcrumb: its own heading is what a reader knows it by.
    label = " ".join(label.split()).rsplit(" > ", 1)[-1]
    label = _plain(label)
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _plain(label: str) -> str:
    """``label`` without its inline Markdown marks; a code span's text is kept as written."""
    parts = _CODE.split(label)  # text, ticks, code, text, ...: every third part is code
    for i in range(0, len(parts), 3):
        parts[i] = _EMPHASIS.sub(r"\2", _LINK.sub(r"\1", parts[i]))
    return "".join(p for i, p in enumerate(parts) if i % 3 != 1).strip()


def _as_written(query: str, word: str) -> str:
    """``word`` (lower-cased by ``query_terms``) as ``query`` spells it."""
    found = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", query, re.IGNORECASE)
    return word if found is None else found.group(0)


def _quoted(words: Sequence[str]) -> str:
    return _words(words, "and", quote=True)


def _words(words: Sequence[str], joiner: str, *, quote: bool = False) -> str:
    shown = [f"'{w}'" if quote else w for w in words]
    if len(shown) <= 2:
        return f" {joiner} ".join(shown)
    return ", ".join(shown[:-1]) + f" {joiner} " + shown[-1]
