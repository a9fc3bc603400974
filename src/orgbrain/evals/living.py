"""The living test, measured: does the brain answer with the current belief and know what
it replaced?

Each record: ``{"id", "notes": [{"at": ISO date, "text"}], "question", "current": i,
"replaced": j}`` (note ``i`` is the current belief, note ``j`` the one it replaced), or a
control ``{"id", "notes", "question", "control": true}`` where nothing should be
superseded. A change may say which lines changed: ``"lines": [{"was", "now", "asked"}]``,
each ``was`` written as in note ``j``, ``now`` as in note ``i``, ``asked`` on the one the
question is about (the supersession judge is fitted on them: ``judge_fit``). Every
record gets a fresh brain holding a few unrelated notes and its own notes, each written
with its date and derived (the default extractor, no LLM), then one search. Three
numbers:

- **current first**: the top hit is the current note;
- **knows replaced**: the replaced note is marked superseded by the current one, or the
  search's hits mark a statement of it replaced by the current one (the current note's
  hit ``replaces`` it, or its own hit is ``replaced_by`` it: a note that says two things,
  one of them replaced, stays current as an item); the item-level figure alone is
  reported beside it (**knows replaced, items only**);
  every belief change's search also leaves a row (``LivingReport.rows``, written by
  ``orgbrain eval living --out``): the question, whether it was silent, and the gate's
  view of its first hits (``report.gate_view``), every one ``answerable`` (the current
  note holds the answer), so that ``bench/verdict_curve.py`` replays the verdict on
  organisation questions beside the ranking sets;
- **false supersession**: controls in which any note, or any statement of a note, was
  marked superseded by another of the case's notes.

Beside them, the read side's softer mark (``Hit.newer_answer``, "an older answer"): the
changes whose replaced note is known replaced or, among the question's hits, marked an
older answer of the current one (**known or marked older**), and the controls whose
question's hits mark one of the case's notes an older answer of another (**controls
marked older**).

``run_split`` (``orgbrain eval living --split``) asks the same questions where half of them
have no answer: the cases are dealt into two halves (the first, third, fifth... and the
rest), each half's notes (controls' too) written into one brain with the filler, and every
belief change's question asked of both brains. In its own half the question is answerable
(**false silence**: the brain said nothing); in the other half the brain holds the same
organisation's notes on other matters but not the answer (**spoken without an answer**:
it gave hits). A set's cases often share a subject (two cases about one system), so a few
questions do have an answer in the other half: the second figure is an upper bound. Rows
(``--out``) are marked ``answerable`` either way, for ``bench/verdict_curve.py``.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..brain import Brain, NoteInput
from ..errors import InvalidInput
from ..model import Hit, SearchResult
from ..ports import Embedder
from ..retrieve import Trace
from ..settings import Settings
from .records import data_lines
from .report import EVIDENCE_DEPTH, gate_view

__all__ = [
    "DEV_SET",
    "HELDOUT_SET",
    "Case",
    "LivingReport",
    "SplitReport",
    "filled",
    "living_json",
    "load_cases",
    "render_living",
    "render_split",
    "run_living",
    "run_split",
    "split_json",
]

DEV_SET = "living_dev.jsonl"
HELDOUT_SET = "living_heldout.jsonl"

# Unrelated notes every brain holds, so that a search ranks among more than the case's own.
FILLER = (
    "The on-call rotation changes every Monday.",
    "New hires get their laptop on the first day.",
    "The design review happens on Thursdays.",
    "The quarterly planning offsite is in the spring.",
)


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    notes: tuple[tuple[datetime, str], ...]
    question: str
    current: int | None = None
    replaced: int | None = None
    lines: tuple[tuple[str, str], ...] = ()
    """The lines that changed, each (as the replaced note says it, as the current one)."""

    @property
    def control(self) -> bool:
        return self.current is None


@dataclass(slots=True)
class LivingReport:
    source: str
    cases: int = 0
    changes: int = 0
    current_first: int = 0
    knows_replaced: int = 0
    knows_replaced_items: int = 0
    controls: int = 0
    false_supersession: int = 0
    known_or_older: int = 0
    controls_older: int = 0
    seconds: float = 0.0
    misses: list[dict[str, object]] = field(default_factory=list)
    rows: list[dict[str, object]] = field(default_factory=list)


def load_cases(path: Path | None = None, *, heldout: bool = False) -> list[Case]:
    """Records from ``path``, or the packaged dev (or held-out) set."""
    cases: list[Case] = []
    for number, line in data_lines(path, HELDOUT_SET if heldout else DEV_SET):
        try:
            raw = json.loads(line)
            notes = tuple(
                (datetime.fromisoformat(n["at"]).replace(tzinfo=UTC), str(n["text"]))
                for n in raw["notes"]
            )
            control = bool(raw.get("control"))
            current = None if control else int(raw["current"])
            replaced = None if control else int(raw["replaced"])
            for i in (current, replaced):
                if i is not None and not 0 <= i < len(notes):
                    raise ValueError(f"note {i} is not one of the {len(notes)} notes")
            lines = _lines(raw.get("lines", []), notes, current, replaced)
            case = Case(str(raw["id"]), notes, str(raw["question"]), current, replaced, lines)
            cases.append(case)
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"line {number}: not a living-test case ({exc})") from None
    return cases


def _lines(
    raw: object, notes: tuple[tuple[datetime, str], ...], current: int | None, old: int | None
) -> tuple[tuple[str, str], ...]:
    """A change's ``lines``, each one's ``was`` in the replaced note and ``now`` in the
    current one as written there."""
    if not isinstance(raw, list):
        raise ValueError("lines are a list of {was, now}")
    if not raw:
        return ()
    if current is None or old is None:
        raise ValueError("only a change has lines")
    out = []
    for line in raw:
        was, now = str(line["was"]), str(line["now"])
        if was not in notes[old][1] or now not in notes[current][1]:
            raise ValueError(f"the line {was[:40]!r} -> {now[:40]!r} is not in its notes")
        out.append((was, now))
    return tuple(out)


def run_living(
    cases: Sequence[Case],
    embedder: Embedder,
    *,
    source: str = "",
    settings: Settings | None = None,
) -> LivingReport:
    report = LivingReport(source=source, cases=len(cases))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="orgbrain-eval-living-") as tmp:
        for case in cases:
            with filled(Path(tmp) / case.id, embedder, settings) as brain:
                ids = [
                    brain.add_note(text, occurred_at=at, wait="derived").id
                    for at, text in case.notes
                ]
                _score(brain, case, ids, report)
    report.seconds = time.perf_counter() - t0
    return report


@dataclass(slots=True)
class SplitReport:
    source: str
    questions: int = 0
    silent: int = 0
    """Answerable questions (asked in their own half) that got no hits."""
    spoken: int = 0
    """Questions asked in the other half that got hits."""
    seconds: float = 0.0
    rows: list[dict[str, object]] = field(default_factory=list)


def run_split(
    cases: Sequence[Case],
    embedder: Embedder,
    *,
    source: str = "",
    settings: Settings | None = None,
) -> SplitReport:
    """Every belief change's question asked of two brains, each holding half of the cases'
    notes: in one the answer is there, in the other it is not (the module's doc)."""
    report = SplitReport(source=source)
    asked = [c for c in cases if not c.control]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="orgbrain-eval-split-") as tmp:
        for half, held in enumerate((cases[0::2], cases[1::2])):
            mine = {c.id for c in held}
            with filled(Path(tmp) / f"half{half}", embedder, settings) as brain:
                for case in held:
                    notes = [NoteInput(body=text, occurred_at=at) for at, text in case.notes]
                    brain.add_notes(notes, wait="derived")
                for case in asked:
                    answerable = case.id in mine
                    result, trace = brain.search_traced(
                        case.question, evidence_depth=EVIDENCE_DEPTH
                    )
                    report.questions += answerable
                    report.silent += answerable and not result.hits
                    report.spoken += not answerable and bool(result.hits)
                    report.rows.append(_row(brain, case, answerable, result, trace))
    report.seconds = time.perf_counter() - t0
    return report


