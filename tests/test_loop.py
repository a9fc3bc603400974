"""The loop, measured: every search from every surface is an event, write-back and review
are counted, ``stats`` answers over what the reader may see (Python, CLI, HTTP, client),
and spans go through the OpenTelemetry API (read back with the SDK's in-memory exporter).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

from orgbrain import Brain, Client
from orgbrain.adapters.blobs_local import LocalBlobStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.agents.tools import ToolContext, call_tool
from orgbrain.cli import app, cli
from orgbrain.cli.stats import duration
from orgbrain.compose import build_context
from orgbrain.errors import InvalidInput, Unavailable
from orgbrain.evals.cache import _open as open_for_eval
from orgbrain.scopes import Principal
from orgbrain.stats import LoopStats, loop_stats, parse_since, percentile
from orgbrain.telemetry import span
from orgbrain.views import LoopStatsView
from tests.test_server import assert_problem, serve
from tests.toy import HashEmbedder

SAM = Principal("default", "sam", frozenset({"core"}))
RITA = Principal("default", "rita", frozenset({"core"}), review=True)
BILLING = "Priya Raman owns the billing service and its Stripe integration."
DECISION = "We decided to move billing to CockroachDB instead of Postgres."
RULE = "Always run the schema check before deploying the API."
PERSONAL = "Sam prefers async standups."


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[Brain]:
    with Brain.open(tmp_path / "brain", embedder=HashEmbedder()) as b:
        b.add_note(BILLING)
        yield b


def searches(brain: Brain) -> list[dict[str, Any]]:
    return list(reversed(brain.events("search", limit=100)))  # oldest first


def run_products(run_id: str = "run-1", user_id: str | None = "sam") -> dict[str, object]:
    return {
        "run_id": run_id,
        "outcome": "succeeded",
        "summary": f"I ran the tests. {DECISION} {RULE}",
        "decisions": [PERSONAL],
        "artefacts": [],
        "user_id": user_id,
    }


# -- pure parts ---------------------------------------------------------------------------


def test_percentile_is_nearest_rank_over_counted_values() -> None:
    assert percentile({}, 0.5) is None
    assert percentile({5.0: 1}, 0.5) == 5.0
    assert percentile({1.0: 1, 2.0: 1, 3.0: 1}, 0.5) == 2.0
    assert percentile({1.0: 1, 2.0: 1, 3.0: 1, 4.0: 1}, 0.5) == 2.0
    assert percentile({10.0: 98, 500.0: 2}, 0.95) == 10.0
    assert percentile({10.0: 94, 500.0: 6}, 0.95) == 500.0
    assert percentile({3.0: 0, 7.0: 2}, 0.5) == 7.0
    with pytest.raises(InvalidInput):
        percentile({1.0: 1}, 0.0)


def test_since_takes_all_a_duration_or_a_date() -> None:
    assert parse_since("all") is None and parse_since("") is None and parse_since(None) is None
    assert parse_since("30m") == timedelta(minutes=30)
    assert parse_since("24h") == timedelta(hours=24)
    assert parse_since("7D") == timedelta(days=7)
    assert parse_since("2w") == timedelta(weeks=2)
    assert parse_since("2026-02-03") == datetime(2026, 2, 3, tzinfo=UTC)
    plus_one = parse_since("2026-02-03T10:00:00+01:00")
    assert plus_one == datetime(2026, 2, 3, 9, tzinfo=UTC)
    for bad in ("yesterday", "7 days", "-3d", "2026-13-01", "1y"):
        with pytest.raises(InvalidInput):
            parse_since(bad)


def test_durations_read_as_people_say_them() -> None:
    assert duration(None) == "-"
    assert duration(42) == "42s"
    assert duration(125) == "2m 5s"
    assert duration(2 * 3600 + 300) == "2h 5m"
    assert duration(3 * 86_400 + 4 * 3600 + 59) == "3d 4h"


# -- every search is an event ----------------------------------------------------------------


def test_each_surface_logs_its_searches_spoken_or_silent(toy: Brain) -> None:
    toy.search("who owns the billing service")
    toy.via("http").search("zebra quantum")
    call_tool(toy, "brain_search", {"query": "billing Stripe"}, ToolContext())
    call_tool(toy.via("http"), "brain_search", {"query": "billing"}, ToolContext(source="mcp"))
    toy.via("http").context_for_turn("who owns billing and Stripe?")
    toy.context_for_turn("")  # nothing asked: silent, still counted
    got = [(e["surface"], e["transport"], e["spoke"]) for e in searches(toy)]
    assert got == [
        ("python", "python", True),
        ("http", "http", False),
        ("tool", "tool", True),
        ("mcp", "mcp", True),
        ("inject", "http", True),
        ("inject", "python", False),
    ]
    first = searches(toy)[0]
    assert first["hits"] == 1 and first["k"] == 5 and first["verdict"] == "single"
    assert isinstance(first["latency_ms"], int) and first["actor"] == "human:local"
    assert all("query" not in e for e in searches(toy))  # counts, never what was asked
    assert searches(toy)[4]["k"] == 8  # injection's cap


def test_a_principals_searches_carry_its_actor(toy: Brain) -> None:
    toy.for_principal(SAM).via("http").search("billing")
    assert searches(toy)[-1]["actor"] == "human:sam"


def test_a_surface_is_a_short_name(toy: Brain) -> None:
    assert toy.via("slack-bot").surface == "slack-bot"
    for bad in ("", "HTTP", "a b", "x" * 40, 7):
        with pytest.raises(InvalidInput):
            toy.via(bad)  # type: ignore[arg-type]


def test_a_search_that_fails_is_counted_failed(toy: Brain, tmp_path: Path) -> None:
    class Broken(HashEmbedder):
        def embed(self, texts: Any) -> Any:
            raise Unavailable("the embedding server is down")

    with Brain.open(tmp_path / "brain", embedder=Broken()) as broken:
        with pytest.raises(Unavailable):
            broken.search("billing")
        assert broken.context_for_turn("billing?").decision == "failed"  # fails open
        got = [(e["surface"], e["spoke"], e.get("error")) for e in searches(broken)]
        assert got == [("python", False, "Unavailable"), ("inject", False, "Unavailable")]
        stats = broken.stats()
        assert [(s.surface, s.searches, s.failed) for s in stats.surfaces] == [
            ("inject", 1, 1),
            ("python", 1, 1),
        ]


def test_a_log_that_fails_never_fails_the_search(tmp_path: Path) -> None:
    class NoLog(SQLiteStore):
        def log_event(
            self, workspace: str, kind: str, record: dict[str, object], *, durable: bool = True
        ) -> int:
            if kind == "search":
                raise Unavailable("the store is busy")
            return super().log_event(workspace, kind, record, durable=durable)

    ctx = build_context(
        NoLog(tmp_path / "brain.sqlite"), LocalBlobStore(tmp_path / "blobs"), HashEmbedder()
    )
    with Brain(ctx) as brain:
        brain.add_note(BILLING)
        assert brain.search("who owns the billing service").hits
        assert brain.context_for_turn("who owns the billing service?").decision == "injected"


def test_a_search_event_is_not_fsynced_on_its_own(tmp_path: Path) -> None:
    """A search event is a statistic: logged lazily (no fsync of its own), while the
    connection goes back to synchronous=FULL for every acknowledged write after it."""
    logged: list[tuple[str, bool]] = []

    class Seen(SQLiteStore):
        def log_event(
            self, workspace: str, kind: str, record: dict[str, object], *, durable: bool = True
        ) -> int:
            logged.append((kind, durable))
            return super().log_event(workspace, kind, record, durable=durable)

    store = Seen(tmp_path / "brain.sqlite")
    ctx = build_context(store, LocalBlobStore(tmp_path / "blobs"), HashEmbedder())
    with Brain(ctx) as brain:
        brain.add_note(BILLING)
        assert brain.search("who owns the billing service").hits
        assert ("search", False) in logged
        assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert len(searches(brain)) == 1


def test_evaluations_and_without_search_log_log_nothing(toy: Brain, tmp_path: Path) -> None:
    quiet = toy.without_search_log()
    quiet.search("billing")
    quiet.via("http").context_for_turn("billing?")
    assert searches(toy) == []
    with open_for_eval(tmp_path / "eval", HashEmbedder()) as evaluated:
        evaluated.add_note(BILLING)
        evaluated.search("billing")
        assert evaluated.events("search") == []


# -- stats --------------------------------------------------------------------------------


def test_stats_count_searches_gate_decisions_reviews_and_the_inbox(toy: Brain) -> None:
    toy.search("who owns billing")
    toy.search("zebra quantum")
    toy.via("http").search("Stripe billing")
    ack = toy.write_back(run_products(), wait=True)
    assert ack.state == "done"
    states = {p.body: p.state for p in ack.proposals}
    assert states == {DECISION: "written", RULE: "pending", PERSONAL: "pending"}
    rule = next(p for p in ack.proposals if p.body == RULE)
    toy.approve(rule.id)
    s = toy.stats()
    assert s.lens == "workspace" and s.since is None
    assert [(x.surface, x.searches, x.spoke, x.silent) for x in s.surfaces] == [
        ("http", 1, 1, 0),
        ("python", 2, 1, 1),
    ]
    assert (s.searches, s.spoke, s.silent) == (3, 2, 1)
    assert s.passes == 1
    assert dict(s.proposals) == {"written": 1, "inbox": 2, "skipped": 0}
    assert dict(s.reviews) == {"approved": 1, "rejected": 0}
    assert s.review_wait_p50_s is not None and 0 <= s.review_wait_p50_s < 60
    assert s.inbox_pending == 1
    personal = next(p for p in ack.proposals if p.body == PERSONAL)
    assert s.inbox_oldest == personal.created_at
    assert s.inbox_age_s is not None and s.inbox_age_s >= 0
    toy.reject(personal.id, reason="not for the brain")
    after = toy.stats()
    assert dict(after.reviews) == {"approved": 1, "rejected": 1}
    assert (after.inbox_pending, after.inbox_oldest, after.inbox_age_s) == (0, None, None)


def test_stats_since_a_time_leave_older_events_out(toy: Brain) -> None:
    toy.search("billing")
    time.sleep(0.01)
    later = datetime.now(UTC)
    time.sleep(0.01)
    toy.search("Stripe")
    assert toy.stats(since=later).searches == 1
    assert toy.stats(since=later.replace(tzinfo=None)).searches == 1  # no zone: UTC
    assert toy.stats(since=timedelta(hours=1)).searches == 2
    with pytest.raises(InvalidInput):
        toy.stats(since=datetime.now(UTC) + timedelta(days=1))


def test_a_principal_counts_its_own_searches_and_what_it_may_review(toy: Brain) -> None:
    toy.search("billing")  # the local owner's
    sam = toy.for_principal(SAM)
    sam.search("billing")
    sam.via("http").search("zebra")
    toy.write_back(run_products(), wait=True)  # decision written, rule to org, Sam's own
    s = sam.stats()
    assert s.lens == "reader" and (s.searches, s.spoke) == (2, 1)
    # Sam may review only his personal proposal: the org rule is out of his lens.
    assert dict(s.proposals) == {"written": 0, "inbox": 1, "skipped": 0}
    assert s.inbox_pending == 1 and s.passes == 0  # the pass was the owner's
    rita = toy.for_principal(RITA).stats()
    assert rita.searches == 0
    assert dict(rita.proposals) == {"written": 1, "inbox": 1, "skipped": 0}
    assert rita.inbox_pending == 1
    agent = toy.for_principal(Principal("default", "sam", agent=True)).stats()
    assert agent.inbox_pending == 0 and sum(agent.proposals.values()) == 0


def test_loop_stats_is_pure_over_the_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite")
    try:
        for ms, spoke in ((10, True), (20, True), (30, False), (400, True)):
            store.log_event("w", "search", {"surface": "http", "spoke": spoke, "latency_ms": ms})
        store.log_event("w", "review", {"outcome": "approved", "waited_s": 60.0, "scope": "org"})
        store.log_event("w", "review", {"outcome": "approved", "waited_s": 600.0, "scope": "org"})
        store.log_event("w", "review", {"outcome": "rejected", "waited_s": 6.0, "scope": "org"})
        at = datetime.now(UTC)
        s = loop_stats(store, "w", lens="workspace", at=at)
        (http,) = s.surfaces
        assert (http.searches, http.spoke, http.silent, http.p50_ms, http.p95_ms) == (
            4,
            3,
            1,
            20.0,
            400.0,
        )
        assert s.review_wait_p50_s == 60.0
        assert loop_stats(store, "w", lens="reader", at=at, scopes=[]).reviews == {
            "approved": 0,
            "rejected": 0,
        }
    finally:
        store.close()


def test_the_view_round_trips(toy: Brain) -> None:
    toy.search("billing")
    toy.write_back(run_products(), wait=True)
    s = toy.stats()
    view = LoopStatsView.of(s)
    assert view.spoke == 1 and view.surfaces[0].silent == 0
    back = LoopStatsView.model_validate_json(view.model_dump_json()).to_model()
    assert isinstance(back, LoopStats)
    assert back == s


# -- the transports -------------------------------------------------------------------------


def test_orgbrain_stats_in_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "brain"
    monkeypatch.setattr(
        app,
        "open_brain",
        lambda settings: Brain.open(settings.brain, settings=settings, embedder=HashEmbedder()),
    )
    runner = CliRunner()

    def run(*args: str) -> Any:
        result = runner.invoke(cli, ["--brain", str(folder), *args])
        assert result.exit_code == 0, result.output
        return result

    run("init")
    run("note", BILLING, "--wait", "ack")
    run("search", "who owns the billing service")
    run("search", "zebra")
    out = json.loads(run("stats", "--json").output)
    assert out["lens"] == "workspace" and out["since"] is not None
    assert [(x["surface"], x["searches"], x["spoke"]) for x in out["surfaces"]] == [("cli", 2, 1)]
    assert json.loads(run("stats", "--since", "all", "--json").output)["since"] is None
    text = run("stats").output
    assert "searches 2: spoke 1 (50%), silent 1 (50%)" in text
    assert "inbox now: 0 pending" in text
    bad = runner.invoke(cli, ["--brain", str(folder), "stats", "--since", "someday"])
    assert bad.exit_code == 2 and "since is" in bad.output


def test_get_stats_over_http_and_the_client(tmp_path: Path) -> None:
    with serve(tmp_path / "brain") as served:
        owner = served.brain.for_workspace("acme")
        owner.add_note(BILLING)
        reader = served.key(user="sam", perms="read")
        admin = served.key(user="ann", perms="read,admin")
        c = served.http(reader)
        assert c.post("/v1/search", json={"query": "billing owner"}).status_code == 200
        assert c.post("/v1/context", json={"message": "billing?"}).status_code == 200
        owner.search("billing")  # the local owner, in Python: not the reader's
        mine = c.get("/v1/stats").json()
        assert mine["lens"] == "reader" and mine["searches"] == 2
        assert {x["surface"] for x in mine["surfaces"]} == {"http", "inject"}
        everyone = served.http(admin).get("/v1/stats", params={"since": "1h"}).json()
        assert everyone["lens"] == "workspace" and everyone["searches"] == 3
        assert_problem(c.get("/v1/stats", params={"since": "soon"}), 400, "invalid_input")
        assert_problem(c.get("/v1/stats", params={"since": "2999-01-01"}), 400, "invalid_input")
        writer = served.http(served.key(user="sam", perms="write"))
        assert_problem(writer.get("/v1/stats"), 403, "forbidden")
        with Client(served.url, api_key=admin) as client:
            got = client.stats(since=timedelta(hours=1))
            assert got.lens == "workspace" and got.searches == 3
            assert client.stats().since is None
            assert client.stats(since=datetime.now(UTC) - timedelta(days=1)).searches == 3


# -- spans --------------------------------------------------------------------------------


class _OwnIds(IdGenerator):
    """Span and trace ids from a generator of its own: the SDK's default draws from the
    global ``random``, which, once installed for the process, a server thread would touch
    under a later test's Hypothesis strategies (a flaky "random inside strategies")."""

    def __init__(self) -> None:
        self._random = random.Random()

    def generate_span_id(self) -> int:
        return self._random.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._random.getrandbits(128) or 1


