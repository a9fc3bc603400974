"""Property: nothing reaches a principal that may not see it, through any read endpoint.

Each example builds a fresh world on one shared server: one to three workspaces, users in
random teams, notes and files written in random scopes by random authors, and random
edges between items (some across scopes). Then every principal, human or agent, reads
through search (every plan), items (every filter, every page size), one item, sections,
content and edges, asking for every id of the world; and signs in to the web UI with the
same key and reads its pages: the items grid (every page), search, every item's page, raw
bytes and graph, entities, the inbox, the health page (its counts are the reader's
own: its searches, the proposals its key may review, the jobs it asked for) and the
grid's live states. The expected visibility is computed
here from first principles (same workspace; org, the reader's teams, the reader itself)
and compared both ways: nothing invisible is ever returned, and everything visible is.

The property runs on both backends (each with a server of its own): the embedded brain,
and the brain, its keys and job queue in PostgreSQL with files in an S3 bucket (s3rver).

Runs are written back too (the real offline writer and gate), so each world also holds
write-back proposals: written, pending for a reviewer, pending for their user. Every
principal, some with the ``review`` permission, lists the inbox and asks for every
proposal id: it sees exactly the proposals it may decide (its own user's, unless it is an
agent without ``review``; with ``review``, org's and its teams'), another's is the same 404
as an unknown id, and no pending proposal reaches search, the item listing or read
injection for anyone.
"""

from __future__ import annotations

import itertools
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orgbrain import NoteInput, Principal
from tests.backends import BACKENDS, backend_for
from tests.test_server import Served, serve, wait_state
from tests.ui_harness import ui_client

VOCAB = (
    "billing refunds deploy freeze friday stripe oncall rotation search index "
    "listings finance approval owner priya mei launch budget roadmap incident"
).split()
TEAMS = ("eng", "ops", "sales")
RUN_SENTENCES = (
    "We decided to freeze deploys on Fridays after the billing incident.",
    "Priya owns the refunds approval.",
    "Always page the oncall owner before a launch.",
    "Beware: the stripe webhook breaks if the oncall rotation changes.",
    "Mei prefers written roadmap reviews.",
    "Priya prefers tea.",
)
PLANS = ("hybrid", "bm25", "dense")
# Worlds per backend. PostgreSQL + S3 runs fewer (the same worlds take about 1.5 times as
# long there: about 90 s more for these 25) but still enough for the worlds' spread: every
# plan, page size and scope mix, about 100 principals and 3,000 reads.
EXAMPLES = {"sqlite": 50, "postgres+s3": 25}

COUNTS = {
    "examples": 0,
    "principals": 0,
    "requests": 0,
    "pages": 0,
    "items": 0,
    "edges": 0,
    "proposals": 0,
    "pending": 0,
    "health": 0,
}
ROW_ID = re.compile(r'<tr data-id="([^"]+)"')
_worlds = itertools.count()


@pytest.fixture(scope="module", params=BACKENDS)
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """One server per backend for all of its worlds (each world in workspaces of its own)."""
    with (
        backend_for(request.param, request) as backend,
        serve(tmp_path_factory.mktemp("scopes") / "brain", backend=backend) as s,
    ):
        yield s
    _report(request, backend.name)


def _report(request: pytest.FixtureRequest, name: str) -> None:
    line = (
        f"scope properties on {name}: {COUNTS['examples']} examples, "
        f"{COUNTS['principals']} principals, {COUNTS['items']} items, {COUNTS['edges']} edges, "
        f"{COUNTS['proposals']} proposals ({COUNTS['pending']} pending), "
        f"{COUNTS['requests']} read requests, {COUNTS['pages']} UI pages"
    )
    plugins = request.config.pluginmanager
    reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    if reporter is None or capture is None:  # pragma: no cover - plugins turned off
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_line(line)


@dataclass(frozen=True)
class User:
    workspace: str
    user_id: str
    teams: frozenset[str]
    agent: bool
    review: bool = False

    @property
    def principal(self) -> Principal:
        return Principal(self.workspace, self.user_id, self.teams, self.agent, self.review)

    @property
    def perms(self) -> str:
        return "read,review" if self.review else "read"

    def sees(self, workspace: str, scope: str) -> bool:
        allowed = {"org", f"user:{self.user_id}"} | {f"team:{t}" for t in self.teams}
        return workspace == self.workspace and scope in allowed

    def reviews(self, workspace: str, scope: str) -> bool:
        """Whether a proposal stored at ``scope`` is this reader's to see and decide: its
        own user's (an agent only with review), and with review org's and its teams'."""
        if workspace != self.workspace:
            return False
        if scope == f"user:{self.user_id}":
            return self.review or not self.agent
        return self.review and (scope == "org" or scope in {f"team:{t}" for t in self.teams})


