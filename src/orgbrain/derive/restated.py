"""A value restated as a change: what "the pre-approval limit is going up: sign-off only
for purchases over $1,000" replaced.

Most policy changes are written as prose about a number, not as "X is now Y" about a named
thing: a retention "raised to 35 days (was 14)", a freeze "pulled a week earlier, to
Friday Dec 4", a target "revised to 38". No predicate reads those, but the older sentence
they restate is usually easy to find: it says the same things in many of the same words,
with a value of the same kind (an amount, a share, a date, a time, a count of the same
noun) that the newer one no longer states.

So, for each sentence or line of a derived item that states a value
(``extraction/values.py``), its neighbours (the nearest notes and sections by the item's
vector and by the sentence's words, in its scope) are read sentence by sentence, and a
pair is a restatement when:

- one is dated at least ``CONFLICT_WINDOW`` after the other, and the newer states a
  change (``change_cue``: "now", "raised", "moved", "(was 14)", "revised", "reverting";
  not a question, a hedge, a proposal or a temporary exception);
- both state one value of the same kind and noun, the newer one another (the older value
  may appear in the newer sentence only as the one before: "from 600 to 1,200");
- they do not name two members of one family of qualifiers (production and staging, EU
  and US, free and enterprise: ``qualifiers``), in the unit or its item's first line;
- they share at least ``MIN_SHARED`` words besides the values and the change's words
  (the noun of a count is one: "Retention: 14 days", "retention raised to 35 days");
- they are not about two things of a kind (``_two_things``: "Leeds depot" and "Bristol
  depot", "VPN tokens" and "Jira tokens"), read from each unit's subjects
  (``extraction/subjects.py``); a subject unsaid on one side blocks nothing.

A name is restated the same way when the newer sentence says it is gone ("rather than
Ana", "moved down from Organization", "#help-it has been renamed to #it-desk", "Okta gets
switched off") and points at one new name, in it or in the sentence beside it ("report
to Marcus Lee", "sign-in is now Authentik"); where the older sentence has a typed
statement of that name, its own subject decides (``_typed``). Sentences are cut into
clauses first ("self-assessments are now due Nov 21, and manager reviews move to Dec 5").

Of an older sentence's candidates, the newer sentence takes the one sharing the most
words (then the still-current one, then the latest). Each side becomes a ``value``
statement of one ``topic`` subject (the words they share; an older side already restated
keeps its subject, so a value restated twice is one chain), recorded with
``record_claim``: the newer ends the older by the usual rules, and the older item is
superseded once none of its statements is current. It runs after the item's own
statements, whichever of the two arrives first: an item looks for its neighbours only when
it states a change, or when it is back-dated (it happened at least a day before it was
written, so a newer item may have been derived before it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..context import BrainContext
from ..extraction import Claim, Found
from ..extraction.context import apart_in_kind, context, words_of
from ..extraction.cues import CUE, change_cue, planned, temporary, titled_change
from ..extraction.documents import settled
from ..extraction.predicates import ADDITIVE
from ..extraction.quiet import HEDGE, NEGATION, states_nothing
from ..extraction.sentences import split_units
from ..extraction.shorthand import values_of
from ..extraction.states import STATUS, statuses_in
from ..extraction.subjects import Phrase, subjects
from ..extraction.values import (
    Value,
    apart,
    gone_name,
    marked_old,
    names_in,
    other_records,
    qualifiers,
    same_slot,
    toward,
    where_gone,
)
from ..model import Item, Statement
from ..retrieve.terms import STOPWORDS, query_terms, stem
from .documents import back_dated, revised_title
from .handover import a_person, handed_to, hands_over, people_for
from .statements import CONFLICT_WINDOW, record_claim, supersede_item
from .versions import one_document, versioned

__all__ = ["MIN_SHARED", "NEIGHBOURS", "PREDICATE", "restate"]

PREDICATE = "value"
NEIGHBOURS = 8
"""Items read per stream (vector and keyword, notes and sections) for a derived item."""
KEY_TERMS = 12
"""The most words of its value sentences a derived item's keyword look-up asks for."""
MIN_SHARED = 2
"""Words (stems) an older and a newer sentence must share besides their values."""
_LABEL_WORDS = 6
_NAME_SLACK = 3
"""Words besides a name a typed statement's object may hold and still be that name's."""
_WORD = re.compile(r"[^\W\d_]{2,}")
"""A word that may carry meaning: two letters or more, no digits."""


@dataclass(frozen=True, slots=True)
class _Said:
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
class _Pair:
    old: _Said
    new: _Said
    was: Value
    now: Value
    shared: tuple[str, ...]  # the older unit's shared words, in order
    gone_in: frozenset[str] = frozenset()
    """The words of the unit that said the older name is gone, when another unit of the
    same item names the new one ("Airflow is being switched off." beside "analytics
    orchestration is now Dagster.")."""
    pointed: bool = False
    """The newer unit points at a new name without saying the older is gone
    (``_replaced``): where the typed rules read both sides, they decide."""


