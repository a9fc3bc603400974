"""Write-back through the gate, in Python: the run's products, the writers, the gate's
table, the review inbox's rules, retries, and the two properties (nothing lands wider
than its stored scope; nothing pending reaches a read)."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orgbrain import Brain
from orgbrain.errors import Conflict, Forbidden, InvalidInput, NotFound, TooLarge
from orgbrain.extraction import default_extractor
from orgbrain.model import Proposal, RunProducts, utcnow
from orgbrain.ports import Embedder
from orgbrain.scopes import Principal, Visibility
from orgbrain.settings import Settings
from orgbrain.writeback import (
    Draft,
    OfflineWriter,
    judge,
    parse_products,
    proposal_id,
    run_pass,
)

SAM = Principal("default", "sam", frozenset({"core"}))
BOB = Principal("default", "bob", frozenset({"core"}))
REVIEWER = Principal("default", "rita", frozenset({"core"}), review=True)

DECISION = "We decided to move billing to CockroachDB instead of Postgres."
PERSONAL = "Sam prefers async standups."
RULE = "Always run the schema check before deploying the API."


def products(run_id: str = "run-1", **over: object) -> dict[str, object]:
    data: dict[str, object] = {
        "run_id": run_id,
        "outcome": "succeeded",
        "summary": f"I ran the migration tests and fixed two flaky ones. {DECISION}",
        "decisions": [],
        "artefacts": [],
    }
    data.update(over)
    return data


# -- the gate, row by row ------------------------------------------------------------------

RUN = RunProducts("r", "succeeded", "s", user_id="sam")
NO_USER = RunProducts("r", "succeeded", "s")
ALL = Visibility.everything()


@pytest.mark.parametrize(
    ("draft", "run", "state", "scope", "why"),
    [
        (Draft("fact", "", 0.9), RUN, "skipped", "org", "empty"),
        (Draft("fact", "x1 !!! ?? 42", 0.9), RUN, "skipped", "org", "nonsense"),
        (Draft("fact", "ok ok ok ok", 0.9), RUN, "skipped", "org", "nonsense"),
        (Draft("fact", "— 12345 67890 %%% &&& ab cd ef", 0.9), RUN, "skipped", "org", "nonsense"),
        (Draft("preference", PERSONAL, 0.9, "user"), NO_USER, "skipped", "user", "no user"),
        (Draft("preference", PERSONAL, 0.99, "user"), RUN, "pending", "user:sam", "personal"),
        (
            Draft("fact", "The staging password is hunter2", 0.99),
            RUN,
            "pending",
            "org",
            "sensitive",
        ),
        (Draft("rule", RULE, 0.7), RUN, "pending", "org", "confidence 0.70 < 0.75"),
        (Draft("decision", DECISION, 0.75), RUN, "written", "org", "confident"),
        (Draft("decision", DECISION, 0.9, "team:core"), RUN, "written", "team:core", "confident"),
        (Draft("decision", DECISION, 0.9, "everyone"), RUN, "skipped", "everyone", "invalid scope"),
    ],
)
def test_the_gate_table(draft: Draft, run: RunProducts, state: str, scope: str, why: str) -> None:
    verdict = judge(draft, run, ALL)
    assert (verdict.state, verdict.scope) == (state, scope)
    assert why in verdict.reason


def test_the_gate_never_lets_a_run_write_where_its_owner_cannot() -> None:
    verdict = judge(Draft("decision", DECISION, 0.9, "team:other"), RUN, SAM.visibility)
    assert verdict.state == "skipped"
    assert "not a scope" in verdict.reason


drafts = st.builds(
    Draft,
    kind=st.sampled_from(["fact", "decision", "rule", "preference"]),
    body=st.sampled_from(
        ["", "?!", DECISION, PERSONAL, RULE, "The api key is AKIAIOSFODNN7EXAMPLE"]
    ),
    confidence=st.floats(0, 1),
    scope=st.sampled_from(["org", "team:core", "team:other", "user", "user:bob", "nope"]),
)


@given(draft=drafts, user=st.sampled_from([None, "sam"]), reader=st.sampled_from([SAM, None]))
def test_property_the_gate_never_widens_a_scope(
    draft: Draft, user: str | None, reader: Principal | None
) -> None:
    run = RunProducts("r", "succeeded", "s", user_id=user)
    writable = reader.visibility if reader else ALL
    verdict = judge(draft, run, writable)
    if verdict.state == "skipped":
        return
    assert writable.allows(verdict.scope)
    if draft.scope == "user":
        assert verdict.scope == f"user:{user}"
    else:
        assert verdict.scope == draft.scope
    if verdict.scope.startswith("user:"):
        assert verdict.state == "pending"  # personal: always the inbox
    if verdict.state == "written":
        assert draft.confidence >= 0.75 and not verdict.sensitivity


# -- the products --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"outcome": "done", "summary": "x"}, InvalidInput),
        ({"outcome": "succeeded", "summary": "", "decisions": []}, InvalidInput),
        ({"outcome": "succeeded", "summary": "x", "decisions": "one"}, InvalidInput),
        ({"outcome": "succeeded", "summary": "x", "decisions": [1]}, InvalidInput),
        ({"outcome": "succeeded", "summary": "x", "colour": "red"}, InvalidInput),
        ({"outcome": "succeeded", "summary": "x", "scope": "user:sam"}, InvalidInput),
        ({"outcome": "succeeded", "summary": "x" * 8001}, TooLarge),
        ({"outcome": "blocked", "summary": "x" * 7000, "artefacts": ["y" * 1001]}, TooLarge),
    ],
)
def test_bad_products_are_refused_and_store_nothing(
    brain: Brain, data: dict[str, object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        brain.write_back({"run_id": "r1", **data})
    assert brain.jobs(kind="writeback").jobs == ()
    assert brain.proposals(state=None) == []


def test_a_run_id_must_be_plain() -> None:
    with pytest.raises(InvalidInput):
        parse_products("has space", {"outcome": "succeeded", "summary": "x"})
    assert parse_products("run-1", {"outcome": "completed", "summary": "x"}).run_id == "run-1"


# -- end to end, the offline writer ---------------------------------------------------------


def test_a_confident_decision_is_written_cited_with_its_run_and_supersedes(brain: Brain) -> None:
    old = brain.add_note("The billing migration target is Postgres.", wait="derived")
    ack = brain.write_back(products(), wait=True)
    assert (ack.state, ack.created) == ("done", True)
    [p] = ack.proposals  # the task chatter is not proposed
    assert (p.state, p.kind, p.scope, p.writer) == ("written", "decision", "org", "offline")
    assert p.supersedes == (old.id,) and p.item_id
    hit = brain.search("what is the billing migration target?").hits[0]
    assert hit.item.id == p.item_id and hit.item.body == DECISION
    assert hit.item.origin.run_id == "run-1" and hit.item.origin.source == "writeback"
    assert hit.item.source_key == f"proposal:{p.id}"
    assert hit.supersedes is not None and hit.supersedes.item_id == old.id
    gate = brain.events_after(0, kinds=["gate"])
    assert [(e["decision"], e["proposal_id"]) for e in gate] == [("written", p.id)]
    [wb] = brain.events_after(0, kinds=["writeback"])
    assert (wb["proposals"], wb["written"], wb["queued"]) == (1, 1, 0)


def test_known_knowledge_is_not_proposed_again(brain: Brain) -> None:
    brain.add_note(DECISION, wait="derived")
    ack = brain.write_back(products(), wait=True)
    assert ack.proposals == ()
    [wb] = brain.events_after(0, kinds=["writeback"])
    assert wb["proposals"] == 0


def test_zero_to_three_proposals(brain: Brain) -> None:
    chatter = products(summary="I ran the tests. We fixed two flaky tests. Then I opened a PR.")
    assert brain.write_back(chatter, wait=True).proposals == ()
    many = products(
        "run-2",
        summary=" ".join(
            [
                "Priya owns billing.",
                "Omar owns search.",
                "Lee owns the deploy pipeline.",
                "SLA means the uptime we promise customers.",
                DECISION,
            ]
        ),
    )
    assert len(brain.write_back(many, wait=True).proposals) == 3


def test_one_pass_per_run(brain: Brain) -> None:
    first = brain.write_back(products())
    again = brain.write_back(products())
    assert (again.job_id, again.created) == (first.job_id, False)
    with pytest.raises(Conflict):
        brain.write_back(products(summary="Something else entirely was learned."))
    brain.worker().drain()
    assert len(brain.proposals(state=None)) == 1
    assert brain.writeback_state("run-1").state == "done"
    with pytest.raises(NotFound):
        brain.writeback_state("run-unknown")


def test_a_personal_fact_waits_for_its_user_and_no_one_else(brain: Brain) -> None:
    sam, bob, rita = (brain.for_principal(p) for p in (SAM, BOB, REVIEWER))
    ack = sam.write_back(products(summary=PERSONAL), wait=True)
    [p] = ack.proposals
    assert (p.state, p.scope, p.kind) == ("pending", "user:sam", "preference")
    # waiting: absent from every read, for everyone, the user included
    for reader in (brain, sam, bob, rita):
        assert all(
            h.item.body != PERSONAL for h in reader.search("how does Sam like standups?").hits
        )
        assert all(i.body != PERSONAL for i in reader.items(limit=500).items)
        assert PERSONAL not in reader.context_for_turn("Sam standups preference").text
    assert all(PERSONAL not in json.dumps(e) for e in brain.events_after(0))
    # only Sam sees it, not Bob, not a reviewer (a personal fact is its user's)
    assert [x.id for x in sam.proposals()] == [p.id]
    for other in (bob, rita):
        assert other.proposals() == []
        with pytest.raises(NotFound):
            other.proposal(p.id)
        with pytest.raises(NotFound):
            other.approve(p.id)
    done = sam.approve(p.id, body="Sam prefers async standups on Mondays.", reason="yes")
    assert (done.state, done.decided_by, done.review_reason) == ("approved", "human:sam", "yes")
    note = sam.get(str(done.item_id))
    assert (note.scope, note.origin.actor, note.source_key) == (
        "user:sam",
        "human:sam",
        f"proposal:{p.id}",
    )
    assert note.body == "Sam prefers async standups on Mondays." and note.origin.run_id == "run-1"
    assert sam.search("how does Sam like standups?").hits[0].item.id == note.id
    assert all(h.item.id != note.id for h in bob.search("how does Sam like standups?").hits)
    with pytest.raises(Conflict):
        sam.approve(p.id)
    [review] = brain.events_after(0, kinds=["review"])
    assert (review["outcome"], review["item_id"], review["reviewer"]) == (
        "approved",
        note.id,
        "human:sam",
    )


def test_a_preference_listed_among_decisions_stays_personal(brain: Brain) -> None:
    sam = brain.for_principal(SAM)
    [p] = sam.write_back(products(summary="Done.", decisions=[PERSONAL]), wait=True).proposals
    assert (p.state, p.scope, p.kind) == ("pending", "user:sam", "preference")


def test_a_personal_fact_with_no_user_is_skipped_never_widened(brain: Brain) -> None:
    [p] = brain.write_back(products(summary=PERSONAL), wait=True).proposals
    assert (p.state, p.item_id) == ("skipped", None)
    assert "never widened to org" in p.reason
    assert all(i.body != PERSONAL for i in brain.items(limit=500).items)


def test_org_proposals_wait_for_a_reviewer(brain: Brain) -> None:
    sam, bob, rita = (brain.for_principal(p) for p in (SAM, BOB, REVIEWER))
    ack = sam.write_back(products(summary=RULE), wait=True)
    assert ack.proposals == () and ack.counts == {"pending": 1}  # Sam may not review org
    [p] = brain.proposals(run_id="run-1")
    assert (p.state, p.scope, p.kind, p.confidence) == ("pending", "org", "rule", 0.7)
    assert sam.proposals() == [] and bob.proposals() == []  # no review permission
    with pytest.raises(NotFound):
        bob.reject(p.id, reason="no")
    assert [x.id for x in rita.proposals()] == [p.id]
    with pytest.raises(InvalidInput):
        rita.reject(p.id, reason=" ")
    rejected = rita.reject(p.id, reason="we do not deploy the API by hand")
    assert (rejected.state, rejected.decided_by) == ("rejected", "human:rita")
    assert rejected.review_reason == "we do not deploy the API by hand"
    assert rita.proposals() == [] and [x.id for x in rita.proposals(state="rejected")] == [p.id]
    with pytest.raises(Conflict):
        rita.approve(p.id)
    assert all(i.body != RULE for i in brain.items(limit=500).items)


def test_an_agent_cannot_approve_its_own_users_proposals(brain: Brain) -> None:
    agent = brain.for_principal(Principal("default", "sam", agent=True))
    ack = agent.write_back(products(summary=PERSONAL), wait=True)
    assert ack.proposals == () and ack.counts == {"pending": 1}
    [p] = brain.proposals()
    assert p.scope == "user:sam" and agent.proposals() == []
    with pytest.raises(NotFound):
        agent.approve(p.id)
    assert brain.for_principal(SAM).approve(p.id).state == "approved"


def test_a_principal_writes_back_its_own_runs_only(brain: Brain) -> None:
    sam = brain.for_principal(SAM)
    with pytest.raises(Forbidden):
        sam.write_back(products(user_id="bob"))
    with pytest.raises(Forbidden):
        sam.write_back(products(scope="team:other"))
    ack = sam.write_back(products(scope="team:core"), wait=True)
    assert ack.counts == {"written": 1}
    assert [(p.state, p.scope) for p in brain.proposals(state=None)] == [("written", "team:core")]


def test_a_run_id_someone_else_used_answers_as_a_free_one(brain: Brain) -> None:
    """Issue 12.7c: Bob reusing Sam's run id was a 409 ("written back by someone else"),
    a free one a new pass: an oracle of others' runs. A run id is its asker's own."""
    sam, bob = brain.for_principal(SAM), brain.for_principal(BOB)
    sams = sam.write_back(products(scope="team:core", summary=RULE), wait=True)
    held = bob.write_back(products(scope="team:core"), wait=True)
    other = "We decided to move search to OpenSearch instead of Solr."
    free = bob.write_back(products(run_id="run-free", scope="team:core", summary=other), wait=True)
    assert held.job_id not in (sams.job_id, free.job_id)
    assert (held.created, held.state, held.counts) == (free.created, free.state, free.counts)
    assert held.counts == {"written": 1} and sams.counts == {"pending": 1}
    assert bob.writeback_state("run-1") == replace(held, created=False)
    assert sam.writeback_state("run-1") == replace(sams, created=False)  # Sam's pass, untouched


def test_a_pass_asked_for_before_run_ids_were_their_writers_is_still_found(brain: Brain) -> None:
    """A job keyed ``writeback:<run id>`` (before the key named its writer) stays its
    writer's pass: found, not asked for twice; another user's run of that id is new."""
    jobs = brain._ctx.jobs
    assert jobs is not None
    sam, bob = brain.for_principal(SAM), brain.for_principal(BOB)
    data = products(run_id="run-old")
    old = jobs.enqueue(
        "default",
        "writeback",
        "writeback:run-old",
        {
            "user_id": "sam",
            "team_ids": ["core"],
            "actor": "human:sam",
            "run_id": "run-old",
            "products": data,
        },
        actor="human:sam",
    )
    assert sam.writeback_state("run-old").job_id == old.id
    with pytest.raises(NotFound):
        bob.writeback_state("run-old")
    assert bob.write_back(products(run_id="run-old"), wait=False).job_id != old.id


def test_a_retried_pass_stores_and_writes_nothing_twice(brain: Brain) -> None:
    ctx = brain._ctx
    run = parse_products("run-1", products())
    first = run_pass(ctx, run, OfflineWriter(ctx, default_extractor()))
    again = run_pass(ctx, run, OfflineWriter(ctx, default_extractor()))
    assert [(p.id, p.item_id) for p in again] == [(p.id, p.item_id) for p in first]
    assert len([i for i in brain.items(limit=500).items if i.body == DECISION]) == 1
    assert len(brain.events_after(0, kinds=["gate"])) == 1


def test_a_pass_cut_short_after_storing_a_proposal_writes_it_on_retry(brain: Brain) -> None:
    ctx = brain._ctx
    run = parse_products("run-1", products())
    # what a crash between the proposal's insert and its note's write leaves behind
    stored = judge(Draft("decision", DECISION, 0.9), run, ALL)
    assert stored.state == "written"
    ctx.store.put_proposal(
        Proposal(
            id=proposal_id("default", "run-1", DECISION, "human:local"),
            workspace="default",
            run_id="run-1",
            actor="human:local",
            kind="decision",
            label="",
            body=DECISION,
            scope="org",
            confidence=0.9,
            sensitivity=(),
            evidence=(DECISION,),
            supersedes=(),
            state="written",
            reason=stored.reason,
            created_at=utcnow(),
        )
    )
    [done] = run_pass(ctx, run, OfflineWriter(ctx, default_extractor()))
    assert done.item_id is not None and brain.get(done.item_id).body == DECISION
    assert len([i for i in brain.items(limit=500).items if i.body == DECISION]) == 1


# -- the LLM writer against a local server that speaks the protocol -----------------------


class _Writer(BaseHTTPRequestHandler):
    """A scripted model: the writer's system prompt gets the script, one call per turn;
    anything else (derivation's extractor) gets no statements."""

    script: ClassVar[list[object]] = []
    seen: ClassVar[list[list[dict[str, str]]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        if "four questions" in messages[0]["content"]:
            type(self).seen.append(messages)
            turn = sum(1 for m in messages if m["role"] == "assistant")
            step = self.script[turn] if turn < len(self.script) else {"tool": "done"}
            content = step if isinstance(step, str) else json.dumps(step)
        else:
            content = json.dumps({"statements": []})
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data.encode())))
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def llm_brain(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Brain, type[_Writer]]]:
    handler = type("Handler", (_Writer,), {"script": [], "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    settings_ = Settings(chat_url=url, chat_model="writer-test")
    b = Brain.open(tmp_path / "brain", embedder=embedder, settings=settings_)
    try:
        yield b, handler
    finally:
        b.close()
        server.shutdown()
        server.server_close()


def test_the_llm_writer_searches_then_proposes_through_the_gate(
    llm_brain: tuple[Brain, type[_Writer]],
) -> None:
    brain, handler = llm_brain
    old = brain.add_note("The billing migration target is Postgres.")
    handler.script = [
        {"tool": "search", "query": "billing migration target"},
        {
            "tool": "propose",
            "kind": "decision",
            "body": DECISION,
            "scope": "org",
            "confidence": 0.9,
            "evidence": [DECISION],
            "supersedes": [old.id],
        },
        {
            "tool": "propose",
            "kind": "fact",
            "body": "The staging database password is hunter2-Xy9.",
            "confidence": 0.95,
        },
        {"tool": "propose", "kind": "fact", "body": "?? !!", "confidence": 0.99},
        {"tool": "propose", "kind": "fact", "body": "A fourth is one too many.", "confidence": 1},
        {"tool": "done"},
    ]
    ack = brain.for_principal(SAM).write_back(products(), wait=True)
    assert ack.counts == {"written": 1, "pending": 1, "skipped": 1}
    everything = brain.proposals(state=None)
    assert [p.state for p in everything] == ["written", "pending", "skipped"]
    assert everything[0].supersedes == (old.id,)
    assert everything[1].sensitivity and "hunter2" not in everything[1].reason
    # the search tool answered with the brain's hits, the old note among them
    answer = json.loads(handler.seen[-1][3]["content"])
    assert old.id in [h["id"] for h in answer["hits"]]
    assert "four questions" in handler.seen[-1][0]["content"]
    assert brain.search("billing migration target").hits[0].item.id == everything[0].item_id


def test_a_bad_model_reply_ends_the_pass_with_what_it_had(
    llm_brain: tuple[Brain, type[_Writer]],
) -> None:
    brain, handler = llm_brain
    handler.script = [
        {"tool": "propose", "kind": "decision", "body": DECISION, "confidence": 0.9},
        "sure! here is what I think",
    ]
    ack = brain.write_back(products(), wait=True)
    assert ack.state == "done" and [p.state for p in ack.proposals] == ["written"]
    [wb] = brain.events_after(0, kinds=["writeback"])
    assert "not a tool call" in str(wb["error"])


# -- the properties, on a real brain ---------------------------------------------------------

BODIES = [DECISION, PERSONAL, RULE, "The deploy password is hunter2-Xy9.", "Omar owns search."]
_EXAMPLES = itertools.count()
"""One number per example: the brain outlives the examples, so each example's run ids must
be new to it (``id()`` of a freed list comes back)."""


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    runs=st.lists(
        st.tuples(
            st.sampled_from(BODIES),
            st.sampled_from([SAM, BOB, None]),
            st.sampled_from(["org", "team:core"]),
        ),
        min_size=1,
        max_size=3,
    ),
    approver=st.sampled_from([SAM, BOB, REVIEWER, None]),
)
def test_property_nothing_lands_wider_and_nothing_pending_is_read(
    brain: Brain,
    runs: list[tuple[str, Principal | None, str]],
    approver: Principal | None,
) -> None:
    example = next(_EXAMPLES)
    for n, (body, who, scope) in enumerate(runs):
        writer = brain.for_principal(who) if who else brain
        run_id = f"p-{example}-{n}"
        writer.write_back(products(run_id, summary=body, scope=scope), wait=True)
    reviewer = brain.for_principal(approver) if approver else brain
    for p in reviewer.proposals():
        if p.id.endswith("0"):
            reviewer.approve(p.id)
    for p in brain.proposals(state=None):
        landed = brain.get(p.item_id) if p.item_id else None
        if p.state in ("written", "approved"):
            assert landed is not None and landed.scope == p.scope
        else:
            assert landed is None
        if p.state == "pending":
            for reader in (brain, brain.for_principal(SAM), brain.for_principal(REVIEWER)):
                hits = reader.search(p.body).hits
                assert all(h.item.source_key != f"proposal:{p.id}" for h in hits)
                assert p.body not in reader.context_for_turn(p.body).text or any(
                    i.body == p.body for i in brain.items(limit=1000).items
                )


# -- quality: the writer and gate on labelled runs ------------------------------------------


def test_the_offline_writer_on_the_dev_and_held_out_runs(embedder: Embedder) -> None:
    from importlib import resources

    from orgbrain.evals.writeback import load_runs, run_writeback, writeback_json

    data = resources.files("orgbrain.evals.data")
    for name, floor in (("writeback_dev.jsonl", 0.9), ("writeback_heldout.jsonl", 0.85)):
        with resources.as_file(data.joinpath(name)) as path:
            report = run_writeback(load_runs(path), embedder, source=name)
        shown = writeback_json(report)
        assert report.written_precision >= 0.9, shown  # what nobody reviews must be right
        assert report.recall >= floor and report.gate_accuracy >= floor - 0.05, shown


def test_eval_writeback_from_the_cli(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from orgbrain.cli import cli, eval_kit

    monkeypatch.setattr(eval_kit, "embedder_factory", lambda _settings: embedder)
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        json.dumps(
            {
                "id": "r1",
                "products": {"outcome": "succeeded", "summary": DECISION},
                "expect": [{"has": "CockroachDB", "state": "written"}],
            }
        )
        + "\n"
    )
    result = CliRunner().invoke(cli, ["eval", "writeback", str(runs), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{") :])
    assert (report["recall"], report["written_precision"]) == (1.0, 1.0)