def _score(brain: Brain, case: Case, ids: list[str], report: LivingReport) -> None:
    found = brain.get_many(ids)
    marked = {i: by for i in ids if (by := found[i].superseded_by) is not None}
    if case.control:
        report.controls += 1
        marked |= _statements_marked(brain, ids)
        if marked:
            report.false_supersession += 1
            report.misses.append({"case": case.id, "superseded": _said(case, ids, marked)})
        hits = brain.search_traced(case.question, evidence_depth=EVIDENCE_DEPTH)[0].hits
        report.controls_older += any(_older(h, set(ids)) for h in hits)
        return
    assert case.current is not None and case.replaced is not None
    report.changes += 1
    current, old = ids[case.current], ids[case.replaced]
    result, trace = brain.search_traced(case.question, evidence_depth=EVIDENCE_DEPTH)
    hits = result.hits
    report.rows.append(_row(brain, case, True, result, trace))
    top = hits[0].item.id if hits else None
    miss: dict[str, object] = {}
    if top == current:
        report.current_first += 1
    else:
        miss["top"] = found[top].body if top in found else (hits[0].item.body if hits else None)
    whole = marked.get(old) == current
    report.knows_replaced_items += whole
    known = whole or _marks_statement(hits, old, current)
    report.knows_replaced += known
    report.known_or_older += known or any(h.item.id == old and _older(h, {current}) for h in hits)
    if not known:
        miss["superseded"] = _said(case, ids, marked)
    if miss:
        report.misses.append({"case": case.id, **miss})


@contextmanager
def filled(folder: Path, embedder: Embedder, settings: Settings | None) -> Iterator[Brain]:
    """A fresh brain at ``folder`` holding the ``FILLER`` notes, its searches unlogged
    (``settings``: how it derives, e.g. which supersession runs)."""
    with Brain.open(folder, embedder=embedder, settings=settings).without_search_log() as brain:
        for body in FILLER:
            brain.add_note(body)
        yield brain


