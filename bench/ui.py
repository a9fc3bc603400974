"""Web UI pages at 100k sections: server time of each page (the ``Server-Timing`` header
every UI page carries), p50 and p95, against the 300 ms budget.

    python bench/ui.py [--sections 100000] [--rounds 20] [--no-write] [--keep DIR]

The brain is written straight through the store, as the other benchmarks do (building
100k sections through the indexer takes hours on two cores): real SciFact sentences
embedded once with the real model (cached in ``bench/out/``), each section a sentence or
two, files of 20 sections whose text blob holds their sections at their byte ranges, 80%
org, 10% team:eng, 10% private to another user. On top, through the facade: notes about
a few owners (derived: entities, statements, a supersession, a conflict), 1000 mentions
of one person (the heaviest dossier), and three pending proposals in the reader's inbox.
For the health page, a month of the loop imported through the store's ``import_records``:
100k search events (a tenth the reader's), gate and review events, and a job per section
and file (done some seconds after it was asked for; a backlog queued, a few failed).
The server is the real app (``create_app``, the real MiniLM model) on a loopback port;
the reader signs in through the sign-in form like a browser. Results go to
``docs/benchmarks.md`` under "## Web UI".
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a file, this folder would be first on sys.path, and its http.py would shadow the
# standard library's http package; put the repository root there instead.
_HERE = Path(__file__).resolve().parent
if __package__ in (None, ""):
    sys.path[0] = str(_HERE.parent)

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402

import httpx  # noqa: E402
import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench._common import append_results, percentile  # noqa: E402
from bench._synth import DIM, MODEL, PER_FILE, WORKSPACE, queries, real_vectors  # noqa: E402
from orgbrain import Brain, Principal  # noqa: E402
from orgbrain.adapters.blobs_local import LocalBlobStore  # noqa: E402
from orgbrain.adapters.sqlite import SQLiteStore  # noqa: E402
from orgbrain.adapters.sqlite.keys import SQLiteKeyStore  # noqa: E402
from orgbrain.ids import new_id  # noqa: E402
from orgbrain.keys import issue_key  # noqa: E402
from orgbrain.model import ByteRange, Item, Locator, Origin, utcnow  # noqa: E402
from orgbrain.server import BackgroundServer, create_app  # noqa: E402
from orgbrain.server.heap import settled_heap  # noqa: E402

F32 = NDArray[np.float32]
BUDGET_MS = 300.0
READER = Principal(WORKSPACE, "alice", frozenset({"eng"}), review=True)


def build(folder: Path, n_sections: int, texts: list[str], base: F32) -> tuple[float, str]:
    """``n_sections`` sections in files of 20, each file's text blob holding its sections
    at their byte ranges; returns the seconds it took and one org file's id."""
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    store = SQLiteStore(folder / "brain.sqlite")
    store.bind_embedder(MODEL, DIM)
    blobs = LocalBlobStore(folder / "blobs")
    origin = Origin("bench:ui", "bench", utcnow())
    batch: list[tuple[Item, F32 | None]] = []
    first_org = ""
    for f in range(0, n_sections, PER_FILE):
        roll = rng.random()
        scope = "org" if roll < 0.8 else ("team:eng" if roll < 0.9 else "user:someone")
        file_id, name = new_id("fil"), f"paper{f // PER_FILE}.md"
        key = f"workspaces/{WORKSPACE}/{file_id}/1/raw"
        parts: list[bytes] = []
        vecs: list[F32] = []
        at = 0
        for i in range(f, min(f + PER_FILE, n_sections)):
            a, b = rng.integers(0, len(texts), 2)
            if i < len(texts):
                body, vec = texts[i], base[i]
            else:
                w = float(rng.uniform(0.6, 1.0))
                noise = rng.standard_normal(DIM).astype(np.float32) * np.float32(0.25 / DIM**0.5)
                mixed = w * base[a] + (1 - w) * base[b] + noise
                body, vec = f"{texts[a]} {texts[b]}", mixed / np.linalg.norm(mixed)
            ordinal = i - f
            heading = f"## Part {ordinal + 1}\n\n".encode()
            text = heading + body.encode() + b"\n\n"
            start = at + len(heading)
            parts.append(text)
            at += len(text)
            vecs.append(vec)
            section = Item(
                id=new_id("sec"),
                workspace=WORKSPACE,
                kind="section",
                storage_class="section",
                label=f"{name} > Part {ordinal + 1}",
                body=body,
                source_key=f"file:{name}#{ordinal}",
                indexed=True,
                scope=scope,
                origin=origin,
                blob_key=key,
                text_key=key,
                byte_range=ByteRange(start, start + len(body.encode())),
                locator=Locator(heading_path=(f"Part {ordinal + 1}",)),
                parent_id=file_id,
                ordinal=ordinal,
                name=name,
                media_type="text/markdown",
            )
            batch.append((section, vec.astype(np.float32)))
        data = b"".join(parts)
        blobs.put(key, [data])
        mean = np.mean(vecs, axis=0)
        file = Item(
            id=file_id,
            workspace=WORKSPACE,
            kind="file",
            storage_class="file",
            label=name,
            body="",
            source_key=f"file:{name}",
            indexed=True,
            scope=scope,
            origin=origin,
            blob_key=key,
            text_key=key,
            name=name,
            media_type="text/markdown",
            size=len(data),
        )
        batch.append((file, (mean / np.linalg.norm(mean)).astype(np.float32)))
        if scope == "org" and not first_org:
            first_org = file_id
        if len(batch) >= 2000:
            store.put_items(batch)
            batch = []
    if batch:
        store.put_items(batch)
    store.close()
    return time.perf_counter() - t0, first_org


