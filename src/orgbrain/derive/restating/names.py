"""A name replaced: one the newer unit says is gone ("rather than Ana", "#help-it has
been renamed to #it-desk"), or one the older unit held where the newer points at
another as a change ("Migrate error tracking to Rollbar"), each by the one new name the
newer unit (or the unit beside it) points at."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...analysis import STOPWORDS, plain_words
from ...extraction.named import toward
from ...extraction.predicates import ADDITIVE
from ...extraction.quiet import NEGATION
from ...extraction.values import Value, marked_old
from ..handover import a_person, handed_to, hands_over, leaver, people_for, signed
from ..versions import one_document
from .gone import NOT_RENEWED, denied, field_arrow, gone_name, where_gone
from .units import (
    INITIALS,
    MIN_SHARED,
    Pair,
    Said,
    one_sentence,
    shared_words,
    spelled,
    title,
    with_title,
)

__all__ = ["passing", "renamed", "replaced", "written"]

_APPOINTED = re.compile(
    r"\b(?:approved|appointed|named|confirmed)\s+$",
    re.IGNORECASE,
)
_AS_HOLDER = re.compile(
    r"\s+as\s+(?:the\s+)?(?:new\s+)?(?:head|chair|lead|owner|manager|director|coordinator)\b",
    re.IGNORECASE,
)
"""Around a name: appointed to a post ("Board approved Nadia Kerr as head of the
Employment group"): the new holder."""


def _pointed(text: str, name: Value) -> bool:
    """``toward``, or a name after an arrow ("Tomás Ruiz → Lena Fischer") or appointed to
    a post ("approved Nadia Kerr as head of ...")."""
    before = text[: name.start]
    return (
        toward(text, name)
        or (
            re.search(r"(?:→|->)[ \t]*$", before) is not None
            and field_arrow(text, name.start, name.end)
        )
        or (
            _APPOINTED.search(before[-30:]) is not None
            and _AS_HOLDER.match(text, name.end) is not None
        )
    )


_PASSING = re.compile(
    r"\b(?:back\s+to\s+normal|(?:business|service)\s+as\s+usual\s+from|"
    r"(?:today|tonight|tomorrow|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|\d{1,2}(?:st|nd|rd|th)?\s+"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]{0,6}\.?)"
    r"\s+only)\b",
    re.IGNORECASE,
)
"""What makes a whole note a passing exception ("Sat 11 Apr ONLY - crew room closed,
sign on at Hangar 3 office. back to normal Sunday"): the days it names come and go, and
the place or holder it points at is a stand-in, not the new one."""


def passing(body: str) -> bool:
    """Whether a note says what it points at holds for a day and then goes back
    (``_PASSING``), in any of its sentences: a clause cut from the rest ("Sat 11 Apr
    ONLY") still speaks for the note."""
    return _PASSING.search(body) is not None


def renamed(old: Said, new: Said, beside: Sequence[Said] = ()) -> list[Pair]:
    """A name the newer unit says is gone ("moved down from Organization", "rather than
    Ana", "#help-it has been renamed to #it-desk") and the older one holds, replaced by
    the newer's one new name that it points at ("report to Marcus Lee"), the nearest if
    several; or, when it points at none, by the new name a unit beside it states as a
    change ("OpenVPN is deprecated." beside "the VPN is now Tailscale."). A negated unit
    ("we are not replacing Jira") replaces nothing but what it says it did not renew
    ("we didn't renew ON24"). A name after an arrow ("Tomás Ruiz → Lena Fischer") or
    appointed to a post is pointed at (``_pointed``). A name of the older unit counts as
    said in the newer one in lower case too, and a long name by its first word ("mcgill
    contract finished end of april" of "McGill Haulage"), where it is said to be gone."""
    gone = [v for v in new.names if gone_name(new.text, v)]
    # a chat line writes the older note's names in lower case ("mcgill contract finished")
    keys = {v.key for v in new.names}
    gone += [
        w
        for key in _keys(old.names) - keys
        for w in _said_as_word(new, Value("name", "", key, 0, 0))
        if gone_name(new.text, w)
    ]
    if NEGATION.search(new.text):  # of a denial, only what it does not renew is gone
        gone = [x for x in gone if NOT_RENEWED.search(new.text[max(0, x.start - 40) : x.start])]
    if not gone or denied(new.text) or passing(new.item.body):
        return []
    held_words = frozenset(w for n in old.names for w in n.key.split())
    pairs: list[Pair] = []
    for x in gone:
        words = frozenset(x.key.split())
        held = [n for n in old.names if words <= frozenset(n.key.split())] or _said_as_word(old, x)
        if len(held) != 1:
            continue
        taken = held_words | words
        went = where_gone(new.text, x)
        fresh = [
            v
            for v in new.names
            if _pointed(new.text, v)
            and _new_name(new, v, taken)
            and not went[0] <= v.start < went[1]
        ]
        if fresh:
            now = min(fresh, key=lambda v: abs(v.start - x.start))
            shared = shared_words(old.text, old.stems & new.stems) or (x.key,)
            pairs.append(Pair(old, new, held[0], now, shared))
            continue
        for other in beside:
            named = [v for v in other.names if _new_name(other, v, taken)]
            pointed = [v for v in named if _pointed(other.text, v)]
            # a clause of the same sentence goes on from the name gone ("the Excel tracker
            # is retired - all inspections are recorded in Uniform"): pointing is enough
            cue = other.cue or (bool(pointed) and one_sentence(new, other))
            if cue and not NEGATION.search(other.text) and (pointed or named[:1]):
                now = (pointed or named)[0]
                shared = shared_words(old.text, old.stems & other.stems) or (x.key,)
                pairs.append(Pair(old, other, held[0], now, shared, new.stems))
                break
    return pairs