def restate(ctx: BrainContext, item: Item) -> dict[str, object]:
    """Find and record the restatements between ``item`` and its neighbours."""
    if item.storage_class not in ("note", "section") or item.tombstoned_at is not None:
        return {"pairs": 0}
    mine = _said(item)
    changes = [s for s in mine if _changes(s)]
    backdated = back_dated(item, CONFLICT_WINDOW)
    if not changes and not backdated and not versioned(item):
        return {"pairs": 0}  # it restates nothing, and nothing newer came before it
    pairs: list[_Pair] = []
    for other in _neighbours(ctx, item, changes if changes and not backdated else mine):
        if other_records(item.body, other.body):
            continue  # cards of two records ("Service: a", "Service: b"): two settings
        newer = item if item.when > other.when else other
        if not settled(newer.body):
            continue  # a proposal, a draft, a rejected record: it changes nothing
        theirs = _said(other)
        for a in mine:
            for b in theirs:
                old, new = (a, b) if a.item.when < b.item.when else (b, a)
                if new.item.when - old.item.when < CONFLICT_WINDOW:
                    continue  # at one time
                if apart(a.qualified, b.qualified):
                    if not apart(a.qualified, b.qualified, states=True):
                        pairs += _state_changed(old, new)  # "Beta (staff only)", then live
                    continue  # two settings ("production", "staging")
                beside = _beside(mine if new is a else theirs, new)
                pairs += _restated(old, new, mine if old is a else theirs)
                pairs += _state_changed(old, new)
                pairs += _renamed(old, new, beside) or _replaced(old, new)
                pairs += _number_gone(old, new, mine if new is a else theirs)
    superseded: list[str] = []
    recorded = 0
    kept = [p for p in pairs if not (_two_things(p) or _named_apart(p) or _typed(ctx, p))]
    for pair in _best(ctx, kept):
        superseded += _record(ctx, pair)
        recorded += 1
    return {"pairs": recorded, "superseded": superseded}


def _said(item: Item) -> list[_Said]:
    out: list[_Said] = []
    title = _title(item)
    about = _stems(title, values_of(title))
    # a document titled as a change states one on every line below its title
    update = "\n" in item.body.strip() and (titled_change(title) or revised_title(item.body)[1])
    asked: frozenset[str] = frozenset()  # the words of the FAQ question last asked
    for start, end in _clauses(item.body):
        text = item.body[start:end]
        line = _line(item.body, start)
        if _ASKED.match(line):
            asked = _stems(line, ())
        answers = _ANSWER.match(line) is not None
        found = sorted(values_of(text) + statuses_in(text), key=lambda v: v.start)
        names = names_in(text)
        if not (found or names) or text.rstrip().endswith("?") or HEDGE.search(text):
            continue  # a question or a hedge states no value
        if _UNDECIDED.match(text):
            continue
        stems = _stems(text, found)
        below = start >= len(title)
        titled = (stems | about if below else stems) | (asked if answers else frozenset())
        qualified = qualifiers(f"{title}\n{text}" if below else text)
        cue = change_cue(text, heading=below and update)
        out.append(
            _Said(item, start, end, tuple(found), tuple(names), stems, cue, titled, qualified)
        )
    return out


_ASKED = re.compile(r"[^\w\n]*Q:\s")
_ANSWER = re.compile(r"[^\w\n]*A:\s")
"""An FAQ's question and answer lines ("Q: Who do I contact about custody forms?", "A:
Tom Hale, ext 4471"): what an answer is about is said in its question, which counts
as its title."""


def _title(item: Item) -> str:
    """An item's first line: a document's title, when lines follow it."""
    return item.body.split("\n", 1)[0]


def _line(body: str, at: int) -> str:
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


_UNDECIDED = re.compile(
    r"\W*(?:ideas?|proposals?|proposed|options?|suggestions?|draft|brainstorm|questions?)"
    r"(?:\s+(?:raised|made|floated|submitted|from\s+\w+))?\s*:",
    re.IGNORECASE,
)
"""A line labelled as not decided ("Idea: move the billing alerts to Opsgenie", "Idea
raised: relocate the sampler fridge")."""


def _changes(said: _Said) -> bool:
    """Whether ``said`` may restate an older unit: a change stated with a value, or a
    name said to be gone."""
    return (
        (said.cue and bool(said.values or said.names))
        or any(v.kind == STATUS for v in said.values)
        or any(gone_name(said.text, n) for n in said.names)
        or hands_over(said.text, said.names)
    )


def _stems(text: str, values: Sequence[Value]) -> frozenset[str]:
    """The unit's content words, stemmed, without its values and its change words."""
    for v in reversed(values):
        text = text[: v.start] + " " * (v.end - v.start) + text[v.end :]
    text = CUE.sub(_unspoken, text)
    return frozenset(stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS)


def _unspoken(m: re.Match[str]) -> str:
    """A change's words, blanked; of a span "from X to", only its two ends ("From
    Monday send custody forms to Mercy": the forms are what it is about)."""
    said = m.group(0)
    if said[:4].lower() == "from" and said[-2:].lower() == "to":
        return f"     {said[4:-2]}  "
    return " "


