"""Organisation facts eval: short facts as notes, plain questions, the plan as shipped.

What an organisation asks its brain is mostly plain: "who owns billing?", "when is the
deploy freeze?". Its facts are short and written every which way: a sentence ("Priya owns
billing."), a "Label: value" line, a bullet, a handbook or runbook paragraph, a dated
decision. This eval writes each fact as a note through ``Brain.add_notes``, lets the
brain derive its graph as the product does (``wait_derived``), and asks every
question with the plan as shipped (its floors, its gate, its default k), to measure what
a user gets:

- ``false_silence``: share of answerable questions that got no hits;
- ``recall_shipped``: share of answerable questions with an answering fact among the hits;
- ``false_speech``: share of questions with no answer in the set that got hits;
- ``recall@5``: share with an answering fact in the top 5 of the deep, unfloored ranking
  (the ranking alone, as the other evals measure it); ``recall@3`` in its top 3.

Each of the first two also per form of the (first) answering fact, ``false_silence:label``,
and every figure but speed again for the questions asked in another language than the
facts are written in, ``false_silence:asked-en`` (a question's ``"lang"``).

A fact set is JSONL, one object a line: a fact, ``{"fact": ID, "form": FORM, "text":
TEXT}``, or a question, ``{"question": TEXT, "answers": [ID, ...]}`` (an empty list: the
set holds no answer, so the brain should stay silent). A fact may say when it happened,
``"at": ISO date`` (its note's ``occurred_at``), and a question when it is asked,
``"asked": ISO date-time`` (the brain's clock for it: what "last week" means); both are
UTC unless they name a zone (``data/facts_dated.jsonl``). A question of a set in another
language may say it is asked in English, ``"lang": "en"``: an English question must find
the German note that answers it (``data/facts_de.jsonl``). ``load_facts()`` with no path reads
the development set shipped with the package (``data/facts_dev.jsonl``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from ..brain import Brain, NoteInput
from ..errors import InvalidInput, NotFound
from ..model import Hit
from ..ports import Embedder
from ..retrieve import SearchPlan
from .cache import index_key, indexed_brain
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

__all__ = ["FACTS_COLUMNS", "Fact", "FactQuestion", "FactSet", "load_facts", "run_facts"]

DEPTH = 5
DERIVE_WAIT_S = 3600.0
"""How long building the brain waits for its notes' derivation."""
KEY_PREFIX = "fact:"
DEV_SET = "facts_dev.jsonl"
FACTS_COLUMNS = (
    "false_silence",
    "recall_shipped",
    "recall@5",
    "recall@3",
    "false_speech",
    "search_p50_ms",
)

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    form: str
    text: str
    at: datetime | None = None
    """When it happened (the note's ``occurred_at``), when the set says."""


@dataclass(frozen=True, slots=True)
class FactQuestion:
    """A question and the ids of the facts that answer it (none: it has no answer)."""

    question: str
    answers: tuple[str, ...]
    asked: datetime | None = None
    """When it is asked (the brain's clock: what "last week" means), when the set says."""
    lang: str | None = None
    """The language it is asked in, when the set says (``"en"`` in a German set)."""


@dataclass(frozen=True, slots=True)
class FactSet:
    facts: tuple[Fact, ...]
    questions: tuple[FactQuestion, ...]

    def form_of(self, q: FactQuestion) -> str | None:
        """The form of ``q``'s first answering fact; None for a question with no answer."""
        forms = {f.id: f.form for f in self.facts}
        return forms[q.answers[0]] if q.answers else None


def _row(name: str, lineno: int, raw: object) -> Fact | FactQuestion:
    where = f"{name}:{lineno}"
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected an object")
    if "fact" in raw:
        parts = [raw.get("fact"), raw.get("form", "sentence"), raw.get("text")]
        if not all(isinstance(p, str) and p.strip() for p in parts):
            raise InvalidInput(f"{where}: a fact needs a string fact id, form and text")
        fact_id, form, text = (str(p).strip() for p in parts)
        return Fact(fact_id, form, text, _date(where, raw.get("at")))
    question, answers = raw.get("question"), raw.get("answers", [])
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput(f"{where}: expected a fact or a question")
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        raise InvalidInput(f"{where}: answers must be a list of fact ids")
    lang = raw.get("lang")
    if lang is not None and not (isinstance(lang, str) and lang.strip()):
        raise InvalidInput(f'{where}: lang must be a language code such as "en"')
    return FactQuestion(
        question.strip(),
        tuple(answers),
        _date(where, raw.get("asked")),
        lang.strip() if isinstance(lang, str) else None,
    )


