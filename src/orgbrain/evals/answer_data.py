"""The answerability judge's examples: each question of the project's sets asked as
shipped, with the passages the verdict read (before it decided) and which of them answer.

One ``Asked`` per search: the set and group it came from (an organisation, a LoCoMo
conversation, one fact set), the question, whether its answer is held, whether today's
verdict spoke, and up to ``EVIDENCE_DEPTH`` candidates (the hits the gate reads, in its
order), each with its text, whether it answers, and the gate's view of it. The searches
are the expensive part, so ``answer_fit`` reads them from a JSONL file written once
(``orgbrain eval answer --collect FILE``):

- the living sets, each asked as ``orgbrain eval living --split`` asks it: of a brain
  holding its answer (the current note answers) and of one holding the other half of the
  organisation's notes (none does);
- the facts (``facts_dev``, ``facts_dated``): a question answers with its facts, or has none;
- LoCoMo (its first conversations): categories 1-4 answer with their evidence turns,
  category 5 has no answer;
- SciFact (a few claims over a cut corpus): every claim is answered by its judged abstracts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from ..brain import Brain, NoteInput
from ..ports import Embedder
from ..retrieve import Trace
from . import beir, facts, locomo, locomo_data
from .cache import index_key, indexed_brain
from .judge_fit import living_sets, organisation
from .living import Case, filled, load_cases
from .memo import QueryMemo
from .report import EVIDENCE_DEPTH, gate_view

__all__ = ["Asked", "Candidate", "collect", "load_asked", "write_asked"]


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    answers: bool
    gate: list[object]
    """``[names, coverage, cosine, asks, graph, mentions, names_asked, lang]``
    (``gate_view``)."""


@dataclass(frozen=True, slots=True)
class Asked:
    set: str
    group: str
    question: str
    answerable: bool
    spoke: bool
    candidates: tuple[Candidate, ...]


def _asked(
    brain: Brain,
    where: tuple[str, str],
    question: str,
    answerable: bool,
    answers: Callable[[str, str], bool],
    asked_at: datetime | None = None,
) -> Asked:
    """``question`` asked of ``brain`` as shipped; ``answers(source_key, body)`` says
    whether a hit answers it."""
    b = brain if asked_at is None else brain.with_clock(lambda: asked_at)
    result, trace = b.search_traced(question, evidence_depth=EVIDENCE_DEPTH)
    return Asked(*where, question, answerable, bool(result.hits), _candidates(b, trace, answers))


def _candidates(
    brain: Brain, trace: Trace, answers: Callable[[str, str], bool]
) -> tuple[Candidate, ...]:
    items = brain.get_many(list(trace.read))
    view = gate_view(trace, "")["evidence"]
    assert isinstance(view, list)
    out = []
    for item_id, gate in zip(trace.read, view, strict=True):
        item = items[item_id]
        # A note's label is its own first words: said once, not twice.
        said = not item.label or item.body.startswith(item.label.rstrip("…"))
        text = item.body if said else f"{item.label}\n{item.body}"
        out.append(Candidate(text, answers(item.source_key, item.body), gate))
    return tuple(out)


def living(paths: Sequence[Path], embedder: Embedder, folder: Path) -> Iterator[Asked]:
    for path in paths:
        org = organisation(path)
        cases = load_cases(path)
        asked = [c for c in cases if not c.control]
        for half, held in enumerate((cases[0::2], cases[1::2])):
            mine = {c.id: c for c in held}
            with filled(folder / f"{org}-{half}", embedder, None) as brain:
                for case in held:
                    notes = [NoteInput(body=text, occurred_at=at) for at, text in case.notes]
                    brain.add_notes(notes, wait="derived")
                for case in asked:
                    own = mine.get(case.id)
                    yield _asked(
                        brain, ("living", org), case.question, own is not None, _current(own)
                    )


def _current(case: Case | None) -> Callable[[str, str], bool]:
    if case is None or case.current is None:
        return lambda _key, _body: False
    text = case.notes[case.current][1].strip()
    return lambda _key, body: body.strip() == text


def fact_sets(names: Sequence[str], embedder: Embedder) -> Iterator[Asked]:
    memo = QueryMemo(embedder)
    for name in names:
        data = facts.load_facts(_data(name))
        notes = [facts._note(f) for f in data.facts]
        key = index_key("facts", memo, notes)
        with indexed_brain(None, key, memo, facts._writer(notes)) as (brain, _):
            for q in data.questions:
                keys = {facts.KEY_PREFIX + a for a in q.answers}
                yield _asked(
                    brain,
                    ("facts", name),
                    q.question,
                    bool(q.answers),
                    lambda key, _body, keys=keys: key in keys,  # type: ignore[misc]
                    q.asked,
                )


def _data(name: str) -> Path:
    from importlib import resources

    return Path(str(resources.files("orgbrain.evals.data"))) / f"{name}.jsonl"


def locomo_sets(
    path: Path, embedder: Embedder, conversations: int, cache: Path | None
) -> Iterator[Asked]:
    memo = QueryMemo(embedder)
    for conv in locomo_data.load_locomo(path)[:conversations]:
        notes = [locomo._note(conv.sample_id, t) for t in conv.turns]
        edges = locomo._next_turns(conv)
        key = index_key("locomo", memo, notes, edges)
        prefix = f"locomo:{conv.sample_id}:"
        with indexed_brain(cache, key, memo, locomo._writer(notes, edges, False)) as (brain, _):
            for q in conv.questions:
                gold = {prefix + d for d in q.evidence}
                yield _asked(
                    brain,
                    ("locomo", conv.sample_id),
                    q.question,
                    q.category != 5,
                    lambda key, _body, gold=gold: key in gold,  # type: ignore[misc]
                )


def scifact(folder: Path, embedder: Embedder, queries: int, cache: Path | None) -> Iterator[Asked]:
    data = beir.limit_beir(
        beir.load_beir(folder, "train"), limit_queries=queries, limit_docs=queries * 4
    )
    memo = QueryMemo(embedder)
    notes = [beir._note(d) for d in data.corpus]
    key = index_key("beir", memo, notes)
    with indexed_brain(cache, key, memo, beir._writer(notes, None)) as (brain, _):
        for qid, text in data.queries.items():
            gold = {beir.KEY_PREFIX + d for d, s in data.qrels[qid].items() if s > 0}
            yield _asked(
                brain,
                ("scifact", "scifact"),
                text,
                True,
                lambda key, _body, gold=gold: key in gold,  # type: ignore[misc]
            )


def collect(
    embedder: Embedder,
    folder: Path,
    *,
    shared: Path | None,
    conversations: int = 2,
    claims: int = 150,
    cache: Path | None = None,
) -> Iterator[Asked]:
    """Every set's questions (``shared``: the folder holding ``locomo/`` and ``scifact/``,
    when there is one)."""
    yield from living(living_sets(), embedder, folder)
    yield from fact_sets(("facts_dev", "facts_dated"), embedder)
    if shared is not None and (shared / "locomo" / "locomo-dev.json").is_file():
        yield from locomo_sets(
            shared / "locomo" / "locomo-dev.json", embedder, conversations, cache
        )
    if shared is not None and (shared / "scifact" / "corpus.jsonl").is_file():
        yield from scifact(shared / "scifact", embedder, claims, cache)


def write_asked(rows: Iterator[Asked], path: Path) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(asdict(row), ensure_ascii=False) + "\n")
            f.flush()
            n += 1
    return n


def load_asked(path: Path) -> list[Asked]:
    out = []
    for line in path.read_text("utf-8").splitlines():
        raw = json.loads(line)
        cands = tuple(Candidate(**c) for c in raw.pop("candidates"))
        out.append(Asked(**raw, candidates=cands))
    return out
