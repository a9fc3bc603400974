"""The three-tier statement extractor: patterns with exact offsets, the packaged classifier,
the LLM tier against a real loopback server speaking the chat-completions protocol, and the
``orgbrain eval statements`` command."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

import orgbrain.cli.eval as eval_cli
import orgbrain.cli.eval_kit as eval_kit
from orgbrain.adapters.chat_openai import OpenAIChat, make_chat
from orgbrain.derive.gone import RETIRED
from orgbrain.errors import InvalidInput, Unavailable
from orgbrain.evals.statements import load_statements, run_statements
from orgbrain.extraction import (
    ENTITY_TYPES,
    Claim,
    Extraction,
    PatternExtractor,
    default_extractor,
)
from orgbrain.extraction.classifier import CLASSES, StatementClassifier, load_weights
from orgbrain.extraction.documents import LINKS
from orgbrain.extraction.llm import LLMTier
from orgbrain.extraction.predicates import GONE_WORDS, LEFT_THE_ORG, RETIRED_VERBS
from orgbrain.extraction.sentences import split_units
from orgbrain.ports import Chat, Embedder
from orgbrain.settings import Settings
from tests.json_server import JSONHandler, serving

EX = PatternExtractor()


def claims(text: str) -> list[Claim]:
    return list(EX.extract(text).claims)


def one(text: str) -> Claim:
    found = claims(text)
    assert len(found) == 1, found
    return found[0]


def triple(c: Claim) -> tuple[str, str, str]:
    return (c.subject.value.lower(), c.predicate, c.object)


# --- patterns -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Priya owns billing.",
        "Billing owner: Priya Raman",
        "Billing is owned by Priya",
        "Priya is responsible for billing.",
        "Priya leads the billing team.",
        "Billing belongs to Priya.",
        "Owner of billing: Priya",
    ],
)
def test_ownership_synonyms_share_one_predicate_about_the_owned_thing(text: str) -> None:
    c = one(text)
    assert (c.type, c.subject.value.lower(), c.predicate) == ("fact", "billing", "owner")
    assert c.object.startswith("Priya")
    assert c.object_entity is not None and c.object_entity.type == "person"
    assert c.tier == "pattern" and 0 < c.confidence <= 1


def test_offsets_are_exact() -> None:
    text = "Intro line.\n\nPriya Raman owns billing. Sam prefers async standups."
    found = EX.extract(text)
    for entity in found.entities:
        assert text[entity.start : entity.end] == entity.value
    owner, pref = found.claims
    assert text[owner.start : owner.end] == "Priya Raman owns billing."
    assert text[pref.start : pref.end] == "Sam prefers async standups."
    assert text[owner.subject.start : owner.subject.end] == "billing"
    assert owner.object_entity is not None
    assert text[owner.object_entity.start : owner.object_entity.end] == "Priya Raman"
    assert (pref.type, pref.subject.value, pref.predicate, pref.object) == (
        "preference",
        "Sam",
        "prefers",
        "async standups",
    )


def test_migration_target_and_replaces() -> None:
    plain = one("The billing migration target is Postgres.")
    decided = one("We decided to move billing to CockroachDB instead of Postgres.")
    verb = one("Billing migrates to CockroachDB.")
    for c in (plain, decided, verb):
        assert (c.subject.value.lower(), c.predicate) == ("billing", "migration_target")
    assert plain.object == "Postgres" and plain.replaces is None and plain.type == "fact"
    assert decided.object == "CockroachDB" and decided.replaces == "Postgres"
    assert decided.type == "decision"
    assert one("We switched from Jira to Linear for ticket tracking.").replaces == "Jira"
    assert one("Linear replaces Jira for issue tracking.").replaces == "Jira"
    stopped = one("Billing no longer runs on MySQL; it runs on Postgres.")
    assert triple(stopped) == ("billing", "uses", "Postgres") and stopped.replaces == "MySQL"
    took = one("Mei took over search from Sam.")
    assert triple(took) == ("search", "owner", "Mei") and took.replaces == "Sam"


@pytest.mark.parametrize(
    ("text", "subject", "predicate", "obj", "replaces"),
    [
        # The decision fallback's subject is the clause's leading noun phrase, and
        # "deploys with" says what a thing uses.
        (
            "Decision: the payments service deploys with Jenkins.",
            "payments service",
            "uses",
            "Jenkins",
            None,
        ),
        # "X moved from A to B": X's migration, not A's.
        (
            "The marketing site moved from WP Engine to Vercel.",
            "marketing site",
            "migration_target",
            "Vercel",
            "WP Engine",
        ),
        (
            "Airflow is deprecated; the reporting job uses Dagster from now on.",
            "reporting job",
            "uses",
            "Dagster",
            "Airflow",
        ),
        # A chat speaker and opener are not the subject.
        (
            "@maya: heads-up, the feature flags live in LaunchDarkly",
            "feature flags",
            "uses",
            "LaunchDarkly",
            None,
        ),
        # Policy values and the product filling a slot.
        (
            "The refund approval threshold is now 350 EUR.",
            "refund approval threshold",
            "is",
            "350 EUR",
            None,
        ),
        ("The email provider is Mailgun.", "email provider", "is", "Mailgun", None),
        ("From now on the standup is every Tuesday.", "standup", "schedule", "every Tuesday", None),
        # Drop / ditch / swap X for Y, replace X with Y, off X onto Y, ownership moves.
        (
            "We're ditching Honeycomb for Lightstep for tracing",
            "tracing",
            "uses",
            "Lightstep",
            "Honeycomb",
        ),
        (
            "The QA team swapped Selenium for Playwright.",
            "QA team",
            "uses",
            "Playwright",
            "Selenium",
        ),
        (
            "We replaced TeamCity with Drone for the mobile builds.",
            "mobile builds",
            "uses",
            "Drone",
            "TeamCity",
        ),
        (
            "The data lake moved off Hadoop onto Databricks.",
            "data lake",
            "migration_target",
            "Databricks",
            "Hadoop",
        ),
        (
            "Ownership of the billing runbook passed from Keiko to Ade.",
            "billing runbook",
            "owner",
            "Ade",
            "Keiko",
        ),
        (
            "From December, Mei takes over the webinar series.",
            "webinar series",
            "owner",
            "Mei",
            None,
        ),
    ],
)
def test_forms_of_a_changed_belief(
    text: str, subject: str, predicate: str, obj: str, replaces: str | None
) -> None:
    found = claims(text)
    assert [(c.subject.value, c.predicate, c.object, c.replaces) for c in found] == [
        (subject, predicate, obj, replaces)
    ]


def test_an_appositive_owner_is_the_subjects_owner() -> None:
    uses, owner = claims("Decision: the payments service deploys with Jenkins, owned by Priya.")
    assert (uses.type, triple(uses)) == ("decision", ("payments service", "uses", "Jenkins"))
    assert (owner.type, triple(owner)) == ("decision", ("payments service", "owner", "Priya"))


def test_a_retired_thing_is_gone_and_what_a_use_beside_it_replaces() -> None:
    text = "Jenkins is retired. The payments service deploys with GitHub Actions now."
    assert [(*triple(c), c.replaces) for c in claims(text)] == [
        ("jenkins", "status", "retired", None),
        ("payments service", "uses", "GitHub Actions", "Jenkins"),
    ]
    assert triple(one("We retired Jenkins.")) == ("jenkins", "status", "retired")
    assert triple(one("Jenkins was decommissioned on 2026-11-02.")) == (
        "jenkins",
        "retired",
        "2026-11-02",
    )
    # Two things retired: which one a use replaces is not said.
    text = "Jenkins is retired. Travis is retired. Checkout deploys with GitHub Actions."
    assert [c.replaces for c in claims(text)] == [None, None, None]
    assert claims("Priya is gone.") == []  # a person is not retired


@pytest.mark.parametrize("verb", RETIRED_VERBS)
def test_every_retirement_verb_is_read_in_every_form(verb: str) -> None:
    """One list (extraction/predicates.py): each verb says a thing is gone, names what a
    use beside it replaces, and dated, is a retirement event."""
    assert triple(one(f"Jenkins is {verb}.")) == ("jenkins", "status", "retired")
    assert triple(one(f"We {verb} Jenkins.")) == ("jenkins", "status", "retired")
    text = f"Jenkins was {verb}. Checkout deploys with GitHub Actions now."
    assert [c.replaces for c in claims(text)][-1] == "Jenkins"
    assert triple(one(f"Jenkins was {verb} on 2026-11-02.")) == ("jenkins", "retired", "2026-11-02")


def test_deprecated_names_a_replacement_but_alone_ends_nothing() -> None:
    assert claims("Airflow is deprecated.") == []
    text = "Airflow is deprecated. The reporting job uses Dagster."
    assert [c.replaces for c in claims(text)] == ["Airflow"]
    assert triple(one("Airflow was deprecated on 2026-11-02.")) == (
        "airflow",
        "retired",
        "2026-11-02",
    )
    assert "deprecated" not in RETIRED and set(GONE_WORDS) == RETIRED


def test_label_lines_are_statements_about_the_label() -> None:
    assert triple(one("Deploy freeze: Fridays")) == ("deploy freeze", "schedule", "Fridays")
    db = one("Database: CockroachDB")
    assert triple(db) == ("database", "is", "CockroachDB")
    assert db.object_entity is not None and db.object_entity.type == "system"
    # A bare relational label is about the section's heading (its code when it has one).
    text = "## ADR-012: Adopt Temporal\n\nStatus: accepted, 2026-08-14.\nOwner: Elena Petrova."
    status, owner = claims(text)
    assert triple(status) == ("adr-012", "status", "accepted")
    assert status.valid_from == date(2026, 8, 14)
    assert triple(owner) == ("adr-012", "owner", "Elena Petrova")
    # A person's name as a label is not a speaker: no statement is put in their mouth.
    assert claims("Priya: I think we could maybe look at the queue later, no rush at all") == []


def test_tables_use_their_header_as_predicate() -> None:
    text = "| Area | Owner |\n|---|---|\n| Billing | Priya Raman |\n| Search | Mei Chen |"
    assert [triple(c) for c in claims(text)] == [
        ("billing", "owner", "Priya Raman"),
        ("search", "owner", "Mei Chen"),
    ]


def test_dates_resolve_only_when_the_year_is_written() -> None:
    deadline = one("The launch deadline is 1 March 2027.")
    assert triple(deadline) == ("launch", "date", "1 March 2027")
    assert deadline.valid_from == date(2027, 3, 1)
    iso = one("Launch: 2027-03-01")
    assert triple(iso) == ("launch", "date", "2027-03-01") and iso.valid_from == date(2027, 3, 1)
    no_year = one("Quarter close is on 31 March.")
    assert no_year.object == "31 March" and no_year.valid_from is None


def test_definitions_preferences_events_decisions() -> None:
    assert triple(one("ARR means annual recurring revenue.")) == (
        "arr",
        "means",
        "annual recurring revenue",
    )
    assert triple(one("SLO stands for service level objective.")) == (
        "slo",
        "means",
        "service level objective",
    )
    dislike = one("Sam doesn't like Friday deploys.")
    assert (dislike.type, dislike.predicate, dislike.object) == (
        "preference",
        "dislikes",
        "Friday deploys",
    )
    shipped = one("We shipped v2 on 2026-11-02.")
    assert (shipped.type, *triple(shipped)) == ("event", "v2", "released", "2026-11-02")
    assert shipped.valid_from == date(2026, 11, 2)
    outage = one("The checkout outage on 3 October 2026 lasted 40 minutes.")
    assert (outage.type, outage.predicate) == ("event", "incident")
    agreed = one("Agreed: code freeze starts on 14 December 2026.")
    assert (agreed.type, agreed.predicate) == ("decision", "date")


def test_codes_emails_handles_and_known_names() -> None:
    text = "Ping @sam.lee or sam@northwind.io about ACME-1247 and INC-42 with Zephyr."
    found = {(e.type, e.value) for e in EX.extract(text).entities}
    assert {
        ("handle", "@sam.lee"),
        ("email", "sam@northwind.io"),
        ("code", "ACME-1247"),
        ("code", "INC-42"),
    } <= found
    assert not any(v == "Zephyr" for _, v in found)
    known = EX.extract(text, known=[("project", "zephyr")])
    assert ("project", "Zephyr") in {(e.type, e.value) for e in known.entities}
    assert all(e.type in (*ENTITY_TYPES, "topic") for e in known.entities)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\n",
        "Who owns billing?",
        "Should we move billing to CockroachDB?",
        "We might move billing to CockroachDB.",
        "Maybe we could try Kafka for the event bus.",
        "Priya does not own billing.",
        "Thanks everyone for a great quarter!",
        "Proposal: move the docs site from Hugo to Docusaurus.",
        "Idea: move the billing alerts from PagerDuty to Opsgenie.",
    ],
)
def test_questions_hedges_negations_and_empty_text_state_nothing(text: str) -> None:
    assert EX.extract(text).claims == ()


def test_an_exception_is_no_hedge() -> None:
    # "unless" bounds a rule; it does not doubt it (a hedge would state nothing).
    owner = one("The on-call owner is Priya Raman unless she is on leave.")
    assert (owner.predicate, owner.object) == ("owner", "Priya Raman")


def test_patterns_are_fast_and_deterministic() -> None:
    text = "\n".join(r.text for r in load_statements()) * 2
    first = EX.extract(text)
    started = time.perf_counter()
    again = EX.extract(text)
    took = time.perf_counter() - started
    assert again == first
    sentences = len(text.splitlines())
    assert took / sentences < 0.002  # well under a millisecond a line on a quiet machine


# --- classifier ---------------------------------------------------------------------------


def test_classifier_loads_offline_from_the_package(embedder: Embedder) -> None:
    weights = load_weights()
    assert weights.w.shape == (embedder.dim, len(CLASSES))
    classifier = StatementClassifier(embedder, weights)
    probs = classifier.probabilities(["Priya prefers async standups.", "Thanks, all!"])
    assert probs.shape == (2, len(CLASSES))
    assert abs(float(probs.sum()) - 2.0) < 1e-4
    assert CLASSES[int(probs[0].argmax())] == "preference"
    assert CLASSES[int(probs[1].argmax())] == "none"
    text = "ACME-1247 was closed on 2026-11-30."
    tiered = default_extractor(embedder=embedder).extract(text)
    assert [c.tier for c in tiered.claims] == ["classifier"]
    assert tiered.claims[0].type == "event" and tiered.claims[0].subject.value == "ACME-1247"
    assert default_extractor(embedder=embedder).extract("Who owns billing?").claims == ()


# --- the LLM tier against a real loopback server ------------------------------------------


class _ChatHandler(JSONHandler):
    """POST /v1/chat/completions: a completion derived from the request's last message."""

    mode = "good"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = body["messages"][-1]["content"]
        if self.path != "/v1/chat/completions":
            self._send(404, {"error": {"message": "no such route"}})
            return
        if self.mode == "garbage":
            self._send(200, {"choices": [{"message": {"content": "sure! here you go :)"}}]})
            return
        if self.mode == "broken":
            self._send(200, {"nothing": True})
            return
        if self.mode == "reject":
            self._send(400, {"error": {"message": "model not found"}})
            return
        statements = []
        for sentence in text.split(". "):
            sentence = sentence.strip().rstrip(".")
            if " are generated by " in sentence:
                subject, obj = sentence.split(" are generated by ")
                statements.append(
                    {
                        "type": "fact",
                        "subject": subject,
                        "predicate": "Generated By",
                        "object": obj,
                        "evidence": sentence,
                    }
                )
        statements += [
            {"type": "rumour", "subject": "x", "predicate": "y", "object": "z", "evidence": "x"},
            {
                "type": "fact",
                "subject": "Mars",
                "predicate": "owner",
                "object": "Bob",
                "evidence": "Bob owns Mars",
            },
        ]
        content = json.dumps({"statements": statements})
        self._send(200, {"choices": [{"message": {"role": "assistant", "content": content}}]})


