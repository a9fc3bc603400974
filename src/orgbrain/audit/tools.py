"""The auditor's five tools over the brain, and the budget they spend.

``search``, ``observe_mention``, ``link``, ``neighborhood`` and ``read`` each cost one
step of an ``AuditBudget`` (30, as the seed; ``ORGBRAIN_AUDIT_STEPS``); a call past the
budget is refused with ``BudgetSpent`` and the pass ends. Writes go through the graph's
own paths (``graph.observe_mention``, ``graph.link``), so the same mention or link
written twice is one edge, and they stay *around the new file*: a mention is read from
the file or one of its sections, a link has one of them at an end. Nothing here merges,
tombstones or supersedes anything: sameness is a ``SAME_AS`` link like any other.

Every step is logged, once, as an ``audit`` event about the file (its write story). A
pass retried after a crash replays what it logged: a call it already made (the same tool
and arguments) is answered again without a second log line or a second charge, so a
resumed pass spends the budget and writes the graph exactly as an uninterrupted one.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from ..context import BrainContext
from ..derive.statements import evidence_range
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..graph import link as graph_link
from ..graph import neighborhood as graph_neighborhood
from ..graph import normalise_edge_type
from ..graph import observe_mention as graph_observe_mention
from ..model import Edge, Item, Link, Mention, Neighborhood, SearchResult

__all__ = [
    "AUDIT_STEPS",
    "STEP_EVENT",
    "TOOLS",
    "AuditBudget",
    "AuditSubject",
    "AuditTools",
    "Auditor",
    "BudgetSpent",
]

AUDIT_STEPS = 30
"""The seed's budget: a pass makes at most this many tool calls."""
STEP_EVENT = "audit"
"""The event kind each step is logged as (``audited`` closes a pass)."""
TOOLS = ("search", "observe_mention", "link", "neighborhood", "read")
AUDIT_LINK_REFUSED = frozenset({"SUPERSEDES"})
"""Supersession is derivation's call (with its reasons), never an auditor's."""
SEARCH_K = 5

T = TypeVar("T")


class BudgetSpent(Conflict):
    """The pass has made as many tool calls as its budget allows."""

    code = "budget_spent"


@dataclass
class AuditBudget:
    """How many tool calls a pass may make, and how many it made (a resumed pass starts
    with the steps it logged before)."""

    steps: int = AUDIT_STEPS
    used: int = 0

    @property
    def left(self) -> int:
        return max(0, self.steps - self.used)

    def spend(self, tool: str) -> int:
        """Charge one step for ``tool``; its number, from 1. ``BudgetSpent`` past the end."""
        if self.used >= self.steps:
            raise BudgetSpent(f"the audit's budget of {self.steps} steps is spent: {tool} refused")
        self.used += 1
        return self.used


@dataclass(frozen=True, slots=True)
class AuditSubject:
    """The newly indexed file a pass audits: its sections in reading order, and what each
    already mentions (canonical ``(type, value)`` pairs), as the pass found them."""

    file: Item
    sections: tuple[Item, ...]
    mentioned: Mapping[str, frozenset[tuple[str, str]]]
    pass_key: str

    @property
    def ids(self) -> frozenset[str]:
        return frozenset((self.file.id, *(s.id for s in self.sections)))


