"""HTTP search throughput and latency: 1, 8 and 32 concurrent clients against a brain of
N sections served by ``orgbrain serve`` (a separate process, the real MiniLM model).

    python bench/http.py [--sections 100000] [--seconds 15] [--clients 1,8,32] [--no-write]

Building N sections through the indexer would take hours on two cores, so the brain is
written straight through the store: a few thousand real SciFact sentences are embedded once
with the real model (cached in ``bench/out/``), and each section is a real sentence, or two
of them joined, whose vector is a normalised noisy mixture of theirs. Sections hang off
files of 20 sections; 80% are org-wide, 10% in team:eng and 10% private to another user,
so the key's scopes filter every query. Queries are the 809 SciFact claims, in turn.

Each client is a thread with its own keep-alive connection, sending searches back to back
for ``--seconds`` after a short warm-up. Results go to ``docs/benchmarks.md`` under
"## HTTP search" (appended; nothing else there is touched).
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named http.py: its folder, first on sys.path when run as a script, would
# shadow the standard library's http package. Move the folder to the end.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE)]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import httpx  # noqa: E402
import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

ROOT = _HERE.parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from _common import DATA, append_results, percentile  # noqa: E402
from orgbrain.adapters.sqlite import SQLiteStore  # noqa: E402
from orgbrain.adapters.sqlite.keys import SQLiteKeyStore  # noqa: E402
from orgbrain.ids import new_id  # noqa: E402
from orgbrain.keys import issue_key  # noqa: E402
from orgbrain.model import ByteRange, Item, Origin, utcnow  # noqa: E402

F32 = NDArray[np.float32]
CACHE = ROOT / "bench" / "out" / "http_sentences.npz"
MODEL = "all-MiniLM-L6-v2"
DIM = 384
PER_FILE = 20
WORKSPACE = "bench"


# -- data ---------------------------------------------------------------------------------


def sentences(n: int) -> list[str]:
    out: list[str] = []
    with (DATA / "scifact" / "corpus.jsonl").open() as f:
        for line in f:
            for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", json.loads(line)["text"]):
                if 40 <= len(s) <= 400:
                    out.append(s)
    pick = np.random.default_rng(0).choice(len(out), min(n, len(out)), replace=False)
    return [out[i] for i in sorted(pick)]


def real_vectors(n: int) -> tuple[list[str], F32]:
    """``n`` SciFact sentences and their MiniLM vectors, embedded once and cached."""
    if CACHE.exists():
        z = np.load(CACHE, allow_pickle=False)
        if len(z["texts"]) >= n:
            return [str(t) for t in z["texts"][:n]], z["vectors"][:n]
    from orgbrain.adapters.embed_minilm import MiniLMEmbedder

    texts = sentences(n)
    t0 = time.perf_counter()
    vectors = np.asarray(MiniLMEmbedder().embed(texts), dtype=np.float32)
    print(f"embedded {len(texts)} sentences in {time.perf_counter() - t0:.0f} s", flush=True)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    np.savez(CACHE, texts=np.array(texts), vectors=vectors)
    return texts, vectors


def queries() -> list[str]:
    with (DATA / "scifact" / "queries.jsonl").open() as f:
        return [json.loads(line)["text"] for line in f]


# -- the brain ----------------------------------------------------------------------------


def build(folder: Path, n_sections: int, texts: list[str], base: F32) -> float:
    """Write ``n_sections`` sections (and their files) straight through the store."""
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    store = SQLiteStore(folder / "brain.sqlite")
    store.bind_embedder(MODEL, DIM)
    origin = Origin("bench:http", "bench", utcnow())
    batch: list[tuple[Item, F32 | None]] = []
    file_id = ""
    file_vecs: list[F32] = []
    scope_of_file = "org"
    for i in range(n_sections):
        if i < len(texts):
            body, vec = texts[i], base[i]
        else:
            a, b = rng.integers(0, len(texts), 2)
            w = float(rng.uniform(0.6, 1.0))
            noise = rng.standard_normal(DIM).astype(np.float32) * np.float32(0.25 / DIM**0.5)
            mixed = w * base[a] + (1 - w) * base[b] + noise
            body, vec = f"{texts[a]} {texts[b]}", mixed / np.linalg.norm(mixed)
        roll = rng.random()
        scope = "org" if roll < 0.8 else ("team:eng" if roll < 0.9 else "user:someone")
        if i % PER_FILE == 0:
            if file_vecs:
                batch.append(_file(file_id, scope_of_file, file_vecs, origin))
            file_id, scope_of_file, file_vecs = new_id("fil"), scope, []
        file_vecs.append(vec)
        batch.append((_section(file_id, scope_of_file, i, body, origin), vec.astype(np.float32)))
        if len(batch) >= 2000:
            store.put_items(batch)
            batch = []
    if file_vecs:
        batch.append(_file(file_id, scope_of_file, file_vecs, origin))
    if batch:
        store.put_items(batch)
    counts = store.counts(WORKSPACE)
    store.close()
    assert counts.get("section") == n_sections, counts
    return time.perf_counter() - t0


def _section(file_id: str, scope: str, i: int, body: str, origin: Origin) -> Item:
    ordinal = i % PER_FILE
    return Item(
        id=new_id("sec"),
        workspace=WORKSPACE,
        kind="section",
        storage_class="section",
        label=f"paper {i // PER_FILE} §{ordinal + 1}",
        body=body,
        source_key=f"file:paper{i // PER_FILE}.md#{ordinal}",
        indexed=True,
        scope=scope,
        origin=origin,
        blob_key=f"workspaces/{WORKSPACE}/{file_id}/paper{i // PER_FILE}.md",
        text_key=f"workspaces/{WORKSPACE}/{file_id}/paper{i // PER_FILE}.md",
        byte_range=ByteRange(0, len(body.encode())),
        parent_id=file_id,
        ordinal=ordinal,
        name=f"paper{i // PER_FILE}.md",
        media_type="text/markdown",
    )


def _file(file_id: str, scope: str, vecs: list[F32], origin: Origin) -> tuple[Item, F32]:
    mean = np.mean(vecs, axis=0)
    n = file_id
    item = Item(
        id=file_id,
        workspace=WORKSPACE,
        kind="file",
        storage_class="file",
        label=f"paper {n}",
        body="",
        source_key=f"file:{n}.md",
        indexed=True,
        scope=scope,
        origin=origin,
        blob_key=f"workspaces/{WORKSPACE}/{file_id}/{n}.md",
        name=f"{n}.md",
        media_type="text/markdown",
    )
    return item, (mean / np.linalg.norm(mean)).astype(np.float32)


# -- the server and the load --------------------------------------------------------------


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cmd = [
        sys.executable,
        "-c",
        "from orgbrain.cli.serve import serve; serve(prog_name='orgbrain serve')",
        "--brain",
        str(folder),
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "ORGBRAIN_WORKSPACE": WORKSPACE}
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(url + "/readyz", timeout=60).status_code == 200:
                return proc, url
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not come up")
        time.sleep(0.2)


def load(url: str, token: str, clients: int, seconds: float, qs: list[str]) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = threading.Event()
    measuring = threading.Event()
    counter = iter(range(10**9))

    def worker() -> None:
        nonlocal errors
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120
        ) as c:
            while not stop.is_set():
                q = qs[next(counter) % len(qs)]
                t = time.perf_counter()
                r = c.post("/v1/search", json={"query": q, "k": 5})
                dt = (time.perf_counter() - t) * 1000
                if measuring.is_set():
                    with lock:
                        if r.status_code == 200:
                            latencies.append(dt)
                        else:
                            errors += 1

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    time.sleep(min(3.0, seconds / 4))  # warm-up: connections open, caches hot
    measuring.set()
    t0 = time.perf_counter()
    time.sleep(seconds)
    measuring.clear()
    elapsed = time.perf_counter() - t0
    stop.set()
    for t in threads:
        t.join(150)
    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "errors": errors,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sections", type=int, default=100_000)
    ap.add_argument("--real", type=int, default=3000, help="real sentences to embed")
    ap.add_argument("--seconds", type=float, default=15.0, help="measured time per run")
    ap.add_argument("--clients", default="1,8,32")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    levels = [int(c) for c in args.clients.split(",")]

    texts, base = real_vectors(args.real)
    qs = queries()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "brain"
        folder.mkdir()
        build_s = build(folder, args.sections, texts, base)
        print(f"built {args.sections} sections in {build_s:.1f} s", flush=True)
        keys = SQLiteKeyStore.for_brain(folder)
        token = issue_key(keys, WORKSPACE, "alice", "read", teams=["eng"]).token
        keys.close()
        load_before = os.getloadavg()
        proc, url = start_server(folder)
        try:
            rows = []
            for clients in levels:
                r = load(url, token, clients, args.seconds, qs)
                rows.append((clients, r))
                print(
                    f"{clients:>3} clients: {r['rps']:.1f} req/s, p50 {r['p50']:.0f} ms, "
                    f"p99 {r['p99']:.0f} ms, {int(r['requests'])} ok, {int(r['errors'])} errors",
                    flush=True,
                )
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(60)
        load_after = os.getloadavg()

    table = [
        "| sections | clients | requests | req/s | p50 ms | p99 ms | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    for clients, r in rows:
        table.append(
            f"| {args.sections:,} | {clients} | {int(r['requests'])} | {r['rps']:.1f} | "
            f"{r['p50']:.0f} | {r['p99']:.0f} | {int(r['errors'])} |"
        )
    body = (
        f"`python bench/http.py --sections {args.sections} --seconds {args.seconds:g}`: "
        f"`orgbrain serve` (one uvicorn process, MiniLM queries) on loopback; each client a "
        f"thread with a keep-alive connection posting `/v1/search` (k=5, hybrid plan, SciFact "
        f"claims) back to back for {args.seconds:g} s after a warm-up. Brain built through "
        f"the store in {build_s:.0f} s ({args.real} real sentence vectors, the rest noisy "
        f"mixtures; 80% org, 10% team, 10% another user's). Load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after.\n\n" + "\n".join(table)
    )
    print(body)
    if not args.no_write:
        append_results("HTTP search", body)


if __name__ == "__main__":
    main()