@pytest.fixture
def chat_server() -> Iterator[tuple[str, type[_ChatHandler]]]:
    handler = type("Handler", (_ChatHandler,), {"mode": "good"})
    with serving(handler) as url:
        yield url, handler


LLM_TEXT = "Priya owns billing. Invoices are generated by the billing worker."


def test_llm_tier_keeps_only_claims_with_evidence_in_the_text(
    chat_server: tuple[str, type[_ChatHandler]],
) -> None:
    url, _ = chat_server
    chat = OpenAIChat(url, "test-model")
    found = default_extractor(chat).extract(LLM_TEXT)
    by_tier = {c.tier: c for c in found.claims}
    assert set(by_tier) == {"pattern", "llm"}
    llm = by_tier["llm"]
    assert (llm.subject.value, llm.predicate, llm.object) == (
        "Invoices",
        "generated_by",
        "the billing worker",
    )
    assert LLM_TEXT[llm.start : llm.end] == "Invoices are generated by the billing worker."
    assert LLM_TEXT[llm.subject.start : llm.subject.end] == "Invoices"


@pytest.mark.parametrize("mode", ["garbage", "broken", "reject"])
def test_llm_tier_falls_back_on_a_bad_reply(
    chat_server: tuple[str, type[_ChatHandler]], mode: str
) -> None:
    url, handler = chat_server
    handler.mode = mode
    tier = LLMTier(OpenAIChat(url, "test-model"))
    lower = PatternExtractor().extract(LLM_TEXT)
    assert tier.refine(LLM_TEXT, lower) == lower
    assert tier.last_error is not None