def _neighbours(ctx: BrainContext, item: Item, said: Sequence[_Said]) -> list[Item]:
    store, ws, vis = ctx.store, ctx.workspace, ctx.visibility
    ids: set[str] = set()
    vectors = store.embedding_of(ws, item.id)
    terms = query_terms(" ".join(s.text for s in said), max_terms=KEY_TERMS)
    for cls in ("note", "section"):
        if vectors is not None:
            ids.update(i for i, _ in store.vector_search(ws, cls, vectors[0], NEIGHBOURS, vis))
        if terms:
            ids.update(i for i, _ in store.keyword_search(ws, cls, terms, NEIGHBOURS, vis))
    ids.discard(item.id)
    found = ctx.get_many(sorted(ids))
    return [
        o
        for o in found.values()
        if o.storage_class in ("note", "section")
        and o.scope == item.scope
        and o.tombstoned_at is None
        and o.parent_id != item.id
    ]


def _restated(old: _Said, new: _Said, siblings: Sequence[_Said]) -> list[_Pair]:
    """Values of ``old`` that ``new`` states anew (``siblings``: ``old``'s item's units,
    read once by ``restate``)."""
    if not (new.cue or _reissued(old, new) or _new_version(old, new)):
        return []
    shared = old.titled & new.stems | _spelled_out(old, new)
    pairs: list[_Pair] = []
    for before in old.values:
        if before.kind == STATUS:
            continue  # ``_state_changed``
        column = _column(old, before)
        if not (_alone(old, new, before) or column):
            continue  # two of a kind in the older unit: which one changed?
        now = [
            v
            for v in new.values
            if same_slot(v, before) and len(shared) + _nouns(v, before) >= MIN_SHARED
        ]
        if column and not _alone(old, new, before):
            now = [v for v in now if _under(new, v, column)]  # a table's row: its own column
        again = [v for v in now if v.key == before.key]
        if any(not marked_old(new.text, v) for v in again):
            continue  # the older value is still stated: not replaced
        held = {v.key for v in old.values if same_slot(v, before)}
        fresh = [v for v in now if v.key not in held and not marked_old(new.text, v)]
        if len({v.key for v in fresh}) != 1 or _said_for_another(
            old, new, before, fresh[0], siblings
        ):
            continue
        # the words shared, in the unit or else in its title ("Strategic accounts -
        # engagement model" over "• QBR every quarter"), before the count's noun
        titled = f"{_title(old.item)}\n{old.text}"
        label = (
            _shared_words(old.text, shared)
            or _shared_words(titled, shared)
            or tuple(before.unit.split())
        )
        pairs.append(_Pair(old, new, before, fresh[0], label))
    return pairs


_INITIALS = re.compile(r"(?<![\w-])[A-Z]{2,4}(?![\w-])")


def _spelled_out(a: _Said, b: _Said) -> frozenset[str]:
    """The stems of the capitalised words one unit spells out that the other writes as
    their initials ("you need TL sign-off", "Benefits Team Leader sign-off"): one thing,
    however each writes it."""
    out: set[str] = set()
    for short, full in ((a, b), (b, a)):
        for m in _INITIALS.finditer(short.text):
            run = r"(?<!\w)" + r"\s+".join(rf"{c}[a-z]+" for c in m.group(0)) + r"(?!\w)"
            found = re.search(run, full.text)
            if found is not None:
                out |= {stem(w.lower()) for w in found.group(0).split()}
    return frozenset(out)


def _column(said: _Said, value: Value) -> str:
    """The header of the column ``value`` sits in, when ``said`` is a table's row under a
    header row ("| KPI | Target | Q3 |" over "| Void re-let (days) | 28 | 34 |": 28 is the
    target), lower-cased; or ""."""
    body, at = said.item.body, said.start + value.start
    line_start = body.rfind("\n", 0, at) + 1
    lines = body[:line_start].split("\n")[:-1]
    if not body[line_start:].lstrip().startswith("|"):
        return ""
    header = ""
    for line in reversed(lines):
        if not line.lstrip().startswith("|"):
            break
        if not _RULE.fullmatch(line.strip()):
            header = line  # the top row of the table is its header
    if not header:
        return ""
    cell = body[line_start:at].count("|")
    cells = header.strip().strip("|").split("|")
    return cells[cell - 1].strip().lower() if 0 < cell <= len(cells) else ""


_RULE = re.compile(r"\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*")
"""A table's rule line under its header ("|---|---|")."""


def _under(said: _Said, value: Value, column: str) -> bool:
    """Whether ``value`` is the newer unit's value for the older row's ``column``: in a
    column of that header, or, in a sentence, beside the header's words ("PMs can sign
    off ... up to £10k" for column "PM")."""
    mine = _column(said, value)
    if mine:
        return mine == column
    words = {stem(w) for w in _WORD.findall(column)} - STOPWORDS
    return bool(words) and words <= said.stems


def _alone(old: _Said, new: _Said, before: Value) -> bool:
    """Whether ``before`` is the only value of its kind in the older unit that the newer
    does not say again: "Car mileage: 45p per mile ..., 25p thereafter", then "rises to
    48p per mile (... 25p after)": the one no longer said is the one that changed."""
    kept = {v.key for v in new.values if same_slot(v, before) and not marked_old(new.text, v)}
    others = [v for v in old.values if v is not before and same_slot(v, before)]
    return all(v.key in kept and v.key != before.key for v in others)


