"""A trained map of the query's vector, measured by dense retrieval held out (issue 17).

The search embeds a query with all-MiniLM-L6-v2 and reads the vector streams with it; the
documents' vectors stay as indexed. The candidate: a small linear map of the query's
vector (the identity plus a low-rank term, or a full 384 x 384 matrix started at the
identity), trained with a contrastive loss over each corpus's items (softmax over every
item of the corpus; an item scores its best vector, as the store's index does), every dev
set at once and weighing the same. The proxy is dense retrieval alone (no keywords, no
fusion, no learned stage), each set's own figure (LoCoMo recall@10, SciFact nDCG@10,
LongMemEval recall_all@5 by session, facts recall@5), held out: SciFact by claim
(five folds) or, with ``--by-document``, by cited document (claims that cite a common
abstract share a fold: by claim, 538 of 809 claims share an abstract with another, and
the map learns where those abstracts lie), LoCoMo by conversation, LongMemEval and the
facts by question (five folds each). Not adopted: docs/journal.md, "Issue 17, a trained
query transform (2026-12-05 session 4)"; the query path that read a map (and
``tuned-z-unmapped``) is at commit c64f763 on branch ``adapter``.

``dump``: each corpus's item vectors read from the eval caches' SQLite databases (read
only), each question embedded as the search embeds it (less its time), with its labels.

``proxy``: for each fold, the map trained on the other folds of every set scores that
fold's questions; the held-out figures per set, the identity's beside them (paired:
difference ± standard error; questions up / down). ``--save DIR`` keeps each fold's map
and ``folds.json`` for held-out real evals. ``fit``: the map trained on everything
(deterministic: seed 0), written with ``--out``.

    python -m bench.query_map dump --cache /tmp/adapter-evc --lme-cache /tmp/adapter-lme \\
        --locomo ../shared/data/locomo/locomo-dev.json --scifact ../shared/data/scifact \\
        --longmemeval ../shared/data/longmemeval/longmemeval-s-dev50.json --out /tmp/qm/data.pkl
    python -m bench.query_map proxy /tmp/qm/data.pkl --by-document --l2 0.1 --steps 300
    python -m bench.query_map fit /tmp/qm/data.pkl --l2 0.1 --steps 300 --out /tmp/qm/map.npz
"""

from __future__ import annotations

import argparse
import json
import pickle
import sqlite3
import time
import zlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bench.learned_rank import lme_labels, metric
from orgbrain.adapters.embed_minilm import MODEL_NAME
from orgbrain.compose import make_embedder
from orgbrain.evals import beir as be
from orgbrain.evals import facts as fa
from orgbrain.evals import locomo as lc
from orgbrain.evals import longmemeval as lm
from orgbrain.evals.cache import index_key, indexed_brain
from orgbrain.evals.locomo_data import ANSWERABLE, load_locomo
from orgbrain.evals.longmemeval_data import load_longmemeval
from orgbrain.evals.memo import QueryMemo
from orgbrain.retrieve.when import read_time
from orgbrain.settings import Settings

FOLDS = 5
SETS = ("locomo", "scifact", "longmemeval", "facts")
EMBED_CHARS = 2000


# -- dump -------------------------------------------------------------------------------