def replaced(old: Said, new: Said) -> list[Pair]:
    """A new name the newer unit points at as a change ("Migrate error tracking to
    Rollbar") where the older unit, about the same thing, held one other name ("We use
    Sentry for error tracking") that the newer one no longer says; a name both say
    ("HR Business Partner: Sarah Kwan", "Daniel Reyes will be your HR Business Partner")
    names the role, not its holder. An addition ("also"), a negation, a note that holds
    for a day (``passing``), a name marked as
    the one before ("used to be built with WordPress"), or an older unit holding two
    names the newer does not say (which one went?) replaces nothing."""
    again = _reissued(old, new)
    if again:
        return again
    handed = hands_over(new.text, new.names)
    if not (new.cue or handed) or NEGATION.search(new.text) or ADDITIVE.search(new.text):
        return []
    if passing(new.item.body):
        return []  # a stand-in for a day ("Sat 11 Apr ONLY ... back to normal Sunday")
    before = old.text.casefold()
    fresh = {
        v.key: v
        for v in new.names
        if (taker := handed and handed_to(new.text, v)) or toward(new.text, v)
        # the verb after a name outweighs a "from" before it ("From Monday Priya Lal
        # picks up release sign-off")
        if not (gone_name(new.text, v) or (marked_old(new.text, v) and not taker))
        and v.key not in before
    }
    # whom a thing is handed to is its new holder, not a place the sentence points at
    # ("Aisha Raman is looking after the T2 queue ..., including the call on when to loop
    # in Eng")
    takers = {k: v for k, v in fresh.items() if handed and handed_to(new.text, v)}
    fresh = takers or fresh
    shared = old.titled & new.titled
    if len(fresh) != 1:
        return []
    (now,) = fresh.values()
    left = _leavers(old, new, now)
    if len(left) == 1:  # the writer's farewell hands on what the older unit says they held
        label = shared_words(with_title(old), shared) or (left[0].key,)
        return [Pair(old, new, left[0], now, label, left=True)]
    if len(shared) < MIN_SHARED:
        return []
    # a name both say is what the thing is, not who holds it ("HR Business Partner")
    holders = [n for n in _holders(old) if not _said_as_word(new, n)]
    held = {n.key: n for n in people_for(holders, old.text, written(new, now))}
    if len(held) != 1:
        return []  # none gone, or two: which one went?
    (was,) = held.values()
    label = shared_words(with_title(old), shared) or (was.key,)
    return [Pair(old, new, was, now, label, pointed=True)]


_LEAD = 3
"""The least words before a name that a later version's line must repeat to be the older
line with another name in its place."""


def _lead(text: str) -> str:
    return " ".join(plain_words(text.casefold()))