@pytest.fixture(scope="module")
def exporter() -> InMemorySpanExporter:
    """The SDK with an in-memory exporter, installed once for the process (the global
    provider is set once: a second set is refused)."""
    memory = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider(id_generator=_OwnIds())
        trace.set_tracer_provider(provider)
    assert isinstance(trace.get_tracer_provider(), TracerProvider)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    return memory


@pytest.fixture
def spans(exporter: InMemorySpanExporter) -> InMemorySpanExporter:
    exporter.clear()
    return exporter


def named(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name == name]


def test_a_search_is_a_search_memory_span(toy: Brain, spans: InMemorySpanExporter) -> None:
    toy.via("http").search("who owns the billing service")
    (s,) = named(spans, "search_memory")
    a = dict(s.attributes or {})
    assert a["gen_ai.operation.name"] == "search_memory"
    assert a["gen_ai.memory.store.id"] == "default"
    assert a["gen_ai.memory.record.count"] == 1
    assert a["orgbrain.search.surface"] == "http" and a["orgbrain.search.spoke"] is True
    assert a["orgbrain.search.verdict"] == "single" and a["orgbrain.search.k"] == 5
    assert s.kind == trace.SpanKind.INTERNAL
    assert not any("billing" in str(v) for v in a.values())  # no query text, no content
    toy.context_for_turn("billing?")
    inject = named(spans, "search_memory")[-1]
    assert (inject.attributes or {})["orgbrain.search.surface"] == "inject"


