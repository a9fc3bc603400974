"""LoCoMo memory eval: every conversation turn a note, every question a search.

Evidence recall@k is the share of a question's evidence turns in the top k of the deep,
unfloored ranking. Silence is measured with the plan as shipped (its floors, its default k):
category 5 questions (adversarial: the answer is not in the conversation) should get none;
silence on categories 1-4 is the floors' cost.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..brain import Brain, NoteInput
from ..errors import InvalidInput, NotFound
from ..ports import Embedder, Vector
from ..retrieve import SearchPlan
from .metrics import mean, percentile, recall_at_k
from .report import EvalReport, PlanScores, default_results_path, write_jsonl

__all__ = [
    "CATEGORIES",
    "LOCOMO_COLUMNS",
    "Conversation",
    "Question",
    "Turn",
    "load_locomo",
    "parse_evidence",
    "parse_session_date",
    "run_locomo",
]

CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
ANSWERABLE = (1, 2, 3, 4)
DEPTH = 50
BATCH = 500
LOCOMO_COLUMNS = (
    "recall@5",
    "recall@10",
    *(f"recall@10:{CATEGORIES[c]}" for c in ANSWERABLE),
    "false_silence",
    "cat5_silent",
    "search_p50_ms",
    "search_p95_ms",
)

Progress = Callable[[str], None]

_DIA_ID = re.compile(r"D(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %d %B %Y")


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None
    session: int
    date_text: str
    occurred_at: datetime | None


@dataclass(frozen=True, slots=True)
class Question:
    number: int
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    # What the loader could not use, by reason (reported, never silently dropped).
    skipped: dict[str, int] = field(default_factory=dict)


def parse_session_date(text: str) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` as a UTC datetime; None when it does not parse."""
    cleaned = " ".join(text.split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _dia_id(text: str) -> str | None:
    m = _DIA_ID.fullmatch(text.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def parse_evidence(raw: object) -> tuple[tuple[str, ...], int]:
    """Evidence dia_ids, normalised (``D1:3``), and the number of entries that were not ids.

    Some entries pack several ids (``"D8:6; D9:17"``); those are split. Entries such as
    ``"D"`` or ``"D:11:26"`` are skipped and counted.
    """
    entries = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    ids: dict[str, None] = {}
    skipped = 0
    for entry in entries:
        text = entry.strip() if isinstance(entry, str) else repr(entry)
        for token in [t for t in re.split(r"[;,\s]+", text) if t] or [text]:
            dia_id = _dia_id(token)
            if dia_id is None:
                skipped += 1
            else:
                ids.setdefault(dia_id, None)
    return tuple(ids), skipped


def _turns(conv: dict[str, object], skipped: Counter[str]) -> list[Turn]:
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conv
        if (m := _SESSION.fullmatch(key)) and isinstance(conv[key], list)
    )
    turns: list[Turn] = []
    for number, key in sessions:
        date_text = str(conv.get(f"{key}_date_time") or "")
        when = parse_session_date(date_text)
        for raw in conv[key]:  # type: ignore[attr-defined]
            dia_id = _dia_id(str(raw.get("dia_id", ""))) if isinstance(raw, dict) else None
            if dia_id is None:
                skipped["turns_malformed"] += 1
                continue
            if when is None:
                skipped["turns_without_date"] += 1
            caption = raw.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=dia_id,
                    speaker=str(raw.get("speaker") or "?"),
                    text=str(raw.get("text") or ""),
                    caption=str(caption) if caption else None,
                    session=number,
                    date_text=date_text,
                    occurred_at=when,
                )
            )
    return turns


def _category(raw: object) -> int | None:
    try:
        category = int(str(raw))
    except ValueError:
        return None
    return category if category in CATEGORIES else None


def _questions(qa: object, known: set[str], skipped: Counter[str]) -> list[Question]:
    out: list[Question] = []
    for number, raw in enumerate(qa if isinstance(qa, list) else [], start=1):
        category = _category(raw.get("category")) if isinstance(raw, dict) else None
        if category is None or not str(raw.get("question") or "").strip():
            skipped["questions_malformed"] += 1
            continue
        ids, bad = parse_evidence(raw.get("evidence"))
        unknown = sum(1 for i in ids if i not in known)
        if bad:
            skipped["evidence_entries_skipped"] += bad
        if unknown:
            skipped["evidence_not_in_conversation"] += unknown
        evidence = tuple(i for i in ids if i in known)
        out.append(Question(number, str(raw["question"]).strip(), category, evidence))
    return out