def _reissued(old: Said, new: Said) -> list[Pair]:
    """The older line said again in a later version of its document (``versions.py``)
    with another name in the same place: the same words before it, three or more, or the
    same cells of a table row ("| HH Buildings risk GLM | GLM | Sam Okafor |", then "|
    HH Buildings risk GLM | GLM | Lena Fischer |"; "Log every open investigation in SIU
    Tracker.xlsx", then "... in Sentinel CMS"). The older name must be gone from the
    newer line and the newer one new to the older note; a line whose words before the
    name differ is another line (another row, another step), and a row's first cell is
    its label, not a name in its place (a row added: "| Stores ORK |" beside "| Stores
    EXT |")."""
    if not one_document(old.item, new.item) or NEGATION.search(new.text):
        return []
    pairs: list[Pair] = []
    body = old.item.body.casefold()
    for now in new.names:
        lead = _lead(new.text[: now.start])
        row = "|" in new.text[: now.start]  # a table row's cells: its label leads
        if now.key in body or len(lead.split()) < (1 if row else _LEAD):
            continue
        was = [
            v
            for v in old.names
            if _lead(old.text[: v.start]) == lead
            and v.key != now.key
            and v.key not in new.text.casefold()
        ]
        if len(was) == 1:
            shared = shared_words(with_title(old), old.titled & new.titled) or (was[0].key,)
            pairs.append(Pair(old, new, was[0], now, shared))
    return pairs if len(pairs) == 1 else []


def _leavers(old: Said, new: Said, now: Value) -> list[Value]:
    """The names of the older unit that are the newer note's writer, when that note says
    they are leaving and hands a thing on to ``now`` ("Friday is my last day. Aoife
    Brennan takes over the station ... Colm" and "ORK Station Manager: Colm Fitzgerald"):
    a first name and a surname, the first the one signed. The older unit must still be
    tied to the hand-over by a word, a value or initials it spells out ("Raj Patel steps
    in as acting CUO and will take all referrals above £20m" and "Over £20m: Chief
    Underwriting Officer (Janet Moss)"); a farewell says nothing of what else its writer
    is named beside."""
    signer = leaver(new.item.body)
    if signer is None or not handed_to(new.text, now):
        return []
    tied = (
        bool(old.titled & new.titled)
        or bool({v.key for v in old.values} & {v.key for v in new.values})
        or any(spelled(m.group(0), old.text) for m in INITIALS.finditer(new.text))
    )
    named = [n for n in old.names if signed(n.key, signer)]
    return named if tied else []


def written(said: Said, name: Value) -> str:
    """``name`` as written, with the word before it when that is a person's first name
    ("Tom Okafor is picking up ...": ``names_in`` leaves a sentence's first word out)."""
    before = said.text[: name.start].split()
    first = before[-1] if before and a_person(before[-1]) else ""
    return f"{first} {said.text[name.start : name.end]}".strip()


def _holders(said: Said) -> list[Value]:
    """The names a unit states something of: not its title's when the unit runs on from
    it ("Engineering handbook > Observability / We use Sentry ..."; a note of one line
    has no title), not a label ("SLA: 5 business days"), not one in brackets ("Lena
    Fischer (GRC)"), not a chat line's channel ("[#eng-announce] reminder: all builds run
    on CircleCI")."""
    first = len(title(said.item)) - said.start if "\n" in said.item.body.rstrip() else 0
    text = said.text
    return [
        n
        for n in said.names
        if n.start >= first
        and not text.startswith(":", n.end)
        and not (text[: n.start].rstrip().endswith("(") and text.startswith(")", n.end))
        and not (text[: n.start].strip() == "[" and text.startswith("]", n.end))
    ]


def _said_as_word(said: Said, name: Value) -> list[Value]:
    """``name`` where ``said`` has it as a word but not as a name ("Airflow runs the
    nightly jobs": a capital that starts a sentence)."""
    found = re.search(rf"(?<![\w#@-]){re.escape(name.key)}(?![\w-])", said.text, re.IGNORECASE)
    return [] if found is None else [Value("name", "", name.key, found.start(), found.end())]


def _keys(names: Sequence[Value]) -> set[str]:
    """The keys of ``names``, and the first word of each of two or more words when it is
    long enough to be the name's own ("mcgill" of "McGill Haulage")."""
    out = {n.key for n in names}
    for n in names:
        first = n.key.split()[0]
        if " " in n.key and len(first) >= 4 and first.isalpha() and first not in STOPWORDS:
            out.add(first)
    return out


def _new_name(said: Said, v: Value, taken: frozenset[str]) -> bool:
    """Whether ``v`` is not gone and not one of the names ``taken`` already: a word of
    its own makes it another ("the Uniform Licensing module" beside "Licensing >
    Compliance")."""
    words = frozenset(v.key.split())
    return not gone_name(said.text, v) and not words <= taken
