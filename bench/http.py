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

# This file is named http.py: run as a file, its folder would be first on sys.path and
# shadow the standard library's http package; put the repository root there instead.
_HERE = Path(__file__).resolve().parent
if __package__ in (None, ""):
    sys.path[0] = str(_HERE.parent)

import argparse  # noqa: E402
import os  # noqa: E402
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

from bench._common import append_results, percentile  # noqa: E402
from bench._synth import WORKSPACE, build, queries, real_vectors  # noqa: E402
from orgbrain.adapters.sqlite.keys import SQLiteKeyStore  # noqa: E402
from orgbrain.keys import issue_key  # noqa: E402

F32 = NDArray[np.float32]


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
        f"thread with a keep-alive connection posting `/v1/search` (k=5, default plan, SciFact "
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