@dataclass
class AuditTools:
    """The five tools, bound to one pass: ``ctx`` writes as the auditor with the eyes of
    whoever asked for the file's indexing; ``logged`` are the pass's steps from earlier
    attempts (replayed, not charged again)."""

    ctx: BrainContext
    subject: AuditSubject
    budget: AuditBudget
    auditor: str
    search_fn: Callable[[str], SearchResult]
    logged: Sequence[Mapping[str, object]] = ()
    _replay: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._replay.update(_signature(str(r.get("step")), r.get("args")) for r in self.logged)

    # -- the five tools -------------------------------------------------------------------

    def search(self, query: str) -> SearchResult:
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("search needs a query")
        return self._step(
            "search",
            {"query": query.strip()},
            lambda: self.search_fn(query.strip()),
            lambda r: {"hits": [h.item.id for h in r.hits[:SEARCH_K]]},
        )

    def observe_mention(
        self, item_id: str, type_: str, value: str, text: str, *, at: int | None = None
    ) -> Mention:
        """Mention ``value`` (a ``type_``) in the file or one of its sections, where
        ``text`` is written in it (at character ``at`` when given, else its first
        occurrence); the span's bytes are the citation."""
        args: dict[str, object] = {
            "item_id": item_id,
            "type": type_,
            "value": value,
            "text": text,
            "at": at,
        }

        def run() -> Mention:
            item = self._around(item_id, "a mention is read from the new file or its sections")
            start = _locate(item.body, text, at)
            br = evidence_range(item, start, start + len(text))
            return graph_observe_mention(
                self.ctx,
                item.id,
                type_,
                value,
                text,
                start=br.start if br else None,
                end=br.end if br else None,
                run_id=self.subject.pass_key,
            )

        return self._step(
            "observe_mention",
            args,
            run,
            lambda m: {
                "entity_id": m.entity.id,
                "edge_id": m.edge.id,
                "created": self._made(m.edge, m.edge_created),
                "entity_created": m.entity_created,
            },
        )

    def link(self, src: str, dst: str, type_: str, note: str | None = None) -> Link:
        """A link with the file or one of its sections at one end (``SAME_AS`` is a soft
        claim of sameness, never a merge; ``SUPERSEDES`` is derivation's, refused)."""
        args: dict[str, object] = {"src": src, "dst": dst, "type": type_, "note": note}

        def run() -> Link:
            t = normalise_edge_type(type_)
            if t in AUDIT_LINK_REFUSED:
                raise Forbidden(f"{t} is derivation's to record, not the audit's")
            if src not in self.subject.ids and dst not in self.subject.ids:
                raise InvalidInput("a link from the audit has the new file or a section at an end")
            return graph_link(self.ctx, src, dst, t, note=note, run_id=self.subject.pass_key)

        return self._step(
            "link",
            args,
            run,
            lambda r: {"edge_id": r.edge.id, "created": self._made(r.edge, r.created)},
        )

    def neighborhood(self, item_id: str, hops: int = 1) -> Neighborhood:
        return self._step(
            "neighborhood",
            {"item_id": item_id, "hops": hops},
            lambda: graph_neighborhood(self.ctx, item_id, hops),
            lambda n: {"items": len(n.items), "edges": len(n.edges)},
        )

    def read(self, item_id: str) -> Item:
        return self._step(
            "read",
            {"item_id": item_id},
            lambda: self.ctx.get(item_id),
            lambda i: {"chars": len(i.body)},
        )

    def think(self, plan: str) -> None:
        """The one think turn: logged like a step, free of the budget."""
        self._step("think", {"plan": plan[:2000]}, lambda: None, lambda _: {}, free=True)

    # -- one step ---------------------------------------------------------------------------

    def _step(
        self,
        tool: str,
        args: dict[str, object],
        run: Callable[[], T],
        summary: Callable[[T], dict[str, object]],
        *,
        free: bool = False,
    ) -> T:
        sig = _signature(tool, args)
        if self._replay[sig] > 0:  # made and logged by an earlier attempt of this pass
            self._replay[sig] -= 1
            return run()
        n = 0 if free else self.budget.spend(tool)
        t0 = time.perf_counter()
        record: dict[str, object] = {
            "item_id": self.subject.file.id,
            "pass": self.subject.pass_key,
            "n": n,
            "step": tool,
            "auditor": self.auditor,
            "args": args,
        }
        try:
            result = run()
        except (InvalidInput, NotFound, Forbidden) as exc:
            record.update(ms=_ms(t0), error=f"{exc.code}: {exc.message}")
            self.ctx.events.log_event(self.ctx.workspace, STEP_EVENT, record)
            raise
        record.update(ms=_ms(t0), **summary(result))
        self.ctx.events.log_event(self.ctx.workspace, STEP_EVENT, record)
        return result

    def _made(self, edge: Edge, created: bool) -> bool:
        """Whether this pass made ``edge``: now, or in an attempt cut short between the
        write and its log line (the edge carries the pass's key as its run id)."""
        return created or edge.origin.run_id == self.subject.pass_key

    def _around(self, item_id: str, why: str) -> Item:
        if item_id not in self.subject.ids:
            raise InvalidInput(f"{item_id} is not the audited file or one of its sections: {why}")
        return self.ctx.get(item_id)


def _signature(tool: str, args: object) -> str:
    return tool + json.dumps(args, sort_keys=True, default=str)


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


def _locate(body: str, text: str, at: int | None) -> int:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("a mention needs the text it was read from")
    if isinstance(at, int) and at >= 0 and body[at : at + len(text)] == text:
        return at
    found = body.find(text)
    if found < 0:
        raise InvalidInput(f"{text[:80]!r} is not written in that item")
    return found


class Auditor(Protocol):
    """What makes the judgment calls of a pass (``OfflineAuditor``, ``LLMAuditor``)."""

    name: str

    def audit(self, subject: AuditSubject, tools: AuditTools) -> None:
        """Look around ``subject`` and add mentions and links with ``tools``; a call past
        the budget raises ``BudgetSpent``, which ends the pass."""
        ...