@dataclass
class World:
    users: list[User]
    notes: list[tuple[int, str, str, str]]  # author, scope, kind, body
    files: list[tuple[int, str, str, bool]]  # author, scope, body, index it
    edges: list[tuple[int, int]]  # indexes into all items
    queries: list[tuple[str, str, int]]  # query, plan, k
    page_sizes: list[int]
    runs: list[tuple[int, tuple[str, ...], str]]  # author, sentences, scope
    # Filled in as the world is written: id -> (workspace, scope, class).
    where: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    # id -> (workspace, scope, state, body)
    proposals: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)

    @property
    def never_written(self) -> set[str]:
        """Bodies of pending proposals that no proposal of the world wrote as a note."""
        written = {b for (_, _, state, b) in self.proposals.values() if state == "written"}
        return {b for (_, _, s, b) in self.proposals.values() if s == "pending"} - written


@st.composite
def worlds(draw: st.DrawFn) -> World:
    n = next(_worlds)
    workspaces = [f"w{n}x{i}" for i in range(draw(st.integers(1, 3)))]
    users: list[User] = []
    for ws in workspaces:
        for u in range(draw(st.integers(1, 3))):
            teams = draw(st.frozensets(st.sampled_from(TEAMS), max_size=2))
            users.append(User(ws, f"u{u}", teams, draw(st.booleans()), draw(st.booleans())))
    # The same user id in another workspace must see nothing of this one.
    users.append(User(workspaces[0] + "other", "u0", frozenset(TEAMS), False, True))
    authors = st.integers(0, len(users) - 2)

    def scope_for(author: int) -> str:
        u = users[author]
        return draw(
            st.sampled_from(["org", f"user:{u.user_id}", *(f"team:{t}" for t in sorted(u.teams))])
        )

    words = st.lists(st.sampled_from(VOCAB), min_size=2, max_size=8).map(" ".join)
    notes = []
    for _ in range(draw(st.integers(2, 10))):
        a = draw(authors)
        notes.append((a, scope_for(a), draw(st.sampled_from(["note", "policy"])), draw(words)))
    files = []
    for _ in range(draw(st.integers(0, 2))):
        a = draw(authors)
        files.append((a, scope_for(a), draw(words), draw(st.booleans())))
    n_items = len(notes) + len(files)
    pairs = st.tuples(st.integers(0, n_items - 1), st.integers(0, n_items - 1))
    edges = draw(st.lists(pairs, max_size=6))
    queries = draw(
        st.lists(
            st.tuples(words, st.sampled_from(PLANS), st.integers(1, 8)), min_size=1, max_size=3
        )
    )
    page_sizes = draw(st.lists(st.integers(1, 7), min_size=1, max_size=2))
    runs = []
    for _ in range(draw(st.integers(0, 3))):
        a = draw(authors)
        sentences = draw(st.lists(st.sampled_from(RUN_SENTENCES), min_size=1, max_size=3))
        teams = sorted(users[a].teams)
        scope = draw(st.sampled_from(["org", *(f"team:{t}" for t in teams)]))
        runs.append((a, tuple(sentences), scope))
    return World(users, notes, files, edges, queries, page_sizes, runs)