def test_write_back_gate_review_and_index_are_spans(
    toy: Brain, spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    ack = toy.write_back(run_products(), wait=True)
    (passed,) = named(spans, "orgbrain.writeback")
    p = dict(passed.attributes or {})
    assert p["orgbrain.run.id"] == "run-1" and p["orgbrain.writeback.writer"] == "offline"
    assert (p["orgbrain.writeback.written"], p["orgbrain.writeback.queued"]) == (1, 2)
    gates = named(spans, "orgbrain.gate")
    assert len(gates) == 3
    assert all(g.parent is not None and g.parent.span_id == passed.context.span_id for g in gates)
    decisions = sorted(str((g.attributes or {})["orgbrain.gate.decision"]) for g in gates)
    assert decisions == ["inbox", "inbox", "written"]
    written = next(g for g in gates if (g.attributes or {})["orgbrain.gate.decision"] == "written")
    assert str((written.attributes or {})["gen_ai.memory.record.id"]).startswith("not_")
    rule = next(x for x in ack.proposals if x.body == RULE)
    toy.approve(rule.id)
    with pytest.raises(InvalidInput):
        toy.reject(rule.id, reason="")
    reviews = named(spans, "orgbrain.review")
    approved, refused = reviews
    a = dict(approved.attributes or {})
    assert a["orgbrain.review.outcome"] == "approved" and a["orgbrain.proposal.id"] == rule.id
    assert float(a["orgbrain.review.waited_s"]) >= 0  # type: ignore[arg-type]
    assert (refused.attributes or {})["error.type"] == "InvalidInput"
    assert refused.status.status_code == trace.StatusCode.ERROR
    doc = tmp_path / "handbook.md"
    doc.write_text("# Billing\n\nPriya owns billing.\n\n# Search\n\nMei owns search.\n")
    item = toy.add_file(doc, index=True)
    (indexed,) = named(spans, "upsert_memory")
    i = dict(indexed.attributes or {})
    assert i["gen_ai.operation.name"] == "upsert_memory"
    assert i["gen_ai.memory.record.id"] == item.id and i["gen_ai.memory.record.count"] == 2


def test_a_span_records_an_error_and_lets_it_go(spans: InMemorySpanExporter) -> None:
    with pytest.raises(KeyError), span("orgbrain.test", {"x": 1, "skipped": None}):
        raise KeyError("k")
    (s,) = named(spans, "orgbrain.test")
    assert dict(s.attributes or {}) == {"x": 1, "error.type": "KeyError"}
    assert [e.name for e in s.events] == ["exception"]