def enrich(folder: Path, file_id: str) -> tuple[str, str]:
    """Notes, derivation, mentions and proposals through the facade; returns the id of the
    most mentioned person and of a topic with a superseded statement and a conflict."""
    with Brain.open(folder, workspace=WORKSPACE) as brain:
        owner = brain.for_principal(Principal(WORKSPACE, "writer"))
        owner.add_note(
            "The billing service owner is Sam Lee.",
            occurred_at=datetime(2023, 2, 1, tzinfo=UTC),
            wait="derived",
        )
        owner.add_note("The billing service owner is Priya Raman.", wait="derived")
        owner.add_note("The billing service is owned by Dana Whitfield now.", wait="derived")
        for n in range(20):
            owner.add_note(f"The service-{n} team is led by Priya Raman.", wait="derived")
        [priya] = brain.entity_ids("Priya Raman")
        [billing] = brain.entity_ids("billing service")
        sections = brain.sections(file_id)
        page = brain.items(storage_class="section", limit=1000)
        for s in [*sections, *page.items][:1000]:
            brain.observe_mention(s.id, "person", "Priya Raman", "Priya Raman")
        reader = brain.for_principal(READER)
        for n in range(3):
            reader.write_back(
                {
                    "run_id": f"bench-run-{n}",
                    "outcome": "succeeded",
                    "summary": f"Alice prefers async standups number {n}.",
                    "user_id": "alice",
                },
                wait=True,
            )
        return priya, billing


