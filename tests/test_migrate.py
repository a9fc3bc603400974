"""Moving house: an embedded brain moved into PostgreSQL (the pgserver fixture) and an S3
bucket (a real s3rver), answering as it did with the same citations and bytes; a move
cut short (a store that dies after some pages, a blob upload that dies midway, a process
killed with SIGKILL) goes on where it stopped and copies nothing twice; a destination
holding anything else is refused with nothing written."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from orgbrain import Brain, compose
from orgbrain.adapters.blobs_s3 import S3BlobStore
from orgbrain.adapters.postgres import PostgresJobQueue, PostgresStore
from orgbrain.errors import Conflict, Unauthenticated
from orgbrain.keys import authenticate, issue_key, revoke_key
from orgbrain.migrate import MARK, MoveOptions, MoveReport
from orgbrain.ports import RECORD_KINDS, BlobStore, Embedder, Record, RecordKind
from orgbrain.scopes import Principal
from orgbrain.settings import Settings
from tests.filegen import make_docx
from tests.s3rver import BUCKET, s3_env

HANDBOOK = (
    b"# Refunds\n\nFinance approves refunds over 500 EUR within five working days.\n\n"
    b"# Travel\n\nBook trains for trips under six hours; flights need a manager's approval.\n"
)
HANDBOOK_V2 = HANDBOOK + b"\n# Expenses\n\nReceipts go to the expenses inbox by the fifth.\n"
OLD = "The on-call rotation changes every Monday at 09:00 UTC."
NEW = "The on-call rotation changes every Tuesday at 09:00 UTC."
RULE = "Always run the schema check before deploying the API."
DECISION = "We decided to move billing to CockroachDB instead of Postgres."
QUERIES = (
    "who approves refunds",
    "when does the on-call rotation change",
    "how should I book travel",
    "where do receipts go",
    "what is the billing database",
    "who signs off the security review",
)
SAM = Principal("default", "sam", frozenset({"core"}))


@pytest.fixture
def endpoint(s3rver: str, monkeypatch: pytest.MonkeyPatch) -> str:
    for var, value in s3_env(s3rver).items():
        monkeypatch.setenv(var, value)
    return s3rver


@pytest.fixture
def bucket() -> str:
    return f"s3://{BUCKET}/moves/{uuid4().hex}"


@dataclass(frozen=True)
class OldHouse:
    path: Path
    tokens: dict[str, str]
    """API key tokens by what they are: ``active``, ``revoked``."""


def products(run_id: str, summary: str) -> dict[str, object]:
    return {"run_id": run_id, "outcome": "succeeded", "summary": summary, "artefacts": []}


@pytest.fixture
def old_house(tmp_path: Path, embedder: Embedder) -> OldHouse:
    """An embedded brain holding one of everything: files (one with two versions, one a
    Word document), notes with explicit supersession, a private note, a forgotten one,
    a second workspace, derived statements and edges, write-back proposals written and
    pending, searches logged as events, jobs done, and API keys (one revoked)."""
    path = tmp_path / "old"
    with Brain.open(path, embedder=embedder) as brain:
        brain.add_file(HANDBOOK, name="handbook.md", index=True)
        brain.add_file(HANDBOOK_V2, name="handbook.md", index=True)
        security = make_docx(
            [(1, "Security review"), (0, "Priya signs off the security review every quarter.")]
        )
        brain.add_file(security, name="security.docx", index=True)
        old = brain.add_note(OLD)
        brain.add_note(NEW, supersedes=[old.id])
        brain.add_note("Sam keeps the standup notes in the team drive.", scope="user:sam")
        gone = brain.add_note("The old wiki lives at wiki.example.com.")
        brain.forget(gone.id, reason="moved")
        brain.for_workspace("ops").add_note("The ops team deploys on Thursdays.")
        brain.write_back(products("run-written", DECISION), wait=True)
        brain.for_principal(SAM).write_back(products("run-pending", RULE), wait=True)
        brain.run_jobs()
        for q in QUERIES[:3]:
            brain.search(q)  # logged: the events move too
        assert brain.proposals(), "the inbox should hold one"
    keys = compose.open_key_store(path)
    try:
        active = issue_key(keys, "default", "ann", "read,write")
        revoked = issue_key(keys, "ops", "bob", "read", agent=True, label="ci")
        revoke_key(keys, revoked.key.id)
    finally:
        keys.close()
    return OldHouse(path, {"active": active.token, "revoked": revoked.token})


def settings_for(path: Path, endpoint: str | None) -> Settings:
    return Settings(brain=path, s3_endpoint=endpoint)


def open_new(pg_url: str, bucket: str, endpoint: str, embedder: Embedder, path: Path) -> Brain:
    return Brain.open(
        pg_url, embedder=embedder, settings=settings_for(path, endpoint), blobs=bucket
    )


def move_house(
    old: Path,
    new: Brain,
    pg_url: str,
    embedder: Embedder,
    endpoint: str | None,
    options: MoveOptions | None = None,
) -> MoveReport:
    keys = compose.open_key_store(old)
    target_keys = compose.open_key_store(old, store=pg_url)
    try:
        with Brain.open(old, embedder=embedder, settings=settings_for(old, endpoint)) as brain:
            return brain.move_to(
                new,
                keys=keys,
                target_keys=target_keys,
                name=str(old),
                target_name="the server",
                options=options,
            )
    finally:
        target_keys.close()
        keys.close()


def answers(brain: Brain) -> dict[str, Any]:
    """What a brain says, through the facade, for comparing two of them."""
    b = brain.without_search_log()
    out: dict[str, Any] = {}
    for q in QUERIES:
        hits = b.search(q, k=5).hits
        out[f"top:{q}"] = None if not hits else (hits[0].citation, hits[0].item)
        cited = [
            (h.citation, b"".join(b.read_file(h.citation.item_id)) if h.citation.file_id else None)
            for h in hits
        ]
        out[f"cited:{q}"] = sorted(cited, key=lambda c: c[0].item_id)
    files = list(b.items(storage_class="file", limit=100).items)
    out["files"] = files
    for f in files:
        history = b.history(f.id)
        out[f"history:{f.id}"] = history
        out[f"bytes:{f.id}"] = b"".join(b.read_file(f.id))
        for v in history.versions:
            out[f"bytes:{f.id}:{v.number}"] = b"".join(b.read_file(f.id, version=v.number))
        out[f"sections:{f.id}"] = [(s, b"".join(b.read_file(s.id))) for s in b.sections(f.id)]
    notes = list(b.items(storage_class="note", limit=100).items)
    out["notes"] = notes
    out["chains"] = [b.history(n.id) for n in notes]
    held = [*notes, *(s for f in files for s, _ in out[f"sections:{f.id}"])]
    out["statements"] = [b.statements(item_id=x.id, current=None) for x in held]
    assert any(out["statements"]), "derivation should have left statements"
    out["proposals"] = b.proposals(state=None, limit=100)
    out["events"] = b.events_after(0, limit=1000)
    out["jobs"] = b.jobs(limit=1000).jobs
    out["counts"] = b.counts()
    out["ops"] = brain.for_workspace("ops").without_search_log().items(limit=100).items
    return out


def test_a_brain_moves_house_and_answers_as_it_did(
    old_house: OldHouse,
    pg_url: str,
    bucket: str,
    endpoint: str,
    embedder: Embedder,
    tmp_path: Path,
) -> None:
    with Brain.open(old_house.path, embedder=embedder) as old:
        before = answers(old)
    with open_new(pg_url, bucket, endpoint, embedder, tmp_path / "srv") as new:
        report = move_house(old_house.path, new, pg_url, embedder, endpoint, MoveOptions(batch=7))
    assert report.ok and not report.resumed, report
    v = report.verification
    assert {c.kind for c in v.counts} == {*RECORD_KINDS, "keys"}
    assert {c.workspace for c in v.counts} == {"default", "ops"}
    assert all(c.ok and c.source > 0 for c in v.counts if c.kind in ("items", "events"))
    assert v.blobs.named >= 4 and v.blobs.sized == v.blobs.named and v.blobs.hashed == v.blobs.named
    assert v.probes and all(p.ok and p.source_top for p in v.probes)
    assert report.copied["blobs"] == v.blobs.named and report.copied["keys"] == 2
    assert report.copied["items"] == sum(c.source for c in v.counts if c.kind == "items")

    # A fresh process's view of the new house: PostgreSQL and the bucket, nothing else.
    with open_new(pg_url, bucket, endpoint, embedder, tmp_path / "elsewhere") as moved:
        after = answers(moved)
        for key, value in before.items():
            assert after[key] == value, key
        assert not (tmp_path / "elsewhere" / "blobs").exists()
    keys = compose.open_key_store(tmp_path, store=pg_url)
    try:
        assert authenticate(keys, old_house.tokens["active"]).user_id == "ann"
        with pytest.raises(Unauthenticated):
            authenticate(keys, old_house.tokens["revoked"])
    finally:
        keys.close()

    # Moving again changes nothing: everything is there already.
    with open_new(pg_url, bucket, endpoint, embedder, tmp_path / "srv") as new:
        again = move_house(old_house.path, new, pg_url, embedder, endpoint)
    assert again.ok and again.resumed
    assert all(n == 0 for n in again.copied.values()), again.copied


# -- cut short, and resumed ----------------------------------------------------------------


class Killed(Exception):
    """What the process would have died of."""


class DiesAfter(PostgresStore):
    """The real PostgreSQL store, which dies (as a killed process would) after importing
    ``pages`` pages."""

    def __init__(self, url: str, pages: int) -> None:
        super().__init__(url)
        self.pages_left = pages

    def import_records(
        self, kind: RecordKind, records: Iterable[Record], *, mark: tuple[str, str] | None = None
    ) -> int:
        if self.pages_left == 0:
            raise Killed(f"killed before a page of {kind}")
        self.pages_left -= 1
        return super().import_records(kind, list(records), mark=mark)


class UploadDies:
    """The real bucket, whose ``n``-th upload dies midway through its bytes."""

    def __init__(self, blobs: BlobStore, n: int) -> None:
        self.blobs, self.n = blobs, n

    def __getattr__(self, name: str) -> Any:
        return getattr(self.blobs, name)

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int | None = None) -> int:
        self.n -= 1
        if self.n > 0:
            return self.blobs.put(key, chunks, max_bytes=max_bytes)

        def dying() -> Iterator[bytes]:
            for chunk in chunks:
                yield chunk[: len(chunk) // 2]
                raise Killed(f"killed uploading {key}")

        return self.blobs.put(key, dying(), max_bytes=max_bytes)


def cut_short(
    pg_url: str, bucket: str, endpoint: str, embedder: Embedder, path: Path, *, pages: int, put: int
) -> Brain:
    """A new house over the real database and bucket that dies part way."""
    blobs = UploadDies(S3BlobStore.from_url(bucket, endpoint_url=endpoint), put)
    ctx = compose.build_context(
        DiesAfter(pg_url, pages),
        blobs,  # type: ignore[arg-type]
        embedder,
        settings_for(path, endpoint),
        jobs=PostgresJobQueue(pg_url),
    )
    return Brain(ctx)


def held(pg_url: str) -> dict[RecordKind, int]:
    store = PostgresStore(pg_url, max_connections=1)
    try:
        return {k: sum(store.count_records(k).values()) for k in RECORD_KINDS}
    finally:
        store.close()


def test_a_move_cut_short_goes_on_where_it_stopped_and_copies_nothing_twice(
    old_house: OldHouse,
    pg_url: str,
    bucket: str,
    endpoint: str,
    embedder: Embedder,
    tmp_path: Path,
) -> None:
    options = MoveOptions(batch=3)
    with Brain.open(old_house.path, embedder=embedder) as old:
        before = answers(old)
    # First it dies once the first page's blobs are up (its claim stored, the page not),
    # then the second upload dies mid-blob, then the store dies after five pages.
    for pages, put in ((1, 1000), (100, 2), (5, 1000)):
        with cut_short(pg_url, bucket, endpoint, embedder, tmp_path, pages=pages, put=put) as new:
            with pytest.raises(Killed):
                move_house(old_house.path, new, pg_url, embedder, endpoint, options)
    partial = held(pg_url)
    assert 0 < partial["items"] and partial["jobs"] == 0
    store = PostgresStore(pg_url, max_connections=1)
    try:
        checkpoint = json.loads(store.mark(MARK) or "{}")
    finally:
        store.close()
    assert checkpoint["kind"] in RECORD_KINDS and checkpoint["kind"] != "jobs"

    with open_new(pg_url, bucket, endpoint, embedder, tmp_path / "srv") as new:
        report = move_house(old_house.path, new, pg_url, embedder, endpoint, options)
    assert report.ok and report.resumed, report
    whole = held(pg_url)
    source = {c.kind: 0 for c in report.verification.counts}
    for c in report.verification.counts:
        source[c.kind] += c.source
    for kind in RECORD_KINDS:
        # Each record once: what the cut-short runs stored plus what this one added.
        assert whole[kind] == source[kind] == partial[kind] + report.copied[kind], kind
    with open_new(pg_url, bucket, endpoint, embedder, tmp_path / "elsewhere") as moved:
        after = answers(moved)
    for key, value in before.items():
        assert after[key] == value, key


# -- refused -------------------------------------------------------------------------------


def test_a_destination_holding_anything_else_is_refused_with_nothing_written(
    old_house: OldHouse,
    pg_url: str,
    bucket: str,
    endpoint: str,
    embedder: Embedder,
    tmp_path: Path,
) -> None:
    # A bucket holding another brain's blobs, under an empty database.
    taken = f"s3://{BUCKET}/moves/{uuid4().hex}"
    S3BlobStore.from_url(taken, endpoint_url=endpoint).put("workspaces/x/y/z/raw", [b"x"])
    with open_new(pg_url, taken, endpoint, embedder, tmp_path / "srv") as new:
        with pytest.raises(Conflict, match="its blob store holds blobs"):
            move_house(old_house.path, new, pg_url, embedder, endpoint)
    assert not any(held(pg_url).values())

    # A database holding another brain, over an empty bucket.
    with open_new(pg_url, bucket, endpoint, embedder, tmp_path / "srv") as new:
        new.add_note("A brain already lives here.")
        before = held(pg_url)
        with pytest.raises(Conflict, match=r"not empty .*nothing was written"):
            move_house(old_house.path, new, pg_url, embedder, endpoint)
    assert held(pg_url) == before
    blobs = S3BlobStore.from_url(bucket, endpoint_url=endpoint)
    assert list(blobs.keys("workspaces")) == []


def test_a_destination_holding_a_move_of_another_brain_is_refused(
    old_house: OldHouse,
    pg_url: str,
    bucket: str,
    endpoint: str,
    embedder: Embedder,
    tmp_path: Path,
) -> None:
    other = tmp_path / "other"
    with Brain.open(other, embedder=embedder) as brain:
        brain.add_note("Another brain altogether.")
    with cut_short(pg_url, bucket, endpoint, embedder, tmp_path, pages=1, put=1000) as new:
        with pytest.raises(Killed):
            move_house(other, new, pg_url, embedder, endpoint, MoveOptions(batch=1))
    before = held(pg_url)
    with open_new(pg_url, bucket, endpoint, embedder, tmp_path / "srv") as new:
        with pytest.raises(Conflict, match="holds a move of another brain"):
            move_house(old_house.path, new, pg_url, embedder, endpoint)
    assert held(pg_url) == before


# -- the command line ---------------------------------------------------------------------


def orgbrain(*args: str, brain: Path, endpoint: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, **s3_env(endpoint), "ORGBRAIN_BRAIN": str(brain)}
    env.pop("ORGBRAIN_DEBUG", None)
    return subprocess.Popen(
        [sys.executable, "-m", "orgbrain", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def test_orgbrain_migrate_killed_with_sigkill_then_run_again(
    old_house: OldHouse, pg_url: str, bucket: str, endpoint: str
) -> None:
    args = ("migrate", "--to", pg_url, "--blobs", bucket, "--sample", "all", "--probes", "3")
    proc = orgbrain(*args, "--batch", "1", brain=old_house.path, endpoint=endpoint)
    store = PostgresStore(pg_url, max_connections=1)
    try:
        deadline = time.monotonic() + 120
        while store.mark(MARK) is None:  # its first page is in: kill it now
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the move never stored its first page"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        checkpoint = json.loads(store.mark(MARK) or "{}")
        assert checkpoint["kind"] in RECORD_KINDS  # cut short, not done
    finally:
        store.close()

    again = orgbrain(*args, brain=old_house.path, endpoint=endpoint)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err.decode()
    text = out.decode()
    assert text.startswith("resumed ") and "verified: the two brains agree" in text
    assert "DIFFERS" not in text and re.search(r"^jobs: \d+$", err.decode(), re.M)

    third = orgbrain(*args, "--json", brain=old_house.path, endpoint=endpoint)
    out, err = third.communicate(timeout=300)
    assert third.returncode == 0, err.decode()
    report = json.loads(out)
    assert report["ok"] and report["resumed"] and report["vectors"] == "copied"
    assert not any(report["copied"].values())  # all there already
    assert report["blobs"]["hashed"] == report["blobs"]["named"] > 0
    assert all(c["ok"] for c in report["counts"]) and len(report["probes"]) == 3

    refused = orgbrain("migrate", "--to", "/not/a/url", brain=old_house.path, endpoint=endpoint)
    out, err = refused.communicate(timeout=300)
    assert refused.returncode == 2 and b"postgresql://" in err


def test_without_a_bucket_the_blobs_stay_where_they_are(
    old_house: OldHouse, pg_url: str, embedder: Embedder
) -> None:
    with Brain.open(old_house.path, embedder=embedder) as old:
        before = answers(old)
    # The new brain's blobs are the old brain folder's: nothing is copied or looked for.
    stay = Settings(brain=old_house.path)
    with Brain.open(pg_url, embedder=embedder, settings=stay) as new:
        report = move_house(
            old_house.path, new, pg_url, embedder, None, MoveOptions(copy_blobs=False)
        )
        assert report.ok and report.copied["blobs"] == 0, report
        assert report.verification.blobs.named == report.verification.blobs.sized > 0
        after = answers(new)
    for key, value in before.items():
        assert after[key] == value, key