def _corpus(db: Path, name: str, set_name: str) -> dict[str, Any]:
    """Every indexed item's vectors (an item's blob holds its own and its passages')."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    dim = int(conn.execute("SELECT value FROM meta WHERE key = 'embedding_dim'").fetchone()[0])
    keys: list[str] = []
    rows: list[np.ndarray] = []
    owner: list[int] = []
    for key, blob in conn.execute(
        "SELECT source_key, embedding FROM items WHERE embedding IS NOT NULL AND indexed = 1 "
        "AND tombstoned_at IS NULL ORDER BY rowid"
    ):
        vec = np.frombuffer(blob, dtype=np.float32).reshape(-1, dim)
        owner += [len(keys)] * len(vec)
        keys.append(key)
        rows.append(vec)
    conn.close()
    r = np.concatenate(rows).astype(np.float32)
    r /= np.linalg.norm(r, axis=1, keepdims=True)
    return {"set": set_name, "name": name, "keys": keys, "rows": r, "owner": np.array(owner)}


def _qvec(memo: QueryMemo, text: str, now: datetime) -> np.ndarray:
    reading = read_time(text, now)
    v = np.asarray(memo.embed([(reading.rest or text)[:EMBED_CHARS]])[0], dtype=np.float32)
    return v / np.linalg.norm(v)


def _db(cache: Path, key: str) -> Path | None:
    path = cache / key / "brain" / "brain.sqlite"
    if not path.is_file():
        print(f"{key}: not in {cache}, skipped")
        return None
    return path


def _locomo(
    path: Path, cache: Path, memo: QueryMemo
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    now = datetime.now(UTC)
    for conv in load_locomo(path):
        notes = [lc._note(conv.sample_id, t) for t in conv.turns]
        db = _db(cache, index_key("locomo", memo, notes, lc._next_turns(conv)))
        if db is None:
            continue
        prefix = f"locomo:{conv.sample_id}:"
        qs = [
            {
                "set": "locomo",
                "fold": conv.sample_id,
                "qid": f"{conv.sample_id}:{q.number}",
                "gold": {prefix + e: 1 for e in q.evidence},
                "q": _qvec(memo, q.question, now),
            }
            for q in conv.questions
            if q.category in ANSWERABLE and q.evidence
        ]
        yield _corpus(db, conv.sample_id, "locomo"), qs


def _scifact(
    folder: Path, cache: Path, memo: QueryMemo
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    now = datetime.now(UTC)
    data = be.load_beir(folder, "train")
    db = _db(cache, index_key("beir", memo, [be._note(d) for d in data.corpus]))
    if db is None:
        return
    qs = [
        {
            "set": "scifact",
            "fold": qid,
            "qid": qid,
            "gold": {be.KEY_PREFIX + d: g for d, g in data.qrels[qid].items() if g > 0},
            "q": _qvec(memo, text, now),
        }
        for qid, text in data.queries.items()
    ]
    yield _corpus(db, "scifact", "scifact"), qs


def _lme(
    path: Path, cache: Path, memo: QueryMemo
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    for q in load_longmemeval(path):
        if q.abstention or not q.answer_sessions:
            continue
        notes, edges = lm._notes(q)
        db = _db(cache, index_key("longmemeval", memo, notes, edges))
        if db is None:
            continue
        row = {**lme_labels(q), "q": _qvec(memo, q.question, q.asked_at or datetime.now(UTC))}
        yield _corpus(db, q.question_id, "longmemeval"), [row]


def _facts(cache: Path, memo: QueryMemo) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    now = datetime.now(UTC)
    data = fa.load_facts()
    notes = [fa._note(f) for f in data.facts]
    key = index_key("facts", memo, notes)
    with indexed_brain(cache, key, memo, fa._writer(notes)):
        pass
    qs = [
        {
            "set": "facts",
            "fold": str(n),
            "qid": str(n),
            "gold": {fa.KEY_PREFIX + a: 1 for a in q.answers},
            "q": _qvec(memo, q.question, now),
        }
        for n, q in enumerate(data.questions)
        if q.answers
    ]
    yield _corpus(cache / key / "brain" / "brain.sqlite", "facts", "facts"), qs


def dump(args: argparse.Namespace) -> None:
    memo = QueryMemo(make_embedder(Settings.from_env()))
    corpora: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    sources = [_facts(Path(args.facts_cache), memo)]
    if args.locomo:
        sources.append(_locomo(Path(args.locomo), Path(args.cache), memo))
    if args.scifact:
        sources.append(_scifact(Path(args.scifact), Path(args.cache), memo))
    if args.longmemeval:
        sources.append(_lme(Path(args.longmemeval), Path(args.lme_cache), memo))
    for source in sources:
        for corpus, qs in source:
            for q in qs:
                q["corpus"] = len(corpora)
            corpora.append(corpus)
            queries += qs
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        pickle.dump({"corpora": corpora, "queries": queries}, f)
    for s in SETS:
        n = sum(q["set"] == s for q in queries)
        c = sum(c["set"] == s for c in corpora)
        print(f"{s}: {n} questions over {c} corpora")


# -- scoring ----------------------------------------------------------------------------


def fold_of(q: dict[str, Any], convs: Sequence[str]) -> int:
    """LoCoMo by conversation, every other set by a hash of its ``fold`` (the question's
    id, or for SciFact by document its group's)."""
    if q["set"] == "locomo":
        return list(convs).index(q["fold"]) % FOLDS
    return zlib.crc32(q["fold"].encode()) % FOLDS


def group_by_document(queries: list[dict[str, Any]], set_name: str) -> None:
    """Claims that cite a common document share a fold (a held-out claim then never
    cites an abstract a training claim cites): its group's least document key."""
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        while parent.setdefault(k, k) != k:
            k = parent[k]
        return k

    qs = [q for q in queries if q["set"] == set_name]
    for q in qs:
        keys = sorted(q["gold"]) or [q["qid"]]
        for k in keys[1:]:
            a, b = find(keys[0]), find(k)
            parent[max(a, b)] = min(a, b)
    for q in qs:
        q["fold"] = find(sorted(q["gold"])[0]) if q["gold"] else q["qid"]


def item_scores(corpus: dict[str, Any], qv: np.ndarray) -> np.ndarray:
    """Each item's best cosine with each query (queries x items)."""
    s = qv @ corpus["rows"].T
    out = np.full((len(qv), len(corpus["keys"])), -np.inf, dtype=np.float32)
    np.maximum.at(out.T, corpus["owner"], s.T)
    return out


def evaluate(data: dict[str, Any], qvecs: np.ndarray, which: Sequence[int]) -> list[float]:
    """Each question's figure (in ``which``' order) when it asks with ``qvecs[i]``."""
    corpora, queries = data["corpora"], data["queries"]
    out: dict[int, float] = {}
    by_corpus: dict[int, list[int]] = {}
    for i in which:
        by_corpus.setdefault(queries[i]["corpus"], []).append(i)
    for c, idx in by_corpus.items():
        corpus = corpora[c]
        scores = item_scores(corpus, qvecs[idx])
        keys = corpus["keys"]
        for row, i in zip(scores, idx, strict=True):
            order = np.argsort(-row, kind="stable")[:200]
            out[i] = metric(queries[i], [keys[j] for j in order])
    return [out[i] for i in which]


# -- training ---------------------------------------------------------------------------


class Trainable:
    """q -> normalise(q + q A B) (``rank`` > 0) or normalise(q W) (rank 0, W from I)."""

    def __init__(self, dim: int, rank: int, seed: int = 0) -> None:
        import torch

        g = torch.Generator().manual_seed(seed)
        self.rank = rank
        if rank > 0:
            self.a = (torch.randn(dim, rank, generator=g) * 0.01).requires_grad_()
            self.b = torch.zeros(rank, dim).requires_grad_()
            self.params = [self.a, self.b]
        else:
            self.w = torch.eye(dim).requires_grad_()
            self.params = [self.w]

    def delta(self) -> Any:
        import torch

        if self.rank > 0:
            return self.a @ self.b
        return self.w - torch.eye(self.w.shape[0])

    def __call__(self, q: Any) -> Any:
        import torch

        out = q + q @ self.delta()
        return torch.nn.functional.normalize(out, dim=-1)

    def matrix(self) -> np.ndarray:
        import torch

        with torch.no_grad():
            d = self.delta()
            out: np.ndarray = (torch.eye(d.shape[0]) + d).numpy().astype(np.float32)
            return out


def _tensors(data: dict[str, Any]) -> list[dict[str, Any]]:
    import torch

    out = []
    for c in data["corpora"]:
        out.append(
            {
                "rows": torch.from_numpy(c["rows"]),
                "owner": torch.from_numpy(c["owner"].astype(np.int64)),
                "n": len(c["keys"]),
                "index": {k: j for j, k in enumerate(c["keys"])},
            }
        )
    return out


def train(
    data: dict[str, Any],
    tensors: list[dict[str, Any]],
    train_idx: Sequence[int],
    *,
    rank: int,
    steps: int,
    lr: float,
    tau: float,
    l2: float,
    batch: int,
    seed: int = 0,
) -> Trainable:
    """Adam over batches drawn from every set (each set's mean loss weighs the same)."""
    import torch

    torch.manual_seed(seed)
    queries = data["queries"]
    qall = torch.from_numpy(np.stack([q["q"] for q in queries]))
    by_set: dict[str, list[int]] = {}
    for i in train_idx:
        if any(k in tensors[queries[i]["corpus"]]["index"] for k in queries[i]["gold"]):
            by_set.setdefault(queries[i]["set"], []).append(i)
    model = Trainable(qall.shape[1], rank, seed)
    opt = torch.optim.Adam(model.params, lr=lr)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.zeros(())
        for idx in by_set.values():
            pick = rng.choice(idx, size=min(batch, len(idx)), replace=False).tolist()
            loss = loss + _set_loss(queries, tensors, qall, model, pick, tau) / len(by_set)
        delta = model.delta()
        loss = loss + l2 * (delta * delta).sum()
        loss.backward()
        opt.step()
    return model


def _set_loss(
    queries: list[dict[str, Any]],
    tensors: list[dict[str, Any]],
    qall: Any,
    model: Trainable,
    pick: Sequence[int],
    tau: float,
) -> Any:
    """Mean over ``pick`` of -log(P(a gold item) under a softmax over the whole corpus)."""
    import torch

    by_corpus: dict[int, list[int]] = {}
    for i in pick:
        by_corpus.setdefault(queries[i]["corpus"], []).append(int(i))
    total = torch.zeros(())
    for c, idx in by_corpus.items():
        t = tensors[c]
        qv = model(qall[idx])
        s = qv @ t["rows"].T / tau  # queries x rows
        items = torch.full((len(idx), t["n"]), -1e9).scatter_reduce(
            1, t["owner"].expand(len(idx), -1), s, reduce="amax", include_self=False
        )
        gold = torch.zeros_like(items, dtype=torch.bool)
        for r, i in enumerate(idx):
            js = [t["index"][k] for k in queries[i]["gold"] if k in t["index"]]
            gold[r, js] = True
        pos = torch.logsumexp(items.masked_fill(~gold, -1e9), dim=1)
        total = total + (torch.logsumexp(items, dim=1) - pos).sum()
    return total / len(pick)


def save_map(path: Path, m: np.ndarray) -> None:
    """A map as the query path read it (commit c64f763, ``retrieve/query_map.py``): the
    model's name and the correction to the identity, in half precision."""
    path.parent.mkdir(parents=True, exist_ok=True)
    delta = (m - np.eye(m.shape[0], dtype=np.float32)).astype(np.float16)
    np.savez_compressed(path, model=np.array(MODEL_NAME), delta=delta)


def _apply(m: np.ndarray, qv: np.ndarray) -> np.ndarray:
    out: np.ndarray = qv @ m
    unit: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
    return unit


def _load(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        data: dict[str, Any] = pickle.load(f)
    return data


def _report(data: dict[str, Any], base: list[float], new: list[float], label: str) -> None:
    queries = data["queries"]
    parts = []
    for s in SETS:
        idx = [i for i, q in enumerate(queries) if q["set"] == s]
        if not idx:
            continue
        d = np.array([new[i] - base[i] for i in idx])
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
        up, down = int((d > 1e-9).sum()), int((d < -1e-9).sum())
        parts.append(
            f"{s} {np.mean([base[i] for i in idx]):.4f}->{np.mean([new[i] for i in idx]):.4f}"
            f" ({d.mean():+.4f}±{se:.4f}; {up}/{down})"
        )
    print(f"{label}: " + " | ".join(parts), flush=True)


def _trained(
    args: argparse.Namespace,
    data: dict[str, Any],
    tensors: list[dict[str, Any]],
    idx: Sequence[int],
) -> np.ndarray:
    """The map's matrix, trained on the questions ``idx`` with the command's settings."""
    model = train(
        data,
        tensors,
        idx,
        rank=args.rank,
        steps=args.steps,
        lr=args.lr,
        tau=args.tau,
        l2=args.l2,
        batch=args.batch,
    )
    return model.matrix()


def proxy(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(1)
    data = _load(args.data)
    queries = data["queries"]
    if args.by_document:
        group_by_document(queries, "scifact")
    convs = sorted({q["fold"] for q in queries if q["set"] == "locomo"})
    folds = [fold_of(q, convs) for q in queries]
    for s in SETS:
        sizes = [
            sum(q["set"] == s and folds[i] == f for i, q in enumerate(queries))
            for f in range(FOLDS)
        ]
        print(s, "questions per fold", sizes)
    if args.save:
        Path(args.save).mkdir(parents=True, exist_ok=True)
        held_out = {f"{q['set']}:{q['qid']}": folds[i] for i, q in enumerate(queries)}
        (Path(args.save) / "folds.json").write_text(json.dumps(held_out))
    tensors = _tensors(data)
    qv = np.stack([q["q"] for q in queries])
    everything = list(range(len(queries)))
    base = evaluate(data, qv, everything)
    new = list(base)
    t0 = time.perf_counter()
    for f in range(FOLDS):
        train_idx = [i for i in everything if folds[i] != f]
        held = [i for i in everything if folds[i] == f]
        m = _trained(args, data, tensors, train_idx)
        if args.save:
            save_map(Path(args.save) / f"fold{f}.npz", m)
        for i, v in zip(held, evaluate(data, _apply(m, qv), held), strict=True):
            new[i] = v
        print(f"fold {f} done, {time.perf_counter() - t0:.0f}s", flush=True)
        if args.train_figure and f == 0:
            tr = evaluate(data, _apply(m, qv), train_idx)
            full = list(base)
            for i, v in zip(train_idx, tr, strict=True):
                full[i] = v
            _report(data, base, full, "fold 0, its training questions")
    _report(data, base, new, f"held out (rank {args.rank}, steps {args.steps}, l2 {args.l2})")


def fit(args: argparse.Namespace) -> None:
    """The map trained on every question of every set (the one to ship: its figures on
    the dev sets are training figures; the held-out ones are ``proxy``'s)."""
    import torch

    torch.set_num_threads(1)
    data = _load(args.data)
    queries = data["queries"]
    everything = list(range(len(queries)))
    m = _trained(args, data, _tensors(data), everything)
    qv = np.stack([q["q"] for q in queries])
    _report(
        data, evaluate(data, qv, everything), evaluate(data, _apply(m, qv), everything), "train"
    )
    if args.out:
        save_map(Path(args.out), m)
        print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes)")


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.query_map")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--cache", required=True, help="LoCoMo and SciFact eval caches (read only)")
    d.add_argument("--lme-cache", required=True)
    d.add_argument("--facts-cache", default="/tmp/qm/facts-cache")
    d.add_argument("--locomo")
    d.add_argument("--scifact")
    d.add_argument("--longmemeval")
    d.add_argument("--out", required=True)
    x = sub.add_parser("proxy")
    x.add_argument("data")
    x.add_argument("--train-figure", action="store_true")
    x.add_argument("--by-document", action="store_true", help="SciFact's folds by cited document")
    x.add_argument("--save", help="a folder for each fold's map and folds.json (real evals)")
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--out", help="write the map here (.npz)")
    for q in (x, f):
        q.add_argument("--rank", type=int, default=0, help="> 0: identity plus rank r")
        q.add_argument("--steps", type=int, default=300)
        q.add_argument("--lr", type=float, default=1e-3)
        q.add_argument("--tau", type=float, default=0.05)
        q.add_argument("--l2", type=float, default=0.1)
        q.add_argument("--batch", type=int, default=64)
    args = p.parse_args(argv)
    {"dump": dump, "proxy": proxy, "fit": fit}[args.cmd](args)


if __name__ == "__main__":
    main()
