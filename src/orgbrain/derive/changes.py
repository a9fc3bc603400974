"""A stated change: what "Going forward, design docs are kept in Notion" replaces.

A claim marked ``change`` (``extraction/predicates.py``: ``CHANGE``) replaces its
subject's older statements of the same predicate, even a multi-valued one, when both say
it in the same words but for their objects (``same_wording``); and it may reach the one
longer name with the same head noun (``kin_statements``). Settling is in
``statements.py``.
"""

from __future__ import annotations

import re

from ..context import BrainContext
from ..extraction.predicates import CHANGE
from ..model import Item, Statement

__all__ = ["KIN_READ", "kin_statements", "norm", "same_wording", "words"]

FILLER = frozenset({"the", "a", "an", "our", "its", "their"})


def norm(value: str) -> str:
    """``value`` as two statements' objects are compared: case-folded, spaces single, no
    surrounding punctuation."""
    return " ".join(value.casefold().split()).strip(" .,;:!\"'")


def words(text: str) -> frozenset[str]:
    """The words of ``text``, case-folded, without articles and possessives."""
    return frozenset(re.findall(r"\w+", text.casefold())) - FILLER


KIN_READ = 20
"""The most entities looked at for a longer name of a changed subject."""


def kin_statements(ctx: BrainContext, subject: Item, predicate: str) -> list[Statement]:
    """Current statements of ``predicate`` about a longer name with the same head noun
    ("sprint retros" for "As of this sprint, retros are run in FigJam"): what a stated
    change may also replace, under the same wording. Never a shorter or another name
    ("offboarding checklist" is not "onboarding checklist"), nor one of several longer
    ones."""
    said = re.findall(r"\w+", subject.label.casefold())
    if not said:
        return []
    ws, vis = ctx.workspace, ctx.visibility
    ids = [i for i, _ in ctx.search.keyword_search(ws, "entity", said, KIN_READ, vis)]
    longer = [
        e.id
        for e in ctx.get_many([i for i in ids if i != subject.id]).values()
        if e.scope == subject.scope
        and (named := re.findall(r"\w+", e.label.casefold()))
        and named[-1] == said[-1]
        and set(said) < set(named)
    ]
    if len(longer) != 1:
        return []  # "the checklist" after the onboarding and the offboarding one: which?
    return ctx.statements.statements(ws, vis, subject_ids=longer, predicate=predicate, current=True)


def same_wording(old: Statement, new: Statement) -> bool:
    """Whether two statements of one subject and predicate say it in the same words, but
    for their objects and the change's own words: "Going forward, design docs are kept in
    Notion" restates "Design docs are kept in Google Docs"; "The billing service now uses
    Stripe for card payments" is another use than "The billing service uses Postgres"."""

    def slot(s: Statement) -> frozenset[str]:
        text = CHANGE.sub(" ", _LEAD.sub("", s.text))
        return words(text) - words(s.subject) - words(s.object) - _AUX

    return slot(old) == slot(new)


_LEAD = re.compile(r"(?:[^:\n]{1,50}:\s+)?(?:(?:fyi|psa|btw|heads[- ]up)\b[,:!]?\s*)?", re.I)
"""A label, a speaker or an opener before the sentence ("Per the retro: ...", "[#pm] rosa:
fyi ..."): where it was said, not how."""
_AUX = frozenset(
    "is are was were be been will has have had it in on with via through using at".split()
)
"""Left out of a wording: auxiliaries, and the prepositions a tool takes ("published on
the blog" and "published in the changelog" are one slot)."""
