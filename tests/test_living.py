"""The seeds' living test, from every surface: ask what the organisation currently
believes, get the current belief first with its citation and what it replaced; ask as of
a date before the change and get the old one. Real brain, real embedder, the default
extractor (patterns; no LLM), the default plan."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from orgbrain import Brain
from orgbrain.cli import app as cli_app
from orgbrain.cli.app import cli
from orgbrain.keys import MemoryKeyStore, issue_key
from orgbrain.ports import Embedder
from orgbrain.retrieve import get_plan, membership
from orgbrain.retrieve.replacements import replaced_pairs
from orgbrain.server import BackgroundServer, create_app
from orgbrain.settings import Settings

FEB = datetime(2026, 2, 3, tzinfo=UTC)
DEC = datetime(2026, 12, 1, tzinfo=UTC)
OLD = "The billing migration target is Postgres."
NEW = "We decided to move billing to CockroachDB instead of Postgres."
QUESTION = "what is the billing migration target?"
OTHER = (
    "The deploy freeze starts on Fridays at noon.",
    "Refunds over 500 EUR need approval from finance.",
    "The on-call rotation changes every Monday.",
)
TWO_THINGS = "Decision: the payments service deploys with Jenkins, owned by Priya."
ONE_CHANGED = "Jenkins is retired. The payments service deploys with GitHub Actions now."
DEPLOYS = "what does the payments service deploy with?"


def _changed(
    tmp_path: Path, embedder: Embedder, old_text: str, new_text: str
) -> Iterator[tuple[Brain, str, str]]:
    """A brain holding unrelated notes, ``old_text`` in February and ``new_text`` in
    December (derived)."""
    brain = Brain.open(tmp_path / "brain", embedder=embedder)
    for body in OTHER:
        brain.add_note(body)
    old = brain.add_note(old_text, occurred_at=FEB, wait="derived")
    new = brain.add_note(new_text, occurred_at=DEC, wait="derived")
    yield brain, old.id, new.id
    brain.close()


@pytest.fixture
def living(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Brain, str, str]]:
    yield from _changed(tmp_path, embedder, OLD, NEW)


def test_python_answers_with_the_current_belief_and_what_it_replaced(
    living: tuple[Brain, str, str],
) -> None:
    brain, old, new = living
    assert brain.get(old).superseded_by == new
    result = brain.search(QUESTION)
    assert result.verdict in ("single", "many") and result.hits
    first = result.hits[0]
    assert first.item.id == new
    assert first.supersedes is not None and first.supersedes.item_id == old
    for hit in result.hits[1:]:
        if hit.item.id == old:  # if shown at all, marked and below
            assert hit.superseded_by is not None and hit.superseded_by.item_id == new
    before = brain.search(QUESTION, as_of=datetime(2026, 3, 1, tzinfo=UTC))
    assert before.mode == "as_of" and before.hits[0].item.id == old
    assert before.hits[0].superseded_by is None  # in March nothing had replaced it
    assert new not in {h.item.id for h in before.hits}
    history = brain.search(QUESTION, mode="history")
    marked = [h for h in history.hits if h.item.id == old]
    assert not marked or marked[0].superseded_by is not None


def test_the_chain_and_story_say_what_replaced_what(living: tuple[Brain, str, str]) -> None:
    brain, old, new = living
    [was, now] = brain.statements(about="billing", current=None)
    assert (was.object, was.current, now.object, now.current) == (
        "Postgres",
        False,
        "CockroachDB",
        True,
    )
    assert now.type == "decision" and now.replaces == "Postgres"
    story = brain.story(new)
    assert story.derivation == "done" and [s.id for s in story.statements] == [now.id]
    assert [link.old.id for link in story.supersedes] == [old]
    item, back, forward = brain.chain(old)
    assert item.id == old and back == [] and [link.new.id for link in forward] == [new]


def test_read_injection_gives_the_current_belief_and_says_what_it_replaced(
    living: tuple[Brain, str, str],
) -> None:
    brain, old, new = living
    turn = brain.context_for_turn(QUESTION)
    assert turn.decision == "injected" and turn.items[0].id == new
    assert f"replaces {OLD}" in turn.text or f"(id {old})" in turn.text


def test_the_cli_answers_current_then_as_of(
    living: tuple[Brain, str, str], tmp_path: Path, embedder: Embedder, monkeypatch: Any
) -> None:
    brain, old, new = living
    brain.close()

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(cli_app, "open_brain", open_brain)
    runner = CliRunner()
    where = str(tmp_path / "brain")
    now = runner.invoke(cli, ["--brain", where, "search", QUESTION])
    assert now.exit_code == 0, now.output
    lines = now.output.splitlines()
    assert NEW[:40] in lines[1] and f"[{new}]" in lines[1] and f"replaces: {OLD}" in now.output
    then = runner.invoke(
        cli, ["--brain", where, "--json", "search", "--as-of", "2026-03-01", QUESTION]
    )
    assert then.exit_code == 0, then.output
    body = json.loads(then.stdout)
    assert body["mode"] == "as_of" and body["hits"][0]["item"]["id"] == old
    bad = runner.invoke(cli, ["--brain", where, "search", "--as-of", "March", QUESTION])
    assert bad.exit_code != 0 and "is not a date" in bad.output


def test_http_and_mcp_answer_current_then_as_of(living: tuple[Brain, str, str]) -> None:
    brain, old, new = living
    keys = MemoryKeyStore()
    from orgbrain.server.mcp import McpHttpApp

    mcp_app = McpHttpApp()
    app = create_app(
        brain, keys, extra_mounts={"/mcp": mcp_app}, lifespans=[lambda _app: mcp_app.running()]
    )
    token = issue_key(keys, brain.workspace, "ann", "read", agent=True).token
    with BackgroundServer(app) as server:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        ) as c:
            now = c.post("/v1/search", json={"query": QUESTION}).json()
            assert now["hits"][0]["item"]["id"] == new
            assert now["hits"][0]["supersedes"]["item_id"] == old
            then = c.post(
                "/v1/search", json={"query": QUESTION, "as_of": "2026-03-01T00:00:00Z"}
            ).json()
            assert then["mode"] == "as_of" and then["hits"][0]["item"]["id"] == old
            bad = c.post("/v1/search", json={"query": QUESTION, "mode": "as_of"})
            assert bad.status_code == 400, bad.text
        assert asyncio.run(_mcp_first_hit(server.url + "/mcp", token)) == new


async def _mcp_first_hit(url: str, token: str) -> str:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    hc = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    async with hc, Client(streamable_http_client(url, http_client=hc)) as client:
        result = await client.call_tool("brain_search", {"query": QUESTION})
        assert not result.is_error, result.content
        content = result.structured_content
        assert isinstance(content, dict)
        return str(content["hits"][0]["item"]["id"])


def test_plain_facts_are_answered_through_the_graph(tmp_path: Path, embedder: Embedder) -> None:
    brain = Brain.open(tmp_path / "b", embedder=embedder)
    for body in OTHER:
        brain.add_note(body)
    owner = brain.add_note("Priya owns billing.", wait="derived")
    likes = brain.add_note("Priya prefers async standups over meetings.", wait="derived")
    who = brain.search("who owns billing?")
    assert who.hits and who.hits[0].item.id == owner.id, who.reason
    about = brain.search("tell me about Priya")
    assert about.route == "entity-anchored" and "Priya" in about.entities
    assert {owner.id, likes.id} <= {h.item.id for h in about.hits}, about.reason
    prefers = brain.search("what does Priya prefer?")
    assert prefers.hits[0].item.id == likes.id
    assert brain.search("yo").hits == ()
    brain.close()


def test_two_current_owners_from_two_sources_are_a_conflict(
    tmp_path: Path, embedder: Embedder
) -> None:
    brain = Brain.open(tmp_path / "b", embedder=embedder)
    for body in OTHER:
        brain.add_note(body)
    when = datetime(2026, 11, 2, tzinfo=UTC)
    a = brain.add_note("Priya owns billing.", occurred_at=when, wait="derived")
    b = brain.add_note("Sam owns billing.", occurred_at=when, wait="derived")
    [c] = brain.conflicts()
    assert {c.a.item_id, c.b.item_id} == {a.id, b.id}
    result = brain.search("who owns billing?")
    assert result.verdict == "conflict", result.reason
    shown = {h.item.id: h.conflicts for h in result.hits}
    assert shown[a.id] == (b.id,) and shown[b.id] == (a.id,)
    brain.close()


LEDGER = {
    "id": "ledger",
    "notes": [
        {"at": "2026-11-04", "text": "Decision: we will use Postgres for the ledger."},
        {
            "at": "2026-12-03",
            "text": "Decision: the ledger moves to CockroachDB instead of Postgres.",
        },
    ],
    "question": "what database does the ledger use?",
    "current": 1,
    "replaced": 0,
}
TWO_SUBJECTS = {
    "id": "two-subjects",
    "notes": [
        {"at": "2026-11-04", "text": "The ledger uses Postgres."},
        {"at": "2026-12-03", "text": "The analytics store uses ClickHouse."},
    ],
    "question": "what does the ledger use?",
    "control": True,
}


def _eval_living(
    tmp_path: Path, embedder: Embedder, monkeypatch: Any, cases: list[dict[str, Any]], *flags: str
) -> tuple[dict[str, Any], list[dict[str, Any]], Path]:
    """``orgbrain eval living --json FLAGS`` over ``cases``: its report, and the rows it
    wrote (``--out``) and where."""
    from orgbrain.cli import eval_kit

    path = tmp_path / "living.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    monkeypatch.setattr(eval_kit, "embedder_factory", lambda _settings: embedder)
    rows = tmp_path / "rows.jsonl"
    out = CliRunner().invoke(
        cli, ["eval", "living", *flags, "--json", str(path), "--out", str(rows)]
    )
    assert out.exit_code == 0, out.output
    written = [json.loads(line) for line in rows.read_text().splitlines()]
    return json.loads(out.stdout), written, rows


def test_the_living_eval_scores_changes_and_controls(
    tmp_path: Path, embedder: Embedder, monkeypatch: Any
) -> None:
    from orgbrain.evals.living import load_cases

    cases = [
        LEDGER,
        {
            "id": "one-of-two-things",
            "notes": [
                {"at": "2026-10-12", "text": TWO_THINGS},
                {"at": "2026-12-01", "text": ONE_CHANGED},
            ],
            "question": DEPLOYS,
            "current": 1,
            "replaced": 0,
        },
        TWO_SUBJECTS,
    ]
    body, written, rows = _eval_living(tmp_path, embedder, monkeypatch, cases)
    # Each belief change's search is a row the verdict curve replays as an answerable
    # question (bench/verdict_curve.py: the org questions); the default gate over the
    # rows' evidence says what the search said.
    from bench.verdict_curve import load_rows

    assert [r["case"] for r in written] == ["ledger", "one-of-two-things"]
    replayed = load_rows(rows, "tuned-z")
    assert len(replayed) == 2 and all(r.answerable for r in replayed)
    gate = get_plan("tuned-z").gate
    assert gate is not None
    assert [membership(r.evidence, gate)[0] for r in replayed] == [not w["silent"] for w in written]
    assert (body["changes"], body["controls"]) == (2, 1)
    assert body["current_first"] == 1.0 and body["knows_replaced"] == 1.0
    assert body["knows_replaced_items"] == 0.5  # the two-things note stays current
    assert body["false_supersession"] == 0.0 and body["misses"] == []
    assert len(load_cases()) >= 25 and len(load_cases(heldout=True)) >= 20
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**cases[0], "current": 5}) + "\n")
    refused = CliRunner().invoke(cli, ["eval", "living", str(bad)])
    assert refused.exit_code != 0 and "not a living-test case" in refused.output


def test_the_split_asks_each_question_where_its_answer_is_and_where_it_is_not(
    tmp_path: Path, embedder: Embedder, monkeypatch: Any
) -> None:
    """``--split``: the cases dealt into two brains; each belief change's question asked of
    both, answerable in its own half only, every row for the verdict curve."""
    parking = {
        "id": "parking",
        "notes": [
            {"at": "2026-09-01", "text": "Visitor parking permits are issued at reception."},
            {"at": "2026-10-20", "text": "Visitor parking permits now come from security."},
        ],
        "question": "where does a visitor get a parking permit?",
        "current": 1,
        "replaced": 0,
    }
    cases = [LEDGER, parking, TWO_SUBJECTS]
    body, written, rows = _eval_living(tmp_path, embedder, monkeypatch, cases, "--split")
    # Half one holds the ledger and the control, half two the parking notes.
    assert [(r["case"], r["answerable"]) for r in written] == [
        ("ledger", True),
        ("parking", False),
        ("ledger", False),
        ("parking", True),
    ]
    assert body["questions"] == 2
    assert body["false_silence"] == 0.0
    spoken = [not r["silent"] for r in written if not r["answerable"]]
    assert body["spoken_without_answer"] == sum(spoken) / 2
    # The parking question, asked where only ledger notes are held, gets nothing.
    assert written[1]["silent"], written[1]["reason"]
    from bench.verdict_curve import load_rows

    assert [r.answerable for r in load_rows(rows, "tuned-z")] == [True, False, False, True]
    path = tmp_path / "living.jsonl"
    refused = CliRunner().invoke(cli, ["eval", "living", "--split", "--misses", str(path)])
    assert refused.exit_code != 0 and "--split reports no misses" in refused.output


@pytest.fixture
def partly(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Brain, str, str]]:
    """A note that says two things, and a newer one that replaces one of them."""
    yield from _changed(tmp_path, embedder, TWO_THINGS, ONE_CHANGED)


def test_a_note_partly_replaced_stays_current_and_both_hits_say_which_statement(
    partly: tuple[Brain, str, str],
) -> None:
    brain, old, new = partly
    assert brain.get(old).superseded_by is None  # it still says who owns the service
    hits = {h.item.id: h for h in brain.search(DEPLOYS).hits}
    assert hits[new].supersedes is None and hits[old].superseded_by is None
    [replaced] = hits[new].replaces
    assert (replaced.subject, replaced.predicate, replaced.old) == (
        "payments service",
        "uses",
        "Jenkins",
    )
    assert replaced.citation.item_id == old and hits[new].replaces_in_part == (replaced,)
    [was] = hits[old].replaced_by
    assert was.citation.item_id == new and (was.old, was.new) == (replaced.old, replaced.new)
    assert not hits[new].replaced_by and not hits[old].replaces
    # As the brain believed in March, nothing had replaced it yet.
    before = brain.search(DEPLOYS, as_of=datetime(2026, 3, 1, tzinfo=UTC))
    assert [(h.item.id, h.replaced_by) for h in before.hits] == [(old, ())]
    turn = brain.context_for_turn(DEPLOYS)
    assert new in {i.id for i in turn.items}
    assert f"replaces payments service uses: Jenkins -> {was.new} from" in turn.text
    if old in {i.id for i in turn.items}:  # if injected at all, marked
        assert f"PARTLY SUPERSEDED: payments service uses: Jenkins -> {was.new} by" in turn.text


def test_the_statement_marks_are_read_once_for_all_hits(
    partly: tuple[Brain, str, str],
) -> None:
    from dataclasses import replace

    from orgbrain.retrieve.graph import CURRENT
    from orgbrain.retrieve.plan import get_plan
    from orgbrain.retrieve.replacements import statement_links
    from orgbrain.retrieve.search import Searcher

    brain, old, new = partly
    store = brain._ctx.store
    reads: list[dict[str, Any]] = []

    class Counted:
        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        def statements(self, *args: Any, **kwargs: Any) -> Any:
            reads.append(kwargs)
            return store.statements(*args, **kwargs)

    ctx = replace(brain._ctx, store=Counted())
    everything = [i.id for i in brain.items(limit=50).items]
    others = [i for i in everything if i not in (old, new)]
    for ids in ([old], [old, new], everything, others):
        held = store.statements(ctx.workspace, ctx.visibility, item_ids=ids)
        reads.clear()
        links = statement_links(ctx, ids, held, CURRENT)
        want = [] if ids is others else [(old, new)]
        assert [(s.old.item_id, s.new.item_id) for s in links] == want
        assert len(reads) == (1 if held else 0), reads
    # A whole search reads the hits' statements once, for the conflict check and the marks
    # (and freshness by topic, at most once, the candidates' replaced ones: current=False).
    reads.clear()
    result = Searcher(ctx).search(DEPLOYS, get_plan(ctx.settings.plan))
    assert {old, new} <= {h.item.id for h in result.hits}
    held = [r for r in reads if "item_ids" in r and r.get("current") is not False]
    assert len(held) == 1 and sum("linked_to" in r for r in reads) == 1
    assert sum(r.get("current") is False for r in reads) <= 1


def test_every_transport_carries_the_statement_marks(
    partly: tuple[Brain, str, str], tmp_path: Path, embedder: Embedder, monkeypatch: Any
) -> None:
    brain, old, new = partly
    keys = MemoryKeyStore()
    app = create_app(brain, keys)
    token = issue_key(keys, brain.workspace, "ann", "read", agent=True).token
    with BackgroundServer(app) as server:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        ) as c:
            hits = {
                h["item"]["id"]: h
                for h in c.post("/v1/search", json={"query": DEPLOYS}).json()["hits"]
            }
    [r] = hits[new]["replaces"]
    assert r["citation"]["item_id"] == old and r["old"] == "Jenkins"
    assert r["text"].startswith("payments service uses: Jenkins -> ")
    assert hits[old]["replaced_by"][0]["citation"]["item_id"] == new
    brain.close()

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(cli_app, "open_brain", open_brain)
    out = CliRunner().invoke(cli, ["--brain", str(tmp_path / "brain"), "search", DEPLOYS])
    assert out.exit_code == 0, out.output
    assert "in part superseded: payments service uses: Jenkins -> " in out.output
    assert f"[{new}]" in out.output and "replaces: payments service uses: Jenkins" in out.output


def _notes(tmp_path: Path, embedder: Embedder, *dated: tuple[str, str]) -> tuple[Brain, list[str]]:
    """A brain holding unrelated notes and ``dated`` (``(YYYY-MM-DD, text)``), derived."""
    brain = Brain.open(tmp_path / "notes", embedder=embedder)
    for body in OTHER:
        brain.add_note(body)
    ids = [
        brain.add_note(
            text, occurred_at=datetime.fromisoformat(at).replace(tzinfo=UTC), wait="derived"
        ).id
        for at, text in dated
    ]
    return brain, ids


def _current(brain: Brain, item_id: str) -> list[tuple[str, str, str]]:
    return [
        (s.subject, s.predicate, s.object)
        for s in brain.statements(item_id=item_id, current=None)
        if s.current
    ]


def test_a_stated_change_replaces_the_same_use_but_not_another(
    tmp_path: Path, embedder: Embedder
) -> None:
    """ "Going forward" / "now" with no old value named: the new value replaces what the
    subject held under the same wording, even for a multi-valued ``uses``; another use
    ("for card payments") or one more ("also") replaces nothing."""
    brain, [kept, docs, changed, billing, cards, reviews, also] = _notes(
        tmp_path,
        embedder,
        ("2026-03-01", "Design docs are kept in Google Docs."),
        ("2026-05-01", "Postmortems are written in Confluence."),
        ("2026-12-01", "Going forward, design docs are kept in Notion."),
        ("2026-03-01", "The billing service uses Postgres."),
        ("2026-12-01", "The billing service now uses Stripe for card payments."),
        ("2026-03-01", "Design reviews are tracked in Jira."),
        ("2026-12-01", "Going forward, design reviews are also tracked in Linear."),
    )
    assert brain.get(kept).superseded_by == changed
    assert _current(brain, docs) == [("Postmortems", "uses", "Confluence")]
    for item_id in (billing, cards, reviews, also):
        assert brain.get(item_id).superseded_by is None and _current(brain, item_id)
    hits = brain.search("where are design docs kept?").hits
    assert hits[0].item.id == changed
    brain.close()


def test_whoever_left_no_longer_owns_anything(tmp_path: Path, embedder: Embedder) -> None:
    brain, [owns, handover, dashboards, rotation] = _notes(
        tmp_path,
        embedder,
        ("2026-07-01", "Farah owns vendor contracts."),
        ("2026-12-01", "Farah has left; questions about vendor contracts now go to Oscar."),
        ("2026-07-01", "Jonas owns the billing dashboards."),
        ("2026-12-01", "Jonas has left the on-call rotation; pages now go to Pia."),
    )
    assert brain.get(owns).superseded_by == handover
    assert _current(brain, handover) == [
        ("Farah", "left", "the company"),
        ("vendor contracts", "contact", "Oscar"),
    ]
    assert brain.get(dashboards).superseded_by is None  # left a rotation, not the company
    assert _current(brain, dashboards) == [("billing dashboards", "owner", "Jonas")]
    hits = {h.item.id: h for h in brain.search("who handles vendor contracts?").hits}
    assert hits and next(iter(hits)) == handover and rotation not in list(hits)[:1]
    brain.close()


def test_a_record_that_supersedes_another_retires_what_it_said(
    tmp_path: Path, embedder: Embedder
) -> None:
    brain, [adr3, adr17, status, adr5, proposed] = _notes(
        tmp_path,
        embedder,
        (
            "2026-01-15",
            "# ADR-003 Feature flags\nFeature flags live in a config file.\nStatus: accepted.",
        ),
        ("2026-11-10", "# ADR-017 Flags service\nFeature flags are managed with Unleash."),
        ("2026-11-12", "ADR-003 status: superseded by ADR-017."),
        ("2026-02-01", "ADR-005: We keep session state in Postgres.\nStatus: accepted."),
        (
            "2026-12-01",
            "ADR-011: Session state lives in Redis.\nStatus: proposed.\nSupersedes: ADR-005",
        ),
    )
    # The older record is superseded by the newer one, not by the note that says so.
    assert brain.get(adr3).superseded_by == adr17
    assert _current(brain, adr3) == []
    assert brain.get(status).superseded_by is None and brain.get(adr17).superseded_by is None
    hits = brain.search("how are feature flags managed?").hits
    assert hits[0].item.id == adr17
    assert {r.citation.item_id for r in hits[0].replaces} == {adr3}
    # A proposed record supersedes nothing.
    assert brain.get(adr5).superseded_by is None
    assert _current(brain, adr5) == [("ADR-005", "status", "accepted")]
    assert proposed
    brain.close()


def test_a_replacement_that_does_not_name_the_subject_still_answers(
    tmp_path: Path, embedder: Embedder
) -> None:
    """ "we moved from jenkins to github actions" says nothing of "our CI": it answers
    for the note it superseded, which did, rather than being gated silent."""
    brain, [old, new] = _notes(
        tmp_path,
        embedder,
        ("2026-04-01", "Our CI uses Jenkins."),
        ("2026-12-01", "we moved from jenkins to github actions last week"),
    )
    assert brain.get(old).superseded_by == new
    result = brain.search("what does our CI use?")
    assert result.verdict != "none" and result.hits[0].item.id == new, result.reason
    brain.close()


def test_a_change_reaches_one_longer_name_and_lower_case_known_names(
    tmp_path: Path, embedder: Embedder
) -> None:
    brain, [sprint, retros, onboarding, offboarding, checklist, sentry, ditching] = _notes(
        tmp_path,
        embedder,
        ("2026-04-01", "Sprint retros are run in Miro."),
        ("2026-12-01", "As of this sprint, retros are run in FigJam."),
        ("2026-09-01", "The onboarding checklist is kept in Notion."),
        ("2026-09-02", "The offboarding checklist is kept in Notion."),
        ("2026-12-01", "Going forward, the checklist is kept in Rippling."),
        ("2026-04-01", "Error tracking uses Sentry."),
        ("2026-12-01", "we're ditching sentry for datadog for error tracking"),
    )
    assert brain.get(sprint).superseded_by == retros
    # Two longer names: which checklist is meant is not said.
    for item_id in (onboarding, offboarding):
        assert brain.get(item_id).superseded_by is None
    assert checklist
    # "sentry" in lower case is the Sentry the brain knows.
    assert brain.get(sentry).superseded_by == ditching
    brain.close()


def test_an_older_record_that_says_it_is_superseded_in_either_order(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The usual way an ADR is retired: its own status line, edited in place after the
    newer record, or written before the newer record exists (the link then waits)."""
    brain = Brain.open(tmp_path / "records", embedder=embedder)
    at = {m: datetime(2026, m, 1, tzinfo=UTC) for m in (3, 4, 10, 11, 12)}
    queue = "# ADR-6 Queue\nJobs are queued in RabbitMQ.\nStatus: {}."
    old = brain.add_note(queue.format("accepted"), source_key="adr-6", occurred_at=at[3])
    new = brain.add_note(
        "# ADR-15 Queue v2\nJobs are queued in SQS.\nStatus: accepted.", occurred_at=at[10]
    )
    brain.wait_derived([old, new], 30)
    assert brain.get(old.id).superseded_by is None
    edited = brain.add_note(
        queue.format("superseded by ADR-15"),
        source_key="adr-6",
        occurred_at=at[11],
        wait="derived",
    )
    assert edited.id == old.id and brain.get(old.id).superseded_by == new.id
    hits = {h.item.id: h for h in brain.search("where are jobs queued?").hits}
    assert next(iter(hits)) == new.id and hits[new.id].replaces

    early = brain.add_note(
        "# ADR-7 Cache\nSessions are cached in Memcached.\nStatus: superseded by ADR-16.",
        occurred_at=at[4],
        wait="derived",
    )
    assert brain.get(early.id).superseded_by is None  # ADR-16 is not written yet
    later = brain.add_note(
        "# ADR-16 Cache v2\nSessions are cached in Redis.", occurred_at=at[12], wait="derived"
    )
    assert brain.get(early.id).superseded_by == later.id
    brain.close()


