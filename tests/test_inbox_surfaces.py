"""Write-back on every surface, end to end: HTTP, MCP (the SDK's own client over
streamable HTTP, and over stdio), the CLI and the Python ``Client``.

On each, a run's work products go in; a confident organisation decision is written and
answers the next search with its citation and its run; a low-confidence rule waits in a
reviewer's inbox and a personal fact in its user's, both absent from every read (search,
the item listing, statements, the event stream, read injection) until approved; another
user can neither see nor decide either; a personal fact from a run with no user is
skipped. The writer is the real offline one, the passes run by the real job handlers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner

from orgbrain import Brain, Client, Principal
from orgbrain.cli import app, cli
from orgbrain.errors import Conflict, Forbidden, InvalidInput, NotFound
from orgbrain.keys import issue_key
from orgbrain.server import BackgroundServer, create_app
from orgbrain.server.mcp import RUN_ID_HEADER, McpHttpApp
from orgbrain.settings import Settings
from tests.backends import Backend
from tests.test_mcp import call, fails, http_client, stdio
from tests.test_mcp import run as mcp_run
from tests.test_server import Served, assert_problem, serve
from tests.toy import HashEmbedder

DECISION = "We decided to move billing to CockroachDB instead of Postgres."
RULE = "Always run the schema check before deploying the API."
PERSONAL = "Sam prefers async standups."
SUMMARY = f"I ran the migration tests and fixed two flaky ones. {DECISION} {RULE} {PERSONAL}"
EDITED = "Sam prefers async standups on Mondays."
WANT = {"written": 1, "pending": 2}


def products(**over: object) -> dict[str, object]:
    data: dict[str, object] = {"outcome": "succeeded", "summary": SUMMARY, "artefacts": ["PR 412"]}
    data.update(over)
    return data


# -- HTTP ---------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path, backend: Backend) -> Iterator[Served]:
    """The server the HTTP and client tests run against, once on each backend."""
    with serve(tmp_path / "brain", backend=backend) as s:
        yield s


def keys(s: Served) -> dict[str, str]:
    return {
        "sam": s.key(user="sam", perms="read,write", teams=["core"]),
        "bob": s.key(user="bob", perms="read,write", teams=["core"]),
        "rita": s.key(user="rita", perms="read,review", teams=["core"]),
        "sams_agent": s.key(user="sam", perms="read,write", agent=True),
        "read_only": s.key(user="sam", perms="read"),
    }


def done(c: httpx.Client, location: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = c.get(location)
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        if body["state"] in ("done", "failed") or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def absent_over_http(c: httpx.Client, text: str) -> None:
    """``text`` reaches this key through no read: search, items, statements, events,
    read injection."""
    hits = c.post("/v1/search", json={"query": text, "k": 8}).json()["hits"]
    assert all(h["item"]["body"] != text for h in hits)
    page = c.get("/v1/items", params={"limit": 1000}).json()
    assert all(i["body"] != text for i in page["items"])
    for about in ("Sam", "schema check", "API"):
        r = c.get("/v1/statements", params={"about": about, "current": "all"})
        assert r.status_code in (200, 404), r.text
        assert text not in r.text
    with c.stream("GET", "/v1/events", params={"limit": 10_000}) as r:
        assert text not in r.read().decode()
    turn = c.post("/v1/context", json={"message": text}).json()
    assert text not in turn["text"]


def test_write_back_and_the_inbox_over_http(served: Served) -> None:
    k = keys(served)
    sam, bob, rita = (served.http(k[n]) for n in ("sam", "bob", "rita"))
    agent, read_only = served.http(k["sams_agent"]), served.http(k["read_only"])

    # bad products are refused whole and store nothing
    bad = sam.post("/v1/runs/run-1/writeback", json=products(outcome="done"))
    assert_problem(bad, 422, "invalid_request")
    over = products(summary="x " * 3500, artefacts=["y" * 1001])
    big = sam.post("/v1/runs/run-1/writeback", json=over)
    assert_problem(big, 413, "too_large")
    empty = sam.post("/v1/runs/run-1/writeback", json=products(summary=" ", artefacts=[]))
    assert_problem(empty, 400, "invalid_input")
    other_user = sam.post("/v1/runs/run-1/writeback", json=products(user_id="bob"))
    assert_problem(other_user, 403, "forbidden")
    assert_problem(read_only.post("/v1/runs/run-1/writeback", json=products()), 403, "forbidden")
    assert served.brain.for_workspace("acme").jobs(kind="writeback").jobs == ()

    # the run's products go in: 202 and a Location, the server's workers run the pass
    r = sam.post("/v1/runs/run-1/writeback", json=products())
    assert r.status_code == 202, r.text
    assert r.json()["state"] in ("queued", "running", "done") and r.json()["created"]
    ack = done(sam, r.headers["Location"])
    assert (ack["state"], ack["counts"]) == ("done", WANT)
    [mine] = ack["proposals"]  # Sam reviews only his own
    assert (mine["state"], mine["scope"], mine["body"]) == ("pending", "user:sam", PERSONAL)
    # the same products again: the same pass, answered at once; other products: 409
    again = sam.post("/v1/runs/run-1/writeback?wait=true", json=products())
    assert again.status_code == 200 and again.json()["job_id"] == ack["job_id"]
    assert again.json()["created"] is False
    assert_problem(
        sam.post("/v1/runs/run-1/writeback", json=products(summary=DECISION)), 409, "conflict"
    )
    assert_problem(bob.get("/v1/runs/run-1/writeback"), 404, "not_found")  # Sam's run

    # the confident decision answers the next search, cited, with its run
    hit = bob.post("/v1/search", json={"query": "what is billing moving to?"}).json()["hits"][0]
    assert hit["item"]["body"] == DECISION and hit["citation"]["item_id"] == hit["item"]["id"]
    assert hit["item"]["origin"]["run_id"] == "run-1"
    assert hit["item"]["origin"]["source"] == "writeback"
    assert hit["item"]["source_key"].startswith("proposal:prp_")

    # the rule waits for a reviewer, the personal fact for Sam; both absent from every read
    for c in (sam, bob, rita, agent):
        absent_over_http(c, RULE)
        absent_over_http(c, PERSONAL)
    [rule] = rita.get("/v1/proposals").json()["proposals"]
    assert (rule["body"], rule["scope"], rule["kind"], rule["confidence"]) == (
        RULE,
        "org",
        "rule",
        0.7,
    )
    assert rule["run_id"] == "run-1" and "a reviewer decides" in rule["reason"]
    assert [p["id"] for p in sam.get("/v1/proposals").json()["proposals"]] == [mine["id"]]
    assert bob.get("/v1/proposals").json()["proposals"] == []
    assert agent.get("/v1/proposals").json()["proposals"] == []  # an agent needs review
    everything = rita.get("/v1/proposals", params={"state": "all"}).json()["proposals"]
    assert {p["state"] for p in everything} == {"written", "pending"}  # not Sam's
    assert rita.get("/v1/proposals", params={"run_id": "run-2"}).json()["proposals"] == []

    # another user can neither see nor decide: the same 404 as an unknown id
    unknown = bob.get("/v1/proposals/prp_nope")
    assert_problem(unknown, 404, "not_found")
    for c, pid in ((bob, mine["id"]), (rita, mine["id"]), (bob, rule["id"]), (agent, mine["id"])):
        r = c.get(f"/v1/proposals/{pid}")
        assert r.text == unknown.text.replace("prp_nope", pid)
        assert_problem(c.post(f"/v1/proposals/{pid}/approve"), 404, "not_found")
        assert_problem(
            c.post(f"/v1/proposals/{pid}/reject", json={"reason": "no"}), 404, "not_found"
        )
    assert_problem(read_only.post(f"/v1/proposals/{mine['id']}/approve"), 403, "forbidden")

    # Sam approves his own, edited: written at user:sam, searchable by him alone
    r = sam.post(f"/v1/proposals/{mine['id']}/approve", json={"body": EDITED, "reason": "yes"})
    assert r.status_code == 200, r.text
    approved = r.json()
    assert (approved["state"], approved["decided_by"], approved["review_reason"]) == (
        "approved",
        "human:sam",
        "yes",
    )
    note = sam.get(f"/v1/items/{approved['item_id']}").json()
    assert (note["scope"], note["body"], note["origin"]["run_id"]) == ("user:sam", EDITED, "run-1")
    hits = sam.post("/v1/search", json={"query": "Sam prefers async standups"}).json()["hits"]
    assert hits[0]["item"]["id"] == approved["item_id"]
    absent_over_http(bob, EDITED)
    assert_problem(sam.post(f"/v1/proposals/{mine['id']}/approve"), 409, "conflict")

    # the reviewer rejects the rule, with a reason; it stays out
    assert_problem(rita.post(f"/v1/proposals/{rule['id']}/reject", json={}), 422, "invalid_request")
    blank = rita.post(f"/v1/proposals/{rule['id']}/reject", json={"reason": " "})
    assert_problem(blank, 400, "invalid_input")
    r = rita.post(f"/v1/proposals/{rule['id']}/reject", json={"reason": "we deploy by CI"})
    assert r.status_code == 200 and r.json()["state"] == "rejected"
    assert_problem(rita.post(f"/v1/proposals/{rule['id']}/approve"), 409, "conflict")
    for c in (sam, bob, rita):
        absent_over_http(c, RULE)
    rejected = rita.get("/v1/proposals", params={"state": "rejected"}).json()["proposals"]
    assert [(p["id"], p["review_reason"]) for p in rejected] == [(rule["id"], "we deploy by CI")]
    for c in (sam, bob, rita, agent, read_only):
        c.close()


def test_a_reviewer_key_is_made_over_http_and_the_cli(served: Served, tmp_path: Path) -> None:
    admin = served.http(served.key(user="root", perms="admin"))
    r = admin.post(
        "/v1/admin/keys",
        json={"principal": "user:rita", "permissions": ["read", "write", "admin", "review"]},
    )
    assert r.status_code == 201, r.text
    assert r.json()["key"]["permissions"] == ["admin", "read", "review", "write"]
    with served.http(r.json()["token"]) as rita:
        assert rita.get("/v1/me").json()["permissions"] == ["admin", "read", "review", "write"]
    admin.close()
    folder = tmp_path / "keys"
    out = CliRunner().invoke(
        cli,
        [
            "keys",
            "--brain",
            str(folder),
            "create",
            "--workspace",
            "acme",
            "--principal",
            "user:rita",
            "--perm",
            "read,review",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["key"]["permissions"] == ["read", "review"]


def test_a_team_runs_proposal_waits_for_a_reviewer_of_that_team(served: Served) -> None:
    sam = served.http(served.key(user="sam", perms="read,write", teams=["core"]))
    rita = served.http(served.key(user="rita", perms="read,review", teams=["core"]))
    otto = served.http(served.key(user="otto", perms="read,review", teams=["ops"]))
    r = sam.post(
        "/v1/runs/team%2Frun-7/writeback?wait=true",
        json=products(summary=f"{DECISION} {RULE}", scope="team:core"),
    )
    assert r.status_code == 200, r.text
    assert (r.json()["run_id"], r.json()["counts"]) == ("team/run-7", {"written": 1, "pending": 1})
    assert sam.get("/v1/runs/team%2Frun-7/writeback").json()["state"] == "done"
    [p] = rita.get("/v1/proposals").json()["proposals"]
    assert (p["scope"], p["body"]) == ("team:core", RULE)
    assert otto.get("/v1/proposals", params={"state": "all"}).json()["proposals"] == []
    assert_problem(otto.post(f"/v1/proposals/{p['id']}/approve"), 404, "not_found")
    r = rita.post(f"/v1/proposals/{p['id']}/approve", json={"label": "Schema check"})
    assert r.status_code == 200, r.text
    note = rita.get(f"/v1/items/{r.json()['item_id']}").json()
    assert (note["scope"], note["label"], note["origin"]["actor"]) == (
        "team:core",
        "Schema check",
        "human:rita",
    )
    assert_problem(otto.get(f"/v1/items/{note['id']}"), 404, "not_found")
    for c in (sam, rita, otto):
        c.close()


# -- the Python client --------------------------------------------------------------------


def test_write_back_and_the_inbox_through_the_client(served: Served) -> None:
    k = keys(served)
    with (
        Client(served.url, k["sam"]) as sam,
        Client(served.url, k["bob"]) as bob,
        Client(served.url, k["rita"]) as rita,
    ):
        with pytest.raises(InvalidInput):
            sam.write_back(products())  # no run id
        first = sam.write_back({"run_id": "run-c", **products()})
        assert first.created and first.state in ("queued", "running", "done")
        ack = sam.write_back({"run_id": "run-c", **products()}, wait=True)
        assert (ack.job_id, ack.state, ack.created, dict(ack.counts)) == (
            first.job_id,
            "done",
            False,
            WANT,
        )
        assert sam.writeback_state("run-c").counts == WANT
        with pytest.raises(NotFound):
            bob.writeback_state("run-c")
        with pytest.raises(Conflict):
            sam.write_back({"run_id": "run-c", **products(summary=RULE)})
        with pytest.raises(Forbidden):
            sam.write_back({"run_id": "run-d", **products(user_id="bob")})

        hit = bob.search("what is billing moving to?").hits[0]
        assert hit.item.body == DECISION and hit.citation.item_id == hit.item.id
        assert hit.item.origin.run_id == "run-c"

        [mine] = sam.proposals()
        [rule] = rita.proposals()
        assert (mine.body, mine.scope, rule.body, rule.scope) == (
            PERSONAL,
            "user:sam",
            RULE,
            "org",
        )
        assert sam.proposal(mine.id) == mine and len(rita.proposals(state=None)) == 2
        # the same proposal and acknowledgement as the brain itself gives
        sams_brain = served.brain.for_principal(Principal("acme", "sam", frozenset({"core"})))
        assert sams_brain.proposal(mine.id) == mine
        assert sams_brain.writeback_state("run-c") == replace(ack, created=False)
        for who in (sam, bob, rita):
            for text in (PERSONAL, RULE):
                assert all(h.item.body != text for h in who.search(text).hits)
                assert all(i.body != text for i in who.items(limit=1000).items)
        assert bob.proposals() == []
        for pid in (mine.id, rule.id):
            with pytest.raises(NotFound):
                bob.proposal(pid)
            with pytest.raises(NotFound):
                bob.approve(pid)
            with pytest.raises(NotFound):
                bob.reject(pid, reason="no")

        approved = sam.approve(mine.id, body=EDITED)
        assert approved.state == "approved" and approved.item_id
        assert sam.get(approved.item_id).body == EDITED
        assert sam.search("Sam prefers async standups").hits[0].item.id == approved.item_id
        with pytest.raises(Conflict):
            sam.reject(mine.id, reason="changed my mind")
        rejected = rita.reject(rule.id, reason="we deploy by CI")
        assert (rejected.state, rejected.review_reason) == ("rejected", "we deploy by CI")
        assert [p.id for p in rita.proposals(state="rejected")] == [rule.id]


# -- MCP ----------------------------------------------------------------------------------


def test_write_back_and_the_inbox_through_a_real_mcp_client(
    tmp_path: Path, backend: Backend
) -> None:
    brain = backend.open(tmp_path / "brain", embedder=HashEmbedder())
    store = backend.key_store(tmp_path / "brain")
    mcp_app = McpHttpApp()
    api = create_app(
        brain, store, extra_mounts={"/mcp": mcp_app}, lifespans=[lambda _app: mcp_app.running()]
    )
    ws = brain.workspace
    tokens = {
        "sams_agent": issue_key(store, ws, "sam", "read,write", agent=True).token,
        "sam": issue_key(store, ws, "sam", "read,write").token,
        "bobs_agent": issue_key(store, ws, "bob", "read,write", agent=True).token,
        "reviewer": issue_key(store, ws, "rita", "read,review", agent=True).token,
        "read_only": issue_key(store, ws, "sam", "read").token,
    }
    run_header = {RUN_ID_HEADER: "run-m"}
    try:
        with BackgroundServer(api) as server:
            url = server.url + "/mcp"

            async def go() -> None:
                async with (
                    http_client(url, tokens["sams_agent"], **run_header) as agent,
                    http_client(url, tokens["sam"]) as sam,
                    http_client(url, tokens["bobs_agent"]) as bob,
                    http_client(url, tokens["reviewer"]) as rita,
                    http_client(url, tokens["read_only"]) as reader,
                ):
                    other_run = {**products(), "run_id": "run-x"}
                    assert await fails(agent, "brain_write_back", other_run) == "invalid_input"
                    assert await fails(bob, "brain_write_back", products()) == "invalid_input"
                    assert await fails(reader, "brain_write_back", products()) == "forbidden"
                    ack = await call(agent, "brain_write_back", {**products(), "wait": True})
                    assert (ack["run_id"], ack["state"], ack["counts"]) == ("run-m", "done", WANT)
                    assert ack["proposals"] == []  # an agent reviews nothing without review
                    again = await call(agent, "brain_write_back", products())
                    assert (again["job_id"], again["created"]) == (ack["job_id"], False)

                    found = await call(bob, "brain_search", {"query": "billing moving to"})
                    top = found["hits"][0]
                    assert top["item"]["body"] == DECISION and top["citation"]["text"]
                    assert top["item"]["origin"]["run_id"] == "run-m"
                    for c in (agent, sam, bob, rita):
                        for text in (PERSONAL, RULE):
                            hits = (await call(c, "brain_search", {"query": text}))["hits"]
                            assert all(h["item"]["body"] != text for h in hits)

                    assert (await call(agent, "brain_inbox", {}))["proposals"] == []
                    assert (await call(bob, "brain_inbox", {"state": "all"}))["proposals"] == []
                    [mine] = (await call(sam, "brain_inbox", {}))["proposals"]
                    [rule] = (await call(rita, "brain_inbox", {"run_id": "run-m"}))["proposals"]
                    assert (mine["body"], rule["body"]) == (PERSONAL, RULE)
                    for c in (agent, bob, rita):
                        approve = {"proposal_id": mine["id"]}
                        assert await fails(c, "brain_approve", approve) == "not_found"
                    no = {"proposal_id": rule["id"], "reason": "no"}
                    assert await fails(bob, "brain_reject", no) == "not_found"
                    assert await fails(reader, "brain_reject", no) == "forbidden"

                    done = await call(sam, "brain_approve", {"proposal_id": mine["id"]})
                    assert (done["state"], done["decided_by"]) == ("approved", "human:sam")
                    hits = (await call(sam, "brain_search", {"query": PERSONAL}))["hits"]
                    assert hits[0]["item"]["id"] == done["item_id"]
                    out = await call(rita, "brain_reject", {**no, "reason": "we deploy by CI"})
                    assert (out["state"], out["decided_by"]) == ("rejected", "agent:rita")
                    assert await fails(rita, "brain_approve", {"proposal_id": rule["id"]}) == (
                        "conflict"
                    )

            anyio.run(go)
    finally:
        store.close()
        brain.close()


SERVE_LOCAL = """
import sys
from orgbrain import Brain
from orgbrain.cli import agent, app, cli
from tests.toy import HashEmbedder

