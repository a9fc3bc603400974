"""A learned order for the head of the default search, trained here on the dev sets.

Issue 17's reranker candidate (docs/journal.md, "A learned ranker"). Two steps:

``dump``: every question of every dev set asked over the eval index caches (as the evals
build them; read only) with the default plan's ranking (no floors, no gate) and a
do-nothing ranker of depth 50, whose trace holds each head candidate's features
(``retrieve.learned.FEATURES``); each row is written with its labels (LoCoMo: the
evidence turns; SciFact: the qrels; LongMemEval: the turns that hold the answer, and
their sessions; facts: the answering facts) and a fold (LoCoMo: the conversation;
SciFact: the claim id; LongMemEval: the question; facts: the question), as JSONL.

``fit``: a pairwise logistic model (a relevant candidate against an irrelevant one of
the same question), every set weighing the same, cross-validated by fold: for each
fold, the model fitted on the other folds of every set reorders that fold's heads, and
each set's own metric (LoCoMo recall@10, SciFact nDCG@10, LongMemEval recall_all@5,
facts recall@5) is scored on the held-out questions; then on everything (the train
figure), which gives the weights to ship (``--write`` writes
``src/orgbrain/retrieve/learned_model.py``).

    python -m bench.learned_rank dump --cache /tmp/ctxkeys-evc --out /tmp/rank/head.jsonl \\
        --locomo ../shared/data/locomo/locomo-dev.json --scifact ../shared/data/scifact \\
        --longmemeval ../shared/data/longmemeval/longmemeval-s-dev50.json --lme-limit 16
    python -m bench.learned_rank select /tmp/rank/head.jsonl --depth 50
    python -m bench.learned_rank fit /tmp/rank/head.jsonl --depth 50 \\
        --keep score_share asks names run_count --write
    python -m bench.learned_rank session /tmp/rank/head.jsonl --weights 0.1 0.3
    python -m bench.learned_rank replay /tmp/rank/head.jsonl [/tmp/rank/other.jsonl]

``replay``: the shipped model (``retrieve.learned_model.LEARNED``) over a dump's heads, by
set; given a second dump (the same questions over other candidates: another plan, a
patched stream), each question's figure paired with the first's (difference ± standard
error, questions up and down): how a change before the learned stage is judged with the
stage as shipped.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from orgbrain.brain import Brain
from orgbrain.compose import make_embedder
from orgbrain.evals import beir as be
from orgbrain.evals import facts as fa
from orgbrain.evals import locomo as lc
from orgbrain.evals import longmemeval as lm
from orgbrain.evals.cache import index_key, indexed_brain
from orgbrain.evals.locomo_data import ANSWERABLE, load_locomo
from orgbrain.evals.longmemeval_data import LmeQuestion, load_longmemeval
from orgbrain.evals.memo import QueryMemo
from orgbrain.evals.metrics import ndcg_at_k, recall_at_k
from orgbrain.retrieve import get_plan
from orgbrain.retrieve.learned import FEATURES, LinearRanker
from orgbrain.retrieve.plan import SearchPlan
from orgbrain.settings import Settings

FOLDS = 5
DUMP_DEPTH = 50
SETS = ("locomo", "scifact", "longmemeval", "facts")


def _capture(plan: SearchPlan) -> SearchPlan:
    n = len(FEATURES)
    still = LinearRanker(
        "still", (0.0,) * n, (0.0,) * n, (1.0,) * n, depth=DUMP_DEPTH, every_feature=True
    )
    return replace(plan.with_limits(k_max=100, floors=False), learned=still)


def _cached(cache: Path, key: str, what: str) -> bool:
    """Whether the eval cache holds ``key``: this script reads caches, never builds one."""
    if (cache / key / "index.json").is_file():
        return True
    print(f"{what}: not in the cache {cache}, skipped (build it with the eval first)")
    return False


def _ask(brain: Brain, query: str, plan: SearchPlan) -> dict[str, Any]:
    result, trace = brain.search_traced(query, k=100, plan=plan, evidence_depth=0)
    keys = {h.item.id: h.item.source_key for h in result.hits}
    return {
        "ranked": [h.item.source_key for h in result.hits],
        "head": [keys[i] for i, _ in trace.head],
        "x": [[round(v, 5) for v in row] for _, row in trace.head],
    }


def _locomo(path: Path, cache: Path, memo: QueryMemo, plan: SearchPlan) -> Iterator[dict[str, Any]]:
    for conv in load_locomo(path):
        notes = [lc._note(conv.sample_id, t) for t in conv.turns]
        edges = lc._next_turns(conv)
        key = index_key("locomo", memo, notes, edges)
        if not _cached(cache, key, f"locomo {conv.sample_id}"):
            continue
        with indexed_brain(cache, key, memo, lc._writer(notes, edges, False)) as (brain, _):
            for q in conv.questions:
                if q.category not in ANSWERABLE or not q.evidence:
                    continue
                prefix = f"locomo:{conv.sample_id}:"
                yield {
                    "set": "locomo",
                    "fold": conv.sample_id,
                    "qid": f"{conv.sample_id}:{q.number}",
                    "cat": q.category,
                    "gold": {prefix + e: 1 for e in q.evidence},
                    **_ask(brain, q.question, plan),
                }


def _scifact(
    folder: Path, cache: Path, memo: QueryMemo, plan: SearchPlan
) -> Iterator[dict[str, Any]]:
    data = be.load_beir(folder, "train")
    notes = [be._note(d) for d in data.corpus]
    key = index_key("beir", memo, notes)
    if not _cached(cache, key, "scifact"):
        return
    with indexed_brain(cache, key, memo, be._writer(notes, None)) as (brain, _):
        for qid, text in data.queries.items():
            yield {
                "set": "scifact",
                "fold": qid,
                "qid": qid,
                "gold": {be.KEY_PREFIX + d: g for d, g in data.qrels[qid].items() if g > 0},
                **_ask(brain, text, plan),
            }


def lme_labels(q: LmeQuestion) -> dict[str, Any]:
    """A LongMemEval question's row before its candidates: the turns that hold the answer
    (in its answer sessions), the sessions, the fold."""
    gold = {
        lm._key(q, s.session_id, n): 1
        for s in q.sessions
        for n, t in enumerate(s.turns)
        if t.has_answer and s.session_id in q.answer_sessions
    }
    return {
        "set": "longmemeval",
        "fold": q.question_id,
        "qid": q.question_id,
        "gold": gold,
        "sessions": list(q.answer_sessions),
        "prefix": f"lme:{q.question_id}:",
    }


def _lme(
    path: Path, limit: int, cache: Path, memo: QueryMemo, plan: SearchPlan
) -> Iterator[dict[str, Any]]:
    for q in load_longmemeval(path)[:limit]:
        if q.abstention or not q.answer_sessions:
            continue
        notes, edges = lm._notes(q)
        key = index_key("longmemeval", memo, notes, edges)
        if not _cached(cache, key, f"longmemeval {q.question_id}"):
            continue
        with indexed_brain(cache, key, memo, lm._writer(notes, edges)) as (brain, _):
            yield {**lme_labels(q), **_ask(brain, q.question, plan)}


def _facts(memo: QueryMemo, plan: SearchPlan) -> Iterator[dict[str, Any]]:
    data = fa.load_facts()
    notes = [fa._note(f) for f in data.facts]
    key = index_key("facts", memo, notes)
    with indexed_brain(None, key, memo, fa._writer(notes)) as (brain, _):
        for n, q in enumerate(data.questions):
            if not q.answers:
                continue
            yield {
                "set": "facts",
                "fold": str(n),
                "qid": str(n),
                "gold": {fa.KEY_PREFIX + a: 1 for a in q.answers},
                **_ask(brain, q.question, plan),
            }


def dump(args: argparse.Namespace) -> None:
    memo = QueryMemo(make_embedder(Settings.from_env()))
    plan = _capture(get_plan(args.plan))
    sources: list[Iterator[dict[str, Any]]] = [_facts(memo, plan)]
    if args.locomo:
        sources.append(_locomo(Path(args.locomo), Path(args.cache), memo, plan))
    if args.scifact:
        sources.append(_scifact(Path(args.scifact), Path(args.cache), memo, plan))
    if args.longmemeval:
        path = Path(args.longmemeval)
        sources.append(_lme(path, args.lme_limit, Path(args.cache), memo, plan))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a" if args.append else "w") as f:
        for source in sources:
            n = 0
            for row in source:
                f.write(json.dumps(row) + "\n")
                n += 1
            print(f"{n} questions")


# -- fitting ----------------------------------------------------------------------------


def _fold(row: dict[str, Any]) -> int:
    """The held-out fold of a question: its conversation for LoCoMo (five of them), a
    hash of its id elsewhere."""
    if row["set"] == "locomo":
        return sorted(_LOCOMO_CONVS).index(row["fold"]) % FOLDS if _LOCOMO_CONVS else 0
    return zlib.crc32(row["fold"].encode()) % FOLDS


_LOCOMO_CONVS: set[str] = set()


def metric(row: dict[str, Any], ranked: Sequence[str]) -> float:
    """The set's own figure for one question, from its ranked source keys."""
    gold: dict[str, int] = row["gold"]
    s = row["set"]
    if s == "locomo":
        return recall_at_k(list(ranked), list(gold), 10)
    if s == "scifact":
        return ndcg_at_k(list(ranked), gold, 10)
    if s == "facts":
        return float(any(k in gold for k in ranked[:5]))
    sessions = lm.sessions_ranked(ranked, row["prefix"])
    top = set(sessions[:5])
    return float(all(g in top for g in row["sessions"]))


