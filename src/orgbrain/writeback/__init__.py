"""Write-back: what a finished run files back into the brain, through a gate.

``request_writeback`` queues one pass per run (a durable job); the pass (``run_pass``)
has a writer (``OfflineWriter``, or ``LLMWriter`` when a chat model is configured)
propose at most three drafts, the gate (``judge``, thresholds in ``GatePolicy``) write
confident organisation knowledge straight in and send the rest to the review inbox or
skip it, and ``approve``/``reject`` settle the inbox. See docs/writeback.md.
"""

from __future__ import annotations

from ..context import BrainContext
from ..errors import InvalidInput
from ..extraction import default_extractor
from .gate import DEFAULT_GATE, GatePolicy, Verdict, judge
from .llm import LLMWriter
from .offline import OfflineWriter
from .products import MAX_PRODUCT_CHARS, parse_products, products_dict
from .queue import WRITEBACK_KIND, find_writeback, request_writeback, writeback_key
from .review import approve, get_proposal, list_proposals, reject, reviewable
from .run import proposal_id, run_pass, write_proposal
from .sensitive import Sensitivity, detect
from .writer import KINDS, MAX_PROPOSALS, PERSONAL, Draft, Writer, WriterTools

__all__ = [
    "DEFAULT_GATE",
    "KINDS",
    "MAX_PRODUCT_CHARS",
    "MAX_PROPOSALS",
    "PERSONAL",
    "WRITEBACK_KIND",
    "Draft",
    "GatePolicy",
    "LLMWriter",
    "OfflineWriter",
    "Sensitivity",
    "Verdict",
    "Writer",
    "WriterTools",
    "approve",
    "detect",
    "find_writeback",
    "get_proposal",
    "judge",
    "list_proposals",
    "parse_products",
    "products_dict",
    "proposal_id",
    "reject",
    "request_writeback",
    "reviewable",
    "run_pass",
    "write_proposal",
    "writeback_key",
    "writer_for",
]


def writer_for(ctx: BrainContext, known: list[tuple[str, str]] | None = None) -> Writer:
    """The LLM writer when a chat model is configured and the settings allow it
    (``ORGBRAIN_WRITER``: ``auto``, ``offline`` or ``llm``); else the offline one."""
    choice = ctx.settings.writer
    if choice not in ("auto", "offline", "llm"):
        raise InvalidInput(f"ORGBRAIN_WRITER is auto, offline or llm, not {choice!r}")
    if choice == "llm" or (choice == "auto" and ctx.chat is not None):
        if ctx.chat is None:
            raise InvalidInput("ORGBRAIN_WRITER=llm needs ORGBRAIN_CHAT_URL and _MODEL")
        return LLMWriter(ctx.chat)
    return OfflineWriter(ctx, default_extractor(), known or [])
