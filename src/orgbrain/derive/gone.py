"""What a statement that says a thing or a person is gone ends: the uses of a retired
thing (``retire``), what a leaver owned (``left``), a named replacement's use said under
another subject (``named_elsewhere``), and the late use a retirement already ended
(``gone_after``). Part of a statement's settling (``statements.py``)."""

from __future__ import annotations

import re

from ..context import BrainContext
from ..extraction.predicates import GONE_WORDS, HELD_BY_PEOPLE, LEFT_THE_ORG, REPLACEABLE
from ..graph import normalise_value
from ..model import Statement
from .changes import norm, words

__all__ = ["gone_after", "left", "named_elsewhere", "retire"]


RETIRED = frozenset(GONE_WORDS)
"""A status that says its subject is gone ("Status: decommissioned")."""


def _retires(s: Statement) -> bool:
    """Whether ``s`` says its subject is gone: retired (a status or a dated event) or
    replaced by something else."""
    if s.type not in ("fact", "decision", "event"):
        return False
    return s.predicate in ("retired", "replaced_by") or (
        s.predicate == "status" and norm(s.object) in RETIRED
    )


def retire(ctx: BrainContext, new: Statement) -> list[Statement]:
    """A thing that is gone is no longer what anything uses, runs on or is: end the
    current ``REPLACEABLE`` statements in its scope whose object is that thing and that
    held before ``new``."""
    return _end_naming(ctx, new, REPLACEABLE) if _retires(new) else []


def left(ctx: BrainContext, new: Statement) -> list[Statement]:
    """Whoever left the organisation ("Dana has left", "Dario left the company") no
    longer owns or answers for anything: end the current owner, backup owner and contact
    statements in its scope that name that person and held before. Leaving a meeting, a
    rotation or a team ends nothing."""
    if new.type != "event" or new.predicate != "left" or not LEFT_THE_ORG.match(new.object):
        return []
    return _end_naming(ctx, new, HELD_BY_PEOPLE)


def _end_naming(ctx: BrainContext, new: Statement, predicates: frozenset[str]) -> list[Statement]:
    """End the current statements of ``predicates`` whose object is ``new``'s subject, in
    its scope, that held before it; superseded by ``new``."""
    ws = ctx.workspace
    ended: list[Statement] = []
    for old in ctx.statements.statements(
        ws, ctx.visibility, object_ids=[new.subject_id], current=True
    ):
        if (
            old.predicate in predicates
            and old.id != new.id
            and old.scope == new.scope
            and old.valid_from <= new.valid_from
            and ctx.statements.end_statement(ws, old.id, new.valid_from, new.id)
        ):
            ended.append(old)
    return ended


_SEVERAL = re.compile(r"\band\b|\bas well as\b|[,;&+/]", re.IGNORECASE)
"""A sentence that lists several things ("for the nightly reports and the billing
exports") may still hold for the others: a replacement under another subject leaves it."""


def named_elsewhere(ctx: BrainContext, new: Statement) -> list[Statement]:
    """A named replacement ("We moved checkout deploys from Jenkins to GitHub Actions")
    also ends a current use of the named thing stated under another subject, when that
    statement's own sentence holds every word of the new one's subject ("The checkout
    team uses Jenkins for deploys."): one slot, worded around another head noun. The
    object must be the named entity, the sentence must say the subject in full ("we moved
    payments reporting from Postgres" leaves "the payments API uses Postgres") and list
    nothing else ("uses Airflow for the nightly reports and the billing exports" stays)."""
    if not new.replaces or new.predicate not in REPLACEABLE:
        return []
    subject = words(new.subject)
    ws, vis = ctx.workspace, ctx.visibility
    named = ctx.statements.entities_named(ws, [normalise_value(new.replaces)], vis)
    if not subject or not named:
        return []
    ended: list[Statement] = []
    for old in ctx.statements.statements(ws, vis, object_ids=[e.id for e in named], current=True):
        if (
            old.predicate in REPLACEABLE
            and old.subject_id != new.subject_id
            and old.scope == new.scope
            and old.valid_from <= new.valid_from
            and subject <= words(old.text)
            and not _SEVERAL.search(old.text)
            and ctx.statements.end_statement(ws, old.id, new.valid_from, new.id)
        ):
            ended.append(old)
    return ended


def gone_after(ctx: BrainContext, new: Statement) -> Statement | None:
    """The mirror of ``retire``: a use of a thing that arrives late, dated no later than
    the thing's retirement, is born superseded by the first such retirement."""
    if new.predicate not in REPLACEABLE or new.object_id is None or not new.current:
        return None
    ws = ctx.workspace
    after = [
        s
        for s in ctx.statements.statements(ws, ctx.visibility, subject_ids=[new.object_id])
        if _retires(s) and s.scope == new.scope and s.valid_from >= new.valid_from
    ]
    return min(after, key=lambda s: s.valid_from, default=None)