def _build(s: Served, world: World) -> list[str]:
    """Write the world; return every item id in creation order (notes, then files)."""
    ids: list[str] = []
    for i, (author, scope, kind, body) in enumerate(world.notes):
        u = world.users[author]
        note = NoteInput(f"{body} n{i}", kind=kind, scope=scope)
        item = s.brain.for_principal(u.principal).add_notes([note])[0]
        world.where[item.id] = (u.workspace, item.scope, "note")
        ids.append(item.id)
    for j, (author, scope, body, index) in enumerate(world.files):
        u = world.users[author]
        token = s.key(u.workspace, u.user_id, "read,write", sorted(u.teams), u.agent)
        with s.http(token) as c:
            text = f"# {body}\n\n{body} file {j}\n\n## more\n\n{body[::-1]}\n".encode()
            r = c.post("/v1/files", files={"file": (f"f{j}.md", text)}, data={"scope": scope})
            assert r.status_code == 201, r.text
            fid = r.json()["id"]
            world.where[fid] = (u.workspace, scope, "file")
            ids.append(fid)
            if index:
                assert c.post(f"/v1/files/{fid}/index").status_code == 202
                assert wait_state(c, fid, {"indexed", "failed"})["state"] == "indexed"
                for sec in s.brain.for_principal(u.principal).sections(fid):
                    world.where[sec.id] = (u.workspace, sec.scope, "section")
    for a, b in world.edges:
        src, dst = ids[a], ids[b]
        if world.where[src][0] != world.where[dst][0] or src == dst:
            continue
        s.brain.for_workspace(world.where[src][0]).acting_as("test:world").link_system(
            "RELATES_TO", src, dst, "test"
        )
        COUNTS["edges"] += 1
    n = next(_worlds)
    for r, (author, sentences, scope) in enumerate(world.runs):
        u = world.users[author]
        run = {"run_id": f"run-{n}-{r}", "outcome": "succeeded", "scope": scope}
        run["summary"] = "I ran the checks. " + " ".join(sentences)
        s.brain.for_principal(u.principal).write_back(run, wait=True)
    for ws in {u.workspace for u in world.users}:
        for p in s.brain.for_workspace(ws).proposals(state=None, limit=500):
            world.proposals[p.id] = (ws, p.scope, p.state, p.body)
            if p.item_id is not None:  # written: a note like any other
                world.where[p.item_id] = (ws, p.scope, "note")
    return ids


def _get(c: httpx.Client, path: str, **kw: Any) -> httpx.Response:
    COUNTS["requests"] += 1
    return c.get(path, **kw)


def _check_inbox(c: httpx.Client, world: World, u: User, missing: str) -> None:
    """The reader's inbox is exactly what it may decide; the rest reads as absent."""
    mine = {i for i, (ws, scope, _, _) in world.proposals.items() if u.reviews(ws, scope)}
    for state in ("all", "pending"):
        r = _get(c, "/v1/proposals", params={"state": state, "limit": 500})
        assert r.status_code == 200, r.text
        listed = r.json()["proposals"]
        for p in listed:
            assert p["workspace"] == u.workspace and u.reviews(p["workspace"], p["scope"])
        want = {i for i in mine if state == "all" or world.proposals[i][2] == "pending"}
        assert {p["id"] for p in listed} == want, (u, state)
    for pid in world.proposals:
        r = _get(c, f"/v1/proposals/{pid}")
        if pid in mine:
            assert r.status_code == 200 and r.json()["id"] == pid
        else:
            assert r.status_code == 404 and r.text == missing.replace("MISSING", pid)
    pending = {f"proposal:{i}" for i, p in world.proposals.items() if p[2] == "pending"}
    hidden = world.never_written
    for body in sorted(hidden)[:2]:
        COUNTS["requests"] += 2
        hits = c.post("/v1/search", json={"query": body, "k": 8}).json()["hits"]
        assert all(h["item"]["source_key"] not in pending for h in hits)
        assert all(h["item"]["body"] not in hidden for h in hits)
        turn = c.post("/v1/context", json={"message": body}).json()
        assert all(b not in turn["text"] for b in hidden)


