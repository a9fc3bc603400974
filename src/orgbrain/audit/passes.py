"""One audit pass over a newly indexed file: load what it is, hand an auditor the five
tools and the budget, and log how it ended (``audited``, once per pass).

A pass is named by its job's key (``audit:<file id>:<content hash>``). Its steps are
``audit`` events about the file; a pass retried after a crash loads them first, so it
resumes: what it already did is replayed without being logged or charged again, and the
graph writes it repeats are no-ops (the same mention or link is one edge).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..context import BrainContext
from ..model import Item
from ..retrieve import Searcher, get_plan
from .queue import audit_key, audit_state, file_sections
from .tools import SEARCH_K, STEP_EVENT, AuditBudget, Auditor, AuditSubject, AuditTools, BudgetSpent

__all__ = [
    "AUDIT_ACTOR",
    "DONE_EVENT",
    "AuditReport",
    "audit_story",
    "load_subject",
    "pass_steps",
    "run_audit",
]

AUDIT_ACTOR = "system:audit"
"""The origin actor of what a pass writes (its run id is the pass's key)."""
DONE_EVENT = "audited"
MAX_STEP_EVENTS = 1000


@dataclass(frozen=True, slots=True)
class AuditReport:
    """How a pass ended: its steps (of ``budget``), the mentions and links it created,
    and whether it finished (``done``), ran out of steps (``budget``) or was cut short
    by its auditor (``error``, with the reason)."""

    file_id: str
    pass_key: str
    auditor: str
    budget: int
    steps: int
    mentions: int
    links: int
    stopped: str
    error: str | None = None


def load_subject(ctx: BrainContext, file: Item, pass_key: str) -> AuditSubject:
    """``file``, its sections, and the entities each already mentions (canonically):
    mentions made by the pass ``pass_key`` itself left out, so a resumed pass meets them
    again and replays (or, cut short before its log line, logs) those steps."""
    sections = file_sections(ctx, file)
    edges = {
        s.id: ctx.edges.edges_of(ctx.workspace, s.id, ctx.visibility, types=("MENTIONS",))
        for s in sections
    }
    entities = ctx.get_many(sorted({e.dst for es in edges.values() for e in es}))
    mentioned: dict[str, frozenset[tuple[str, str]]] = {}
    for section_id, es in edges.items():
        pairs = set()
        for e in es:
            entity = entities.get(e.dst)
            mine = e.origin.run_id == pass_key
            if e.src == section_id and not mine and entity and entity.canonical is not None:
                pairs.add((entity.canonical.type, entity.canonical.value))
        mentioned[section_id] = frozenset(pairs)
    return AuditSubject(file, tuple(sections), mentioned, pass_key)


def pass_steps(
    ctx: BrainContext, file_id: str, pass_key: str | None = None
) -> list[dict[str, object]]:
    """The logged steps (and ``audited`` ends) about ``file_id``, oldest first: of one
    pass when ``pass_key`` is given."""
    found = ctx.events.events_after(
        ctx.workspace, 0, kinds=(STEP_EVENT, DONE_EVENT), subject=file_id, limit=MAX_STEP_EVENTS
    )
    return [e for e in found if pass_key is None or e.get("pass") == pass_key]


def run_audit(
    ctx: BrainContext,
    file: Item,
    auditor: Auditor,
    *,
    steps: int | None = None,
    pass_key: str | None = None,
) -> AuditReport:
    """Audit ``file`` with ``auditor`` within ``steps`` tool calls (default the settings'
    ``audit_steps``); resumes the pass ``pass_key`` (default the file's current one)."""
    key = pass_key or audit_key(file)
    budget_steps = ctx.settings.audit_steps if steps is None else steps
    wctx = replace(ctx, actor=AUDIT_ACTOR)
    subject = load_subject(wctx, file, key)
    before = pass_steps(ctx, file.id, key)
    logged = [e for e in before if e.get("kind") == STEP_EVENT]
    budget = AuditBudget(budget_steps, used=sum(1 for e in logged if e.get("step") != "think"))
    plan = get_plan(ctx.settings.plan)
    searcher = Searcher(ctx)
    tools = AuditTools(
        wctx,
        subject,
        budget,
        auditor.name,
        lambda q: searcher.search(q, plan, k=SEARCH_K),
        logged,
    )
    stopped, error = "done", None
    try:
        auditor.audit(subject, tools)
    except BudgetSpent as exc:
        stopped, error = "budget", exc.message
    last_error = getattr(auditor, "last_error", None)
    if stopped == "done" and last_error:
        stopped, error = "error", str(last_error)
    every = [e for e in pass_steps(ctx, file.id, key) if e.get("kind") == STEP_EVENT]
    report = AuditReport(
        file_id=file.id,
        pass_key=key,
        auditor=auditor.name,
        budget=budget_steps,
        steps=sum(1 for e in every if e.get("step") != "think"),
        mentions=sum(1 for e in every if e.get("step") == "observe_mention" and e.get("created")),
        links=sum(1 for e in every if e.get("step") == "link" and e.get("created")),
        stopped=stopped,
        error=error,
    )
    if not any(e.get("kind") == DONE_EVENT for e in before):
        ctx.events.log_event(
            ctx.workspace,
            DONE_EVENT,
            {
                "item_id": file.id,
                "pass": key,
                "step": DONE_EVENT,
                "auditor": report.auditor,
                "budget": report.budget,
                "steps": report.steps,
                "mentions": report.mentions,
                "links": report.links,
                "stopped": report.stopped,
                "error": report.error,
                "actor": ctx.actor,
            },
        )
    return report


def audit_story(
    ctx: BrainContext, item: Item
) -> tuple[str, tuple[dict[str, object], ...], str | None]:
    """What an item's write story shows of its audit: the state of its current pass,
    every logged step (of every pass, oldest first) and the pass's last error."""
    if item.storage_class != "file":
        return "none", (), None
    state, error = audit_state(ctx, item)
    return state, tuple(pass_steps(ctx, item.id)), error
