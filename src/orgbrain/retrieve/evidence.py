"""What a ranked hit shows about the query, for the membership gate (``verdict.py``).

Sharing the question's words is not enough to answer it. A hit may name a person only to
address them ("Thanks, Caroline!"), speak of its listener rather than its speaker ("That
race sounds great, Mel! You must be proud"), or mention the thing only to ask about it
("Can you tell me what spices you used?"). Each of these is read here from the text, with
no model: the gate then decides whether any of the top hits is evidence.

Those readings are about how people talk, so they apply to conversational items only: a
turn of a conversation, written with kind ``turn`` or ``message`` (``is_conversational``).
A document, a section or a plain note is read as written: "Billing owner: Priya Raman"
has no speaker, and "Priya owns billing." is a statement, however short. Of the question
rule, all they keep is that text made only of questions states nothing
(``every_sentence_asks``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from ..analysis import stem, text_stems, words
from ..conversation import is_conversational
from ..model import Item, ItemSketch
from .crosslingual import relation
from .query import Query
from .terms import coverage, holds_any
from .verdict import HitEvidence
from .when import Window

__all__ = [
    "EVIDENCE",
    "TIME_SLACK",
    "Memo",
    "Seen",
    "every_sentence_asks",
    "hit_evidence",
    "only_asks",
    "spoken_to",
    "without_vocatives",
]

TIME_SLACK = timedelta(days=1)
"""How far outside a query's time window a hit may lie and still be in it: a window is
of UTC days, and whoever asks "yesterday" in their own time zone is up to 14 hours off
UTC (a day either side covers every zone, and no more)."""

# A name said to someone rather than of them: "Thanks, Caroline!", "Hey Mel,", "Yep,
# Melanie!", "...for you, Jon." -- opening a sentence or after a comma or a greeting, and
# closed by punctuation.
_VOCATIVE = re.compile(
    r"(^|[.!?:,;]\s*|\b(?i:hey|hi|hello|thanks|dear|bye)\s+)"
    r"([A-Z][^\W\d_]+)(?=\s*(?:[!?,.](?:\s|$)|$))"
)


def without_vocatives(text: str) -> str:
    """``text`` less the names it addresses (``_VOCATIVE``): a reply that thanks Caroline
    is not about Caroline, so it must not answer a question about her."""
    return _VOCATIVE.sub(r"\1", text)


_SPEAKER = re.compile(r"^[^\W\d_][\w .'-]{0,40}:\s+")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


def _speaker_line(text: str) -> tuple[bool, str]:
    """Whether ``text`` opens with "Speaker: ", and what it says after that."""
    stripped = text.strip()
    head = _SPEAKER.match(stripped)
    return (False, stripped) if head is None else (True, stripped[head.end() :])


@lru_cache(maxsize=1 << 13)
def _turn_sentences(text: str) -> tuple[bool, frozenset[str], frozenset[str]]:
    """What ``only_asks`` reads of a turn's ``text`` (less its leading "Speaker: "),
    whatever the query: whether every sentence of more than three words is a question,
    and the stems of its questions and of its other sentences, each the union of its
    sentences' stems (a term is held by one of the sentences exactly when it is held by
    their union: ``terms.holds_any`` tests each stem on its own). Cached by text: the
    same turns are read by search after search."""
    _, body = _speaker_line(text)
    everything_asked = True
    asked: set[str] = set()
    stated: set[str] = set()
    for sentence in _SENTENCE.findall(body):
        sentence = sentence.strip()
        question = sentence.endswith("?")
        if not question and len(sentence.split()) > 3:
            everything_asked = False
        # ``text_stems`` without its cache: a sentence is read once, here.
        (asked if question else stated).update(map(stem, words(sentence)))
    return everything_asked, frozenset(asked), frozenset(stated)


def only_asks(text: str, terms: Sequence[str] = ()) -> bool:
    """Whether a turn's ``text`` (less its leading "Speaker: ") only asks, about everything
    or about ``terms``: every sentence of more than three words is a question (shorter ones
    being a conversation's filler: "Sounds good!"), or the ``terms`` it holds are all held
    in questions. A question about the thing is not evidence of it ("What made you pick
    that agency?", "Sounds good! Can you tell me what spices you used in the soup?")."""
    everything_asked, asked, stated = _turn_sentences(text)
    if everything_asked or not terms:
        return everything_asked
    return holds_any(terms, asked) and not holds_any(terms, stated)


def every_sentence_asks(text: str) -> bool:
    """Whether every sentence of ``text`` is a question ("Who should own the mobile app?"):
    such text states nothing, so it answers nothing. What the gate asks of an item that is
    not a turn, where a short sentence is a statement ("Priya owns billing.") and an FAQ's
    question is followed by its answer."""
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    return bool(sentences) and all(s.endswith("?") for s in sentences)


_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|us|our|ours)\b"
)
_SECOND_PERSON = re.compile(r"\b(?:you|you're|you've|you'd|you'll|your|yours|yourself)\b")


