"""Derivation after the acknowledgement: lag, throughput, LLM calls, and the SIMILAR_TO
threshold.

    python -m bench.derive [--notes 200] [--no-write]

- **Lag**: notes written one by one (each acknowledged, fsynced) while a worker thread
  derives in the background, as the server runs it; lag is from a note's acknowledgement
  to its ``derived`` event.
- **Throughput**: a backlog of notes derived by one worker, notes per second.
- **LLM calls**: the default path has no chat model (``ORGBRAIN_CHAT_URL`` unset), so
  the extractor's LLM tier cannot run.
- **SIMILAR_TO**: cosines of sentence pairs from the statements dev set (packaged), pairs
  about the same subject against pairs about different ones; the share of same-subject
  pairs above each threshold (what ``derive.SIMILAR_MIN`` was picked from).

Notes are the sentences of the packaged statements dev set (organisation-style facts,
decisions, runbook lines), cycled with a counter so each is new.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import threading
import time
from datetime import datetime
from importlib import resources
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench._common import append_results, percentile
from orgbrain import Brain
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.derive import SIMILAR_MIN
from orgbrain.ports import Embedder
from orgbrain.settings import Settings


def dev_records() -> list[dict[str, object]]:
    text = resources.files("orgbrain.evals.data").joinpath("statements_dev.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def lag(embedder: Embedder, texts: list[str]) -> tuple[list[float], list[float], int]:
    """Ack latency and ack→derived lag per note, with a background worker."""
    with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=embedder) as brain:
        stop = threading.Event()
        worker = brain.worker(poll_s=0.05)
        thread = threading.Thread(target=worker.run, args=(stop,))
        thread.start()
        acks: list[float] = []
        written: dict[str, datetime] = {}
        for text in texts:
            t = time.perf_counter()
            item = brain.add_note(text)
            acks.append((time.perf_counter() - t) * 1000)
            assert item.created_at is not None
            written[item.id] = item.created_at
        deadline = time.monotonic() + 300
        derived: dict[str, str] = {}
        while len(derived) < len(written) and time.monotonic() < deadline:
            for e in brain.events("derived", limit=len(written) + 10):
                derived[str(e["item_id"])] = str(e["at"])
            time.sleep(0.1)
        stop.set()
        thread.join()
        lags = [
            (datetime.fromisoformat(derived[i]) - at).total_seconds() * 1000
            for i, at in written.items()
            if i in derived
        ]
        return acks, lags, len(written) - len(derived)


def throughput(embedder: Embedder, texts: list[str]) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=embedder) as brain:
        for text in texts:
            brain.add_note(text)
        t = time.perf_counter()
        report = brain.run_jobs()
        elapsed = time.perf_counter() - t
        return report.done / elapsed, report.done


def derive_ms(embedder: Embedder, texts: list[str], supersession: str) -> list[float]:
    """Each note's derivation time (its ``derived`` event), written one by one with
    ``wait="derived"``, deciding supersession as ``supersession`` says."""
    settings = Settings(supersession=supersession)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Brain.open(tmp, embedder=embedder, settings=settings) as brain,
    ):
        for text in texts:
            brain.add_note(text, wait="derived")
        events = brain.events("derived", limit=len(texts) + 10)
        return [float(str(e["ms"])) for e in events]


def living_notes(limit: int, *, english: bool) -> list[str]:
    """The notes of the packaged living sets, English (``living_*.jsonl``) or German,
    French and Spanish (``*_living.jsonl``), one set's after another's in turn: long
    minutes, tables and emails, which the judge reads unit by unit (with the rules alone,
    those in another language to decide, the English ones to advise the reader)."""
    sets = sorted(
        p
        for p in resources.files("orgbrain.evals.data").iterdir()
        if (p.name.startswith("living_") if english else p.name.endswith("_living.jsonl"))
    )
    notes = [
        [str(n["text"]) for line in p.read_text().splitlines() for n in json.loads(line)["notes"]]
        for p in sets
    ]
    turns = itertools.chain.from_iterable(itertools.zip_longest(*notes))
    return [t for t in turns if t is not None][:limit]


def similar_threshold(embedder: Embedder) -> list[str]:
    records = [r for r in dev_records() if r.get("statements")]
    texts = [str(r["text"]) for r in records]
    subjects = [
        {str(s["subject"]).casefold() for s in r["statements"]}  # type: ignore[attr-defined]
        for r in records
    ]
    vectors = embedder.embed(texts)
    sims = vectors @ vectors.T
    same, other = [], []
    for i, j in itertools.combinations(range(len(texts)), 2):
        (same if subjects[i] & subjects[j] else other).append(float(sims[i, j]))
    rows = ["| cosine ≥ | pairs | same subject | share |", "|---|---|---|---|"]
    for t in (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        a = sum(s >= t for s in same)
        b = sum(s >= t for s in other)
        share = a / (a + b) if a + b else float("nan")
        rows.append(f"| {t:.2f} | {a + b} | {a} | {share:.2f} |")
    rows.append(
        f"\n{len(same)} same-subject pairs (median cosine {np.median(same):.2f}), "
        f"{len(other)} others (median {np.median(other):.2f})."
    )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=200)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    base = [str(r["text"]) for r in dev_records()]
    texts = [f"{base[i % len(base)]} (note {i})" for i in range(args.notes)]
    minilm = MiniLMEmbedder()
    minilm.embed(["warm up"])
    with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=minilm) as probe:
        llm_calls = 0 if probe._ctx.chat is None else -1  # no chat model: no call possible
    per_note = {mode: derive_ms(minilm, texts, mode) for mode in ("rules", "both")}
    foreign = derive_ms(minilm, living_notes(args.notes, english=False), "rules")
    english = derive_ms(minilm, living_notes(args.notes, english=True), "rules")
    acks, lags, missing = lag(minilm, texts)
    rate, done = throughput(minilm, texts)
    similar = similar_threshold(minilm)
    lines = [
        f"{args.notes} notes (the packaged statements dev set's sentences), real MiniLM, "
        "the default extractor (patterns; no chat model configured).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| ack latency (`add_note`, fsynced) | p50 {percentile(acks, 50):.1f} ms, "
        f"p95 {percentile(acks, 95):.1f} ms |",
        f"| lag, ack → derived (background worker) | p50 {percentile(lags, 50):.0f} ms, "
        f"p95 {percentile(lags, 95):.0f} ms ({missing} not derived in 300 s) |",
        f"| throughput (one worker, a backlog of {done}) | {rate:.1f} notes/s |",
        f"| LLM calls on the default path | {llm_calls} (no chat model is configured) |",
        *(
            f"| one note's derivation, `ORGBRAIN_SUPERSESSION={mode}` | "
            f"p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms |"
            for mode, ms in per_note.items()
        ),
        f"| one note in German, French or Spanish ({len(foreign)}, the living sets'), the "
        f"default | p50 {percentile(foreign, 50):.0f} ms, p95 {percentile(foreign, 95):.0f} ms |",
        f"| one note of the English living sets ({len(english)}), the default | "
        f"p50 {percentile(english, 50):.0f} ms, p95 {percentile(english, 95):.0f} ms |",
        "",
        f"SIMILAR_TO threshold (`SIMILAR_MIN` = {SIMILAR_MIN}): sentence pairs of the dev set",
        "",
        *similar,
        "",
        f"Command: `python -m bench.derive --notes {args.notes}`.",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        append_results("Derivation (after the acknowledgement)", body)


if __name__ == "__main__":
    main()
