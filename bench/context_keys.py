"""Contextual keys, replayed: a conversation turn's keyword text gains its neighbours' words.

Issue 17's ranking candidate (docs/eval.md, "Ranking candidates, this session"). Over a
*copy* of an eval index cache (``--cache``, as the evals build it), each cached brain is
copied to ``--work`` and its rows' keyword text re-keyed: the label (which the keyword
index reads with the body, rebuilt from the rows on a process's first search) gains the
previous turn's body (``prev``), or the previous and the next one's (``both``), each cut
at ``--cap`` characters, within the same session. Bodies and vectors are untouched, so
nothing is re-embedded. Then every question is asked with the plan's ranking alone (no
floors, no gate), as the evals' ranking metrics do; ``--no-neighbour-boost`` sets the
plan's ``neighbour_weight`` to 0 (the keys replace the boost).

    python -m bench.context_keys locomo ../shared/data/locomo/locomo-dev.json \\
        --cache C --work /tmp/ctx --mode both --no-neighbour-boost
    python -m bench.context_keys longmemeval ../shared/data/longmemeval/longmemeval-s-dev50.json \\
        --cache C --work /tmp/ctx --mode both --cap 300 --no-neighbour-boost

Prints LoCoMo recall@10 per category, or LongMemEval recall_all@5 per question type.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from orgbrain.compose import make_embedder
from orgbrain.evals import locomo as lc
from orgbrain.evals import longmemeval as lm
from orgbrain.evals.cache import index_key, indexed_brain
from orgbrain.evals.locomo_data import load_locomo
from orgbrain.evals.longmemeval_data import load_longmemeval
from orgbrain.evals.memo import QueryMemo
from orgbrain.evals.metrics import recall_at_k
from orgbrain.retrieve import PLANS
from orgbrain.retrieve.plan import SearchPlan
from orgbrain.settings import Settings

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def rekey(folder: Path, keys: Sequence[str], mode: str, cap: int) -> None:
    """Append each turn's neighbours (same session) to its label in ``folder``'s brain."""
    db = sqlite3.connect(folder / "brain" / "brain.sqlite")
    try:
        body = dict(db.execute("SELECT source_key, body FROM items"))
        label = dict(db.execute("SELECT source_key, label FROM items"))

        def session(key: str) -> str:
            return key.rsplit(":", 1)[0]

        for i, key in enumerate(keys):
            near = [i - 1] + ([i + 1] if mode == "both" else [])
            extra = [
                (body[keys[j]] or "")[:cap]
                for j in near
                if 0 <= j < len(keys) and session(keys[j]) == session(key) and keys[j] in body
            ]
            if extra and key in label:
                text = "\n".join([label[key] or "", *extra])
                db.execute("UPDATE items SET label = ? WHERE source_key = ?", (text, key))
        db.commit()
    finally:
        db.close()


def _copy(cache: Path, work: Path, key: str, keys: Sequence[str], mode: str, cap: int) -> Path:
    if mode == "none":
        return cache
    if not (work / key).exists():
        shutil.copytree(cache / key, work / key)
        rekey(work / key, keys, mode, cap)
    return work


def run_locomo(file: Path, cache: Path, work: Path, plan: SearchPlan, mode: str, cap: int) -> None:
    emb = QueryMemo(make_embedder(Settings.from_env()))
    by: dict[int, list[float]] = {}
    for conv in load_locomo(file):
        notes = [lc._note(conv.sample_id, t) for t in conv.turns]
        edges = lc._next_turns(conv)
        key = index_key("locomo", emb, notes, edges)
        where = _copy(cache, work, key, [n.source_key for n in notes], mode, cap)
        with indexed_brain(where, key, emb, lc._writer(notes, edges, False)) as (brain, built):
            if not built.cached:
                raise SystemExit(f"{key} is not in the cache: build it with orgbrain eval first")
            prefix = f"locomo:{conv.sample_id}:"
            for q in conv.questions:
                if q.category == 5 or not q.evidence:
                    continue
                hits = brain.search(q.question, k=100, plan=plan).hits
                ids = [h.item.source_key[len(prefix) :] for h in hits]
                by.setdefault(q.category, []).append(recall_at_k(ids, q.evidence, 10))
    every = [v for vs in by.values() for v in vs]
    parts = ", ".join(f"{CATEGORIES[c]} {sum(v) / len(v):.3f}" for c, v in sorted(by.items()))
    print(f"locomo {mode}: recall@10 {sum(every) / len(every):.4f} ({parts}; {len(every)})")


def run_longmemeval(
    file: Path, cache: Path, work: Path, plan: SearchPlan, mode: str, cap: int
) -> None:
    emb = QueryMemo(make_embedder(Settings.from_env()))
    ok: dict[str, list[bool]] = {}
    for q in load_longmemeval(file):
        notes, edges = lm._notes(q)
        key = index_key("longmemeval", emb, notes, edges)
        where = _copy(cache, work, key, [n.source_key for n in notes], mode, cap)
        with indexed_brain(where, key, emb, lm._writer(notes, edges)) as (brain, built):
            if not built.cached:
                raise SystemExit(f"{key} is not in the cache: build it with orgbrain eval first")
            if q.abstention:
                continue
            hits = brain.search(q.question, k=100, plan=plan).hits
            ranked = lm.sessions_ranked([h.item.source_key for h in hits], f"lme:{q.question_id}:")
            ok.setdefault(q.question_type, []).append(
                all(s in ranked[:5] for s in q.answer_sessions)
            )
    every = [v for vs in ok.values() for v in vs]
    parts = ", ".join(f"{t} {sum(v)}/{len(v)}" for t, v in ok.items())
    print(f"longmemeval {mode}: recall_all@5 {sum(every) / len(every):.3f} ({parts})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", choices=("locomo", "longmemeval"))
    ap.add_argument("file", type=Path)
    ap.add_argument("--cache", type=Path, required=True, help="an eval index cache (read only)")
    ap.add_argument("--work", type=Path, required=True, help="where the re-keyed copies go")
    ap.add_argument("--mode", choices=("none", "prev", "both"), default="both")
    ap.add_argument("--cap", type=int, default=10_000, help="characters kept per neighbour")
    ap.add_argument("--plan", default="tuned-z")
    ap.add_argument("--no-neighbour-boost", action="store_true")
    args = ap.parse_args()
    plan = PLANS[args.plan]
    if args.no_neighbour_boost:
        plan = replace(plan, neighbour_weight=0.0)
    deep = plan.with_limits(k_max=100, floors=False)
    work = args.work / f"{args.dataset}-{args.mode}-{args.cap}"
    work.mkdir(parents=True, exist_ok=True)
    run = run_locomo if args.dataset == "locomo" else run_longmemeval
    run(args.file, args.cache, work, deep, args.mode, args.cap)


if __name__ == "__main__":
    main()