def load_locomo(path: Path) -> list[Conversation]:
    """Read a LoCoMo file (a list of conversations in the published layout)."""
    if not path.is_file():
        raise NotFound(f"no such file: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, list):
        raise InvalidInput(f"{path}: expected a list of conversations")
    out: list[Conversation] = []
    for n, sample in enumerate(data, start=1):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise InvalidInput(f"{path}: entry {n} has no conversation")
        skipped: Counter[str] = Counter()
        turns = _turns(sample["conversation"], skipped)
        questions = _questions(sample.get("qa"), {t.dia_id for t in turns}, skipped)
        sample_id = str(sample.get("sample_id") or f"sample-{n}")
        out.append(Conversation(sample_id, tuple(turns), tuple(questions), dict(skipped)))
    return out


def _note(sample_id: str, turn: Turn) -> NoteInput:
    body = f"{turn.speaker}: {turn.text}"
    if turn.caption:
        body += f" [shared image: {turn.caption}]"
    return NoteInput(
        body=body,
        label=f"{turn.speaker} ({turn.date_text or 'undated'})",
        source_key=f"locomo:{sample_id}:{turn.dia_id}",
        occurred_at=turn.occurred_at,
        run_id=f"{sample_id}:session_{turn.session}",
    )


@dataclass
class _Tally:
    """One plan's per-question outcomes, across conversations."""

    recall: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    silent: dict[int, list[bool]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def add(self, q: Question, r5: float | None, r10: float | None, silent: bool) -> None:
        self.silent.setdefault(q.category, []).append(silent)
        if r5 is not None and r10 is not None:
            self.recall.setdefault((q.category, 5), []).append(r5)
            self.recall.setdefault((q.category, 10), []).append(r10)

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
        put("false_silence", silence(ANSWERABLE))
        for c in ANSWERABLE:
            put(f"false_silence:{CATEGORIES[c]}", silence([c]))
        put("cat5_silent", silence([5]))
        m["search_p50_ms"] = percentile(self.latencies, 50)
        m["search_p95_ms"] = percentile(self.latencies, 95)
        return m


class _RepeatCache:
    """The embedder, remembering its last single-text call: each question is searched
    twice (deep, then as shipped) and the second search need not embed it again."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._last: tuple[str, Vector] | None = None

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> Vector:
        if len(texts) != 1:
            return self._inner.embed(texts)
        if self._last is not None and self._last[0] == texts[0]:
            return self._last[1].copy()
        vectors = self._inner.embed(texts)
        self._last = (texts[0], vectors.copy())
        return vectors


def _ask(
    brain: Brain, conv: Conversation, q: Question, plan: SearchPlan, deep: SearchPlan
) -> tuple[list[str], float, bool]:
    prefix = f"locomo:{conv.sample_id}:"
    t0 = time.perf_counter()
    result = brain.search(q.question, k=DEPTH, plan=deep)
    ms = (time.perf_counter() - t0) * 1000.0
    ranked = [
        h.item.source_key[len(prefix) :]
        for h in result.hits
        if h.item.source_key.startswith(prefix)
    ]
    silent = not brain.search(q.question, plan=plan).hits
    return ranked, ms, silent


def run_locomo(
    conversations: Sequence[Conversation],
    plans: Sequence[SearchPlan],
    embedder: Embedder,
    *,
    source: str = "",
    out: Path | None = None,
    progress: Progress | None = None,
) -> EvalReport:
    """One fresh brain per conversation; every question asked with every plan."""
    if not plans:
        raise InvalidInput("name at least one plan")
    if not conversations:
        raise InvalidInput("no conversations to evaluate")
    out = out or default_results_path("locomo")
    tallies = {p.name: _Tally() for p in plans}
    rows: list[dict[str, object]] = []
    index_s = 0.0
    cached = _RepeatCache(embedder)
    with tempfile.TemporaryDirectory(prefix="orgbrain-eval-") as tmp:
        for n, conv in enumerate(conversations, start=1):
            with Brain.open(Path(tmp) / f"conv-{n}", embedder=cached) as brain:
                t0 = time.perf_counter()
                notes = [_note(conv.sample_id, t) for t in conv.turns]
                for start in range(0, len(notes), BATCH):
                    brain.add_notes(notes[start : start + BATCH])
                index_s += time.perf_counter() - t0
                for plan in plans:
                    deep = plan.with_limits(k_max=100, floors=False)
                    tally = tallies[plan.name]
                    for q in conv.questions:
                        ranked, ms, silent = _ask(brain, conv, q, plan, deep)
                        tally.latencies.append(ms)
                        scored = bool(q.evidence) and q.category in ANSWERABLE
                        r5 = recall_at_k(ranked, q.evidence, 5) if scored else None
                        r10 = recall_at_k(ranked, q.evidence, 10) if scored else None
                        tally.add(q, r5, r10, silent)
                        rows.append(
                            {
                                "sample_id": conv.sample_id,
                                "question": q.number,
                                "category": q.category,
                                "plan": plan.name,
                                "evidence": list(q.evidence),
                                "recall@5": r5,
                                "recall@10": r10,
                                "silent": silent,
                                "latency_ms": ms,
                                "ranked": ranked,
                            }
                        )
            if progress is not None:
                progress(f"conversation {n}/{len(conversations)} ({conv.sample_id}) done")
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
    }
    return EvalReport(
        "locomo",
        source,
        tuple(PlanScores(p.name, tallies[p.name].metrics()) for p in plans),
        LOCOMO_COLUMNS,
        info,
        results_path=str(out),
    )