def _row(
    brain: Brain, case: Case, answerable: bool, result: SearchResult, trace: Trace
) -> dict[str, object]:
    """A belief change's search, for ``--out``: the question, whether its answer is held,
    whether the brain was silent, and the gate's view of its first hits."""
    return {
        "case": case.id,
        "question": case.question,
        "answerable": answerable,
        "plan": brain.settings.plan,
        "silent": not result.hits,
        "reason": result.reason,
        "gate": gate_view(trace, result.reason),
    }


def _statements_marked(brain: Brain, ids: list[str]) -> dict[str, str]:
    """``old -> new`` for each note a statement of which another note's replaced."""
    held = {i: brain.statements(item_id=i, current=None) for i in ids}
    owner = {s.id: i for i, stated in held.items() for s in stated}
    return {
        i: by
        for i, stated in held.items()
        for s in stated
        if (by := owner.get(s.superseded_by or "", i)) != i
    }


def _marks_statement(hits: Sequence[Hit], old: str, current: str) -> bool:
    """Whether a hit says a statement of ``old`` was replaced by one of ``current``."""
    return any(
        (h.item.id == current and any(r.citation.item_id == old for r in h.replaces))
        or (h.item.id == old and any(r.citation.item_id == current for r in h.replaced_by))
        for h in hits
    )


def _older(h: Hit, newer: set[str]) -> bool:
    """Whether hit ``h`` is marked an older answer of one of ``newer``."""
    return h.newer_answer is not None and h.newer_answer.citation.item_id in newer


def _said(case: Case, ids: list[str], marked: dict[str, str]) -> list[str]:
    """``old -> new`` per marked note, as note numbers."""
    return [
        f"{ids.index(old)} -> {ids.index(new) if new in ids else new}"
        for old, new in marked.items()
    ]


def living_json(r: LivingReport) -> dict[str, object]:
    return {
        "source": r.source,
        "cases": r.cases,
        "changes": r.changes,
        "current_first": round(_rate(r.current_first, r.changes), 3),
        "knows_replaced": round(_rate(r.knows_replaced, r.changes), 3),
        "knows_replaced_items": round(_rate(r.knows_replaced_items, r.changes), 3),
        "controls": r.controls,
        "false_supersession": round(_rate(r.false_supersession, r.controls), 3),
        "known_or_older": round(_rate(r.known_or_older, r.changes), 3),
        "controls_older": round(_rate(r.controls_older, r.controls), 3),
        "seconds": round(r.seconds, 2),
        "misses": r.misses,
    }


def split_json(r: SplitReport) -> dict[str, object]:
    return {
        "source": r.source,
        "questions": r.questions,
        "false_silence": round(_rate(r.silent, r.questions), 3),
        "spoken_without_answer": round(_rate(r.spoken, r.questions), 3),
        "seconds": round(r.seconds, 2),
    }


def render_split(r: SplitReport) -> str:
    return "\n".join(
        [
            f"living test, split in halves, on {r.source}: {r.questions} questions asked "
            f"in both halves ({r.seconds:.1f} s)",
            f"  false silence          {_rate(r.silent, r.questions):.3f}  "
            f"({r.silent}/{r.questions}: no hits where the answer is held)",
            f"  spoken without answer  {_rate(r.spoken, r.questions):.3f}  "
            f"({r.spoken}/{r.questions}: hits where only the other half is held; "
            "an upper bound)",
        ]
    )


def _rate(n: int, of: int) -> float:
    return n / of if of else 0.0


def render_living(r: LivingReport) -> str:
    return "\n".join(
        [
            f"living test on {r.source}: {r.changes} belief changes, {r.controls} controls "
            f"({r.seconds:.1f} s)",
            f"  current first       {_rate(r.current_first, r.changes):.3f}  "
            f"({r.current_first}/{r.changes}: the top hit is the current belief)",
            f"  knows replaced      {_rate(r.knows_replaced, r.changes):.3f}  "
            f"({r.knows_replaced}/{r.changes}: the replaced note, or a statement of it, "
            "is marked superseded by it)",
            f"    items only        {_rate(r.knows_replaced_items, r.changes):.3f}  "
            f"({r.knows_replaced_items}/{r.changes}: the replaced note as a whole)",
            f"  false supersession  {_rate(r.false_supersession, r.controls):.3f}  "
            f"({r.false_supersession}/{r.controls} controls had a note marked superseded)",
            f"  known or marked older {_rate(r.known_or_older, r.changes):.3f}  "
            f"({r.known_or_older}/{r.changes}: or the question's hits mark the replaced note "
            "an older answer of the current one)",
            f"  controls marked older {_rate(r.controls_older, r.controls):.3f}  "
            f"({r.controls_older}/{r.controls}: the question's hits mark a note an older "
            "answer of another)",
        ]
    )
