"""LoCoMo memory eval: every conversation turn a note, every question a search.

Evidence recall@k is the share of a question's evidence turns in the top k of the deep,
unfloored ranking. Silence is measured with the plan as shipped (its floors, its gate),
asked for 10 hits: category 5 questions (adversarial: the answer is not in the
conversation) should get none; silence on categories 1-4 is the floors' and the gate's
cost, and ``recall@10_shipped`` the share of evidence turns among the hits a user really
gets. Each row also keeps what the gate saw (``evidence``: names, terms, cosine, asks per top hit),
so other gate settings can be replayed from the JSONL without searching again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..brain import Brain, NoteInput
from ..conversation import TURN_KIND
from ..errors import InvalidInput
from ..model import Hit, Item
from ..ports import Embedder
from ..retrieve import SearchPlan
from .cache import index_key, indexed_brain
from .locomo_data import (
    ANSWERABLE,
    CATEGORIES,
    Conversation,
    Question,
    Turn,
)
from .memo import QueryMemo
from .metrics import mean, percentile, recall_at_k
from .report import (
    EVIDENCE_DEPTH,
    EvalReport,
    PlanScores,
    default_results_path,
    gate_view,
    write_jsonl,
)

__all__ = ["LOCOMO_COLUMNS", "NEXT_TURN", "run_locomo"]

DEPTH = 50
SHIPPED_K = 10
"""How many hits the shipped search asks for (``recall@10_shipped``)."""
BATCH = 500
NEXT_TURN = "FOLLOWED_BY"
LOCOMO_COLUMNS = (
    "recall@5",
    "recall@10",
    *(f"recall@10:{CATEGORIES[c]}" for c in ANSWERABLE),
    "recall@10_shipped",
    "false_silence",
    "cat5_silent",
    "search_p50_ms",
    "search_p95_ms",
)

Progress = Callable[[str], None]


def _note(sample_id: str, turn: Turn) -> NoteInput:
    body = f"{turn.speaker}: {turn.text}"
    if turn.caption:
        body += f" [shared image: {turn.caption}]"
    return NoteInput(
        body=body,
        kind=TURN_KIND,
        label=f"{turn.speaker} ({turn.date_text or 'undated'})",
        source_key=_turn_key(sample_id, turn),
        occurred_at=turn.occurred_at,
        run_id=f"{sample_id}:session_{turn.session}",
    )


@dataclass
class _Tally:
    """One plan's per-question outcomes, across conversations."""

    recall: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    shipped: list[float] = field(default_factory=list)
    silent: dict[int, list[bool]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def add(
        self,
        q: Question,
        r5: float | None,
        r10: float | None,
        silent: bool,
        shipped: float | None = None,
    ) -> None:
        self.silent.setdefault(q.category, []).append(silent)
        if r5 is not None and r10 is not None:
            self.recall.setdefault((q.category, 5), []).append(r5)
            self.recall.setdefault((q.category, 10), []).append(r10)
        if shipped is not None:
            self.shipped.append(shipped)

    def metrics(self) -> dict[str, float]:
        """Means over questions; a category with no questions gets no number (not 0)."""
        m: dict[str, float] = {}

        def put(key: str, values: list[float]) -> None:
            if values:
                m[key] = mean(values)

        def recall(cats: Sequence[int], k: int) -> list[float]:
            return [v for c in cats for v in self.recall.get((c, k), [])]

        def silence(cats: Sequence[int]) -> list[float]:
            return [float(s) for c in cats for s in self.silent.get(c, [])]

        put("recall@5", recall(ANSWERABLE, 5))
        put("recall@10", recall(ANSWERABLE, 10))
        for k in (10, 5):
            for c in ANSWERABLE:
                put(f"recall@{k}:{CATEGORIES[c]}", recall([c], k))
        put("recall@10_shipped", self.shipped)
        put("false_silence", silence(ANSWERABLE))
        for c in ANSWERABLE:
            put(f"false_silence:{CATEGORIES[c]}", silence([c]))
        put("cat5_silent", silence([5]))
        m["search_p50_ms"] = percentile(self.latencies, 50)
        m["search_p95_ms"] = percentile(self.latencies, 95)
        return m


@dataclass
class _Asker:
    """Asks one conversation's brain: deep and unfloored through ``Brain.search`` (for
    recall), then as shipped through the same searcher, traced (for silence)."""

    brain: Brain
    memo: QueryMemo
    prefix: str

    def ask(
        self, q: Question, plan: SearchPlan, deep: SearchPlan
    ) -> tuple[list[str], float, list[str], dict[str, object]]:
        """The deep ranking's dia ids, its latency, the dia ids shipped, the gate's view."""
        self.memo.reset_clock()
        t0 = time.perf_counter()
        result = self.brain.search(q.question, k=DEPTH, plan=deep)
        ms = (time.perf_counter() - t0) * 1000.0 + self.memo.charge_ms()
        ranked = self._dia_ids(result.hits)
        shipped, trace = self.brain.search_traced(
            q.question, k=SHIPPED_K, plan=plan, evidence_depth=EVIDENCE_DEPTH
        )
        gate = gate_view(trace, shipped.reason)
        return ranked, ms, self._dia_ids(shipped.hits), gate

    def _dia_ids(self, hits: Sequence[Hit]) -> list[str]:
        p = self.prefix
        return [h.item.source_key[len(p) :] for h in hits if h.item.source_key.startswith(p)]


def _turn_key(sample_id: str, turn: Turn) -> str:
    return f"locomo:{sample_id}:{turn.dia_id}"


def _next_turns(conv: Conversation) -> list[tuple[str, str, str]]:
    """``FOLLOWED_BY`` from each turn to the next one of its session, by source key."""
    out: list[tuple[str, str, str]] = []
    for a, b in zip(conv.turns, conv.turns[1:], strict=False):
        if a.session == b.session:
            out.append((NEXT_TURN, _turn_key(conv.sample_id, a), _turn_key(conv.sample_id, b)))
    return out


def _writer(
    notes: Sequence[NoteInput], edges: Sequence[tuple[str, str, str]], derive: bool
) -> Callable[[Brain], None]:
    def write(brain: Brain) -> None:
        written: list[Item] = []
        for start in range(0, len(notes), BATCH):
            written += brain.add_notes(notes[start : start + BATCH])
        ids = {item.source_key: item.id for item in written}
        system = brain.acting_as("system:eval")
        for type_, src, dst in edges:
            system.link_system(type_, ids[src], ids[dst], "locomo")
        if derive:  # the typed graph, as a server's worker would derive it
            brain.run_jobs()

    return write


def _run_plan(
    asker: _Asker,
    conv: Conversation,
    plan: SearchPlan,
    tally: _Tally,
    rows: list[dict[str, object]],
) -> None:
    deep = plan.with_limits(k_max=100, floors=False)
    for q in conv.questions:
        ranked, ms, shipped, gate = asker.ask(q, plan, deep)
        silent = not shipped
        tally.latencies.append(ms)
        scored = bool(q.evidence) and q.category in ANSWERABLE
        r5 = recall_at_k(ranked, q.evidence, 5) if scored else None
        r10 = recall_at_k(ranked, q.evidence, 10) if scored else None
        # Whatever the plan shipped for k=10 (floors may cut): silence finds nothing.
        rs = recall_at_k(shipped, q.evidence, SHIPPED_K) if scored else None
        tally.add(q, r5, r10, silent, shipped=rs)
        rows.append(
            {
                "sample_id": conv.sample_id,
                "question": q.number,
                "category": q.category,
                "plan": plan.name,
                "evidence": list(q.evidence),
                "recall@5": r5,
                "recall@10": r10,
                "recall@10_shipped": rs,
                "silent": silent,
                "gate": gate,
                "latency_ms": ms,
                "ranked": ranked,
            }
        )


def run_locomo(
    conversations: Sequence[Conversation],
    plans: Sequence[SearchPlan],
    embedder: Embedder,
    *,
    source: str = "",
    out: Path | None = None,
    cache: Path | None = None,
    progress: Progress | None = None,
    derive: bool = False,
) -> EvalReport:
    """One brain per conversation (from ``cache`` when built before, else fresh); every
    question asked with every plan. ``derive`` derives the typed graph (entities,
    statements, supersession) before the questions, as a server's worker would."""
    if not plans:
        raise InvalidInput("name at least one plan")
    if not conversations:
        raise InvalidInput("no conversations to evaluate")
    out = out or default_results_path("locomo")
    tallies = {p.name: _Tally() for p in plans}
    rows: list[dict[str, object]] = []
    index_s = 0.0
    reused = 0
    memo = QueryMemo(embedder)
    for n, conv in enumerate(conversations, start=1):
        notes = [_note(conv.sample_id, t) for t in conv.turns]
        edges = _next_turns(conv)
        key = index_key("locomo+derived" if derive else "locomo", memo, notes, edges)
        with indexed_brain(cache, key, memo, _writer(notes, edges, derive)) as (brain, built):
            index_s += built.index_s
            reused += built.cached
            asker = _Asker(brain, memo, f"locomo:{conv.sample_id}:")
            for plan in plans:
                _run_plan(asker, conv, plan, tallies[plan.name], rows)
        if progress is not None:
            state = "reused index" if built.cached else "indexed"
            progress(f"conversation {n}/{len(conversations)} ({conv.sample_id}) done ({state})")
    write_jsonl(out, rows)
    skipped: dict[str, int] = {}
    for conv in conversations:
        for key, v in conv.skipped.items():
            skipped[key] = skipped.get(key, 0) + v
    questions = [q for c in conversations for q in c.questions]
    turns = sum(len(c.turns) for c in conversations)
    answerable = [q for q in questions if q.category in ANSWERABLE]
    info: dict[str, float | int | str] = {
        "conversations": len(conversations),
        "turns": turns,
        "questions_scored": sum(1 for q in answerable if q.evidence),
        "questions_cat5": sum(1 for q in questions if q.category == 5),
        "questions_without_evidence": sum(1 for q in answerable if not q.evidence),
        **skipped,
        "index_s": index_s,
        "index_turns_per_s": turns / index_s if index_s > 0 else 0.0,
        "index_cached": reused,
    }
    return EvalReport(
        "locomo",
        source,
        tuple(PlanScores(p.name, tallies[p.name].metrics()) for p in plans),
        LOCOMO_COLUMNS,
        info,
        results_path=str(out),
    )
