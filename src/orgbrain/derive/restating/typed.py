"""Pairs the typed statements settle themselves (``derive/statements.py``): where the
patterns read a typed statement of the older name or value, its subject, its being
current and the newer side's own typed statement decide whether the pair is a change."""

from __future__ import annotations

from collections.abc import Sequence

from ...analysis import LETTER_WORD, STOPWORDS, stem
from ...context import BrainContext
from ...extraction.values import Value, marked_old
from ...model import Statement
from .units import PREDICATE, Pair, Said, content_stems

__all__ = ["settled_by_typed"]

_NAME_SLACK = 3
"""Words besides a name a typed statement's object may hold and still be that name's."""


def settled_by_typed(ctx: BrainContext, p: Pair) -> bool:
    """Whether the typed statements settle this pair themselves: the older unit holds a
    typed statement of the name that another subject's move does not touch ("The ledger
    uses Postgres" after "the analytics store moves to ClickHouse instead of Postgres":
    its subject is not said in the newer unit, ``statements.py``, and the newer's typed
    subject is not what the older unit is about, ``_about``; a leaver's own holding,
    ``Pair.left``, is handed on whatever the newer unit calls it), or one (of the name or
    the value) that a newer statement has already replaced."""
    text, written = p.old.text.strip(), p.old.text[p.was.start : p.was.end].casefold()
    said = p.new.stems | p.gone_in
    if p.pointed and _both_typed(ctx, p):
        return True
    # the newer's subject is what the older card is about: its own label is no subject
    held = _typed_names(ctx, p.old, p.was) if p.was.kind == "name" else []
    loose = _named_before(p)
    about = p.was.kind == "name" and any(
        _about(p.old, s, held, loose=loose) for s in _typed_names(ctx, p.new, p.now, cut=True)
    )
    for s in ctx.statements.statements(ctx.workspace, ctx.visibility, item_id=p.old.item.id):
        if s.predicate == PREDICATE or s.text != text:
            continue
        if p.was.kind == "name" and s.object.casefold() in p.was.key:
            # a stopword is in no unit's stems ("Regional SHE Advisor")
            subject = [w for w in LETTER_WORD.findall(s.subject.lower()) if w not in STOPWORDS]
            if not s.current or not (about or p.left or all(_agent(w) & said for w in subject)):
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


def _both_typed(ctx: BrainContext, p: Pair) -> bool:
    """Whether each side holds a typed statement of its name ("Retros | uses | Miro",
    "design retros | uses | FigJam"; "The data team moves to Dagster"): the typed rules
    have read both sentences and settled them their way (two subjects, a move ahead, a
    subject of several uses). A label's whole clause is no reading of the name
    ("Reminder to all crews | is | every claim gets filed in Expensify"); nor is the
    newer's one whose subject the older unit is about (``_about``)."""
    new, old = _typed_names(ctx, p.new, p.now), _typed_names(ctx, p.old, p.was)
    return bool(new and old) and not any(_about(p.old, s, old) for s in new)


def _typed_names(
    ctx: BrainContext, said: Said, name: Value, *, cut: bool = False
) -> list[Statement]:
    """The typed statements of ``said``'s sentence whose object is ``name``, give or take
    a few words; with ``cut``, of the sentence ``said`` is a clause of too."""
    text = said.text.strip()
    return [
        s
        for s in ctx.statements.statements(ctx.workspace, ctx.visibility, item_id=said.item.id)
        if s.predicate != PREDICATE
        and (s.text == text or (cut and text in s.text))
        and name.key in s.object.casefold()
        and len(s.object.split()) <= len(name.key.split()) + _NAME_SLACK
    ]


def _named_before(p: Pair) -> bool:
    """Whether the newer unit names the older name itself as the one it replaces
    ("switched our laundry contract from CleanCo to Brightwash Linen" after "Vendor:
    CleanCo Textiles")."""
    return any(
        n.key in p.was.key and marked_old(p.new.text, n) for n in p.new.names if n.key != p.now.key
    )


def _about(said: Said, s: Statement, held: Sequence[Statement], *, loose: bool = False) -> bool:
    """Whether the older unit, with its title, is about ``s``'s subject, which none of its
    own typed statements ``held``, each of a label, shares a word with: it says every
    word of it ("Out of
    hours repairs / Calls 5pm-8am & weekends: Kingsway Response Ltd (tenant line)" and
    "out-of-hours repairs line | owner | Apex Property Services"). Its own statement then
    has a label for a subject, and the typed rules, reading two subjects, settled
    nothing; where they read one ("The status page is hosted on Statuspage", "The status
    page is moving to Instatus next quarter"), they did. Where the newer unit names the
    older name as the one it replaces (``loose``), a word of the subject is enough: the
    sentence says itself what it changes."""
    words = content_stems(s.subject)
    return (
        bool(words)
        and (bool(words & said.titled) if loose else words <= said.titled)
        and all(_labelled(o) and not words & content_stems(o.subject) for o in held)
    )


def _labelled(s: Statement) -> bool:
    """Whether ``s``'s subject is its sentence's label ("Calls 5pm-8am & weekends:
    Kingsway Response Ltd"), not a subject the patterns read from a clause ("The data
    team uses Airflow ...")."""
    text = s.text.lstrip(" \t*-•")
    return text.startswith(s.subject) and text[len(s.subject) :].lstrip().startswith(":")