app.open_brain = lambda s: Brain.open(s.brain, settings=s, embedder=HashEmbedder())
for command in agent.COMMANDS:
    cli.add_command(command)
cli.main(["--brain", sys.argv[1], "mcp", "--run-id", "run-s"], prog_name="orgbrain")
"""


@pytest.mark.slow
def test_a_local_mcp_session_writes_back_and_skips_a_personal_fact_with_no_user(
    tmp_path: Path,
) -> None:
    path = tmp_path / "brain"
    Brain.open(path, embedder=HashEmbedder()).close()
    (tmp_path / "serve.py").write_text(SERVE_LOCAL)

    async def main() -> None:
        # No ORGBRAIN_USER: the local owner, a run with no user; no server runs its jobs.
        async with stdio(tmp_path / "serve.py", str(path)) as owner:
            ack = await call(owner, "brain_write_back", {**products(), "wait": True})
            assert (ack["run_id"], ack["state"]) == ("run-s", "done")
            assert ack["counts"] == {"written": 1, "pending": 1, "skipped": 1}
            skipped = [p for p in ack["proposals"] if p["state"] == "skipped"]
            assert [p["body"] for p in skipped] == [PERSONAL]
            assert "never widened to org" in skipped[0]["reason"]
            [rule] = (await call(owner, "brain_inbox", {}))["proposals"]
            assert rule["body"] == RULE

    mcp_run(main)
    with Brain.open(path, embedder=HashEmbedder()) as brain:
        assert all(i.body != PERSONAL for i in brain.items(limit=1000).items)


# -- the CLI ------------------------------------------------------------------------------


@pytest.fixture
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    folder = tmp_path / "brain"

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=HashEmbedder())

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()

    def run(*args: str, code: int | None = 0, stdin: str | None = None) -> Any:
        result = runner.invoke(cli, ["--brain", str(folder), *args], input=stdin)
        if code is not None:
            assert result.exit_code == code, (result.output, result.exception)
        return result

    run("init")
    return run


def test_a_free_text_outcome_is_refused_with_what_each_outcome_is_for(
    run_cli: Any, tmp_path: Path
) -> None:
    spec = tmp_path / "run.json"
    spec.write_text(json.dumps(products(outcome="done, tests pass")))
    said = " ".join(run_cli("writeback", "--run", "r1", "--from", str(spec), code=2).output.split())
    assert "outcome says how the run ended" in said and "not 'done, tests pass'" in said
    assert "'succeeded' for a task's run that did what it was asked" in said
    assert "'blocked' for a task's run that stopped at something" in said
    assert "'completed' for an automation" in said
    assert json.loads(run_cli("jobs", "--kind", "writeback", "--json").stdout)["jobs"] == []


def test_write_back_and_the_inbox_from_the_cli(run_cli: Any, tmp_path: Path) -> None:
    run = run_cli
    spec = tmp_path / "run.json"
    spec.write_text(json.dumps(products(user_id="sam")))
    (tmp_path / "bad.json").write_text("{not json")
    assert "not JSON" in run("writeback", "--run", "r1", "--from", str(tmp_path / "bad.json"),
                             code=2).output  # fmt: skip
    run("writeback", "--run", "r1", "--from", str(tmp_path / "nope.json"), code=3)
    (tmp_path / "big.json").write_text(json.dumps(products(summary="x " * 4001)))
    run("writeback", "--run", "r1", "--from", str(tmp_path / "big.json"), code=2)
    mismatch = tmp_path / "mismatch.json"
    mismatch.write_text(json.dumps({**products(), "run_id": "r9"}))
    run("writeback", "--run", "r1", "--from", str(mismatch), code=2)
    assert json.loads(run("inbox", "list", "--state", "all", "--json").stdout) == {"proposals": []}

    text = run("writeback", "--run", "r1", "--from", str(spec)).stdout
    assert "run r1: write-back done" in text and "2 pending, 1 written" in text
    ack = json.loads(run("writeback", "--run", "r1", "--from", str(spec), "--json").stdout)
    assert (ack["state"], ack["created"], ack["counts"]) == ("done", False, WANT)
    [written] = [p for p in ack["proposals"] if p["state"] == "written"]

    # the decision answers the next search, cited, with its run
    found = json.loads(run("search", "what is billing moving to?", "--json").stdout)
    top = found["hits"][0]
    assert top["item"]["id"] == written["item_id"] and top["item"]["origin"]["run_id"] == "r1"
    assert top["citation"]["item_id"] == written["item_id"]

    # pending: in the right inbox only, and absent from every read
    sams = json.loads(run("inbox", "list", "--user", "sam", "--json").stdout)["proposals"]
    assert [(p["body"], p["scope"]) for p in sams] == [(PERSONAL, "user:sam")]
    rule_list = run("inbox", "list", "--user", "rita", "--review", "--json").stdout
    [rule] = json.loads(rule_list)["proposals"]
    assert (rule["body"], rule["scope"]) == (RULE, "org")
    assert run("inbox", "list", "--user", "bob").stdout.strip() == "no pending proposals"
    assert run("inbox", "--user", "bob", code=2)  # the group takes no options; list does
    listed = run("inbox").stdout  # the local owner sees both
    assert rule["id"] in listed and sams[0]["id"] in listed and PERSONAL in listed
    for text in (RULE, PERSONAL):
        hits = json.loads(run("search", text, "--json").stdout)["hits"]
        assert all(h["item"]["body"] != text for h in hits)
        items = json.loads(run("items", "--json").stdout)["items"]
        assert all(i["body"] != text for i in items)
        turn = json.loads(run("context", text, "--json").stdout)
        assert text not in turn["text"]
        stmts = run("statements", "Sam", "--all", "--json", code=None)
        assert stmts.exit_code in (0, 3) and text not in stmts.stdout

    # another user can neither see nor decide
    mine = sams[0]["id"]
    for who in (["--user", "bob"], ["--user", "rita", "--review"], ["--user", "sam", "--agent"]):
        run("inbox", "show", mine, *who, code=3)
        run("inbox", "approve", mine, *who, code=3)
        run("inbox", "reject", mine, "--reason", "no", *who, code=3)
    run("inbox", "list", "--review", code=2)  # --review is a principal's

    shown = run("inbox", "show", mine, "--user", "sam").stdout
    assert "a personal fact: its user reviews it" in shown and "run       r1" in shown
    approved = json.loads(
        run("inbox", "approve", mine, "--user", "sam", "--body", EDITED, "--json").stdout
    )
    assert (approved["state"], approved["decided_by"]) == ("approved", "human:sam")
    hits = json.loads(run("search", "Sam prefers async standups", "--json").stdout)["hits"]
    assert hits[0]["item"]["id"] == approved["item_id"] and hits[0]["item"]["body"] == EDITED
    run("inbox", "approve", mine, "--user", "sam", code=5)

    run("inbox", "reject", rule["id"], code=2)  # --reason is required
    out = run("inbox", "reject", rule["id"], "--reason", "we deploy by CI").stdout
    assert out.strip() == f"rejected {rule['id']}"
    rejected = json.loads(run("inbox", "list", "--state", "rejected", "--json").stdout)
    assert [p["review_reason"] for p in rejected["proposals"]] == ["we deploy by CI"]


def test_a_personal_fact_from_a_run_with_no_user_is_skipped_from_the_cli(run_cli: Any) -> None:
    ack = json.loads(
        run_cli(
            "writeback", "--run", "r2", "--from", "-", "--json", stdin=json.dumps(products())
        ).stdout
    )
    assert ack["counts"] == {"written": 1, "pending": 1, "skipped": 1}
    [skipped] = [p for p in ack["proposals"] if p["state"] == "skipped"]
    assert skipped["body"] == PERSONAL and "never widened to org" in skipped["reason"]
    queued = json.loads(run_cli("writeback", "--run", "r3", "--from", "-", "--no-wait", "--json",
                                stdin=json.dumps(products(summary=RULE))).stdout)  # fmt: skip
    assert (queued["state"], queued["counts"]) == ("queued", {})
    assert "queued" in run_cli("writeback", "--run", "r3", "--from", "-", "--no-wait",
                               stdin=json.dumps(products(summary=RULE))).stdout  # fmt: skip
