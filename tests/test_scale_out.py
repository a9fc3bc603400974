"""Scale-out: two ``orgbrain serve`` and two ``orgbrain worker`` processes over one
PostgreSQL and one S3 bucket (real ones). Files uploaded through either server are indexed
once and found, with their exact bytes, through both; a worker killed mid-job loses
nothing, and the other worker finishes the job once its lease runs out."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from uuid import uuid4

import httpx
import pytest

from orgbrain import Brain
from orgbrain.adapters.postgres.keys import PostgresKeyStore
from orgbrain.keys import issue_key
from orgbrain.settings import Settings
from tests.s3rver import BUCKET, s3_env
from tests.test_blobs_s3 import wait_healthy
from tests.toy import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
MARK = "hangmarker"
"""A file whose text holds this hangs the embedder of a process started with
``ORGBRAIN_TEST_HANG`` set (to a file it touches first), and of no other."""

CLI = textwrap.dedent(
    f"""
    import os, sys, time
    from pathlib import Path
    sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / "src")!r}]
    from orgbrain import Brain
    from orgbrain.cli import app, main
    from tests.toy import HashEmbedder

    class MaybeHang(HashEmbedder):
        def embed(self, texts):
            flag = os.environ.get("ORGBRAIN_TEST_HANG")
            if flag and any({MARK!r} in t for t in texts):
                Path(flag).touch()
                time.sleep(600)
            return super().embed(texts)

    app.open_brain = lambda s: Brain.open(s.store, settings=s, embedder=MaybeHang())
    sys.argv = ["orgbrain", *sys.argv[1:]]
    main()
    """
)

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", CLI, *args], stdout=out, stderr=subprocess.STDOUT, env=env
        )


def _doc(n: int, via: int) -> bytes:
    body = "\n\n".join(f"Paragraph {p} of the file about topic{n}x{via}." for p in range(4))
    return f"# Report {n} via {via}\n\n{body}\n".encode()


def _wait(ok: object, what: str, procs: list[subprocess.Popen[bytes]], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not ok():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        assert all(p.poll() is None for p in procs), "a process died"
        time.sleep(0.1)


def test_two_servers_and_two_workers_share_one_postgres_and_one_bucket(
    pg_url: str, s3rver: str, tmp_path: Path
) -> None:
    keys = PostgresKeyStore(pg_url)
    token = issue_key(keys, "default", "alice", "read,write").token
    keys.close()
    env = {
        **os.environ,
        **s3_env(s3rver),
        "ORGBRAIN_STORE": pg_url,
        "ORGBRAIN_BLOBS": f"s3://{BUCKET}/scale/{uuid4().hex}",
        "ORGBRAIN_BRAIN": str(tmp_path / "unused"),
    }
    ports = [_free_port(), _free_port()]
    servers = [
        _start(
            ["serve", "--port", str(port), "--index-threads", "0", "--no-first-key"],
            env,
            tmp_path / f"server{n}.log",
        )
        for n, port in enumerate(ports)
    ]
    hung = tmp_path / "hung"
    worker_args = ["worker", "--threads", "2", "--lease", "2", "--poll", "0.1"]
    workers = [
        _start(worker_args, {**env, "ORGBRAIN_TEST_HANG": str(hung)}, tmp_path / "worker0.log"),
        _start(worker_args, env, tmp_path / "worker1.log"),
    ]
    procs = servers + workers
    brain = Brain.open(pg_url, embedder=HashEmbedder(), settings=Settings(store=pg_url))
    try:
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        for url, proc in zip(urls, servers, strict=True):
            wait_healthy(url, proc)  # type: ignore[arg-type]
        clients = [
            httpx.Client(base_url=u, headers={"Authorization": f"Bearer {token}"}, timeout=30)
            for u in urls
        ]
        assert [c.get("/readyz").status_code for c in clients] == [200, 200]  # no own worker

        # Three files through each server, each asked to be indexed there.
        uploaded: dict[str, tuple[bytes, int]] = {}
        for via, c in enumerate(clients):
            for n in range(3):
                data = _doc(n, via)
                up = c.post("/v1/files", files={"file": (f"r{n}-{via}.md", data)})
                assert up.status_code == 201, up.text
                fid = up.json()["id"]
                assert c.post(f"/v1/files/{fid}/index").status_code == 202
                uploaded[fid] = (data, via)

        def all_indexed() -> bool:
            return all(brain.get(f).indexed for f in uploaded) and not (
                brain.jobs(state="queued").jobs or brain.jobs(state="running").jobs
            )

        _wait(all_indexed, "six files indexed", procs)
        index_jobs = [j for j in brain.jobs(limit=1000).jobs if j.kind == "index"]
        assert Counter(j.subject for j in index_jobs) == Counter(list(uploaded))  # one each
        assert {(j.state, j.attempts) for j in brain.jobs(limit=1000).jobs} == {("done", 1)}

        # Each server finds what was uploaded through the other, and its exact bytes.
        for fid, (data, via) in uploaded.items():
            other = clients[1 - via]
            found = other.post("/v1/search", json={"query": f"topic{_topic(data)}"}).json()
            cites = [h["citation"] for h in found["hits"] if h["citation"]["file_id"] == fid]
            assert cites, (fid, found)
            span = cites[0]["byte_range"]
            assert span is not None
            got = other.get(
                f"/v1/items/{fid}/content",
                headers={"Range": f"bytes={span['start']}-{span['end'] - 1}"},
            )
            assert got.status_code == 206 and got.content == data[span["start"] : span["end"]]
            assert f"topic{_topic(data)}".encode() in got.content

        # Worker 1 paused; worker 0 takes the next file and hangs on it; killed.
        os.kill(workers[1].pid, signal.SIGSTOP)
        slow = f"# Slow\n\nThis file holds the {MARK} and topicslow words.\n".encode()
        up = clients[0].post("/v1/files", files={"file": ("slow.md", slow)}).json()
        assert clients[0].post(f"/v1/files/{up['id']}/index").status_code == 202
        _wait(hung.exists, "worker 0 to take the slow file", procs)
        os.kill(workers[0].pid, signal.SIGKILL)
        workers[0].wait(timeout=30)
        held = [j for j in brain.jobs(state="running").jobs if j.subject == up["id"]]
        assert len(held) == 1 and held[0].attempts == 1
        assert not brain.get(up["id"]).indexed and brain.sections(up["id"]) == []

        # Worker 1 resumes and finishes it once the dead worker's lease has run out.
        os.kill(workers[1].pid, signal.SIGCONT)
        _wait(lambda: brain.get(up["id"]).indexed and all_indexed(), "the slow file", servers)
        jobs = brain.jobs(limit=1000).jobs
        slow_index = [j for j in jobs if j.kind == "index" and j.subject == up["id"]]
        assert [(j.state, j.attempts) for j in slow_index] == [("done", 2)]
        assert len([j for j in jobs if j.kind == "index"]) == 7
        assert {j.state for j in jobs} == {"done"}
        keys_ = [s.source_key for f in [*uploaded, up["id"]] for s in brain.sections(f)]
        assert len(keys_) == len(set(keys_))  # nothing indexed twice
        counts = brain.counts()
        assert counts["section"] == counts["section_indexed"] == len(keys_)
        hits = clients[1].post("/v1/search", json={"query": "topicslow"}).json()["hits"]
        assert any(h["citation"]["file_id"] == up["id"] for h in hits)
    finally:
        brain.close()
        for p in procs:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def _topic(data: bytes) -> str:
    """The one word naming a file's topic (``topic<n>x<via>``) without its prefix."""
    start = data.index(b"topic") + len(b"topic")
    return data[start : data.index(b".", start)].decode()