def test_chat_adapter_errors_and_a_server_that_is_down(
    chat_server: tuple[str, type[_ChatHandler]],
) -> None:
    url, handler = chat_server
    handler.mode = "broken"
    with pytest.raises(Unavailable):
        OpenAIChat(url, "m").complete([{"role": "user", "content": "hi"}])
    handler.mode = "reject"
    with pytest.raises(InvalidInput, match="model not found"):
        OpenAIChat(url, "m").complete([{"role": "user", "content": "hi"}])
    down = OpenAIChat("http://127.0.0.1:9", "m", timeout=2)
    with pytest.raises(Unavailable):
        down.complete([{"role": "user", "content": "hi"}])
    tier = LLMTier(down)
    lower = PatternExtractor().extract(LLM_TEXT)
    assert tier.refine(LLM_TEXT, lower) == lower and "Unavailable" in (tier.last_error or "")
    with pytest.raises(InvalidInput):
        OpenAIChat("ftp://x", "m")


def test_make_chat_reads_the_settings() -> None:
    assert make_chat(Settings()) is None
    settings = Settings.from_env(
        {"ORGBRAIN_CHAT_URL": "http://127.0.0.1:9/v1", "ORGBRAIN_CHAT_MODEL": "m"}
    )
    chat = make_chat(settings)
    assert isinstance(chat, OpenAIChat) and isinstance(chat, Chat)
    assert chat.url == "http://127.0.0.1:9/v1/chat/completions"
    with pytest.raises(Unavailable):
        make_chat(Settings(chat_url="http://127.0.0.1:9"))