def test_a_relevant_note_months_old_outranks_unrelated_news(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Freshness orders what answers, it does not let today's chatter outrank it: a
    five-month-old note about the CI beats four unrelated notes written today."""
    brain = Brain.open(tmp_path / "brain", embedder=embedder)
    for body in (*OTHER, "New hires get their laptop on the first day."):
        brain.add_note(body)
    ci = brain.add_note(
        "Eng weekly: every pipeline now runs on GitHub Actions; Jenkins is retired.",
        occurred_at=datetime.now(UTC) - timedelta(days=150),
        wait="derived",
    )
    hits = brain.search("where do our CI pipelines run now?").hits
    assert hits and hits[0].item.id == ci.id
    brain.close()


NEWS = (*OTHER, "New hires get their laptop on the first day.")


def _asked(
    tmp_path: Path,
    embedder: Embedder,
    question: str,
    old: str,
    new: str,
    news: tuple[str, ...] = NEWS,
) -> tuple[list[str], str, str, set[frozenset[str]]]:
    """The hits' ids for ``question`` in a brain holding ``news`` written today, ``old``
    written 200 days ago and ``new`` 100 days ago (derived); the two notes' ids, and the
    pairs of them the derivation linked (``replaced_pairs``)."""
    brain = Brain.open(tmp_path / "brain", embedder=embedder)
    for body in news:
        brain.add_note(body)
    now = datetime.now(UTC)
    older = brain.add_note(old, occurred_at=now - timedelta(days=200), wait="derived")
    newer = brain.add_note(new, occurred_at=now - timedelta(days=100), wait="derived")
    hits = [h.item.id for h in brain.search(question).hits]
    linked = replaced_pairs(brain._ctx, [older.id, newer.id])
    brain.close()
    return hits, older.id, newer.id, linked


def test_a_note_sinks_below_a_newer_one_on_its_topic_not_below_unrelated_news(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Freshness against each note's own topic: the note that replaced an older one
    answers first, though a note about laptops written today ties it in the fused vote
    (it did, by plain freshness, before freshness was read by topic); the older note
    still ranks below the newer one."""
    hits, older, newer, _ = _asked(
        tmp_path,
        embedder,
        "who approves a new vendor contract?",
        "Procurement handbook: every vendor contract is approved by Dana Whitlock in Legal"
        " before signing.",
        "Dana has moved teams; vendor contracts are now approved by Ravi Menon. Send him the"
        " draft and the quote.",
    )
    assert hits[0] == newer
    assert older not in hits or hits.index(older) > hits.index(newer)


def test_the_querys_names_put_an_old_card_and_a_newer_line_on_one_topic(
    tmp_path: Path, embedder: Embedder
) -> None:
    """An old project card and a quarterly update share only the project's name; the
    query names it, so the card sinks below the update as plain freshness sinks it."""
    hits, _, newer, _ = _asked(
        tmp_path,
        embedder,
        "what's the status of Project Kestrel?",
        "Project Kestrel (billing rewrite)\nStatus: In progress\nLead: Omar",
        "Q3 update - Platform\nKestrel: PAUSED until January, budget freeze.",
    )
    assert hits[0] == newer


def test_a_name_written_as_a_common_word_puts_no_notes_on_one_topic(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The query's "Planning" is a committee's name; a note on the quarterly planning
    offsite, written today, writes the common word, not the name, and is not the minutes'
    topic: the minutes keep their freshness against it (it ranked first before)."""
    hits, older, newer, _ = _asked(
        tmp_path,
        embedder,
        "Which councillor chairs Planning now?",
        "Planning Committee - 10 Feb\nPresent: Cllr J. Okafor (Chair), Cllr M. Price",
        "Annual Council minutes\nRESOLVED: Planning Committee - Chair: Cllr M. Price",
        (*NEWS, "The quarterly planning offsite is in the spring."),
    )
    assert hits[0] in (older, newer)


def test_a_replaced_statement_puts_two_notes_on_one_topic(
    tmp_path: Path, embedder: Embedder
) -> None:
    """An RFC and the thread that withdrew it share one word the topic reads ("rfc");
    the derivation linked their statuses, and that link is what sinks the RFC."""
    hits, older, newer, linked = _asked(
        tmp_path,
        embedder,
        "are we building our own feature flag system or buying one?",
        "RFC-31 In-house feature flag service\nStatus: accepted\nWe'll build our own flag"
        " service on top of Redis. Owner: Platform.",
        "[#architecture] update on RFC-31: we are reversing it and buy LaunchDarkly instead."
        " RFC-31 marked Withdrawn.",
    )
    assert linked == {frozenset((older, newer))}
    assert hits[0] == newer