def loop_events(n_events: int, now: datetime) -> list[dict[str, object]]:
    """A month of the loop's events as ``import_records`` takes them: ``n_events`` searches
    over four surfaces and 37 actors (a tenth the reader's), and a gate and a review event
    for every hundred."""
    rng = np.random.default_rng(2)
    month = 30 * 86_400.0
    first = 1_000_000  # past the few events the facade logged

    def actor(i: int) -> str:
        return "human:alice" if i % 10 == 0 else f"human:u{i % 37}"

    def when(i: int, n: int) -> datetime:
        return now - timedelta(seconds=month * (1 - i / n) + 60)

    events: list[dict[str, object]] = []
    for i in range(n_events):
        record = {
            "surface": ("http", "ui", "mcp", "inject")[i % 4],
            "spoke": bool(rng.random() < 0.7),
            "k": 5,
            "latency_ms": int(rng.gamma(2.0, 15.0)),
            "actor": actor(i),
        }
        events.append(_event(first + i, "search", when(i, n_events), actor(i), record))
    for i in range(n_events // 100):
        at, who = when(i, n_events // 100), actor(i)
        gate = {"decision": ("written", "inbox", "skipped")[i % 3], "scope": "org"}
        events.append(_event(first + n_events + 2 * i, "gate", at, who, gate))
        review = {"outcome": ("approved", "rejected")[i % 2], "waited_s": 3600.0 * (i % 48)}
        review["scope"] = "org"
        events.append(_event(first + n_events + 2 * i + 1, "review", at, who, review))
    return events


def activity(folder: Path, n_events: int, n_jobs: int) -> None:
    """A month of the loop: search, gate and review events and done, queued and failed
    jobs, a tenth of them the reader's, imported in pages as a move would."""
    rng = np.random.default_rng(3)
    now = datetime.now(UTC)
    month = 30 * 86_400.0
    store = SQLiteStore(folder / "brain.sqlite")

    def actor(i: int) -> str:
        return "human:alice" if i % 10 == 0 else f"human:u{i % 37}"

    def when(i: int, n: int) -> datetime:
        return now - timedelta(seconds=month * (1 - i / n) + 60)

    try:
        events = loop_events(n_events, now)
        for page in range(0, len(events), 5000):
            store.import_records("events", events[page : page + 5000])
        jobs: list[dict[str, object]] = []
        for i in range(n_jobs):
            asked = when(i, n_jobs)
            state = "done" if i < n_jobs - 520 else ("queued" if i < n_jobs - 20 else "failed")
            took = timedelta(seconds=float(rng.gamma(2.0, 2.0 if i % 20 else 20.0)))
            kind = "index" if i % 20 == 0 else "derive"
            jobs.append(
                {
                    "id": new_id("job"),
                    "workspace": WORKSPACE,
                    "kind": kind,
                    "key": f"{kind}:bench:{i}",
                    "subject": None,
                    "actor": actor(i),
                    "payload": "{}",
                    "state": state,
                    "attempts": 0 if state == "queued" else 1,
                    "max_attempts": 5,
                    # A queued one waits for a retry a day away: no worker takes it here.
                    "run_after": asked if state != "queued" else now + timedelta(days=1),
                    "lease_owner": None,
                    "lease_until": None,
                    "last_error": "corrupt_file: bench" if state == "failed" else None,
                    "created_at": asked,
                    "updated_at": asked + took,
                    "finished_at": asked + took if state != "queued" else None,
                }
            )
        for page in range(0, len(jobs), 5000):
            store.import_records("jobs", jobs[page : page + 5000])
    finally:
        store.close()


def _event(
    seq: int, kind: str, at: datetime, actor: str, record: dict[str, object]
) -> dict[str, object]:
    return {
        "id": seq,
        "workspace": WORKSPACE,
        "kind": kind,
        "at": at,
        "actor": actor,
        "subject": None,
        "record": json.dumps(record),
    }


def sign_in(url: str, token: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=60)
    form = c.get("/ui/login").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form)
    assert csrf
    r = c.post("/ui/login", data={"key": token, "csrf": csrf.group(1)})
    assert r.status_code == 303, r.text
    return c


def timed(c: httpx.Client, path: str, rounds: int, params: list[dict[str, str]]) -> list[float]:
    out: list[float] = []
    for i in range(rounds):
        r = c.get(path, params=params[i % len(params)] if params else None)
        assert r.status_code == 200, (path, r.status_code, r.text[:300])
        found = re.fullmatch(r"app;dur=([0-9.]+)", r.headers["server-timing"])
        assert found, r.headers
        out.append(float(found.group(1)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sections", type=int, default=100_000)
    ap.add_argument("--real", type=int, default=3000, help="real sentences to embed")
    ap.add_argument("--rounds", type=int, default=20, help="requests per page")
    ap.add_argument("--events", type=int, default=100_000, help="search events")
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument(
        "--keep",
        type=Path,
        help="build the brain in this folder and keep it; a later run with the same folder "
        "measures that brain again (its month of activity ages with the clock)",
    )
    ap.add_argument("--only", help="measure only the pages whose label starts with this")
    args = ap.parse_args()
    from orgbrain.adapters.embed_minilm import MiniLMEmbedder

    texts, base = real_vectors(args.real)
    qs = queries()[:50]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "brain"
        built = folder / "bench-ui.json"
        if built.exists():  # --keep, a second time: the same brain
            file_id, priya, billing = json.loads(built.read_text())
            print(f"reusing the brain in {folder}", flush=True)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            build_s, file_id = build(folder, args.sections, texts, base)
            print(f"built {args.sections} sections in {build_s:.1f} s", flush=True)
            t0 = time.perf_counter()
            priya, billing = enrich(folder, file_id)
            print(f"notes, derivation, mentions, proposals in {time.perf_counter() - t0:.1f} s")
            t0 = time.perf_counter()
            n_jobs = args.sections + args.sections // PER_FILE
            activity(folder, args.events, n_jobs)
            print(f"{args.events} events, {n_jobs} jobs in {time.perf_counter() - t0:.1f} s")
            if args.keep:
                built.write_text(json.dumps([file_id, priya, billing]))
        keys = SQLiteKeyStore.for_brain(folder)
        token = issue_key(keys, WORKSPACE, "alice", "read,write,review", teams=["eng"]).token
        admin = issue_key(keys, WORKSPACE, "root", "read,admin").token
        brain = Brain.open(folder, embedder=MiniLMEmbedder(), workspace=WORKSPACE)
        app = create_app(brain, keys, lifespans=[settled_heap])  # as orgbrain serve
        with BackgroundServer(app) as server:
            c = sign_in(server.url, token)
            root = sign_in(server.url, admin)
            section = brain.sections(file_id)[3].id
            c.get("/ui/search", params={"q": "warm up the model and the indexes"})
            pages: list[tuple[str, str, list[dict[str, str]]]] = [
                ("items grid, newest first", "/ui/items", []),
                ("items grid, a name filter", "/ui/items", [{"name": "paper12"}]),
                ("search (SciFact claims)", "/ui/search", [{"q": q} for q in qs]),
                ("search: small talk", "/ui/search", [{"q": "yo"}]),
                ("item: a file of 20 sections", f"/ui/items/{file_id}", []),
                ("item: a section in its place", f"/ui/items/{section}", []),
                ("entity dossier: 1000+ mentions", f"/ui/entities/{priya}", []),
                ("entity dossier: superseded + conflict", f"/ui/entities/{billing}", []),
                ("entities list", "/ui/entities", []),
                ("graph, 1 hop", f"/ui/graph/{file_id}", []),
                ("graph, 2 hops", f"/ui/graph/{file_id}", [{"hops": "2"}]),
                ("graph of a person, 2 hops", f"/ui/graph/{priya}", [{"hops": "2"}]),
                ("review inbox", "/ui/inbox", []),
                ("health: a reader's own, 30 days", "/ui/health", []),
                ("health: a reader's own, ever", "/ui/health", [{"since": "all"}]),
                ("health: admin, the workspace, 30 days", "/ui/health", []),
                ("health: admin, the workspace, ever", "/ui/health", [{"since": "all"}]),
            ]
            rows = []
            load_before = os.getloadavg()[0]
            for label, path, params in pages:
                if args.only and not label.startswith(args.only):
                    continue
                ms = timed(
                    root if label.startswith("health: admin") else c, path, args.rounds, params
                )
                p50, p95 = percentile(ms, 50), percentile(ms, 95)
                ok = "yes" if p95 < BUDGET_MS else "**no**"
                rows.append(f"| {label} | {p50:.1f} | {p95:.1f} | {max(ms):.1f} | {ok} |")
                print(rows[-1], flush=True)
            c.close()
            root.close()
            load = (load_before + os.getloadavg()[0]) / 2
        brain.close()
        keys.close()
    table = "\n".join(
        [
            f"{args.sections:,} sections ({args.sections // PER_FILE:,} files), "
            f"{args.events:,} search events and a job per section and file, "
            f"{args.rounds} requests per page, server time from `Server-Timing` "
            f"(`python bench/ui.py --sections {args.sections}`; load average about "
            f"{load:.1f} while it ran):",
            "",
            "| page | p50 ms | p95 ms | max ms | p95 under 300 ms |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )
    print(table)
    if not args.no_write:
        append_results("Web UI", table)


if __name__ == "__main__":
    main()
