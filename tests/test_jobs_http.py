"""Jobs over HTTP on a real loopback server: uploads with ``index=true``, ``GET /v1/jobs``,
item state read from the queue in the brain's file or database (whoever wrote it), and
readiness; on both backends."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from orgbrain import Principal
from tests.backends import Backend
from tests.filegen import truncated_pdf
from tests.test_server import HANDBOOK, Served, assert_problem, serve, upload, wait_state
from tests.toy import HashEmbedder


@pytest.fixture
def served_jobs(tmp_path: Path, backend: Backend) -> Iterator[Served]:
    with serve(tmp_path / "brain", backend=backend) as s:
        yield s


def test_upload_with_index_queues_a_job_you_can_follow(served_jobs: Served) -> None:
    s = served_jobs
    c = s.http(s.key(teams=["eng"]))
    r = c.post(
        "/v1/files",
        params={"index": "true"},
        files={"file": ("handbook.md", HANDBOOK)},
        data={"scope": "team:eng"},
    )
    assert r.status_code == 201, r.text
    fid = r.json()["id"]
    assert r.json()["state"] in ("queued", "indexing", "indexed")
    assert wait_state(c, fid, {"indexed", "failed"})["state"] == "indexed"

    # The item reads indexed when its index commits; the worker records the job done just
    # after, so a follower polls the job itself.
    deadline = time.monotonic() + 10
    while True:
        jobs = c.get("/v1/jobs", params={"kind": "index"}).json()
        assert jobs["next_cursor"] is None and len(jobs["jobs"]) == 1
        job = jobs["jobs"][0]
        if job["state"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert (job["kind"], job["state"], job["subject"], job["attempts"]) == ("index", "done", fid, 1)
    assert job["actor"] == "human:alice" and job["payload"]["team_ids"] == ["eng"]
    assert job["finished_at"] is not None and job["last_error"] is None
    assert c.get(f"/v1/jobs/{job['id']}").json() == job
    assert c.get("/v1/jobs", params={"state": "done", "kind": "index"}).json()["jobs"] == [job]
    assert c.get("/v1/jobs", params={"state": "failed"}).json()["jobs"] == []

    # Indexed already: asking again queues nothing.
    again = c.post(f"/v1/files/{fid}/index")
    assert (again.status_code, again.json()["state"]) == (202, "indexed")
    assert len(c.get("/v1/jobs", params={"kind": "index"}).json()["jobs"]) == 1
    # Its sections were queued for derivation after indexing, as alice's work.
    derived = c.get("/v1/jobs", params={"kind": "derive"}).json()["jobs"]
    assert derived and {j["actor"] for j in derived} == {"human:alice"}


def test_jobs_are_the_callers_own_and_bad_queries_are_problems(served_jobs: Served) -> None:
    s = served_jobs
    alice = s.http(s.key(user="alice"))
    bob = s.http(s.key(user="bob"))
    elsewhere = s.http(s.key(workspace="globex", user="alice"))
    writer = s.http(s.key(user="alice", perms="write"))
    fid = upload(alice, "a.md", b"# A\n\nalpha\n").json()["id"]
    assert alice.post(f"/v1/files/{fid}/index").status_code == 202
    [job] = alice.get("/v1/jobs", params={"kind": "index"}).json()["jobs"]
    for c in (bob, elsewhere):
        assert c.get("/v1/jobs").json()["jobs"] == []
        assert_problem(c.get(f"/v1/jobs/{job['id']}"), 404, "not_found")
    assert_problem(alice.get("/v1/jobs/job_nothing"), 404, "not_found")
    assert_problem(writer.get("/v1/jobs"), 403, "forbidden")
    assert_problem(alice.get("/v1/jobs", params={"state": "stuck"}), 422, "invalid_request")
    assert_problem(alice.get("/v1/jobs", params={"limit": 0}), 422, "invalid_request")
    assert_problem(alice.get("/v1/jobs", params={"cursor": "x1"}), 400, "invalid_input")
    assert_problem(alice.get("/v1/jobs", params={"cursor": "9" * 30}), 400, "invalid_input")


def test_paging_jobs(served_jobs: Served) -> None:
    s = served_jobs
    c = s.http(s.key())
    s.ctx.worker.stop()  # leave them queued
    fids = [upload(c, f"{n}.md", f"# N{n}\n\nnumber {n}\n".encode()).json()["id"] for n in range(5)]
    for fid in fids:
        assert c.post(f"/v1/files/{fid}/index").json()["state"] == "queued"
    seen, cursor = [], None
    while True:
        page = c.get("/v1/jobs", params={"limit": 2, **({"cursor": cursor} if cursor else {})})
        seen += [j["subject"] for j in page.json()["jobs"]]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    assert seen == list(reversed(fids))  # newest first


def test_item_state_is_read_from_the_queue_whoever_wrote_it(
    tmp_path: Path, backend: Backend
) -> None:
    folder = tmp_path / "brain"
    alice = Principal("acme", "alice")
    with serve(folder, backend=backend) as s:
        c = s.http(s.key())
        fid = upload(c, "doc.md", b"# Doc\n\nsome text\n").json()["id"]
        s.ctx.worker.stop()  # this server's workers are off: another process does the work
        assert s.ctx.brain.job_counts()["queued"] == 0
        assert c.get("/readyz").status_code == 503  # no worker: not ready

        # Another process asks for indexing; this server never saw the request.
        with backend.open(folder, embedder=HashEmbedder()) as other:
            job = other.for_principal(alice).request_index(fid)
        assert job is not None
        assert c.get(f"/v1/items/{fid}").json()["state"] == "queued"
        assert c.get("/v1/items").json()["items"][0]["state"] == "queued"

        # ...and a worker elsewhere claims it: indexing, then failed for good.
        queue = backend.job_queue(folder)
        try:
            [claimed] = queue.claim("elsewhere", ["index"], lease_s=30)
            assert claimed.id == job.id
            assert c.get(f"/v1/items/{fid}").json()["state"] == "indexing"
            assert c.get(f"/v1/jobs/{job.id}").json()["lease_until"] is not None
            assert queue.fail(job.id, "elsewhere", "unavailable: gave up")
        finally:
            queue.close()
        body = c.get(f"/v1/items/{fid}").json()
        assert (body["state"], body["index_error"]) == ("failed", None)

        # Asked again, the same job runs again, here.
        s.ctx.worker.start()
        again = c.post(f"/v1/files/{fid}/index").json()
        assert again["state"] in ("queued", "indexing", "indexed")
        assert wait_state(c, fid, {"indexed"})["state"] == "indexed"
        assert c.get(f"/v1/jobs/{job.id}").json()["attempts"] == 1
        ready = c.get("/readyz")
        assert ready.status_code == 200 and ready.json()["checks"]["index_worker"] == "ok"


def test_a_bad_upload_with_index_ends_failed(served_jobs: Served) -> None:
    s = served_jobs
    c = s.http(s.key())
    r = c.post("/v1/files", params={"index": "true"}, files={"file": ("b.pdf", truncated_pdf())})
    fid = r.json()["id"]
    done = wait_state(c, fid, {"indexed", "failed"})
    assert done["state"] == "failed" and done["index_error"].startswith("corrupt_file:")
    assert s.ctx.worker.wait_idle(10)
    [job] = c.get("/v1/jobs", params={"state": "failed"}).json()["jobs"]
    assert job["subject"] == fid and job["last_error"].startswith("corrupt_file:")
