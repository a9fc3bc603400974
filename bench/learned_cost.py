"""What the learned ranking stage costs a search: the p50 of ``timings_ms["learned"]``
and of the whole search, over the first questions of LoCoMo dev, SciFact train and
LongMemEval dev (each of its questions a brain of its own: every text is read cold),
asked over the eval index caches (read only; docs/journal.md, "A learned ranker").

    python -m bench.learned_cost --cache /tmp/ctxkeys-evc \\
        --locomo ../shared/data/locomo/locomo-dev.json --scifact ../shared/data/scifact \\
        --longmemeval ../shared/data/longmemeval/longmemeval-s-dev50.json \\
        [--plan tuned-z] [--questions 150] [--profile]

Each question is asked once, its vector embedded ahead of the search (the embedder's
cost is left out of both figures); the process starts cold, so the text caches of
``retrieve/terms.py`` and ``retrieve/evidence.py`` hold only what earlier questions read.
``--plan tuned-z-fused`` gives the search without the stage.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
from collections.abc import Iterator
from pathlib import Path

from orgbrain.brain import Brain
from orgbrain.compose import make_embedder
from orgbrain.evals import beir as be
from orgbrain.evals import locomo as lc
from orgbrain.evals import longmemeval as lm
from orgbrain.evals.cache import index_key, indexed_brain
from orgbrain.evals.locomo_data import load_locomo
from orgbrain.evals.longmemeval_data import load_longmemeval
from orgbrain.evals.memo import QueryMemo
from orgbrain.retrieve import get_plan
from orgbrain.retrieve.plan import SearchPlan
from orgbrain.settings import Settings


def _locomo(path: Path, cache: Path, memo: QueryMemo, n: int) -> Iterator[tuple[Brain, str]]:
    asked = 0
    for conv in load_locomo(path):
        notes = [lc._note(conv.sample_id, t) for t in conv.turns]
        edges = lc._next_turns(conv)
        key = index_key("locomo", memo, notes, edges)
        with indexed_brain(cache, key, memo, lc._writer(notes, edges, False)) as (brain, _):
            for q in conv.questions:
                if asked >= n:
                    return
                asked += 1
                yield brain, q.question


def _scifact(folder: Path, cache: Path, memo: QueryMemo, n: int) -> Iterator[tuple[Brain, str]]:
    data = be.load_beir(folder, "train")
    notes = [be._note(d) for d in data.corpus]
    key = index_key("beir", memo, notes)
    with indexed_brain(cache, key, memo, be._writer(notes, None)) as (brain, _):
        for text in list(data.queries.values())[:n]:
            yield brain, text


def _lme(path: Path, cache: Path, memo: QueryMemo, n: int) -> Iterator[tuple[Brain, str]]:
    for q in load_longmemeval(path)[:n]:
        notes, edges = lm._notes(q)
        key = index_key("longmemeval", memo, notes, edges)
        with indexed_brain(cache, key, memo, lm._writer(notes, edges)) as (brain, _):
            yield brain, q.question


def _time(
    asks: Iterator[tuple[Brain, str]], plan: SearchPlan, memo: QueryMemo
) -> tuple[list[float], list[float]]:
    stage: list[float] = []
    total: list[float] = []
    for brain, query in asks:
        memo.embed([query])  # the query's vector, ahead of the timed search
        t = brain.search(query, k=10, plan=plan).timings_ms
        stage.append(t.get("learned", 0.0))
        total.append(t["total"])
    return stage, total


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--locomo", type=Path)
    ap.add_argument("--scifact", type=Path)
    ap.add_argument("--longmemeval", type=Path, help="its first 16 questions at most")
    ap.add_argument("--plan", default="tuned-z")
    ap.add_argument("--questions", type=int, default=150)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    memo = QueryMemo(make_embedder(Settings.from_env()))
    plan = get_plan(args.plan)
    print(f"plan {plan.name}, learned stage: {plan.learned.name if plan.learned else 'none'}")
    print(f"load average at the start {os.getloadavg()}")
    sets = []
    if args.locomo:
        sets.append(("locomo", lambda: _locomo(args.locomo, args.cache, memo, args.questions)))
    if args.scifact:
        sets.append(("scifact", lambda: _scifact(args.scifact, args.cache, memo, args.questions)))
    if args.longmemeval:
        n = min(16, args.questions)
        sets.append(("longmemeval", lambda: _lme(args.longmemeval, args.cache, memo, n)))
    for name, asks in sets:
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        stage, total = _time(asks(), plan, memo)
        if profiler:
            profiler.disable()
            stats = pstats.Stats(profiler).sort_stats("cumulative")
            stats.print_stats(25)
            stats.print_callees("_learned|hit_evidence|only_asks")
        print(
            f"{name}: {len(total)} questions, learned stage p50 {statistics.median(stage):.2f} ms, "
            f"search p50 {statistics.median(total):.2f} ms"
        )
    print(f"load average at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