def _check_reader(
    s: Served, world: World, u: User, missing_body: str, missing_proposal: str
) -> None:
    visible = {i for i, (ws, scope, _) in world.where.items() if u.sees(ws, scope)}
    token = s.key(u.workspace, u.user_id, u.perms, sorted(u.teams), u.agent)
    pending = {f"proposal:{i}" for i, p in world.proposals.items() if p[2] == "pending"}
    hidden = world.never_written
    with s.http(token) as c:
        _check_inbox(c, world, u, missing_proposal)
        # search, every plan drawn
        for query, plan, k in world.queries:
            COUNTS["requests"] += 1
            r = c.post("/v1/search", json={"query": query, "plan": plan, "k": k})
            assert r.status_code == 200, r.text
            for hit in r.json()["hits"]:
                item = hit["item"]
                assert item["source_key"] not in pending and item["body"] not in hidden
                assert item["workspace"] == u.workspace
                assert u.sees(item["workspace"], item["scope"]), (u, item["scope"])
                assert item["id"] in visible or item["id"] not in world.where
                cited = hit["citation"]["file_id"]
                assert cited is None or cited in visible

        # items: every page, with and without filters
        for size in world.page_sizes:
            for params in ({}, {"class": "note"}, {"class": "file", "indexed": "true"}):
                seen: list[str] = []
                cursor = None
                while True:
                    more: dict[str, str] = {"cursor": cursor} if cursor else {}
                    page = _get(c, "/v1/items", params={**params, "limit": size, **more})
                    assert page.status_code == 200, page.text
                    body = page.json()
                    for item in body["items"]:
                        assert u.sees(item["workspace"], item["scope"])
                        assert item["source_key"] not in pending and item["body"] not in hidden
                    seen += [i["id"] for i in body["items"]]
                    cursor = body["next_cursor"]
                    if cursor is None:
                        break
                assert len(seen) == len(set(seen))
                if not params:
                    mine = {i for i in visible if world.where[i][0] == u.workspace}
                    # Entities derived from the world's notes are the reader's too (each
                    # was checked visible above); the world's own items are exactly hers.
                    assert {i for i in seen if not i.startswith("ent_")} == mine

        # one item, sections, content and edges, for every id in the world
        for item_id, (_, _, cls) in world.where.items():
            r = _get(c, f"/v1/items/{item_id}")
            if item_id in visible:
                assert r.status_code == 200 and r.json()["id"] == item_id
            else:
                assert r.status_code == 404
                assert r.text == missing_body.replace("MISSING", item_id)
            paths = ["edges"] + (["sections", "content"] if cls == "file" else [])
            if cls == "section":
                paths.append("content")
            for sub in paths:
                r = _get(c, f"/v1/items/{item_id}/{sub}")
                if item_id not in visible:
                    assert r.status_code == 404, (sub, r.text)
                    assert r.text == missing_body.replace("MISSING", item_id)
                    continue
                assert r.status_code == 200, (sub, r.text)
                if sub == "sections":
                    for sec in r.json()["sections"]:
                        assert sec["id"] in visible and u.sees(sec["workspace"], sec["scope"])
                if sub == "edges":
                    for e in r.json()["edges"]:
                        for end in (e["src"], e["dst"]):
                            if end in visible:
                                continue
                            # An entity derived from a visible item: hers to see, in her
                            # scopes (the world does not list derived entities).
                            assert end.startswith("ent_"), (u, e)
                            got = _get(c, f"/v1/items/{end}")
                            assert got.status_code == 200, (u, e)
                            assert u.sees(got.json()["workspace"], got.json()["scope"])


def _check_pages(s: Served, world: World, u: User, visible: set[str], missing: str) -> None:
    """The web UI, signed in with the reader's key: no page holds an id it may not see."""
    hidden = set(world.where) - visible
    token = s.key(u.workspace, u.user_id, "read", sorted(u.teams), u.agent)
    c = ui_client(s.url, token)

    def page(path: str, **kw: Any) -> httpx.Response:
        COUNTS["pages"] += 1
        r = c.get(path, **kw)
        assert r.status_code in (200, 404), (path, r.status_code, r.text[:300])
        return r

    def no_leak(path: str, text: str, asked: str | None = None) -> None:
        if asked is not None:  # a 404 names the id that was asked for, as for any id
            text = text.replace(f"no item {asked}", "")
        leaked = [i for i in hidden if i in text]
        assert not leaked, (u, path, leaked)

    try:
        rows: list[str] = []
        cursor: str | None = None
        while True:
            params = {"order": "oldest", "limit": 10, **({"cursor": cursor} if cursor else {})}
            r = page("/ui/items", params=params)
            no_leak("/ui/items", r.text)
            rows += ROW_ID.findall(r.text)
            found = re.search(r'href="/ui/items\?[^"]*cursor=([0-9]+)[^"]*" rel="next"', r.text)
            if found is None:
                break
            cursor = found.group(1)
        mine = {i for i in visible if world.where[i][0] == u.workspace}
        assert set(rows) == {i for i in mine if world.where[i][2] != "section"}
        for query, _, _ in world.queries:
            r = page("/ui/search", params={"q": query})
            no_leak("/ui/search", r.text)
        for path in ("/ui/entities", "/ui/inbox"):
            no_leak(path, page(path).text)
        _check_health(s, world, u, page, no_leak)
        states = page("/ui/states.json", params={"ids": ",".join(world.where)}).json()
        assert set(states["items"]) <= visible
        for item_id in world.where:
            paths = [f"/ui/items/{item_id}", f"/ui/items/{item_id}/raw"]
            for path in [*paths, f"/ui/graph/{item_id}", f"/ui/graph/{item_id}.json"]:
                r = page(path)
                if item_id not in visible:
                    assert r.status_code == 404, (u, path)
                    if path == paths[0]:
                        assert r.text == missing.replace("MISSING", item_id)
                    continue
                assert r.status_code == 200, (u, path, r.text[:300])
                if path != paths[1]:
                    no_leak(path, r.text, item_id)
    finally:
        c.close()