# --- the eval -----------------------------------------------------------------------------


def _tiny(tmp_path: Path) -> Path:
    rows = [
        {
            "text": "Priya owns billing.",
            "entities": [{"type": "person", "value": "Priya"}],
            "statements": [
                {"type": "fact", "subject": "billing", "predicate": "owner", "object": "Priya"}
            ],
        },
        {"text": "Who owns search?", "entities": [], "statements": []},
        {
            "text": "The launch deadline is 1 March 2027.",
            "entities": [],
            "statements": [
                {"type": "fact", "subject": "launch", "predicate": "date", "object": "2027-03-01"}
            ],
        },
    ]
    path = tmp_path / "tiny.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_eval_scores_a_file(tmp_path: Path) -> None:
    report = run_statements(PatternExtractor(), load_statements(_tiny(tmp_path)), source="t")
    assert (report.strict.tp, report.strict.predicted, report.strict.gold) == (2, 2, 2)
    assert report.entities["person"].f1 == 1.0
    assert report.ms_per_sentence > 0


def test_eval_cli_runs_on_a_tiny_file(tmp_path: Path) -> None:
    path = _tiny(tmp_path)
    runner = CliRunner()
    result = runner.invoke(
        eval_cli.eval_group, ["statements", str(path), "--tiers", "pattern", "--json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["statements"]["strict"]["f1"] == 1.0
    assert payload["tiers"] == ["pattern"]
    text = runner.invoke(eval_cli.eval_group, ["statements", str(path), "--tiers", "pattern"])
    assert text.exit_code == 0 and "statements (strict)" in text.output
    bad = runner.invoke(eval_cli.eval_group, ["statements", str(path), "--tiers", "oracle"])
    assert bad.exit_code != 0 and "unknown tier" in bad.output


def test_eval_cli_llm_tier_through_the_chat_factory(
    tmp_path: Path,
    chat_server: tuple[str, type[_ChatHandler]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, _ = chat_server
    monkeypatch.setattr(eval_kit, "chat_factory", lambda _s: OpenAIChat(url, "m"))
    result = CliRunner().invoke(
        eval_cli.eval_group,
        ["statements", str(_tiny(tmp_path)), "--tiers", "pattern,llm", "--json"],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["tiers"] == ["pattern", "llm"]


def test_the_packaged_dev_set_is_big_enough_and_well_formed() -> None:
    records = load_statements()
    assert len(records) >= 150
    assert sum(not r.statements for r in records) >= 20
    for r in records:
        assert all(t in ENTITY_TYPES for t, _ in r.entities)
        assert all(s.type in ("fact", "preference", "event", "decision") for s in r.statements)


def test_extraction_result_is_plain_data() -> None:
    found = EX.extract("Priya owns billing.")
    assert isinstance(found, Extraction)
    with pytest.raises(AttributeError):
        found.claims[0].predicate = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        "Reminder: replace the battery in the Ring keypad with a new one.",
        "We might drop Google Analytics for Plausible later this year.",
        "Should we switch the roadmap from Trello to Productboard?",
        "We evaluated k6 vs Locust for the load tests.",
        "Payroll dropped ADP for Gusto.",
        "We switched off the lights to save power.",
    ],
)
def test_what_is_not_a_named_replacement(text: str) -> None:
    assert not [c for c in claims(text) if c.replaces or c.predicate == "migration_target"]


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("Going forward, design docs are kept in Notion.", True),
        ("From now on, customer calls are recorded in Chorus.", True),
        ("Effective January 1, the payroll export runs on Rippling.", True),
        ("The marketing site is now built with Astro.", True),
        ("Design docs are kept in Google Docs.", False),
        # One more value, not a change.
        ("Going forward, design reviews are also tracked in Linear.", False),
        ("The billing service now uses Stripe as well.", False),
    ],
)
def test_a_stated_change_is_marked_on_its_claims(text: str, change: bool) -> None:
    found = one(text)
    assert found.predicate == "uses" and found.change is change


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "Farah has left; questions about vendor contracts now go to Oscar.",
            [("Farah", "left", "the company"), ("vendor contracts", "contact", "Oscar")],
        ),
        ("SOC 2 audit questions go to Elif from now on.", [("SOC 2 audit", "contact", "Elif")]),
        (
            "Tariq is the point of contact for the SOC 2 audit.",
            [("SOC 2 audit", "contact", "Tariq")],
        ),
        ("Pages now go to Pia.", [("Pages", "contact", "Pia")]),
        ("Logs go to Loki.", [("Logs", "uses", "Loki")]),  # a thing, not a person: a use
        # Whoever switched is the subject; "we" leaves it to the old thing.
        (
            "the web team switched from jenkins to github actions, mobile stays on jenkins",
            [("web team", "uses", "github")],
        ),
        ("We switched from Jenkins to Buildkite.", [("Jenkins", "replaced_by", "Buildkite")]),
        ("Postmortems are written in Confluence.", [("Postmortems", "uses", "Confluence")]),
    ],
)
def test_handovers_and_who_switched(text: str, said: list[tuple[str, str, str]]) -> None:
    assert [(c.subject.value, c.predicate, c.object) for c in claims(text)] == said