def _date(where: str, raw: object) -> datetime | None:
    """An ISO date or date-time (UTC when it names no zone); None when absent."""
    if raw is None:
        return None
    try:
        at = datetime.fromisoformat(str(raw))
    except ValueError:
        raise InvalidInput(f"{where}: {raw!r} is not an ISO date") from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _parse(name: str, text: str) -> FactSet:
    facts: dict[str, Fact] = {}
    questions: list[FactQuestion] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{name}:{lineno}: not JSON ({exc.msg})") from None
        row = _row(name, lineno, raw)
        if isinstance(row, FactQuestion):
            questions.append(row)
        elif row.id in facts:
            raise InvalidInput(f"{name}:{lineno}: fact {row.id!r} is defined twice")
        else:
            facts[row.id] = row
    unknown = sorted({a for q in questions for a in q.answers if a not in facts})
    if unknown:
        raise InvalidInput(f"{name}: answers name facts it does not hold: {', '.join(unknown)}")
    if not facts or not questions:
        raise InvalidInput(f"{name}: a fact set needs facts and questions")
    return FactSet(tuple(facts.values()), tuple(questions))


def load_facts(path: Path | None = None) -> FactSet:
    """Read a fact set (JSONL, see the module's doc); the shipped dev set when ``path`` is
    None."""
    if path is None:
        text = resources.files(__package__).joinpath("data", DEV_SET).read_text("utf-8")
        return _parse(DEV_SET, text)
    if not path.is_file():
        raise NotFound(f"no such file: {path}")
    return _parse(str(path), path.read_text(encoding="utf-8"))


def _note(fact: Fact) -> NoteInput:
    return NoteInput(body=fact.text, source_key=f"{KEY_PREFIX}{fact.id}", occurred_at=fact.at)


def _writer(notes: Sequence[NoteInput]) -> Callable[[Brain], None]:
    def write(brain: Brain) -> None:
        # As the product does: each note acknowledged, then derived (entities,
        # statements, supersession) before any question is asked. The wait is the
        # product's, with a limit of its own: a large fact set on a busy machine may take
        # longer than a write's 30 s, and every fact must be derived before it is asked.
        brain.wait_derived(brain.add_notes(notes), timeout=DERIVE_WAIT_S)

    return write


def _fact_ids(hits: Sequence[Hit]) -> list[str]:
    n = len(KEY_PREFIX)
    return [h.item.source_key[n:] for h in hits if h.item.source_key.startswith(KEY_PREFIX)]


class _Asked(NamedTuple):
    """One answerable question's outcome."""

    form: str
    lang: str | None
    silent: bool
    answered: bool
    top5: bool
    top3: bool


