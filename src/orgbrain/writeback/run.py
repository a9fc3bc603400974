"""One write-back pass: the writer proposes, the gate decides, and what is confident
organisation knowledge is written through the normal write path (so it is derived and
may supersede). Every decision is logged (``gate`` events, then one ``writeback``).

A proposal's id is a digest of its asker, run and text (a run id is its asker's own:
another actor's run of the same id is another pass), and a written one becomes the note with
source key ``proposal:<id>``: a pass retried after a crash finds what it already stored
and wrote, and does neither twice.
"""

from __future__ import annotations

import hashlib

from ..context import BrainContext
from ..errors import InvalidInput
from ..model import Item, Proposal, RunProducts
from ..retrieve import Searcher, get_plan
from ..scopes import Visibility
from ..telemetry import MEMORY_RECORD_ID, MEMORY_STORE_ID, Attr, set_attributes, span
from ..writes import NoteInput, add_notes, superseded_items
from .gate import DEFAULT_GATE, GatePolicy, judge
from .writer import Draft, Writer, WriterTools

__all__ = ["SEARCH_K", "proposal_id", "run_pass", "write_proposal"]

SEARCH_K = 5
_LISTED = 500
"""The most of a run's proposals read back (a pass stores a few; one id, many actors)."""


def proposal_id(workspace: str, run_id: str, body: str, actor: str) -> str:
    material = f"{workspace}\n{actor}\n{run_id}\n{' '.join(body.casefold().split())}"
    return "prp_" + hashlib.sha256(material.encode()).hexdigest()[:20]


def run_pass(
    ctx: BrainContext,
    products: RunProducts,
    writer: Writer,
    policy: GatePolicy = DEFAULT_GATE,
) -> list[Proposal]:
    """Propose, gate, store and write; the run's proposals, in the order stored (a
    retried pass first finishes what an earlier attempt stored and did not write). One
    ``orgbrain.writeback`` span, an ``orgbrain.gate`` span per draft inside it."""
    attributes: dict[str, Attr] = {
        MEMORY_STORE_ID: ctx.workspace,
        "orgbrain.run.id": products.run_id,
        "orgbrain.writeback.writer": writer.name,
    }
    with span("orgbrain.writeback", attributes) as current:
        out = _run_pass(ctx, products, writer, policy)
        states = [p.state for p in out]
        set_attributes(
            current,
            {
                "orgbrain.writeback.proposals": len(out),
                "orgbrain.writeback.written": states.count("written"),
                "orgbrain.writeback.queued": states.count("pending"),
                "orgbrain.writeback.skipped": states.count("skipped"),
            },
        )
        return out


def _run_pass(
    ctx: BrainContext, products: RunProducts, writer: Writer, policy: GatePolicy
) -> list[Proposal]:
    for stuck in _own(ctx, products, states=["written"]):
        if stuck.item_id is None:
            _mark_written(ctx, stuck, write_proposal(ctx, stuck, source="writeback"))
    plan = get_plan(ctx.settings.plan)
    searcher = Searcher(ctx)
    tools = WriterTools(lambda q: searcher.search(q, plan, k=SEARCH_K))
    writer.write(products, tools)
    writable = ctx.principal.visibility if ctx.principal else Visibility.everything()
    for draft in tools.drafts:
        with span("orgbrain.gate", {MEMORY_STORE_ID: ctx.workspace}) as gated:
            stored = _gate(ctx, products, writer, policy, writable, draft)
            set_attributes(
                gated,
                {
                    "orgbrain.gate.decision": _decision(stored),
                    "orgbrain.gate.scope": stored.scope,
                    "orgbrain.gate.sensitive": bool(stored.sensitivity),
                    "orgbrain.proposal.id": stored.id,
                    "orgbrain.proposal.kind": stored.kind,
                    "orgbrain.proposal.confidence": stored.confidence,
                    MEMORY_RECORD_ID: stored.item_id,
                },
            )
    out = _own(ctx, products)
    states = [p.state for p in out]
    ctx.events.log_event(
        ctx.workspace,
        "writeback",
        {
            "run_id": products.run_id,
            "outcome": products.outcome,
            "writer": writer.name,
            "proposals": len(out),
            "written": states.count("written"),
            "queued": states.count("pending"),
            "skipped": states.count("skipped"),
            "searches": tools.searches,
            "error": getattr(writer, "last_error", None),
            "actor": ctx.actor,
        },
    )
    return out


def _own(
    ctx: BrainContext, products: RunProducts, states: list[str] | None = None
) -> list[Proposal]:
    """This pass's proposals: its run's, stored by its asker (another's run of the id is not)."""
    found = ctx.proposals.proposals(
        ctx.workspace, run_id=products.run_id, states=states, limit=_LISTED
    )
    return [p for p in found if p.actor == ctx.actor]


def _gate(
    ctx: BrainContext,
    products: RunProducts,
    writer: Writer,
    policy: GatePolicy,
    writable: Visibility,
    draft: Draft,
) -> Proposal:
    """Judge one draft, store it as a proposal and, when the gate says so, write it; its
    decision is logged once (a ``gate`` event), however often the pass runs."""
    verdict = judge(draft, products, writable, policy)
    fresh = Proposal(
        id=proposal_id(ctx.workspace, products.run_id, draft.body, ctx.actor),
        workspace=ctx.workspace,
        run_id=products.run_id,
        actor=ctx.actor,
        kind=draft.kind,
        label=draft.label,
        body=draft.body.strip(),
        scope=verdict.scope,
        confidence=draft.confidence,
        sensitivity=verdict.sensitivity,
        evidence=draft.evidence,
        supersedes=draft.supersedes,
        state=verdict.state,
        reason=verdict.reason,
        created_at=ctx.clock(),
        writer=writer.name,
    )
    stored, created = ctx.proposals.put_proposal(fresh)
    if stored.state == "written" and stored.item_id is None:
        item = write_proposal(ctx, stored, source="writeback")
        stored = _mark_written(ctx, stored, item)
    if created:
        ctx.events.log_event(
            ctx.workspace,
            "gate",
            {
                "proposal_id": stored.id,
                "run_id": stored.run_id,
                "decision": _decision(stored),
                "reason": stored.reason,
                "scope": stored.scope,
                "proposal_kind": stored.kind,
                "confidence": stored.confidence,
                "sensitive": bool(stored.sensitivity),
                "writer": writer.name,
                "actor": ctx.actor,
                "item_id": stored.item_id,
            },
        )
    return stored


def _decision(p: Proposal) -> str:
    """The gate's word for where a proposal went: written, inbox or skipped."""
    return "inbox" if p.state == "pending" else p.state


def write_proposal(ctx: BrainContext, p: Proposal, *, source: str) -> Item:
    """Write ``p`` as a note at its stored scope, by ``ctx``'s actor, through the normal
    write path. What it supersedes is kept where the write path allows it (a note the
    writer sees, in a scope the new note reaches); the rest is left to derivation."""
    supersedes = []
    for old in p.supersedes:
        try:
            superseded_items(ctx, [old], p.scope)
        except InvalidInput:
            continue
        supersedes.append(old)
    note = NoteInput(
        body=p.body,
        kind=p.kind,
        label=p.label or None,
        scope=p.scope,
        source_key=f"proposal:{p.id}",
        run_id=p.run_id,
        source=source,
        supersedes=supersedes,
    )
    return add_notes(ctx, [note])[0]


def _mark_written(ctx: BrainContext, p: Proposal, item: Item) -> Proposal:
    ctx.proposals.proposal_written(ctx.workspace, p.id, item.id)
    return ctx.proposals.proposal(ctx.workspace, p.id) or p