def _said_for_another(
    old: _Said, new: _Said, before: Value, now: Value, siblings: Sequence[_Said]
) -> bool:
    """Whether another line of the older note states ``now`` under a label the newer unit
    names, where ``old``'s own label is one it does not ("At home base (EXT, BHD): max
    6h", "At outstations: max 4h"; then "outstation airport standby is capped at 4h"):
    the newer unit says that line again, it does not change ``old``'s value."""
    said = _label_words(new.text)
    mine = _line_label(old.item.body, old.start)
    if not mine or mine & said:
        return False
    for u in siblings:
        theirs = _line_label(u.item.body, u.start)
        if (
            u.start != old.start
            and theirs & said
            and any(v.key == now.key and same_slot(v, before) for v in u.values)
        ):
            return True
    return False


def _line_label(body: str, start: int) -> frozenset[str]:
    """The words of the label the line holding ``start`` opens with ("At outstations:",
    "P2:"), if it has one."""
    line = _line(body, start)
    label = _LABEL.match(line)
    return _label_words(label.group(1)) if label else frozenset()


def _label_words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"[^\W_]{2,}", text.lower()) if w not in STOPWORDS)


_DIALS = ("phone", "extension")
_OLD_NUMBER = re.compile(
    r"\b(?:old|former|previous|existing)\s+(?:[^\W\d]+\s+){0,2}?(\d[\d -]{1,14}\d)"
    r"|(\d[\d -]{1,14}\d)\s+(?:number\s+|line\s+)?(?:will\s+be\s+|is\s+being\s+|has\s+been\s+)?"
    r"(?:switched\s+off|turned\s+off|retired|withdrawn|closed|stops?\s+working|no\s+longer)",
    re.IGNORECASE,
)
"""Digits named as the number before ("the old 1190 number", "0800 046 1190 will be
switched off")."""


def _number_gone(old: _Said, new: _Said, units: Sequence[_Said]) -> list[_Pair]:
    """A phone number or extension the newer unit states as a change ("New 24/7 incident
    line from today: 0800 046 2277") where a unit of its item names the older unit's one
    number as the old one, by its digits or its last three or more ("The old 1190 number
    will be switched off"): the same line, whatever each sentence calls it, so no words
    need be shared. A number not named old may be a second line beside the first."""
    if not new.cue or NEGATION.search(new.text):
        return []
    pairs: list[_Pair] = []
    for kind in _DIALS:
        was = [v for v in old.values if v.kind == kind]
        now = {v.key: v for v in new.values if v.kind == kind and not marked_old(new.text, v)}
        if len(was) != 1 or len(now) != 1 or was[0].key in now:
            continue
        if any(_names_old(u.text, was[0].key) for u in units):
            (after,) = now.values()
            label = _shared_words(old.text, old.stems)
            pairs.append(_Pair(old, new, was[0], after, label))
    return pairs


def _names_old(text: str, key: str) -> bool:
    """Whether ``text`` names the number ``key`` (its digits) as the old one."""
    for m in _OLD_NUMBER.finditer(text):
        digits = re.sub(r"\D", "", m.group(1) or m.group(2))
        if len(digits) >= 3 and key.endswith(digits):
            return True
    return False


def _state_changed(old: _Said, new: _Said) -> list[_Pair]:
    """A thing's state said later as another ("Status: In progress" under "Project Atlas
    (warehouse consolidation)", then "KR3 Atlas: PAUSED until Q1"): a state is only ever
    the latest, so no change word is needed. Each unit gives one kind of state
    (``statuses_in``), they share ``MIN_SHARED`` words counting titles, and they do not
    each name a thing the other does not (Atlas on track, Borealis at risk: two
    projects). A negated, planned, conditional or temporary unit ("Atlas is not on
    hold", "we plan to put Atlas on hold", "if the vendor slips, Atlas goes on hold",
    "the demo is paused while we fix the projector") changes nothing."""
    was = {v.key: v for v in old.values if v.kind == STATUS}
    now = {v.key: v for v in new.values if v.kind == STATUS}
    if len(was) != 1 or len(now) != 1 or was.keys() == now.keys():
        return []
    if _held_back(new.text) or _IF.search(new.text):
        return []  # "if the vendor slips again, Atlas goes on hold"
    shared = old.titled & new.titled
    named_old, named_new = _named(old), _named(new)
    if len(shared) < MIN_SHARED and not (named_old & named_new) - _NOT_A_THING:
        return []  # neither many words nor the thing's own name in common
    if named_old - new.titled and named_new - old.titled:
        return []
    title = _title(old.item)
    label = _shared_words(f"{title}\n{old.text}", shared)
    (before,), (after,) = was.values(), now.values()
    return [_Pair(old, new, before, after, label)]


_IF = re.compile(r"\b(?:if|unless|while|in\s+case)\b", re.IGNORECASE)
"""A state said on a condition, or while something lasts."""
_NOT_A_THING = frozenset(stem(w) for w in "project team service weekly status update".split())
"""Words of a name that do not tell one thing from another ("Project Atlas", "Project
Borealis")."""


def _named(said: _Said) -> frozenset[str]:
    """The stems of the words of the names ``said`` holds, and its title's when it lies
    below it: not a channel, a handle or a code ("#announcements", "KR3"), nor a state
    written in capitals ("PAUSED")."""
    title = _title(said.item)
    below = said.start >= len(title)
    text = f"{title}\n{said.text}" if below else said.text
    at = len(title) + 1 if below else 0
    states = [(at + v.start, at + v.end) for v in said.values if v.kind == STATUS]
    return frozenset(
        stem(w)
        for n in names_in(text)
        if not any(a <= n.start < b for a, b in states)
        for w in n.key.split()
        if w.isalpha() and w not in STOPWORDS
    )


