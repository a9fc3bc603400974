"""The HTTP service on a real loopback port, driven by raw httpx: auth, permissions, scopes,
uploads, indexing, content ranges, problems, deadlines, logs, and one real-model search."""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from orgbrain import Brain, NotFound, Principal
from orgbrain.keys import KeyStore, MemoryKeyStore, issue_key, revoke_key
from orgbrain.ports import Embedder, Vector
from orgbrain.retrieve import citation_for
from orgbrain.server import BackgroundServer, ServerConfig, ServerContext, create_app
from orgbrain.server.worker import WorkerPool
from tests.backends import SQLITE, Backend
from tests.filegen import ole_file, truncated_pdf
from tests.toy import HashEmbedder

HANDBOOK = b"""# Billing

The billing service is owned by Priya Raman. It charges cards through Stripe.

## Refunds

Refunds over 500 EUR need approval from finance.

# Search

The search service indexes listings nightly; Mei Chen owns it.
"""
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}


# -- the harness (also used by the other server tests) ------------------------------------


@dataclass
class Served:
    url: str
    folder: Path
    brain: Brain
    keys: KeyStore
    app: FastAPI
    backend: Backend = SQLITE

    @property
    def ctx(self) -> ServerContext:
        ctx = self.app.state.orgbrain
        assert isinstance(ctx, ServerContext)
        return ctx

    def key(
        self,
        workspace: str = "acme",
        user: str = "alice",
        perms: str = "read,write",
        teams: Sequence[str] = (),
        agent: bool = False,
    ) -> str:
        return issue_key(self.keys, workspace, user, perms, teams=teams, agent=agent).token

    def http(self, token: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


@contextmanager
def serve(
    folder: Path,
    *,
    embedder: Embedder | None = None,
    max_file_bytes: int = 1 << 20,
    deadline_s: float = 30.0,
    keys: KeyStore | None = None,
    derive_wait_s: float = 30.0,
    stream_max_s: float = 3600.0,
    backend: Backend = SQLITE,
) -> Iterator[Served]:
    """A brain served on a free loopback port: in ``folder``, keys in the same file; or,
    with a postgres+s3 ``backend``, in its PostgreSQL schema (keys too) and bucket."""
    settings = backend.settings(folder, max_file_bytes=max_file_bytes, derive_wait_s=derive_wait_s)
    brain = backend.open(folder, embedder=embedder or HashEmbedder(), settings=settings)
    key_store = keys or backend.key_store(folder)
    config = ServerConfig.from_settings(settings, deadline_s=deadline_s, stream_max_s=stream_max_s)
    app = create_app(brain, key_store, config=config)
    try:
        with BackgroundServer(app) as server:
            yield Served(server.url, folder, brain, key_store, app, backend)
    finally:
        key_store.close()
        brain.close()


def wait_state(
    c: httpx.Client, item_id: str, want: set[str], timeout: float = 30
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = c.get(f"/v1/items/{item_id}").json()
        if body["state"] in want or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def assert_problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = r.json()
    assert PROBLEM_KEYS <= set(body), body
    assert body["status"] == status and body["code"] == code, body
    assert body["type"] == f"urn:orgbrain:problem:{code}"
    return body


def upload(c: httpx.Client, name: str, data: bytes, **fields: str) -> httpx.Response:
    return c.post("/v1/files", files={"file": (name, data)}, data=fields)


@pytest.fixture
def served(tmp_path: Path, backend: Backend) -> Iterator[Served]:
    """The server every test here runs against, once on each backend."""
    with serve(tmp_path / "brain", max_file_bytes=4096, backend=backend) as s:
        yield s


# -- service basics -----------------------------------------------------------------------


def test_health_ready_and_openapi(served: Served) -> None:
    c = served.http(None)
    assert c.get("/healthz").json() == {"status": "ok"}
    ready = c.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {
        "store": "ok",
        "embedder": "ok",
        "index_worker": "ok",
        "workspaces": "ok",
    }
    spec = c.get("/openapi.json").json()
    assert "Problem" in spec["components"]["schemas"]
    assert spec["components"]["securitySchemes"]["ApiKey"]["scheme"] == "bearer"
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if path.startswith("/v1"):
                assert op.get("security") == [{"ApiKey": []}], (method, path)
                problem = op["responses"]["401"]["content"]["application/problem+json"]
                assert problem["schema"] == {"$ref": "#/components/schemas/Problem"}
    for needed in (
        "/v1/files",
        "/v1/files/{item_id}/index",
        "/v1/notes",
        "/v1/items",
        "/v1/items/{item_id}",
        "/v1/items/{item_id}/sections",
        "/v1/items/{item_id}/content",
        "/v1/search",
        "/v1/admin/keys",
        "/v1/admin/keys/{key_id}",
    ):
        assert needed in spec["paths"]


def test_unknown_route_and_method_are_problems(served: Served) -> None:
    c = served.http(served.key())
    assert_problem(c.get("/v1/nothing-here"), 404, "not_found")
    assert_problem(c.delete("/v1/search"), 405, "method_not_allowed")


# -- authentication and permissions -------------------------------------------------------


def test_missing_invalid_and_revoked_keys_are_401(served: Served) -> None:
    good = served.key()
    key_id = good.split("_")[1]
    forged = good[:-4] + ("0000" if not good.endswith("0000") else "1111")
    cases = {
        "missing": served.http(None),
        "garbage": served.http("not-a-key"),
        "wrong secret": served.http(forged),
        "unknown id": served.http("ob_" + "0" * 16 + "_" + "a" * 64),
    }
    for name, c in cases.items():
        r = c.get("/v1/items")
        body = assert_problem(r, 401, "unauthenticated")
        assert r.headers["www-authenticate"].startswith("Bearer"), name
        assert good.split("_")[2] not in r.text
        assert body["detail"]
    basic = httpx.get(served.url + "/v1/items", headers={"Authorization": "Basic YTpi"})
    assert_problem(basic, 401, "unauthenticated")

    c = served.http(good)
    assert c.get("/v1/items").status_code == 200
    revoke_key(served.keys, key_id)
    assert_problem(c.get("/v1/items"), 401, "unauthenticated")
    assert_problem(c.post("/v1/search", json={"query": "x"}), 401, "unauthenticated")


def test_each_route_needs_its_permission(served: Served) -> None:
    reader = served.http(served.key(perms="read"))
    writer = served.http(served.key(perms="write"))
    admin = served.http(served.key(perms="admin"))
    assert_problem(reader.post("/v1/notes", json={"body": "a fact"}), 403, "forbidden")
    assert_problem(upload(reader, "a.md", b"# A\n\ntext\n"), 403, "forbidden")
    assert_problem(reader.get("/v1/admin/keys"), 403, "forbidden")
    assert_problem(writer.post("/v1/search", json={"query": "fact"}), 403, "forbidden")
    assert_problem(writer.get("/v1/items"), 403, "forbidden")
    assert_problem(admin.get("/v1/items"), 403, "forbidden")
    note = writer.post("/v1/notes", json={"body": "a fact"})
    assert note.status_code == 201
    assert_problem(writer.get(f"/v1/items/{note.json()['id']}/content"), 403, "forbidden")
    assert_problem(writer.get(f"/v1/items/{note.json()['id']}"), 403, "forbidden")
    assert reader.get(f"/v1/items/{note.json()['id']}").status_code == 200
    assert admin.get("/v1/admin/keys").status_code == 200
    # Any valid key may ask who it is.
    assert reader.get("/v1/me").json()["permissions"] == ["read"]


def test_writes_only_to_the_principals_own_scopes(served: Served) -> None:
    c = served.http(served.key(user="alice", teams=["eng"]))
    for scope in ("org", "team:eng", "user:alice", None):
        payload = {"body": f"fact for {scope}", **({"scope": scope} if scope else {})}
        r = c.post("/v1/notes", json=payload)
        assert r.status_code == 201, r.text
        assert r.json()["scope"] == (scope or "org")
    for scope in ("team:ops", "user:bob"):
        assert_problem(c.post("/v1/notes", json={"body": "x", "scope": scope}), 403, "forbidden")
        assert_problem(upload(c, "a.md", b"# A\n\nbody\n", scope=scope), 403, "forbidden")
    assert_problem(c.post("/v1/notes", json={"body": "x", "scope": "galaxy"}), 400, "invalid_input")


# -- not found looks the same whoever owns it ---------------------------------------------


def test_other_users_and_workspaces_ids_are_plain_404s(served: Served) -> None:
    alice = served.http(served.key(user="alice"))
    bob = served.http(served.key(user="bob"))
    other_ws = served.http(served.key(workspace="globex", user="alice"))
    private = alice.post("/v1/notes", json={"body": "alice's secret", "scope": "user:alice"})
    assert private.status_code == 201
    pid = private.json()["id"]
    f = upload(alice, "plan.md", b"# Plan\n\nthe private plan\n", scope="user:alice").json()["id"]
    missing = "not_" + "0" * 19

    def shape(r: httpx.Response, item_id: str) -> tuple[int, str, str]:
        body = r.json()
        return r.status_code, r.headers["content-type"], json.dumps(body).replace(item_id, "ID")

    for path in ("/v1/items/{}", "/v1/items/{}/sections", "/v1/items/{}/content"):
        reference = shape(alice.get(path.format(missing)), missing)
        assert reference[0] == 404
        for c in (bob, other_ws):
            for item_id in (pid, f):
                assert shape(c.get(path.format(item_id)), item_id) == reference, path
    for c in (bob, other_ws):
        r = c.post(f"/v1/files/{f}/index")
        assert shape(r, f) == shape(alice.post(f"/v1/files/{missing}/index"), missing)
        assert c.get("/v1/items").json()["items"] == []
        hits = c.post("/v1/search", json={"query": "secret private plan"}).json()["hits"]
        assert hits == []
    assert alice.get(f"/v1/items/{pid}").status_code == 200


# -- uploads ------------------------------------------------------------------------------


def _leftovers(served: Served) -> set[str]:
    found = served.backend.blob_keys(served.folder)
    return found | {str(p) for p in Path(tempfile.gettempdir()).iterdir()}


def test_oversize_upload_is_413_and_leaves_nothing(served: Served) -> None:
    c = served.http(served.key())
    before = _leftovers(served)
    over = b"# Big\n" + b"x" * 4091  # 4097 bytes: one over the cap
    assert_problem(upload(c, "big.md", over), 413, "too_large")

    # A Content-Length over the cap is refused before the body is read.
    boundary = "b0undary"
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.md"'
    body = (head + "\r\n\r\n").encode() + b"y" * 200_000 + f"\r\n--{boundary}--\r\n".encode()
    r = c.post(
        "/v1/files",
        content=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert_problem(r, 413, "too_large")
    assert "the upload is" in r.json()["detail"]

    # Without a Content-Length (chunked), reading stops in the chunk that crosses the cap.
    def chunks() -> Iterator[bytes]:
        for i in range(0, len(body), 1000):
            yield body[i : i + 1000]

    r = c.post(
        "/v1/files",
        content=chunks(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert "over the cap of 4096 bytes" in assert_problem(r, 413, "too_large")["detail"]

    assert c.get("/v1/items").json()["items"] == []
    assert _leftovers(served) == before

    exact = b"# Fits\n" + b"z" * (4096 - 7)
    ok = upload(c, "fits.md", exact)
    assert ok.status_code == 201, ok.text
    assert ok.json()["size"] == 4096 and ok.json()["state"] == "added"
    assert ok.headers["location"] == f"/v1/items/{ok.json()['id']}"
    assert served.backend.blob_keys(served.folder) - before  # the listing sees a kept upload


def test_unsupported_and_malformed_uploads(served: Served) -> None:
    c = served.http(served.key())
    assert_problem(upload(c, "deck.ppt", ole_file()), 415, "unsupported_format")
    assert_problem(
        upload(c, "pic.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64), 415, "unsupported_format"
    )
    not_form = c.post("/v1/files", content=b"# hi", headers={"Content-Type": "text/markdown"})
    assert_problem(not_form, 415, "unsupported_format")
    no_file = c.post("/v1/files", files={"other": ("a.md", b"# A")})
    assert_problem(no_file, 422, "invalid_request")
    garbled = c.post(
        "/v1/files",
        content=b"--x\r\nno headers here",
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    assert garbled.status_code in (400, 422) and garbled.status_code < 500
    naive = upload(c, "a.md", b"# A\n\nb\n", occurred_at="2024-05-01T09:00:00")
    assert_problem(naive, 422, "invalid_request")
    assert c.get("/v1/items").json()["items"] == []


def test_malformed_json_and_bad_fields_are_422(served: Served) -> None:
    c = served.http(served.key())
    bad_json = c.post(
        "/v1/notes", content=b'{"body": ', headers={"Content-Type": "application/json"}
    )
    body = assert_problem(bad_json, 422, "invalid_request")
    assert body["errors"][0]["type"] == "json_invalid"
    assert_problem(c.post("/v1/notes", json={"body": 42}), 422, "invalid_request")
    assert_problem(c.post("/v1/notes", json={"text": "wrong field"}), 422, "invalid_request")
    lone_surrogate = b'{"body": "\\ud800 broken"}'
    r = c.post("/v1/notes", content=lone_surrogate, headers={"Content-Type": "application/json"})
    assert_problem(r, 422, "invalid_request")
    naive = c.post("/v1/notes", json={"body": "x", "occurred_at": "2024-01-01T00:00:00"})
    assert_problem(naive, 422, "invalid_request")
    assert_problem(c.post("/v1/search", json={"query": ""}), 422, "invalid_request")
    assert_problem(c.post("/v1/search", json={"query": "   "}), 400, "invalid_input")
    assert_problem(c.post("/v1/search", json={"query": "x", "plan": "magic"}), 400, "invalid_input")
    assert_problem(c.get("/v1/items", params={"limit": 0}), 422, "invalid_request")
    assert_problem(c.get("/v1/items", params={"class": "galaxy"}), 422, "invalid_request")
    assert_problem(c.get("/v1/items", params={"cursor": "abc"}), 400, "invalid_input")
    assert_problem(c.get("/v1/items", params={"cursor": "9" * 30}), 400, "invalid_input")
    big = b'{"body": "' + b"a" * (3 << 20) + b'"}'
    r = c.post("/v1/notes", content=big, headers={"Content-Type": "application/json"})
    assert_problem(r, 413, "too_large")
    assert_problem(c.post("/v1/notes", json={"body": "a" * 100_001}), 413, "too_large")


def test_a_nul_character_is_kept_or_refused_whole_never_a_500(served: Served) -> None:
    """PostgreSQL text cannot hold U+0000 (SQLite can): there a NUL in a note, a label, a
    filter or an id is a 400 naming it and stores nothing; on SQLite the note keeps it.
    It was a 500 and a dropped connection on PostgreSQL."""
    c = served.http(served.key())
    writes = [{"body": "a\u0000b"}, {"body": "fine", "label": "x\u0000"}]
    reads = [
        c.get("/v1/items", params={"name": "a\x00"}),
        c.get("/v1/statements", params={"about": "x\x00"}),
        c.get("/v1/jobs", params={"kind": "a\x00"}),
        c.get("/v1/items/itm%00x"),
    ]
    if served.backend.on_postgres:
        for note in writes:
            problem = assert_problem(c.post("/v1/notes", json=note), 400, "invalid_input")
            assert "NUL" in problem["detail"]
        assert c.get("/v1/items").json()["items"] == []
        for r in reads:
            assert "NUL" in assert_problem(r, 400, "invalid_input")["detail"]
        return
    made = [c.post("/v1/notes", json=note) for note in writes]
    assert [r.status_code for r in made] == [201, 201]
    assert c.get(f"/v1/items/{made[0].json()['id']}").json()["body"] == "a\u0000b"
    assert [r.status_code for r in reads] == [200, 200, 200, 404]


# -- index, sections, content -------------------------------------------------------------


def test_index_in_the_background_then_sections_and_ranges(served: Served) -> None:
    c = served.http(served.key())
    added = upload(c, "handbook.md", HANDBOOK, kind="handbook").json()
    assert (added["state"], added["indexed"], added["kind"]) == ("added", False, "handbook")
    fid = added["id"]
    queued = c.post(f"/v1/files/{fid}/index")
    assert queued.status_code == 202
    assert queued.json()["state"] in ("queued", "indexing", "indexed")
    done = wait_state(c, fid, {"indexed", "failed"})
    assert done["state"] == "indexed" and done["indexed"] is True
    again = c.post(f"/v1/files/{fid}/index")
    assert (again.status_code, again.json()["state"]) == (202, "indexed")

    sections = c.get(f"/v1/items/{fid}/sections").json()["sections"]
    assert len(sections) >= 2 and all(s["parent_id"] == fid for s in sections)
    whole = c.get(f"/v1/items/{fid}/content")
    assert whole.content == HANDBOOK
    assert whole.headers["content-type"].startswith("text/markdown")
    assert whole.headers["accept-ranges"] == "bytes"

    part = c.get(f"/v1/items/{fid}/content", headers={"Range": "bytes=2-8"})
    assert part.status_code == 206 and part.content == HANDBOOK[2:9]
    assert part.headers["content-range"] == f"bytes 2-8/{len(HANDBOOK)}"
    tail = c.get(f"/v1/items/{fid}/content", headers={"Range": "bytes=-5"})
    assert tail.status_code == 206 and tail.content == HANDBOOK[-5:]
    open_ended = c.get(f"/v1/items/{fid}/content", headers={"Range": "bytes=10-"})
    assert open_ended.content == HANDBOOK[10:]
    past = c.get(f"/v1/items/{fid}/content", headers={"Range": f"bytes={len(HANDBOOK)}-"})
    assert_problem(past, 416, "range_not_satisfiable")
    assert past.headers["content-range"] == f"bytes */{len(HANDBOOK)}"
    ignored = c.get(f"/v1/items/{fid}/content", headers={"Range": "bytes=0-1,4-5"})
    assert ignored.status_code == 200 and ignored.content == HANDBOOK

    first = sections[0]
    text = HANDBOOK[first["byte_range"]["start"] : first["byte_range"]["end"]]
    by_ordinal = c.get(f"/v1/items/{fid}/content", params={"section": 1})
    assert by_ordinal.content == text
    assert by_ordinal.headers["content-type"] == "text/plain; charset=utf-8"
    assert c.get(f"/v1/items/{first['id']}/content").content == text
    sec_range = c.get(f"/v1/items/{first['id']}/content", headers={"Range": "bytes=0-3"})
    assert sec_range.status_code == 206 and sec_range.content == text[:4]
    assert_problem(c.get(f"/v1/items/{fid}/content", params={"section": 99}), 404, "not_found")

    edges = c.get(f"/v1/items/{fid}/edges").json()["edges"]
    assert {e["dst"] for e in edges if e["type"] == "HAS_SECTION"} == {s["id"] for s in sections}

    hits = c.post("/v1/search", json={"query": "refunds approval finance"}).json()
    assert hits["hits"] and hits["hits"][0]["citation"]["file_id"] == fid

    note = c.post("/v1/notes", json={"body": "a note"}).json()["id"]
    assert_problem(c.post(f"/v1/files/{note}/index"), 400, "invalid_input")
    assert_problem(c.get(f"/v1/items/{note}/content"), 400, "invalid_input")


def test_a_bad_file_ends_failed_with_its_error(served: Served) -> None:
    c = served.http(served.key())
    fid = upload(c, "broken.pdf", truncated_pdf()).json()["id"]
    assert c.post(f"/v1/files/{fid}/index").status_code == 202
    done = wait_state(c, fid, {"indexed", "failed"})
    assert done["state"] == "failed"
    assert done["index_error"].startswith("corrupt_file:")


def test_items_filters_and_cursor_pagination(served: Served) -> None:
    c = served.http(served.key())
    ids = [
        c.post("/v1/notes", json={"body": f"fact {i}", "kind": "policy"}).json()["id"]
        for i in range(5)
    ]
    fid = upload(c, "guide.md", b"# Guide\n\nhow to\n").json()["id"]
    seen, cursor = [], None
    while True:
        params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = c.get("/v1/items", params=params).json()
        seen += [i["id"] for i in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [*ids, fid]
    assert [i["id"] for i in c.get("/v1/items", params={"kind": "policy"}).json()["items"]] == ids
    files = c.get("/v1/items", params={"class": "file", "indexed": "false"}).json()["items"]
    assert [i["id"] for i in files] == [fid]
    assert [i["id"] for i in c.get("/v1/items", params={"name": "GUIDE"}).json()["items"]] == [fid]


# -- durable restart rule -----------------------------------------------------------------


def test_unfinished_index_requests_are_requeued_on_startup(
    tmp_path: Path, backend: Backend
) -> None:
    folder = tmp_path / "brain"
    alice = Principal("acme", "alice", frozenset({"eng"}))
    brain = backend.open(folder, embedder=HashEmbedder())
    keys = backend.key_store(folder)
    token = issue_key(keys, "acme", "alice", "read,write", teams=["eng"]).token
    # A server that acknowledged requests and died before its worker ran them: the
    # requests are jobs in the brain's file (or its database).
    create_app(brain, keys)
    mine = brain.for_principal(alice)
    pending = mine.add_file(HANDBOOK, name="handbook.md", scope="team:eng")
    changed = mine.add_file(b"# Old\n\nold text\n", name="old.md")
    never_asked = mine.add_file(b"# Quiet\n\nnot requested\n", name="quiet.md")
    mine.request_index(pending.id)
    mine.request_index(changed.id)
    time.sleep(0.01)
    mine.add_file(b"# New\n\nnew bytes after the request\n", name="old.md")
    keys.close()
    brain.close()

    with serve(folder, backend=backend) as s:
        c = s.http(token)
        assert wait_state(c, pending.id, {"indexed", "failed"})["state"] == "indexed"
        assert s.ctx.worker.wait_idle(30)
        assert c.get(f"/v1/items/{changed.id}").json()["state"] == "added"
        assert c.get(f"/v1/items/{never_asked.id}").json()["state"] == "added"


class CountingEmbedder(HashEmbedder):
    """A real embedder that remembers how many texts each call had."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> Vector:
        self.calls.append(len(texts))
        return super().embed(texts)


def test_requests_that_pile_up_are_indexed_together(tmp_path: Path, backend: Backend) -> None:
    embedder = CountingEmbedder()
    alice = Principal("acme", "alice", frozenset({"eng"}))
    bob = Principal("acme", "bob")
    with backend.open(tmp_path / "brain", embedder=embedder) as brain:
        mine, his = brain.for_principal(alice), brain.for_principal(bob)
        files = [
            mine.add_file(f"# Doc {n}\n\nfact number {n}\n".encode(), name=f"d{n}.md")
            for n in range(3)
        ]
        broken = mine.add_file(truncated_pdf(), name="broken.pdf")
        private = his.add_file(b"# Bob\n\nbob's own notes\n", name="bob.md", scope="user:bob")
        for f in [*files, broken]:
            assert mine.request_index(f.id) is not None
            assert mine.index_state(f.id) == "queued"
        his.request_index(private.id)
        with pytest.raises(NotFound):  # not alice's to see: a missing file to her
            mine.request_index(private.id)
        assert mine.index_state(files[0].id) == "queued"
        embedder.calls.clear()
        worker = WorkerPool(brain)
        worker.start()
        try:
            assert worker.wait_idle(30)
        finally:
            worker.stop()
        # Alice's three good files (two texts each) were embedded in one call; Bob's in one
        # (then derivation embedded the names it found).
        assert embedder.calls[:2] == [6, 2]
        assert all(mine.get(f.id).indexed for f in files)
        failed = mine.get(broken.id)
        assert not failed.indexed and (failed.index_error or "").startswith("corrupt_file:")
        assert his.get(private.id).indexed and his.get(private.id).index_error is None


# -- deadline and logs --------------------------------------------------------------------


class SlowQueryEmbedder(HashEmbedder):
    """A real embedder that takes its time over one text (a query), for the deadline."""

    def __init__(self) -> None:
        super().__init__()
        self.slow = threading.Event()

    def embed(self, texts: Sequence[str]) -> Vector:
        if self.slow.is_set() and len(texts) == 1:
            time.sleep(2.5)
        return super().embed(texts)


def test_a_request_over_its_deadline_is_503(tmp_path: Path, backend: Backend) -> None:
    embedder = SlowQueryEmbedder()
    with serve(tmp_path / "brain", embedder=embedder, deadline_s=0.5, backend=backend) as s:
        c = s.http(s.key())
        assert c.post("/v1/notes", json={"body": "a fact about deadlines"}).status_code == 201
        embedder.slow.set()
        t0 = time.monotonic()
        r = c.post("/v1/search", json={"query": "deadlines"})
        assert time.monotonic() - t0 < 2.0  # answered before the search could finish
        body = assert_problem(r, 503, "unavailable")
        assert "0.5 s" in body["detail"]
        embedder.slow.clear()
        time.sleep(2.2)  # let the abandoned search finish in its thread
        assert c.post("/v1/search", json={"query": "deadlines"}).status_code == 200


def test_access_log_is_json_lines_without_bodies_or_keys(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    token = served.key()
    c = served.http(token)
    with caplog.at_level(logging.INFO, logger="orgbrain.http.access"):
        c.post("/v1/notes", json={"body": "the launch code is swordfish"})
        served.http(None).get("/v1/items")
        deadline = time.monotonic() + 5
        while len(caplog.records) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = [r.getMessage() for r in caplog.records if r.name == "orgbrain.http.access"]
    records = [json.loads(line) for line in lines]
    key_id = token.split("_")[1]
    assert records[0]["path"] == "/v1/notes" and records[0]["status"] == 201
    assert records[0]["method"] == "POST" and records[0]["workspace"] == "acme"
    assert records[0]["key_id"] == key_id and isinstance(records[0]["ms"], float)
    assert records[1]["status"] == 401 and records[1]["key_id"] is None
    text = "\n".join(lines)
    assert "swordfish" not in text and token.split("_")[2] not in text


# -- admin keys ---------------------------------------------------------------------------


def test_admin_manages_keys_in_its_own_workspace_only(served: Served) -> None:
    admin = served.http(served.key(perms="admin"))
    other_admin = served.http(served.key(workspace="globex", perms="admin"))
    created = admin.post(
        "/v1/admin/keys",
        json={"principal": "user:bob", "permissions": ["read"], "teams": ["eng"], "label": "ci"},
    )
    assert created.status_code == 201, created.text
    assert created.headers["cache-control"] == "no-store"
    new = created.json()
    assert new["key"]["workspace"] == "acme" and new["key"]["teams"] == ["eng"]
    token = new["token"]
    bob = served.http(token)
    assert bob.get("/v1/me").json()["scopes"] == ["org", "team:eng", "user:bob"]

    listed = admin.get("/v1/admin/keys")
    assert new["key"]["id"] in {k["id"] for k in listed.json()["keys"]}
    assert token.split("_")[2] not in listed.text and "secret" not in listed.text
    assert other_admin.get("/v1/admin/keys").json()["keys"][0]["workspace"] == "globex"
    assert len(other_admin.get("/v1/admin/keys").json()["keys"]) == 1

    assert_problem(other_admin.delete(f"/v1/admin/keys/{new['key']['id']}"), 404, "not_found")
    assert bob.get("/v1/items").status_code == 200
    revoked = admin.delete(f"/v1/admin/keys/{new['key']['id']}")
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    assert_problem(bob.get("/v1/items"), 401, "unauthenticated")
    bad = admin.post("/v1/admin/keys", json={"principal": "bob", "permissions": ["root"]})
    assert_problem(bad, 422, "invalid_request")
    assert admin.get("/v1/admin/workspace").json()["workspace"] == "acme"


# -- the real model, end to end -----------------------------------------------------------


def test_search_with_the_real_model_over_http(
    tmp_path: Path, embedder: Embedder, backend: Backend
) -> None:
    with serve(tmp_path / "brain", embedder=embedder, backend=backend) as s:
        c = s.http(s.key(teams=["eng"]))
        fid = upload(c, "handbook.md", HANDBOOK, scope="team:eng").json()["id"]
        c.post(f"/v1/files/{fid}/index")
        assert wait_state(c, fid, {"indexed", "failed"}, timeout=120)["state"] == "indexed"
        c.post("/v1/notes", json={"body": "Deploys freeze on Fridays after 15:00 UTC"})
        r = c.post("/v1/search", json={"query": "who approves large refunds?"}).json()
        top = r["hits"][0]
        assert top["citation"]["file_id"] == fid and "Refunds" in top["citation"]["text"]
        assert top["item"]["scope"] == "team:eng" and r["verdict"] in ("single", "many")
        # A colleague outside the team gets only what the org may see.
        outsider = s.http(s.key(user="bob"))
        hits = outsider.post("/v1/search", json={"query": "who approves large refunds?"})
        assert all(h["item"]["scope"] == "org" for h in hits.json()["hits"])
        assert os.environ.get("HF_HUB_OFFLINE") == "1"


# -- the command --------------------------------------------------------------------------


def test_orgbrain_serve_runs_the_api(
    tmp_path: Path, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal
    import socket
    import subprocess
    import sys

    from click.testing import CliRunner

    from orgbrain.cli.keys import keys

    folder = tmp_path / "brain"
    for var, value in backend.env().items():  # the command and its keys on the backend
        monkeypatch.setenv(var, value)
    made = CliRunner().invoke(
        keys, ["--brain", str(folder), "create", "--workspace", "default", "--principal", "ann"]
    )
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
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
    ]
    env = {**os.environ, "ORGBRAIN_EMBEDDER": "minilm"}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        r = httpx.get(url + "/v1/items", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.json()["items"] == []
        assert httpx.get(url + "/v1/items").status_code == 401
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    access = [json.loads(line) for line in err.splitlines() if line.startswith('{"event"')]
    assert [a["status"] for a in access if a["path"] == "/v1/items"] == [200, 401]
    assert token.split("_")[2] not in err
    # The key and the brain were where the backend says: no file of its own on PostgreSQL.
    assert (folder / "brain.sqlite").exists() != backend.on_postgres
    listed = backend.key_store(folder)
    assert [k.workspace for k in listed.list_keys("default")] == ["default"]
    listed.close()


def test_a_citations_numbers_fetch_exactly_its_bytes(tmp_path: Path, backend: Backend) -> None:
    """One convention: byte ranges are half-open everywhere orgbrain speaks; ``?start&end``
    takes a citation's numbers as they are, and HTTP's inclusive Range needs end - 1."""
    brain = backend.open(tmp_path / "brain", embedder=HashEmbedder())
    keys = backend.key_store(tmp_path / "brain")
    token = issue_key(keys, brain.workspace, "alice", "read,write").token
    file = brain.add_file(HANDBOOK, name="handbook.md", index=True)
    with BackgroundServer(create_app(brain, keys)) as server:
        headers = {"Authorization": f"Bearer {token}"}
        for section in brain.sections(file.id):
            assert section.byte_range is not None
            start, end = section.byte_range.start, section.byte_range.end
            cite = citation_for(section).describe()
            assert f"bytes [{start}, {end})" in cite
            exact = b"".join(brain.read_file(section.id))
            assert len(exact) == end - start
            url = f"{server.url}/v1/items/{file.id}/content"
            by_params = httpx.get(url, params={"start": start, "end": end}, headers=headers)
            assert by_params.status_code == 206 and by_params.content == exact
            by_range = httpx.get(url, headers={**headers, "Range": f"bytes={start}-{end - 1}"})
            assert by_range.status_code == 206 and by_range.content == exact
        empty = httpx.get(url, params={"start": 5, "end": 5}, headers=headers)
        assert empty.status_code == 400
    keys.close()
    brain.close()


def test_the_docs_page_works_offline(served: Served) -> None:
    """/docs once loaded Swagger UI from a CDN: blank with no network. Its page and every
    asset it names come from this server."""
    page = httpx.get(f"{served.url}/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert assets and all(a.startswith("/docs/assets/") for a in assets), assets
    for asset in assets:
        got = httpx.get(f"{served.url}{asset}")
        assert got.status_code == 200 and len(got.content) > 1000, asset
    assert "cdn" not in page.text.lower()


def test_a_restart_sweeps_what_a_kill_left(tmp_path: Path) -> None:
    """After server kills, temp files and blobs no row names were left for ever; a start
    now sweeps those older than an hour (younger ones may be another process's upload)."""
    folder = tmp_path / "brain"
    brain = Brain.open(folder, embedder=HashEmbedder())
    kept = brain.add_file(HANDBOOK, name="handbook.md")
    old_tmp = folder / "blobs" / "workspaces" / "default" / "fil_x" / "ver_y" / ".tmp-dead"
    orphan = folder / "blobs" / "workspaces" / "default" / "fil_gone" / "ver_z" / "raw"
    for path in (old_tmp, orphan):
        path.parent.mkdir(parents=True)
        path.write_bytes(b"left by a kill")
        then = time.time() - 2 * 3600
        os.utime(path, (then, then))
    with BackgroundServer(create_app(brain, MemoryKeyStore())):
        pass
    assert not old_tmp.exists() and not orphan.exists()
    assert b"".join(brain.read_file(kept.id)) == HANDBOOK
    brain.close()


def test_an_admin_minting_a_key_for_someone_else_is_audited(served: Served) -> None:
    """Decided: an admin provisions keys for anyone in its workspace (their private scope
    included: that is the admin's job), and each mint and revoke is an audit record."""
    admin_key = served.key(user="root", perms="admin")
    admin = served.http(admin_key)
    made = admin.post("/v1/admin/keys", json={"principal": "user:alice", "permissions": ["read"]})
    assert made.status_code == 201
    key_id = made.json()["key"]["id"]
    assert admin.delete(f"/v1/admin/keys/{key_id}").status_code == 200
    events = admin.get("/v1/admin/audit").json()["events"]
    assert [e["action"] for e in events] == ["revoke", "create"]
    assert all(e["key_id"] == key_id and e["principal"] == "user:alice" for e in events)
    assert all(e["actor"] == "human:root" and e["by_key"] for e in events)
    reader = served.http(served.key(perms="read"))
    assert_problem(reader.get("/v1/admin/audit"), 403, "forbidden")


def test_a_key_for_an_empty_workspace_is_visible_in_readyz_and_me(served: Served) -> None:
    """The README's recipe once served an empty workspace with no hint: every search said
    nothing. /readyz counts such workspaces (naming none: it needs no key); /v1/me tells the
    key itself."""
    home = served.http(served.key())
    assert home.post("/v1/notes", json={"body": "a fact"}).status_code == 201
    lost = served.http(served.key(workspace="ghost"))
    me = lost.get("/v1/me").json()
    assert me["workspace_items"] == 0 and "holds no items" in me["note"]
    ready = httpx.get(f"{served.url}/readyz").json()
    assert "1 workspace(s) with active keys hold no items" in ready["checks"]["workspaces"]
    assert "ghost" not in json.dumps(ready)
    assert home.get("/v1/me").json()["note"] is None