def spoken_to(text: str) -> str | None:
    """What a "Speaker: ..." line says, when it speaks more of its listener than of its
    speaker ("you"/"your" outnumber "I"/"my"/"we"): such a line is about the listener,
    so it does not name its speaker for the gate. None for any other text."""
    has_speaker, said = _speaker_line(text)
    if not has_speaker:
        return None
    lowered = said.lower().replace("\u2019", "'")
    if "you" not in lowered:  # every second-person word holds it: none outnumbers nothing
        return None
    if len(_SECOND_PERSON.findall(lowered)) > len(_FIRST_PERSON.findall(lowered)):
        return said
    return None


EVIDENCE = frozenset({"names", "coverage", "asks", "mentions", "lang"})
"""What ``hit_evidence`` reads of a hit (``HitEvidence``'s text fields)."""


@dataclass(slots=True)
class Seen:
    """What a search has read of one hit so far (None: not yet): none of it depends on
    the fields read or the window, only on the query and the hit's text."""

    stems: frozenset[str] | None = None
    asks: bool | None = None
    held: float | None = None
    named: bool | None = None


Memo = dict[str, Seen]
"""``hit_evidence``'s readings in one search, by hit id: the learned stage reads the
first fifty hits' names and asks, and the gate the first five's again."""


def hit_evidence(
    query: Query,
    items: Sequence[Item | ItemSketch],
    cosines: dict[str, float],
    *,
    reads: frozenset[str] = EVIDENCE,
    window: Window | None = None,
    memo: Memo | None = None,
) -> list[HitEvidence]:
    """What each of ``items`` (ranked hits of ``query``) shows about the query, for the
    gate; ``cosines`` are the vector streams' scores. ``reads``: the fields of
    ``EVIDENCE`` to read from the text (the learned ranker reads only those it weighs);
    the others keep an empty value (names and mentions true, coverage 0, asks false).
    ``window``: the query's own time (``query.window``, as the search narrowed it), one
    term of the query, held by a hit that happened in it: a hit's text seldom says it
    (``_coverage``). ``memo``: what the search has read of its hits so far, read from
    and added to (one search: a hit's id is its text)."""
    if not items:
        return []
    # A hit's words are stemmed as the query's are, in the query's language, so that both
    # sides strip the same suffixes ("Datenbanken" meets "Datenbank").
    lang = query.lang
    names = query.names
    # The names a hit must name: not those of a clause that only sets the question's
    # scene (``terms.asked_names``); ``mentions`` and the name count read them all.
    required = query.asked_names
    content = query.content
    untimed = query.untimed if window is not None else content
    want_names = "names" in reads and bool(required)
    want_mentions = "mentions" in reads and bool(names)
    want_coverage = "coverage" in reads and bool(content)
    # A query of names alone ("Who is Anthony?") asks nothing else: no other term to miss.
    no_other = 1.0 if "coverage" in reads and names and not content else 0.0
    out: list[HitEvidence] = []
    for item in items:
        seen = None if memo is None else memo.get(item.id)
        if seen is None:
            seen = Seen()
            if memo is not None:
                memo[item.id] = seen
        text = f"{item.label}\n{item.body}"
        stems: frozenset[str] = frozenset()
        if want_names or want_mentions or want_coverage:
            stems = seen.stems = text_stems(text, lang) if seen.stems is None else seen.stems
        conversational = is_conversational(item)
        asks = False
        if "asks" in reads:
            if seen.asks is None:
                body = item.body
                seen.asks = (
                    only_asks(body, content) if conversational else every_sentence_asks(body)
                )
            asks = seen.asks
        held = 0.0
        if want_names or want_mentions:
            held = seen.held = coverage(names, stems, lang) if seen.held is None else seen.held
        named = True
        if want_names:
            if seen.named is None:
                # It names every one of the names it must (``whole``) and speaks of at least
                # one of them: for a turn, other than by addressing them (a reply that thanks
                # Caroline names her, but says nothing about what she did; a line that
                # Caroline says about her listener, "That race sounds great, Mel! You must be
                # proud", is about Mel). What a turn says of someone is read only when it
                # names them all.
                whole = held if required == names else coverage(required, stems, lang)
                seen.named = whole == 1.0 and holds_any(
                    required,
                    _spoken_stems(item.body, text, lang) if conversational else stems,
                    lang,
                )
            named = seen.named
        out.append(
            # By position: a frozen dataclass's keywords cost a third more (55 a search).
            HitEvidence(
                named,
                _coverage(content, stems, untimed, item, window, lang)
                if want_coverage
                else no_other,
                cosines.get(item.id),
                asks,
                None,
                not want_mentions or held > 0,
                len(names),
                relation(lang, item.body) if "lang" in reads else "same",
            )
        )
    return out