REISSUED = 0.5
"""The least share of its own words a later unit must give to repeating an older one's to
restate it without a change word."""


def _reissued(old: _Said, new: _Said) -> bool:
    """Whether ``new`` is ``old`` issued again, in its words but for a value ("requests
    must be submitted at least 10 working days before", then "at least 20 working days
    before ..., so rosters can be covered"): it repeats every word of the older unit, four
    or more, and not only as a few of its own (``REISSUED``). A word the older unit has
    and the newer lacks is another thing ("all contractors must complete 2 modules",
    "all visitors must complete 1 module"; "Kellaway WTP", "Brennan WTP")."""
    shared = len(old.stems & new.stems)
    if old.stems - new.stems or shared < 4 or shared < REISSUED * len(new.stems):
        return False
    return not (_held_back(new.text) or states_nothing(new.text))


def _new_version(old: _Said, new: _Said) -> bool:
    """Whether ``new`` is a line of a later version of ``old``'s document
    (``versions.py``: "WXM-HP-03 rev F" after "HACCP plan WXM-HP-03", a reply to its
    subject) that states something, not a question, a hedge, a plan or an exception; read
    after its label ("What's different: a pass reads 100 RLU" is no question)."""
    said = _LABEL.sub("", new.text, count=1)
    return one_document(old.item, new.item) and change_cue(said, heading=True)


_LABEL = re.compile(r"\W*([^\W\d][^:\n?]{0,30}):\s")
"""The label a line opens with ("What's different:", "At outstations:", "P2:")."""


def _held_back(text: str) -> bool:
    """Whether ``text`` denies, only plans, or makes a passing exception of what it says
    ("Atlas is not on hold", "we plan to ...", "this week only"): no change word makes it
    a change."""
    return bool(NEGATION.search(text)) or planned(text) or temporary(text)


def _nouns(a: Value, b: Value) -> int:
    """How many words two counts' nouns share: shared words too ("Retention: 14 days",
    "retention raised to 35 days")."""
    return len(set(a.unit.split()) & set(b.unit.split()))


def _renamed(old: _Said, new: _Said, beside: Sequence[_Said] = ()) -> list[_Pair]:
    """A name the newer unit says is gone ("moved down from Organization", "rather than
    Ana", "#help-it has been renamed to #it-desk") and the older one holds, replaced by
    the newer's one new name that it points at ("report to Marcus Lee"), the nearest if
    several; or, when it points at none, by the new name a unit beside it states as a
    change ("OpenVPN is deprecated." beside "the VPN is now Tailscale."). A negated unit
    ("we are not replacing Jira") replaces nothing."""
    gone = [v for v in new.names if gone_name(new.text, v)]
    if not gone or NEGATION.search(new.text):
        return []
    held_words = frozenset(w for n in old.names for w in n.key.split())
    pairs: list[_Pair] = []
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
            if toward(new.text, v) and _new_name(new, v, taken) and not went[0] <= v.start < went[1]
        ]
        if fresh:
            now = min(fresh, key=lambda v: abs(v.start - x.start))
            shared = _shared_words(old.text, old.stems & new.stems) or (x.key,)
            pairs.append(_Pair(old, new, held[0], now, shared))
            continue
        for other in beside:
            named = [v for v in other.names if _new_name(other, v, taken)]
            pointed = [v for v in named if toward(other.text, v)]
            # a clause of the same sentence goes on from the name gone ("the Excel tracker
            # is retired - all inspections are recorded in Uniform"): pointing is enough
            cue = other.cue or (bool(pointed) and _one_sentence(new, other))
            if cue and not NEGATION.search(other.text) and (pointed or named[:1]):
                now = (pointed or named)[0]
                shared = _shared_words(old.text, old.stems & other.stems) or (x.key,)
                pairs.append(_Pair(old, other, held[0], now, shared, new.stems))
                break
    return pairs


def _replaced(old: _Said, new: _Said) -> list[_Pair]:
    """A new name the newer unit points at as a change ("Migrate error tracking to
    Rollbar") where the older unit, about the same thing, held one other name ("We use
    Sentry for error tracking") that the newer one no longer says; a name both say
    ("HR Business Partner: Sarah Kwan", "Daniel Reyes will be your HR Business Partner")
    names the role, not its holder. An addition ("also"), a negation, a name marked as
    the one before ("used to be built with WordPress"), or an older unit holding two
    names the newer does not say (which one went?) replaces nothing."""
    handed = hands_over(new.text, new.names)
    if not (new.cue or handed) or NEGATION.search(new.text) or ADDITIVE.search(new.text):
        return []
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
    if len(fresh) != 1 or len(shared) < MIN_SHARED:
        return []
    (now,) = fresh.values()
    # a name both say is what the thing is, not who holds it ("HR Business Partner")
    holders = [n for n in _holders(old) if not _said_as_word(new, n)]
    held = {n.key: n for n in people_for(holders, old.text, _written(new, now))}
    if len(held) != 1:
        return []  # none gone, or two: which one went?
    (was,) = held.values()
    title = _title(old.item)
    label = _shared_words(f"{title}\n{old.text}", shared) or (was.key,)
    return [_Pair(old, new, was, now, label, pointed=True)]


