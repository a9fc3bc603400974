"""LongMemEval memory eval: each question's chat history in its own brain, every turn a
note, the question a search, scored by session as the LongMemEval paper scores retrieval.

A turn hit stands for its session: the ranked turns become ranked sessions (each session
at its best turn's place), and ``recall_any@k`` is whether one answer session is among the
first k sessions, ``recall_all@k`` whether all of them are (Wu et al., 2025, section 5:
turn-level keys mapped to sessions). Abstention questions (``_abs``: the answer is not in
the history) are not scored for recall; they count for silence, which is measured with
the plan as shipped (floors, gate) asking for ``SHIPPED_K`` hits.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..brain import Brain, NoteInput
from ..errors import InvalidInput
from ..model import Hit, Item
from ..ports import Embedder
from ..retrieve import SearchPlan
from .cache import index_key, indexed_brain
from .locomo import NEXT_TURN
from .longmemeval_data import QUESTION_TYPES, LmeQuestion
from .memo import QueryMemo
from .metrics import mean, percentile
from .report import (
    EVIDENCE_DEPTH,
    EvalReport,
    PlanScores,
    default_results_path,
    gate_view,
    write_jsonl,
)

__all__ = ["LME_COLUMNS", "MESSAGE_KIND", "SHIPPED_K", "run_longmemeval", "sessions_ranked"]

DEPTH = 100
"""How many turns the deep ranking reads (they fold into fewer sessions)."""
SHIPPED_K = 10
"""How many hits the shipped search asks for."""
BATCH = 500
MESSAGE_KIND = "message"
LME_COLUMNS = (
    "recall_any@5",
    "recall_all@5",
    "recall_all@10",
    *(f"recall_all@5:{t}" for t in QUESTION_TYPES),
    "recall_all_shipped",
    "false_silence",
    "abs_silent",
    "search_p50_ms",
    "search_p95_ms",
)

Progress = Callable[[str], None]


def _key(q: LmeQuestion, session_id: str, n: int) -> str:
    return f"lme:{q.question_id}:{session_id}:{n}"


def _notes(q: LmeQuestion) -> tuple[list[NoteInput], list[tuple[str, str, str]]]:
    """One note per turn (kind ``message``, its session's date as when it happened, the
    session as its origin run) and ``FOLLOWED_BY`` from each turn to the next one."""
    notes: list[NoteInput] = []
    edges: list[tuple[str, str, str]] = []
    for s in q.sessions:
        keys = []
        for n, t in enumerate(s.turns):
            keys.append(_key(q, s.session_id, n))
            notes.append(
                NoteInput(
                    body=f"{t.role}: {t.content}",
                    kind=MESSAGE_KIND,
                    label=f"{t.role} ({s.date_text or 'undated'})",
                    source_key=keys[-1],
                    occurred_at=s.occurred_at,
                    run_id=f"lme:{s.session_id}",
                )
            )
        edges += [(NEXT_TURN, a, b) for a, b in itertools.pairwise(keys)]
    return notes, edges


def sessions_ranked(turn_keys: Sequence[str], prefix: str) -> list[str]:
    """Session ids in the order of their best turn (``<prefix><session>:<turn>`` keys)."""
    out: dict[str, None] = {}
    for key in turn_keys:
        if key.startswith(prefix):
            out.setdefault(key[len(prefix) :].rsplit(":", 1)[0], None)
    return list(out)


def _recall(ranked: Sequence[str], gold: Sequence[str], k: int) -> tuple[float, float]:
    top = set(ranked[:k])
    found = [g in top for g in gold]
    return float(any(found)), float(all(found))


@dataclass
class _Tally:
    scores: dict[str, list[float]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def put(self, key: str, value: float) -> None:
        self.scores.setdefault(key, []).append(value)

    def metrics(self) -> dict[str, float]:
        m = {k: mean(v) for k, v in self.scores.items() if v}
        m["search_p50_ms"] = percentile(self.latencies, 50)
        m["search_p95_ms"] = percentile(self.latencies, 95)
        return m


def _keys(hits: Sequence[Hit]) -> list[str]:
    return [h.item.source_key for h in hits]


def _ask(
    brain: Brain, memo: QueryMemo, q: LmeQuestion, plan: SearchPlan, tally: _Tally
) -> dict[str, object]:
    prefix = f"lme:{q.question_id}:"
    deep = plan.with_limits(k_max=DEPTH, floors=False)
    asked = q.asked_at
    if asked is not None:  # "now" is the question's date: what "four weeks ago" means
        brain = brain.with_clock(lambda: asked)
    memo.reset_clock()
    t0 = time.perf_counter()
    result = brain.search(q.question, k=DEPTH, plan=deep)
    ms = (time.perf_counter() - t0) * 1000.0 + memo.charge_ms()
    tally.latencies.append(ms)
    ranked = sessions_ranked(_keys(result.hits), prefix)
    shipped_result, trace = brain.search_traced(
        q.question, k=SHIPPED_K, plan=plan, evidence_depth=EVIDENCE_DEPTH
    )
    shipped = sessions_ranked(_keys(shipped_result.hits), prefix)
    silent = not shipped_result.hits
    row: dict[str, object] = {
        "question_id": q.question_id,
        "question_type": q.question_type,
        "plan": plan.name,
        "answer_sessions": list(q.answer_sessions),
        "silent": silent,
        "reason": shipped_result.reason,
        "window": shipped_result.window,
        "gate": gate_view(trace, shipped_result.reason),
        "latency_ms": ms,
        "ranked": ranked[:50],
        "shipped": shipped,
    }
    if q.abstention:
        tally.put("abs_silent", float(silent))
        return row
    tally.put("false_silence", float(silent))
    if not q.answer_sessions:
        return row
    for k in (5, 10):
        any_k, all_k = _recall(ranked, q.answer_sessions, k)
        tally.put(f"recall_any@{k}", any_k)
        tally.put(f"recall_all@{k}", all_k)
        tally.put(f"recall_any@{k}:{q.question_type}", any_k)
        tally.put(f"recall_all@{k}:{q.question_type}", all_k)
        row[f"recall_any@{k}"], row[f"recall_all@{k}"] = any_k, all_k
    shipped_all = _recall(shipped, q.answer_sessions, len(shipped))[1] if shipped else 0.0
    tally.put("recall_all_shipped", shipped_all)
    return row


def _writer(
    notes: Sequence[NoteInput], edges: Sequence[tuple[str, str, str]]
) -> Callable[[Brain], None]:
    def write(brain: Brain) -> None:
        written: list[Item] = []
        for start in range(0, len(notes), BATCH):
            written += brain.add_notes(notes[start : start + BATCH])
        ids = {item.source_key: item.id for item in written}
        system = brain.acting_as("system:eval")
        for type_, src, dst in edges:
            system.link_system(type_, ids[src], ids[dst], "longmemeval")

    return write


def run_longmemeval(
    questions: Sequence[LmeQuestion],
    plans: Sequence[SearchPlan],
    embedder: Embedder,
    *,
    source: str = "",
    out: Path | None = None,
    cache: Path | None = None,
    progress: Progress | None = None,
) -> EvalReport:
    """One brain per question (its history; from ``cache`` when built before), the
    question asked with every plan, deep (for recall) and as shipped (for silence)."""
    if not plans:
        raise InvalidInput("name at least one plan")
    if not questions:
        raise InvalidInput("no questions to evaluate")
    out = out or default_results_path("longmemeval")
    tallies = {p.name: _Tally() for p in plans}
    rows: list[dict[str, object]] = []
    index_s, reused, turns = 0.0, 0, 0
    memo = QueryMemo(embedder)
    for n, q in enumerate(questions, start=1):
        notes, edges = _notes(q)
        turns += len(notes)
        key = index_key("longmemeval", memo, notes, edges)
        with indexed_brain(cache, key, memo, _writer(notes, edges)) as (brain, built):
            index_s += built.index_s
            reused += built.cached
            for plan in plans:
                rows.append(_ask(brain, memo, q, plan, tallies[plan.name]))
        if progress is not None:
            state = "reused index" if built.cached else f"indexed {len(notes)} turns"
            progress(f"question {n}/{len(questions)} ({q.question_id}) done ({state})")
    write_jsonl(out, rows)
    answerable = [q for q in questions if not q.abstention]
    info: dict[str, float | int | str] = {
        "questions": len(questions),
        "questions_abstention": len(questions) - len(answerable),
        "questions_without_answer_sessions": sum(1 for q in answerable if not q.answer_sessions),
        "sessions_repeated_skipped": sum(q.repeated for q in questions),
        "turns": turns,
        "index_s": index_s,
        "index_turns_per_s": turns / index_s if index_s > 0 else 0.0,
        "index_cached": reused,
    }
    return EvalReport(
        "longmemeval",
        source,
        tuple(PlanScores(p.name, tallies[p.name].metrics()) for p in plans),
        LME_COLUMNS,
        info,
        results_path=str(out),
    )
