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
- they are not about two things of a kind (``guards.two_things``: "Leeds depot" and
  "Bristol depot", "VPN tokens" and "Jira tokens"), read from each unit's subjects
  (``extraction/subjects.py``); a subject unsaid on one side blocks nothing.

A name is restated the same way when the newer sentence says it is gone ("rather than
Ana", "moved down from Organization", "#help-it has been renamed to #it-desk", "Okta gets
switched off") and points at one new name, in it or in the sentence beside it ("report
to Marcus Lee", "sign-in is now Authentik"); where the older sentence has a typed
statement of that name, its own subject decides (``typed.py``). Sentences are cut into
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

The parts live in ``restating/``: ``units.py`` reads an item into clauses (``Said``) and
pairs (``Pair``); ``values.py`` a value stated anew (with ``table.py``, a table row's
column) and a phone number named old; ``states.py`` a state said later as another;
``names.py`` a name gone or replaced; ``guards.py`` two things of a kind, or another
line said again; ``typed.py`` what the typed statements settle; ``record.py`` the pairs
kept and recorded. This module reads the neighbours and runs them in that order.
"""

from __future__ import annotations

from datetime import date

from ..context import BrainContext
from ..extraction.documents import settled
from ..extraction.qualifiers import apart, other_records
from ..model import Item
from .documents import back_dated
from .neighbours import neighbours
from .restating.guards import named_apart, two_things
from .restating.names import renamed, replaced
from .restating.record import best, record
from .restating.states import state_changed
from .restating.table import other_rows
from .restating.typed import settled_by_typed
from .restating.units import (
    MIN_SHARED,
    PREDICATE,
    Pair,
    Said,
    beside,
    changes,
    said_in,
    starts_after,
)
from .restating.values import number_gone, restated_values
from .statements import CONFLICT_WINDOW
from .versions import versioned

__all__ = ["MIN_SHARED", "PREDICATE", "restate", "restated_between", "unguarded"]


def restated_between(item: Item, other: Item, mine: list[Said] | None = None) -> list[Pair]:
    """The restatements the rules read between two items, either older (``mine``: the
    clauses of ``item``, when the caller has them), before their guards."""
    if other_records(item.body, other.body):
        return []  # cards of two records ("Service: a", "Service: b"): two settings
    newer = item if item.when > other.when else other
    if not settled(newer.body):
        return []  # a proposal, a draft, a rejected record: it changes nothing
    mine = said_in(item) if mine is None else mine
    theirs = said_in(other)
    pairs: list[Pair] = []
    for a in mine:
        for b in theirs:
            old, new = (a, b) if a.item.when < b.item.when else (b, a)
            if new.item.when - old.item.when < CONFLICT_WINDOW:
                continue  # at one time
            if other_rows(old, new):
                continue  # a table's two rows ("| B | 3 CFU |", "| C | 15 CFU |")
            if apart(a.qualified, b.qualified):
                if not apart(a.qualified, b.qualified, states=True):
                    pairs += state_changed(old, new)  # "Beta (staff only)", then live
                continue  # two settings ("production", "staging")
            next_to = beside(mine if new is a else theirs, new)
            pairs += restated_values(old, new, mine if old is a else theirs)
            pairs += state_changed(old, new)
            pairs += renamed(old, new, next_to) or replaced(old, new)
            pairs += number_gone(old, new, mine if new is a else theirs)
    return pairs


def unguarded(pairs: list[Pair], today: date) -> list[Pair]:
    """``pairs`` but those the guards read as two things, two names apart, or a change
    that starts after ``today``."""
    return [
        p for p in pairs if not (two_things(p) or named_apart(p) or starts_after(p.new.text, today))
    ]


def restate(ctx: BrainContext, item: Item) -> dict[str, object]:
    """Find and record the restatements between ``item`` and its neighbours."""
    if item.storage_class not in ("note", "section") or item.tombstoned_at is not None:
        return {"pairs": 0}
    mine = said_in(item)
    changed = [s for s in mine if changes(s)]
    backdated = back_dated(item, CONFLICT_WINDOW)
    if not changed and not backdated and not versioned(item):
        return {"pairs": 0}  # it restates nothing, and nothing newer came before it
    pairs: list[Pair] = []
    near = changed if changed and not backdated else mine
    for other in neighbours(ctx, item, [s.text for s in near]):
        pairs += restated_between(item, other, mine)
    superseded: list[str] = []
    recorded = 0
    today = ctx.clock().date()
    kept = [p for p in unguarded(pairs, today) if not settled_by_typed(ctx, p)]
    for pair in best(ctx, kept):
        superseded += record(ctx, pair)
        recorded += 1
    return {"pairs": recorded, "superseded": superseded}