def _written(said: _Said, name: Value) -> str:
    """``name`` as written, with the word before it when that is a person's first name
    ("Tom Okafor is picking up ...": ``names_in`` leaves a sentence's first word out)."""
    before = said.text[: name.start].split()
    first = before[-1] if before and a_person(before[-1]) else ""
    return f"{first} {said.text[name.start : name.end]}".strip()


def _holders(said: _Said) -> list[Value]:
    """The names a unit states something of: not its title's when the unit runs on from
    it ("Engineering handbook > Observability / We use Sentry ..."; a note of one line
    has no title), not a label ("SLA: 5 business days"), not one in brackets ("Lena
    Fischer (GRC)"), not a chat line's channel ("[#eng-announce] reminder: all builds run
    on CircleCI")."""
    title = len(_title(said.item)) - said.start if "\n" in said.item.body.rstrip() else 0
    text = said.text
    return [
        n
        for n in said.names
        if n.start >= title
        and not text.startswith(":", n.end)
        and not (text[: n.start].rstrip().endswith("(") and text.startswith(")", n.end))
        and not (text[: n.start].strip() == "[" and text.startswith("]", n.end))
    ]


def _said_as_word(said: _Said, name: Value) -> list[Value]:
    """``name`` where ``said`` has it as a word but not as a name ("Airflow runs the
    nightly jobs": a capital that starts a sentence)."""
    found = re.search(rf"(?<![\w#@-]){re.escape(name.key)}(?![\w-])", said.text, re.IGNORECASE)
    return [] if found is None else [Value("name", "", name.key, found.start(), found.end())]


def _one_sentence(a: _Said, b: _Said) -> bool:
    """Whether ``a`` and ``b`` are clauses of one sentence, cut at ``_CLAUSE``."""
    first, second = (a, b) if a.start < b.start else (b, a)
    between = first.item.body[first.end : second.start]
    return _CLAUSE.fullmatch(between) is not None and not _held_back(second.text)


def _new_name(said: _Said, v: Value, taken: frozenset[str]) -> bool:
    """Whether ``v`` is not gone and not one of the names ``taken`` already: a word of
    its own makes it another ("the Uniform Licensing module" beside "Licensing >
    Compliance")."""
    words = frozenset(v.key.split())
    return not gone_name(said.text, v) and not words <= taken


def _beside(units: list[_Said], said: _Said) -> list[_Said]:
    """The units of the same item just before and after ``said``."""
    at = units.index(said)
    return units[at + 1 : at + 2] + units[max(0, at - 1) : at]


def _two_things(p: _Pair) -> bool:
    """Whether the two units are about two things (``extraction/subjects.py``): their
    subjects' modifiers ("VPN tokens", "Jira (cloud) tokens") are some on each side and
    none of them a word of the other unit's line or title; or two of their subjects have
    one head and so differ ("Leeds depot", "Bristol depot": "night shift" is said of
    both). Where one's phrase holds the other's head before its own last word, it ran on
    into its verb and ends there ("VPN tokens expire"). A unit whose subject has no
    modifiers ("Retention: 14 days", "Tokens expire ...") or none read is about whatever
    the other is about.

    What each unit inherits from its context counts too (``extraction/context.py``): two
    notes' titles, headings, line labels or channels naming two things of one kind
    ("Leeds office guide", "Lisbon office guide"; "#launch-atlas", "#launch-beacon"; "NA
    reps —", "for EMEA"), unless the newer unit names the older's too. And a newer unit
    whose new name is what the older unit's context is about says the same thing from
    the other side ("Pricing Committee — ... Owns list price changes", then "List price
    changes go to Pricing Committee"): no change of it."""
    if _apart_in_context(p):
        return True
    olds, news = _subjects(p.old, p.was), _subjects(p.new, p.now)
    old_words, new_words = _words(p.old), _words(p.new)

    def apart(a: frozenset[str], b: frozenset[str]) -> bool:
        return bool(a and b) and not a & new_words and not b & old_words

    old_heads, new_heads = {x.head for x in olds}, {y.head for y in news}
    olds = [x.ending_at(new_heads) for x in olds]
    news = [y.ending_at(old_heads) for y in news]
    return apart(
        frozenset(w for x in olds for w in x.modifiers),
        frozenset(w for y in news for w in y.modifiers),
    ) or any(x.head == y.head and apart(x.modifiers, y.modifiers) for x in olds for y in news)


def _named_apart(p: _Pair) -> bool:
    """Whether a value's two units each name a thing the other's whole note never says
    ("fuel deliveries to Harbour Point are Tuesday & Friday", "Eastfield fuel is
    Wednesday only now"): two places, sites or products, each with its own value. Not a
    person (who said it, or who holds the thing), nor a name's own change."""
    if p.was.kind in ("name", STATUS):
        return False
    common = p.old.stems & p.new.stems
    return bool(_own_names(p.old, p.new.item.body, common)) and bool(
        _own_names(p.new, p.old.item.body, common)
    )