@pytest.mark.parametrize(
    ("obj", "left_the_org"),
    [
        ("the company", True),
        ("company last week", True),
        ("Acme", False),  # a company entity is named, not "the company": left alone
        ("for the day", False),
        ("planning meeting early", False),
        ("the on-call rotation", False),
    ],
)
def test_what_leaving_the_organisation_is(obj: str, left_the_org: bool) -> None:
    assert (LEFT_THE_ORG.match(obj) is not None) is left_the_org


@pytest.mark.parametrize(
    "text",
    [
        "We considered replacing Gatsby with Astro for the marketing site, but kept it.",
        "We are thinking about moving the wiki from Confluence to Notion.",
        "Going forward, should customer calls be recorded in Chorus?",
        "Going forward, design docs are not kept in Notion.",
        "Proposal: going forward, the payroll export runs on Rippling.",
    ],
)
def test_near_misses_of_a_change_state_nothing(text: str) -> None:
    assert EX.extract(text).claims == ()


def links(text: str) -> list[tuple[str, str, str]]:
    return [triple(c) for c in claims(text) if c.predicate in LINKS]


def test_a_record_titled_by_a_code_links_to_the_records_it_supersedes() -> None:
    text = "ADR-011: Session state lives in Redis.\nStatus: accepted.\nSupersedes: ADR-005"
    assert [triple(c) for c in claims(text)] == [
        ("session state", "uses", "Redis"),  # the title line is read as what it says
        ("adr-011", "status", "accepted"),  # and titles the record, like a heading
        ("adr-011", "supersedes", "ADR-005"),
    ]
    assert [triple(c) for c in claims("Update: RFC-31 marked Withdrawn, we buy instead.")] == [
        ("rfc-31", "status", "withdrawn")  # a record's status said outside it
    ]
    assert [c for c in claims("ADR-9 is not deprecated.") if c.predicate == "status"] == []
    assert links("ADR-12: Events in Postgres\nStatus: Accepted\nSupersedes: ADR-7\n") == [
        ("adr-12", "supersedes", "ADR-7")  # a field's line, no full stop before it
    ]
    assert links("ADR-034: calls use NATS.\nStatus: accepted. Supersedes ADR-021.") == [
        ("adr-034", "supersedes", "ADR-021")
    ]
    assert links("RFC-21: The API is versioned with a header. This replaces RFC-7.") == [
        ("rfc-21", "supersedes", "RFC-7")
    ]
    assert links("# ADR-9 Queues\nWe use SQS.\nStatus: superseded by ADR-14.") == [
        ("adr-9", "superseded_by", "ADR-14")
    ]
    assert links("ADR-003 status: superseded by ADR-017.") == [
        ("adr-003", "superseded_by", "ADR-017")
    ]
    assert links("Supersedes ADR-5.") == []  # no title: which record supersedes it?