STAT = re.compile(r'data-stat="([a-z_]+)">([^<]*)<')
KIND_ROW = re.compile(r'<tr data-kind="([a-z_-]+)">(.*?)</tr>', re.S)


def _own_jobs(s: Served, u: User) -> Counter[str]:
    """How many jobs of each kind the reader's key asked for, as the owner lists them."""
    actor = f"{'agent' if u.agent else 'human'}:{u.user_id}"
    jobs = s.brain.for_workspace(u.workspace).jobs(limit=1000).jobs
    return Counter(j.kind for j in jobs if j.actor == actor)


def _check_health(s: Served, world: World, u: User, page: Any, no_leak: Any) -> None:
    """The health page counts the reader's own: its searches, the proposals its key may
    review (a read key: its own user's, unless an agent), and the jobs it asked for."""
    before = _own_jobs(s, u)
    r = page("/ui/health", params={"since": "all"})
    after = _own_jobs(s, u)
    assert r.status_code == 200, r.text[:300]
    no_leak("/ui/health", r.text)
    assert 'data-lens="reader"' in r.text
    stats = dict(STAT.findall(r.text.split('id="lag-h"')[0]))
    key_user = User(u.workspace, u.user_id, u.teams, u.agent, review=False)
    pending = [
        p for p in world.proposals.values() if p[2] == "pending" and key_user.reviews(p[0], p[1])
    ]
    assert int(stats["inbox_pending"]) == len(pending), (u, stats)
    assert int(stats["searches"]) == s.brain.for_principal(key_user.principal).stats().searches
    shown: Counter[str] = Counter()
    for kind, row in KIND_ROW.findall(r.text):
        counts = dict(STAT.findall(row))
        shown[kind] = sum(int(counts[k]) for k in ("queued", "running", "failed", "done"))
    for kind in set(shown) | set(after):
        # Jobs are only ever added (derivation asks for audits as it goes).
        assert before[kind] <= shown[kind] <= after[kind], (u, kind, before, shown, after)
    COUNTS["health"] += 1


@pytest.mark.slow
def test_no_read_endpoint_leaks_across_scopes_or_workspaces(shared: Served) -> None:
    """The property, on the backend's shared server, for its number of worlds; then a
    check that it really ran (a broken strategy would otherwise pass quietly)."""
    for key in COUNTS:
        COUNTS[key] = 0

    @settings(
        max_examples=EXAMPLES[shared.backend.name],
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(world=worlds())
    def no_leak(world: World) -> None:
        _check_world(shared, world)

    no_leak()
    assert COUNTS["examples"] >= 1
    assert COUNTS["requests"] > COUNTS["examples"]
    assert COUNTS["pending"] >= 1  # the inbox was exercised, not only empty
    assert COUNTS["pages"] > COUNTS["principals"]
    assert COUNTS["health"] == COUNTS["principals"]


def _check_world(shared: Served, world: World) -> None:
    t0 = time.monotonic()
    _build(shared, world)
    COUNTS["items"] += len(world.where)
    probe = shared.http(shared.key(world.users[0].workspace, "probe"))
    missing = probe.get("/v1/items/MISSING")
    assert missing.status_code == 404
    no_proposal = probe.get("/v1/proposals/MISSING")
    assert no_proposal.status_code == 404
    COUNTS["proposals"] += len(world.proposals)
    COUNTS["pending"] += sum(p[2] == "pending" for p in world.proposals.values())
    ui_probe = ui_client(shared.url, shared.key(world.users[0].workspace, "probe"))
    missing_page = ui_probe.get("/ui/items/MISSING")
    assert missing_page.status_code == 404
    for u in world.users:
        _check_reader(shared, world, u, missing.text, no_proposal.text)
        visible = {i for i, (ws, scope, _) in world.where.items() if u.sees(ws, scope)}
        _check_pages(shared, world, u, visible, missing_page.text)
        COUNTS["principals"] += 1
    probe.close()
    ui_probe.close()
    COUNTS["examples"] += 1
    assert time.monotonic() - t0 < 60