def _own_names(said: _Said, other: str, common: frozenset[str]) -> list[Value]:
    """The names ``said`` holds that name which one of the ``common`` things it is (a
    word both units say stands beside it: "Eastfield fuel", "fuel deliveries to Harbour
    Point"), not a person's, none of whose words ``other`` says."""
    words = words_of(other)
    return [
        n
        for n in said.names
        if not a_person(written := said.text[n.start : n.end])
        and words_of(n.key)  # not "C" of "75°C"
        and not words_of(n.key) & words
        and not n.key.startswith(("#", "@"))
        and not _abbreviated(written, other)
        and _stems(_near(said.text, n), ()) & common
    ]


def _near(text: str, name: Value) -> str:
    """The three words before ``name`` and the two after it."""
    before = text[: name.start].split()[-3:]
    after = text[name.end :].split()[:2]
    return " ".join(before + after)


def _abbreviated(name: str, other: str) -> bool:
    """Whether ``other`` writes ``name`` as its initials, or spells out the words
    ``name`` is the initials of ("Duty Manager", "DM")."""
    if _INITIALS.fullmatch(name):
        run = r"(?<!\w)" + r"\s+".join(rf"{c}[a-z]+" for c in name) + r"(?!\w)"
        return re.search(run, other) is not None
    initials = "".join(w[0] for w in name.split())
    return (
        2 <= len(initials) <= 4
        and initials.isupper()
        and re.search(rf"(?<![\w-]){initials}(?![\w-])", other) is not None
    )


def _apart_in_context(p: _Pair) -> bool:
    """Whether the pair's contexts are two things of one kind, or the newer's new name is
    what the older's context is about (``_two_things``)."""
    old, new = context(p.old.item.body, p.old.start), context(p.new.item.body, p.new.start)
    states = p.was.kind == STATUS and p.now.kind == STATUS
    if apart_in_kind(old, new, p.old.text, p.new.text, states=states):
        return True
    now = words_of(p.now.key) if p.now.kind == "name" else frozenset()
    return any(x.words and set(x.words) <= now for x in old.phrases)


def _subjects(said: _Said, value: Value) -> list[Phrase]:
    """The subjects of ``said``, read up to its values and ``value``."""
    stops = [(said.start + v.start, said.start + v.end) for v in (*said.values, value)]
    return subjects(said.item.body, said.start, said.end, stops)


def _words(said: _Said) -> frozenset[str]:
    """The stems of every word of the line ``said`` lies in, and its ``titled``."""
    line = _line(said.item.body, said.start)
    return said.titled | {stem(w) for w in _WORD.findall(line.lower())}