@pytest.mark.parametrize(
    "text",
    [
        "ADR-011: Session state lives in Redis.\nStatus: proposed.\nSupersedes: ADR-005",
        "ADR-011: Session state lives in Redis.\nStatus: draft. Supersedes ADR-005.",
        "RFC-21: Webhooks are signed with HMAC. This does not supersede RFC-7.",
        "Would RFC-22 supersede RFC-7? Let's discuss on Thursday.",
        "ADR-017: Flag changes need a review.\nRelated to ADR-003; see also ADR-003.",
        "RFC-30: If accepted, this replaces RFC-7.",
    ],
)
def test_what_is_not_a_link_between_records(text: str) -> None:
    assert links(text) == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Contracts are signed in DocuSign.", ("contracts", "uses", "DocuSign")),
        ("The support inbox is handled in Zendesk.", ("support inbox", "uses", "Zendesk")),
        ("Retros are now run in FigJam.", ("retros", "uses", "FigJam")),
        ("Handing the vendor guide over to Felix.", ("vendor guide", "owner", "Felix")),
        ("Handing over the vendor guide to Felix.", ("vendor guide", "owner", "Felix")),
        ("The vendor guide has been handed over to Felix.", ("vendor guide", "owner", "Felix")),
    ],
)
def test_passive_uses_and_handovers_with_nobody_named(
    text: str, said: tuple[str, str, str]
) -> None:
    assert triple(one(text)) == said


