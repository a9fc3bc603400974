"""The pairs kept, and how they are recorded: per newer unit and slot the best older
unit, each side a ``value`` statement of one ``topic`` subject (``record_claim``), and a
typed statement of the older value ended with it."""

from __future__ import annotations

from datetime import datetime

from ...context import BrainContext
from ...extraction import Claim, Found, Tier
from ...extraction.values import Value
from ...model import Statement
from ..statements import record_claim, supersede_item
from .names import written
from .units import PREDICATE, Pair, Said

__all__ = ["best", "record", "value_claim"]


def best(ctx: BrainContext, pairs: list[Pair]) -> list[Pair]:
    """Per newer unit and slot, the older unit whose value the newer names ("Wingspan has
    been retired and all studies now file in Veeva Vault": Wingspan's line, not the
    bulletin's other line of studies); then the one sharing the most words; then the
    one whose value is still current; then the latest."""
    chosen: dict[tuple[str, int, str, str], tuple[tuple[bool, int, bool, datetime], Pair]] = {}
    for p in pairs:
        key = (p.new.item.id, p.new.start, p.now.kind, p.now.unit)
        named = any(v.key == p.was.key for v in (*p.new.values, *p.new.names))
        rank = (named, len(p.shared), _current(ctx, p), p.old.item.when)
        if key not in chosen or rank > chosen[key][0]:
            chosen[key] = (rank, p)
    return [p for _, p in chosen.values()]


def _current(ctx: BrainContext, p: Pair) -> bool:
    held = _held(ctx, p.old, p.was)
    return held is None or held.current


def _held(ctx: BrainContext, said: Said, value: Value) -> Statement | None:
    """The ``value`` statement already recorded for ``value`` in ``said``, if any."""
    text, shown = said.text.strip(), said.text[value.start : value.end]
    for s in ctx.statements.statements(
        ctx.workspace, ctx.visibility, item_id=said.item.id, predicate=PREDICATE
    ):
        if s.text == text and s.object == shown:
            return s
    return None


def record(ctx: BrainContext, p: Pair) -> list[str]:
    """The newer side first, then the older, which arrives late and is born superseded
    by it (``statements._settle``): the same, whichever item was derived first. A typed
    statement the patterns read from the older unit with that value ("travel cap | is |
    $500 per night") ends with it: one sentence, one belief."""
    held = _held(ctx, p.old, p.was)
    label = held.subject if held is not None else " ".join(p.shared) or p.was.key
    was = p.old.text[p.was.start : p.was.end]
    # a new holder as written, with the first name ``names_in`` leaves out of a sentence
    now = written(p.new, p.now) if p.now.kind == "name" else p.new.text[p.now.start : p.now.end]
    new = record_claim(ctx, p.new.item, _claim(p.new, label, now))
    old = record_claim(ctx, p.old.item, _claim(p.old, label, was))
    ended = list(new.superseded)
    if old.born_superseded_by:
        ended.append(old.statement.id)
    ended += _end_typed(ctx, p, was, new.statement)
    return ended


def _end_typed(ctx: BrainContext, p: Pair, was: str, by: Statement) -> list[str]:
    ws = ctx.workspace
    text, folded = p.old.text.strip(), was.casefold()
    ended = [
        s.id
        for s in ctx.statements.statements(ws, ctx.visibility, item_id=p.old.item.id, current=True)
        if s.predicate != PREDICATE
        and text in s.text  # the sentence, or the sentence the clause is cut from
        and folded in s.object.casefold()
        and s.valid_from < by.valid_from
        and ctx.statements.end_statement(ws, s.id, by.valid_from, by.id)
    ]
    if ended:
        supersede_item(ctx, p.old.item.id, p.new.item.id)
    return ended


def _claim(said: Said, label: str, value: str) -> Claim:
    return value_claim(label, value, said.start, said.end, "pattern")


def value_claim(label: str, value: str, start: int, end: int, tier: Tier) -> Claim:
    """A ``value`` statement of the ``topic`` ``label``, read from ``start:end`` of its
    item: one side of a restatement, whoever found it (the rules here, the judge)."""
    return Claim(
        type="fact",
        subject=Found("topic", label, start, start),
        predicate=PREDICATE,
        object=value,
        object_entity=None,
        start=start,
        end=end,
        valid_from=None,
        replaces=None,
        tier=tier,
        confidence=0.6,
    )