def _shared_words(text: str, shared: frozenset[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for w in _WORD.findall(text.lower()):
        if stem(w) in shared and w not in STOPWORDS:
            seen.setdefault(w, None)
    return tuple(seen)[:_LABEL_WORDS]


def _best(ctx: BrainContext, pairs: list[_Pair]) -> list[_Pair]:
    """Per newer unit and slot, the older unit sharing the most words; then the one whose
    value is still current; then the latest."""
    chosen: dict[tuple[str, int, str, str], tuple[tuple[int, bool, datetime], _Pair]] = {}
    for p in pairs:
        key = (p.new.item.id, p.new.start, p.now.kind, p.now.unit)
        rank = (len(p.shared), _current(ctx, p), p.old.item.when)
        if key not in chosen or rank > chosen[key][0]:
            chosen[key] = (rank, p)
    return [p for _, p in chosen.values()]


def _typed(ctx: BrainContext, p: _Pair) -> bool:
    """Whether the typed statements settle this pair themselves: the older unit holds a
    typed statement of the name that another subject's move does not touch ("The ledger
    uses Postgres" after "the analytics store moves to ClickHouse instead of Postgres":
    its subject is not said in the newer unit, ``statements.py``, and the newer's typed
    subject is not what the older unit is about, ``_about``), or one (of the name or the
    value) that a newer statement has already replaced."""
    text, written = p.old.text.strip(), p.old.text[p.was.start : p.was.end].casefold()
    said = p.new.stems | p.gone_in
    if p.pointed and _both_typed(ctx, p):
        return True
    # the newer's subject is what the older card is about: its own label is no subject
    held = _typed_names(ctx, p.old, p.was) if p.was.kind == "name" else []
    about = p.was.kind == "name" and any(
        _about(p.old, s, held) for s in _typed_names(ctx, p.new, p.now, cut=True)
    )
    for s in ctx.store.statements(ctx.workspace, ctx.visibility, item_id=p.old.item.id):
        if s.predicate == PREDICATE or s.text != text:
            continue
        if p.was.kind == "name" and s.object.casefold() in p.was.key:
            # a stopword is in no unit's stems ("Regional SHE Advisor")
            subject = [w for w in _WORD.findall(s.subject.lower()) if w not in STOPWORDS]
            if not s.current or not (about or all(_agent(w) & said for w in subject)):
                return True
        if p.was.kind != "name" and written in s.object.casefold() and not s.current:
            return True
    return False


def _agent(word: str) -> frozenset[str]:
    """``word``'s stem, and for a noun of who does a thing ("approver", "owner") its
    verb's: "Permit approver" is said by "permits are now approved by"."""
    if len(word) > 4 and word.endswith(("er", "or")):
        return frozenset({stem(word), stem(word[:-1]), stem(word[:-2])})
    return frozenset({stem(word)})


def _both_typed(ctx: BrainContext, p: _Pair) -> bool:
    """Whether each side holds a typed statement of its name ("Retros | uses | Miro",
    "design retros | uses | FigJam"; "The data team moves to Dagster"): the typed rules
    have read both sentences and settled them their way (two subjects, a move ahead, a
    subject of several uses). A label's whole clause is no reading of the name
    ("Reminder to all crews | is | every claim gets filed in Expensify"); nor is the
    newer's one whose subject the older unit is about (``_about``)."""
    new, old = _typed_names(ctx, p.new, p.now), _typed_names(ctx, p.old, p.was)
    return bool(new and old) and not any(_about(p.old, s, old) for s in new)


def _typed_names(
    ctx: BrainContext, said: _Said, name: Value, *, cut: bool = False
) -> list[Statement]:
    """The typed statements of ``said``'s sentence whose object is ``name``, give or take
    a few words; with ``cut``, of the sentence ``said`` is a clause of too."""
    text = said.text.strip()
    return [
        s
        for s in ctx.store.statements(ctx.workspace, ctx.visibility, item_id=said.item.id)
        if s.predicate != PREDICATE
        and (s.text == text or (cut and text in s.text))
        and name.key in s.object.casefold()
        and len(s.object.split()) <= len(name.key.split()) + _NAME_SLACK
    ]


def _about(said: _Said, s: Statement, held: Sequence[Statement]) -> bool:
    """Whether the older unit, with its title, is about ``s``'s subject, which none of its
    own typed statements ``held``, each of a label, shares a word with: it says every
    word of it ("Out of
    hours repairs / Calls 5pm-8am & weekends: Kingsway Response Ltd (tenant line)" and
    "out-of-hours repairs line | owner | Apex Property Services"). Its own statement then
    has a label for a subject, and the typed rules, reading two subjects, settled
    nothing; where they read one ("The status page is hosted on Statuspage", "The status
    page is moving to Instatus next quarter"), they did."""
    words = _subject_words(s)
    return (
        bool(words)
        and words <= said.titled
        and all(_labelled(o) and not words & _subject_words(o) for o in held)
    )


def _labelled(s: Statement) -> bool:
    """Whether ``s``'s subject is its sentence's label ("Calls 5pm-8am & weekends:
    Kingsway Response Ltd"), not a subject the patterns read from a clause ("The data
    team uses Airflow ...")."""
    text = s.text.lstrip(" \t*-•")
    return text.startswith(s.subject) and text[len(s.subject) :].lstrip().startswith(":")


def _subject_words(s: Statement) -> frozenset[str]:
    return frozenset(stem(w) for w in _WORD.findall(s.subject.lower()) if w not in STOPWORDS)


def _current(ctx: BrainContext, p: _Pair) -> bool:
    held = _held(ctx, p.old, p.was)
    return held is None or held.current


def _held(ctx: BrainContext, said: _Said, value: Value) -> Statement | None:
    """The ``value`` statement already recorded for ``value`` in ``said``, if any."""
    text, written = said.text.strip(), said.text[value.start : value.end]
    for s in ctx.store.statements(
        ctx.workspace, ctx.visibility, item_id=said.item.id, predicate=PREDICATE
    ):
        if s.text == text and s.object == written:
            return s
    return None


def _record(ctx: BrainContext, p: _Pair) -> list[str]:
    """The newer side first, then the older, which arrives late and is born superseded
    by it (``statements._settle``): the same, whichever item was derived first. A typed
    statement the patterns read from the older unit with that value ("travel cap | is |
    $500 per night") ends with it: one sentence, one belief."""
    held = _held(ctx, p.old, p.was)
    label = held.subject if held is not None else " ".join(p.shared) or p.was.key
    was = p.old.text[p.was.start : p.was.end]
    # a new holder as written, with the first name ``names_in`` leaves out of a sentence
    now = _written(p.new, p.now) if p.now.kind == "name" else p.new.text[p.now.start : p.now.end]
    new = record_claim(ctx, p.new.item, _claim(p.new, label, now))
    old = record_claim(ctx, p.old.item, _claim(p.old, label, was))
    ended = list(new.superseded)
    if old.born_superseded_by:
        ended.append(old.statement.id)
    ended += _end_typed(ctx, p, was, new.statement)
    return ended


def _end_typed(ctx: BrainContext, p: _Pair, was: str, by: Statement) -> list[str]:
    store, ws = ctx.store, ctx.workspace
    text, written = p.old.text.strip(), was.casefold()
    ended = [
        s.id
        for s in store.statements(ws, ctx.visibility, item_id=p.old.item.id, current=True)
        if s.predicate != PREDICATE
        and text in s.text  # the sentence, or the sentence the clause is cut from
        and written in s.object.casefold()
        and s.valid_from < by.valid_from
        and store.end_statement(ws, s.id, by.valid_from, by.id)
    ]
    if ended:
        supersede_item(ctx, p.old.item.id, p.new.item.id)
    return ended


def _claim(said: _Said, label: str, value: str) -> Claim:
    return Claim(
        type="fact",
        subject=Found("topic", label, said.start, said.start),
        predicate=PREDICATE,
        object=value,
        object_entity=None,
        start=said.start,
        end=said.end,
        valid_from=None,
        replaces=None,
        tier="pattern",
        confidence=0.6,
    )