@pytest.mark.parametrize(
    "text",
    [
        "Python is used in production.",  # not a tool it is done with
        "The office is located in Berlin.",
        "The review is scheduled on Tuesday.",
        "Handing the slides to Felix for review.",  # nothing handed over
        "Could you hand the vendor guide over to Felix?",
    ],
)
def test_what_is_not_a_passive_use_or_a_handover(text: str) -> None:
    assert not [c for c in claims(text) if c.predicate in ("uses", "owner")]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[#pm] rosa: fyi they've swapped Jira for Linear", ("jira", "replaced_by", "Linear")),
        ("We're dropping Jenkins for Buildkite.", ("jenkins", "replaced_by", "Buildkite")),
        ("Moving forward, the handbook lives in Notion.", ("handbook", "uses", "Notion")),
        ("Starting next week, deploys go through Argo.", ("deploys", "uses", "Argo")),
        ("Questions about security should now go to Hana.", ("security", "contact", "Hana")),
        ("Hana is now the contact for security questions.", ("security", "contact", "Hana")),
        ("Card payments are now handled by Adyen.", ("card payments", "uses", "Adyen")),
        ("Card disputes are handled by Ines.", ("card disputes", "owner", "Ines")),
        ("Per the retro: builds now run on Buildkite.", ("builds", "uses", "Buildkite")),
        ("Ownership of the pricing page: Ines (was Ruth).", ("pricing page", "owner", "Ines")),
        ("Database: CockroachDB", ("database", "is", "CockroachDB")),  # a label, still
    ],
)
def test_threads_labels_and_who_answers(text: str, said: tuple[str, str, str]) -> None:
    assert triple(one(text)) == said