def _coverage(
    content: list[str],
    stems: frozenset[str],
    untimed: list[str],
    item: Item | ItemSketch,
    window: Window | None,
    lang: str,
) -> float:
    """``coverage(content, stems, lang)``, where the query's time (the terms of ``content``
    not in ``untimed``) is one term, however many words said it ("four weeks ago" is
    one, not three), held by a hit that happened in the ``window`` (give or take
    ``TIME_SLACK``) or whose text says all of its words. The asker's time
    (``Window.askers``: a window ahead of now, "can he work off one permit tomorrow?", or
    one in a clause that sets the scene, "left a laptop on a flight 6 weeks ago - would we
    still have it?") says nothing of when the note that answers was written, so its date
    holds nothing, and the time is a term only of a hit that says it. A window that does
    not narrow the candidates (``Window.narrows``) is no term at all: what is left of
    the question must be held by the hit's own words ("on call", "payments"), or, when
    nothing is, the hit's time answers it ("what happened yesterday?")."""
    if window is None or len(untimed) == len(content):
        return coverage(content, stems, lang)
    said = [t for t in content if t not in untimed]
    timely = coverage(said, stems, lang) == 1.0 or (
        not window.askers and window.holds(item.when, TIME_SLACK)
    )
    if not window.narrows and not window.askers:
        return coverage(untimed, stems, lang) if untimed else float(timely)
    if window.askers and not timely:
        return coverage(untimed, stems, lang) if untimed else 0.0
    held = coverage(untimed, stems, lang) * len(untimed) if untimed else 0.0
    return (held + timely) / (len(untimed) + 1)


@lru_cache(maxsize=1 << 13)
def _spoken_stems(body: str, text: str, lang: str) -> frozenset[str]:
    """The stems of what a turn (its ``body``; ``text``: its label and body) says of
    someone: ``spoken_to``'s line or the whole text, less the names it addresses."""
    return text_stems(without_vocatives(spoken_to(body) or text), lang)
