"""The audit pass: after a file is indexed and derived, a second pass adds mentions and
links around it, within a budget of tool calls, and never merges anything.

``request_audit`` queues one pass per file version (a durable job, asked for when the
file's sections are derived: ``AuditRequests``); the pass (``run_audit``) gives an
auditor (``OfflineAuditor`` over the extraction tiers and the brain's known entities,
or ``LLMAuditor`` when a chat model is configured) five tools (``AuditTools``: search,
observe_mention, link, neighborhood, read) and an ``AuditBudget`` of 30 steps; every step
is logged on the file's write story. See docs/audit.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..context import BrainContext
from ..errors import InvalidInput
from ..extraction import default_extractor
from .llm import LLMAuditor
from .offline import OfflineAuditor, known_pairs
from .passes import (
    AUDIT_ACTOR,
    DONE_EVENT,
    AuditReport,
    audit_story,
    load_subject,
    pass_steps,
    run_audit,
)
from .queue import (
    AUDIT_KIND,
    AUDIT_MAX_ATTEMPTS,
    AuditRequests,
    audit_key,
    audit_state,
    derivation_pending,
    file_sections,
    request_audit,
)
from .tools import (
    AUDIT_STEPS,
    STEP_EVENT,
    TOOLS,
    AuditBudget,
    Auditor,
    AuditSubject,
    AuditTools,
    BudgetSpent,
)

__all__ = [
    "AUDITORS",
    "AUDIT_ACTOR",
    "AUDIT_KIND",
    "AUDIT_MAX_ATTEMPTS",
    "AUDIT_STEPS",
    "DONE_EVENT",
    "STEP_EVENT",
    "TOOLS",
    "AuditBudget",
    "AuditReport",
    "AuditRequests",
    "AuditSubject",
    "AuditTools",
    "Auditor",
    "BudgetSpent",
    "LLMAuditor",
    "OfflineAuditor",
    "audit_key",
    "audit_state",
    "audit_story",
    "auditor_for",
    "derivation_pending",
    "file_sections",
    "known_pairs",
    "load_subject",
    "pass_steps",
    "request_audit",
    "run_audit",
]

AUDITORS = ("auto", "offline", "llm")


def auditor_for(ctx: BrainContext, known: Sequence[tuple[str, str]] = ()) -> Auditor:
    """The LLM auditor when a chat model is configured and the settings allow it
    (``ORGBRAIN_AUDITOR``: ``auto``, ``offline`` or ``llm``); else the offline one, which
    looks for the ``known`` (type, name) entities."""
    choice = ctx.settings.auditor
    if choice not in AUDITORS:
        raise InvalidInput(f"ORGBRAIN_AUDITOR is auto, offline or llm, not {choice!r}")
    if choice == "llm" or (choice == "auto" and ctx.chat is not None):
        if ctx.chat is None:
            raise InvalidInput("ORGBRAIN_AUDITOR=llm needs ORGBRAIN_CHAT_URL and _MODEL")
        return LLMAuditor(ctx.chat)
    return OfflineAuditor(default_extractor(), known)