@pytest.mark.parametrize(
    "text",
    [
        "[#pm] rosa: they're considering swapping Jira for Linear",
        "Per the retro: should builds run on Buildkite?",
        "Moving forward, we might keep the handbook in Notion.",
    ],
)
def test_threads_and_labels_that_state_nothing(text: str) -> None:
    assert EX.extract(text).claims == ()


def test_a_messages_headers_state_nothing() -> None:
    text = "Subject: SaaS renewals\nFrom: procurement@\nTo: all@\nCc: finance@"
    assert PatternExtractor().extract(text).claims == ()


def test_a_first_line_with_no_sentence_end_titles_what_follows() -> None:
    """A note's title is a unit of its own, not the start of its first sentence, so the
    sentence's subject is its own ("error tracking", not "... > Observability We")."""
    text = "Engineering handbook > Observability\nWe use Sentry for error tracking."
    assert [(u.kind, text[u.start : u.end]) for u in split_units(text)] == [
        ("heading", "Engineering handbook > Observability"),
        ("sentence", "We use Sentry for error tracking."),
    ]
    assert ("error tracking", "uses", "Sentry") in [triple(c) for c in claims(text)]
    wrapped = "We use Sentry for error\ntracking. Alerts go to #alerts."  # prose wraps on
    first = split_units(wrapped)[0]
    assert wrapped[first.start : first.end] == "We use Sentry for error\ntracking."
    label = "Runbook: search\nPrimary on-call: Platform."  # a label stays a label
    assert [u.kind for u in split_units(label)] == ["label", "label"]


def test_a_label_led_to_its_value_by_dots_or_spaces_is_one_label_line() -> None:
    """A price list's or a directory's "Label ...... value" is one line, read as a label:
    the dots are no sentence's end, and the next line is not joined to it."""
    text = (
        "Section 1.4 Check intervals\n"
        "Daily ............ 48 hrs\n"
        "A-check .......... 750 FH\n"
        "A4 colour      60p"
    )
    assert [(u.kind, text[u.start : u.end]) for u in split_units(text)] == [
        ("heading", "Section 1.4 Check intervals"),
        ("label", "Daily ............ 48 hrs"),
        ("label", "A-check .......... 750 FH"),
        ("label", "A4 colour      60p"),
    ]
    assert ("a-check", "is", "750 FH") in [triple(c) for c in claims(text)]
    # Three columns set apart by spaces are a table's row, not a label and its value.
    columns = "Budget lines\nContingency      8%      10%"
    assert "label" not in [u.kind for u in split_units(columns)]
    # Prose keeps its ellipsis and its double spaces as prose.
    prose = "I think... maybe not. We moved.   Then we left."
    assert [u.kind for u in split_units(prose)] == ["sentence"] * 3


def test_a_table_row_without_its_leading_bar_is_a_row() -> None:
    text = "Stop        | Day        | Time\nCrowhurst   | Thu, weeks 1 & 3 | 10:15\u201311:00"
    assert [u.kind for u in split_units(text)] == ["row", "row"]
    assert [u.kind for u in split_units("Subject: rota | handover")] == ["label"]
    # one such line alone is a record written on a line, not a table's header
    record = "Visiting times\nWard 5 - 2-4pm | Ward 6 - 2-4pm | ICU - by arrangement"
    assert "row" not in [u.kind for u in split_units(record)]


def test_a_date_before_the_sentence_is_not_its_subject() -> None:
    assert triple(claims("From next week the design crit is run by Omar.")[0]) == (
        "design crit",
        "owner",
        "Omar",
    )


def test_a_chat_speakers_handle_is_no_label() -> None:
    """ "sana.b: ..." is who speaks, not a thing the line describes: the message is read
    as a sentence of its own."""
    assert all(
        c.subject.value.lower() != "sana.b"
        for c in claims("#dm-officers\nsana.b: hedgerow removal notices are with Countryside")
    )
    assert triple(one("kev.l: Priya owns billing.")) == ("billing", "owner", "Priya")