@dataclass
class _Tally:
    """One plan's outcomes: per answerable question (``_Asked``), and per unanswerable
    one whether it spoke; each by the language it was asked in when the set says."""

    answerable: list[_Asked] = field(default_factory=list)
    spoke: list[tuple[str | None, bool]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        m = _shares(self.answerable, [s for _, s in self.spoke])
        m["search_p50_ms"] = percentile(self.latencies, 50)
        for form in dict.fromkeys(r.form for r in self.answerable):
            mine = [r for r in self.answerable if r.form == form]
            m[f"false_silence:{form}"] = mean(float(r.silent) for r in mine)
            m[f"recall_shipped:{form}"] = mean(float(r.answered) for r in mine)
        langs = {r.lang for r in self.answerable} | {lang for lang, _ in self.spoke}
        for lang in sorted(lang for lang in langs if lang is not None):
            rows = [r for r in self.answerable if r.lang == lang]
            spoke = [s for q, s in self.spoke if q == lang]
            m.update({f"{k}:asked-{lang}": v for k, v in _shares(rows, spoke).items()})
        return m


def _shares(rows: Sequence[_Asked], spoke: Sequence[bool]) -> dict[str, float]:
    m: dict[str, float] = {}
    if rows:
        m["false_silence"] = mean(float(r.silent) for r in rows)
        m["recall_shipped"] = mean(float(r.answered) for r in rows)
        m["recall@5"] = mean(float(r.top5) for r in rows)
        m["recall@3"] = mean(float(r.top3) for r in rows)
    if spoke:
        m["false_speech"] = mean(float(s) for s in spoke)
    return m


def _run_plan(
    brain: Brain, data: FactSet, plan: SearchPlan, tally: _Tally, rows: list[dict[str, object]]
) -> None:
    deep = plan.with_limits(k_max=DEPTH, floors=False)
    for q in data.questions:
        asked = brain if q.asked is None else brain.with_clock(_stopped(q.asked))
        t0 = time.perf_counter()
        shipped, trace = asked.search_traced(q.question, plan=plan, evidence_depth=EVIDENCE_DEPTH)
        tally.latencies.append((time.perf_counter() - t0) * 1000.0)
        ranked = _fact_ids(asked.search(q.question, k=DEPTH, plan=deep).hits)
        hits = _fact_ids(shipped.hits)
        form = data.form_of(q)
        if form is None:
            tally.spoke.append((q.lang, bool(hits)))
        else:
            answered = any(a in hits for a in q.answers)
            top5 = any(a in ranked for a in q.answers)
            top3 = any(a in ranked[:3] for a in q.answers)
            tally.answerable.append(_Asked(form, q.lang, not hits, answered, top5, top3))
        rows.append(
            {
                "question": q.question,
                "answers": list(q.answers),
                "form": form,
                "lang": q.lang,
                "plan": plan.name,
                "hits": hits,
                "silent": not hits,
                "reason": shipped.reason,
                "window": shipped.window,
                "gate": gate_view(trace, shipped.reason),
                "ranked": ranked,
            }
        )


def _stopped(at: datetime) -> Callable[[], datetime]:
    """A clock that always says ``at``."""
    return lambda: at


def run_facts(
    data: FactSet,
    plans: Sequence[SearchPlan],
    embedder: Embedder,
    *,
    source: str = "",
    out: Path | None = None,
    progress: Progress | None = None,
) -> EvalReport:
    """One fresh brain holding every fact as a note; every question asked with every plan
    as shipped (and deep, unfloored, for ``recall@5``)."""
    if not plans:
        raise InvalidInput("name at least one plan")
    out = out or default_results_path("facts")
    memo = QueryMemo(embedder)
    notes = [_note(f) for f in data.facts]
    tallies = {p.name: _Tally() for p in plans}
    rows: list[dict[str, object]] = []
    with indexed_brain(None, index_key("facts", memo, notes), memo, _writer(notes)) as (
        brain,
        built,
    ):
        for plan in plans:
            _run_plan(brain, data, plan, tallies[plan.name], rows)
            if progress is not None:
                progress(f"plan {plan.name}: {len(data.questions)} questions asked")
    write_jsonl(out, rows)
    forms: dict[str, int] = {}
    for q in data.questions:
        form = data.form_of(q)
        if form is not None:
            forms[form] = forms.get(form, 0) + 1
    info: dict[str, float | int | str] = {
        "facts": len(data.facts),
        "questions_answerable": sum(forms.values()),
        "questions_unanswerable": sum(1 for q in data.questions if not q.answers),
        **{f"questions:{form}": n for form, n in forms.items()},
        **{
            f"questions:asked-{lang}": sum(1 for q in data.questions if q.lang == lang)
            for lang in sorted({q.lang for q in data.questions if q.lang is not None})
        },
        "index_s": built.index_s,
    }
    return EvalReport(
        "facts",
        source,
        tuple(PlanScores(p.name, tallies[p.name].metrics()) for p in plans),
        FACTS_COLUMNS,
        info,
        results_path=str(out),
    )