def reranked(row: dict[str, Any], scores: Sequence[float] | None, depth: int) -> list[str]:
    """The row's ranked keys with its first ``depth`` head candidates in ``scores``'
    order (None: as fused)."""
    head = row["head"][:depth]
    if scores is None:
        return list(row["ranked"])
    order = sorted(range(len(head)), key=lambda j: (-scores[j], j))
    new = [head[j] for j in order]
    rest = [k for k in row["ranked"] if k not in set(head)]
    return new + rest


def _labels(row: dict[str, Any], depth: int) -> list[int]:
    gold = row["gold"]
    return [int(gold.get(k, 0) > 0) for k in row["head"][:depth]]


def _pairs(
    rows: Sequence[dict[str, Any]], depth: int, mean: np.ndarray, scale: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairwise differences (relevant minus irrelevant, and the reverse), weighted so
    that every set, and every question within it, counts the same."""
    per_set: dict[str, int] = {}
    for r in rows:
        per_set[r["set"]] = per_set.get(r["set"], 0) + 1
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    ws: list[np.ndarray] = []
    for r in rows:
        x = (np.asarray(r["x"][:depth], dtype=float) - mean) / scale
        y = np.asarray(_labels(r, depth))
        pos, neg = np.where(y == 1)[0], np.where(y == 0)[0]
        if len(pos) == 0 or len(neg) == 0:
            continue
        d = (x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, x.shape[1])
        w = 1.0 / (len(d) * per_set[r["set"]] * len(per_set))
        xs += [d, -d]
        ys += [np.ones(len(d)), np.zeros(len(d))]
        ws += [np.full(len(d), w), np.full(len(d), w)]
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)


def train(
    rows: Sequence[dict[str, Any]], depth: int, c: float, drop: Sequence[str] = ()
) -> LinearRanker:
    from sklearn.linear_model import LogisticRegression

    allx = np.concatenate([np.asarray(r["x"][:depth], dtype=float) for r in rows])
    mean = allx.mean(axis=0)
    scale = allx.std(axis=0)
    scale[scale == 0] = 1.0
    x, y, w = _pairs(rows, depth, mean, scale)
    model = LogisticRegression(C=c, fit_intercept=False, max_iter=2000)
    keep = np.array([name not in drop for name in FEATURES])
    model.fit(x[:, keep], y, sample_weight=w * len(w))
    coef = np.zeros(len(FEATURES))
    coef[keep] = model.coef_[0]
    return LinearRanker(
        "learned",
        tuple(round(float(v), 4) for v in coef),
        tuple(round(float(v), 4) for v in mean),
        tuple(round(float(v), 4) for v in scale),
        depth=depth,
    )


def _score(ranker: LinearRanker, row: dict[str, Any]) -> list[float]:
    return [ranker.score(x) for x in row["x"][: ranker.depth]]


def _paired_se(
    rows: Sequence[dict[str, Any]], scores: dict[str, list[float]], depth: int, name: str
) -> float:
    """The standard error of the per-question difference from the fused order, on one set."""
    d = [
        metric(r, reranked(r, scores[r["set"] + r["qid"]], depth)) - metric(r, r["ranked"])
        for r in rows
        if r["set"] == name
    ]
    return float(np.std(d, ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0


def _figures(
    rows: Sequence[dict[str, Any]], scores: dict[str, list[float]] | None, depth: int
) -> dict[str, tuple[float, int]]:
    out: dict[str, list[float]] = {}
    for r in rows:
        s = None if scores is None else scores[r["set"] + r["qid"]]
        out.setdefault(r["set"], []).append(metric(r, reranked(r, s, depth)))
    return {k: (sum(v) / len(v), len(v)) for k, v in out.items()}


def _locomo_cats(
    rows: Sequence[dict[str, Any]], scores: dict[str, list[float]] | None, depth: int
) -> dict[int, float]:
    out: dict[int, list[float]] = {}
    for r in rows:
        if r["set"] != "locomo":
            continue
        s = None if scores is None else scores[r["set"] + r["qid"]]
        out.setdefault(r["cat"], []).append(metric(r, reranked(r, s, depth)))
    return {k: sum(v) / len(v) for k, v in sorted(out.items())}


def fit(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for line in Path(args.data).open()]
    rows = [r for r in rows if r["head"] and (not args.sets or r["set"] in args.sets)]
    _LOCOMO_CONVS.update(r["fold"] for r in rows if r["set"] == "locomo")
    depth = args.depth
    base = _figures(rows, None, depth)
    if args.keep:
        args.drop = [f for f in FEATURES if f not in args.keep]
    held = _held_out(rows, depth, args.c, args.drop)
    held_fig = _figures(rows, held, depth)
    ranker = train(rows, depth, args.c, args.drop)
    trained = {r["set"] + r["qid"]: _score(ranker, r) for r in rows}
    train_fig = _figures(rows, trained, depth)
    print(f"depth {depth}, C {args.c}")
    print(f"{'set':12} {'n':>5} {'fused':>7} {'held-out':>9} {'(SE)':>7} {'train':>7}")
    for s in SETS:
        if s in base:
            se = _paired_se(rows, held, depth, s)
            print(
                f"{s:12} {base[s][1]:5d} {base[s][0]:7.3f} {held_fig[s][0]:9.3f} "
                f"{se:7.4f} {train_fig[s][0]:7.3f}"
            )
    cats = (_locomo_cats(rows, None, depth), _locomo_cats(rows, held, depth))
    print(
        "locomo by category (fused -> held-out):",
        {k: (round(cats[0][k], 3), round(cats[1][k], 3)) for k in cats[0]},
    )
    for name, w in sorted(zip(FEATURES, ranker.weights, strict=True), key=lambda t: -abs(t[1])):
        print(f"  {name:14} {w:+.3f}")
    if args.write:
        _write(ranker)


def _held_out(
    rows: Sequence[dict[str, Any]], depth: int, c: float, drop: Sequence[str]
) -> dict[str, list[float]]:
    held: dict[str, list[float]] = {}
    for f in range(FOLDS):
        ranker = train([r for r in rows if _fold(r) != f], depth, c, drop)
        for r in rows:
            if _fold(r) == f:
                held[r["set"] + r["qid"]] = _score(ranker, r)
    return held


def select(args: argparse.Namespace) -> None:
    """Forward selection over the held-out figures: from ``--start``, add the feature
    that gains most in sum over the sets, none of them worse than one standard error."""
    rows = [json.loads(line) for line in Path(args.data).open()]
    rows = [r for r in rows if r["head"]]
    _LOCOMO_CONVS.update(r["fold"] for r in rows if r["set"] == "locomo")
    depth = args.depth
    base = _figures(rows, None, depth)
    chosen = list(args.start)
    for _ in range(args.rounds):
        best: tuple[float, str] | None = None
        for name in FEATURES:
            if name in chosen:
                continue
            drop = [f for f in FEATURES if f not in [*chosen, name]]
            held = _held_out(rows, depth, args.c, drop)
            fig = _figures(rows, held, depth)
            gains = {s: fig[s][0] - base[s][0] for s in fig}
            ok = all(g >= -max(_paired_se(rows, held, depth, s), 1e-3) for s, g in gains.items())
            print(name, {s: round(g, 4) for s, g in gains.items()}, "ok" if ok else "worse")
            if ok and (best is None or sum(gains.values()) > best[0]):
                best = (sum(gains.values()), name)
        if best is None:
            break
        chosen.append(best[1])
        print("add", best[1], round(best[0], 4))
    print("chosen:", *chosen)


def session(args: argparse.Namespace) -> None:
    """Candidate (d) of docs/journal.md, replayed on every set: a candidate gains ``w`` times
    the best other candidate of its run or file (both as shares of the list's best)."""
    rows = [json.loads(line) for line in Path(args.data).open()]
    rows = [r for r in rows if r["head"]]
    depth = args.depth
    share, best = FEATURES.index("score_share"), FEATURES.index("run_best")
    base = _figures(rows, None, depth)
    print(f"{'w':>5} " + " ".join(f"{s:>12}" for s in SETS if s in base))
    print(f"{'-':>5} " + " ".join(f"{base[s][0]:12.3f}" for s in SETS if s in base))
    for w in args.weights:
        scores = {
            r["set"] + r["qid"]: [x[share] + w * x[best] for x in r["x"][:depth]] for r in rows
        }
        fig = _figures(rows, scores, depth)
        cats = _locomo_cats(rows, scores, depth)
        print(
            f"{w:5.2f} "
            + " ".join(f"{fig[s][0]:12.3f}" for s in SETS if s in fig)
            + f"   locomo by category {[round(v, 3) for v in cats.values()]}"
        )


def _shipped(path: str) -> dict[tuple[str, str], float]:
    """Each question's figure with the shipped model reordering its head."""
    from orgbrain.retrieve.learned_model import LEARNED

    out: dict[tuple[str, str], float] = {}
    for line in Path(path).open():
        r = json.loads(line)
        if r["head"]:
            scores = [LEARNED.score(x[: len(FEATURES)]) for x in r["x"][: LEARNED.depth]]
            out[(r["set"], r["qid"])] = metric(r, reranked(r, scores, LEARNED.depth))
    return out


def replay(args: argparse.Namespace) -> None:
    first = _shipped(args.data)
    other = _shipped(args.other) if args.other else None
    for name in SETS:
        keys = [k for k in first if k[0] == name and (other is None or k in other)]
        if not keys:
            continue
        a = np.array([first[k] for k in keys])
        line = f"{name:12} {len(keys):5d} {a.mean():7.4f}"
        if other is not None:
            d = np.array([other[k] for k in keys]) - a
            se = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else 0.0
            line += (
                f" {a.mean() + d.mean():7.4f} {d.mean():+.4f} ± {se:.4f}"
                f" up {int((d > 0).sum())} down {int((d < 0).sum())}"
            )
        print(line)


def _write(ranker: LinearRanker) -> None:
    path = Path(__file__).resolve().parent.parent / "src/orgbrain/retrieve/learned_model.py"
    keep = " ".join(f for f, w in zip(FEATURES, ranker.weights, strict=True) if w)
    body = (
        '"""The learned ranker\'s weights, as ``bench/learned_rank.py fit --write`` fitted them\n'
        f'on the dev sets on {date.today().isoformat()} (docs/journal.md, "A learned ranker", and\n'
        '"The refit"): the default plan\'s last ranking stage (``tuned-z``). Generated: do not\n'
        "edit. Refit whenever the candidates change (a new stream, new keyword text, another\n"
        "fusion): ``dump`` over the eval caches, then\n"
        f"``fit --depth {ranker.depth} --keep {keep} --write``.\n"
        '"""\n\n'
        "from .learned import LinearRanker\n\n"
        '__all__ = ["LEARNED"]\n\n'
        f"LEARNED = LinearRanker(\n    {ranker.name!r},\n"
        f"    weights={ranker.weights!r},\n    mean={ranker.mean!r},\n"
        f"    scale={ranker.scale!r},\n    depth={ranker.depth},\n)\n"
    )
    path.write_text(body)
    subprocess.run(["ruff", "format", "-q", str(path)], check=False)
    print(f"wrote {path}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--cache", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--plan", default="tuned-z")
    d.add_argument("--locomo")
    d.add_argument("--scifact")
    d.add_argument("--longmemeval")
    d.add_argument("--lme-limit", type=int, default=16)
    d.add_argument("--append", action="store_true")
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--depth", type=int, default=30)
    f.add_argument("--c", type=float, default=1.0)
    f.add_argument("--write", action="store_true")
    f.add_argument("--drop", nargs="*", default=[], help="features to leave out")
    f.add_argument("--keep", nargs="*", default=[], help="the only features to use")
    f.add_argument("--sets", nargs="*", default=[], help="train and score these sets only")
    g = sub.add_parser("select")
    g.add_argument("data")
    g.add_argument("--depth", type=int, default=30)
    g.add_argument("--c", type=float, default=1.0)
    g.add_argument("--start", nargs="*", default=["score_share", "asks", "names"])
    g.add_argument("--rounds", type=int, default=2)
    r = sub.add_parser("session")
    r.add_argument("data")
    r.add_argument("--depth", type=int, default=50)
    r.add_argument("--weights", type=float, nargs="+", default=[0.02, 0.05, 0.1, 0.3])
    y = sub.add_parser("replay")
    y.add_argument("data")
    y.add_argument("other", nargs="?")
    args = p.parse_args()
    if args.cmd == "replay":
        replay(args)
    elif args.cmd == "dump":
        dump(args)
    elif args.cmd == "select":
        select(args)
    elif args.cmd == "session":
        session(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()
