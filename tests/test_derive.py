"""Derivation after the acknowledgement: statements, corroboration, supersession (in time,
late, and by name), conflicts, item supersession, edges, idempotence and scopes — run
through the real job handler over a real brain, with a small rule extractor (a real
implementation of the ``Extractor`` port) so each rule is tested apart from the tiers'
heuristics."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from orgbrain import Brain
from orgbrain.extraction import Claim, Extraction, Found
from orgbrain.jobs import DeriveJobs
from orgbrain.ports import Embedder
from orgbrain.scopes import Principal
from tests.backends import Backend

OWNS = re.compile(
    r"(?P<who>[A-Z][a-z]+) owns (?P<what>[a-z]+)(?: instead of (?P<old>[A-Z][a-z]+))?"
)
LIKES = re.compile(r"(?P<who>[A-Z][a-z]+) likes (?P<what>[a-z]+)")


class Rules:
    """ "<Name> owns <thing> [instead of <Name>]." and "<Name> likes <thing>."."""

    def extract(self, text: str, *, known: Sequence[tuple[str, str]] = ()) -> Extraction:
        entities: list[Found] = []
        claims: list[Claim] = []
        for m in OWNS.finditer(text):
            who = Found("person", m["who"], m.start("who"), m.end("who"))
            what = Found("topic", m["what"], m.start("what"), m.end("what"))
            entities.append(who)
            claims.append(
                Claim(
                    "fact",
                    what,
                    "owner",
                    m["who"],
                    who,
                    m.start(),
                    m.end(),
                    None,
                    m["old"],
                    "pattern",
                    0.9,
                )
            )
        for m in LIKES.finditer(text):
            who = Found("person", m["who"], m.start("who"), m.end("who"))
            entities.append(who)
            claims.append(
                Claim(
                    "preference",
                    who,
                    "likes",
                    m["what"],
                    None,
                    m.start(),
                    m.end(),
                    None,
                    None,
                    "pattern",
                    0.9,
                )
            )
        return Extraction(tuple(entities), tuple(claims))


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


@pytest.fixture
def brain(memory_brain: Brain) -> Brain:
    """A rule's decision needs no file: the brain is held in memory (tests/conftest.py)."""
    return memory_brain


def derive(brain: Brain) -> None:
    report = brain.worker(handlers=[DeriveJobs(extractor=Rules())]).drain()
    assert report.failed == 0 and report.retried == 0


def owner(brain: Brain) -> list[tuple[str, bool]]:
    return [(s.object, s.current) for s in brain.statements(about="billing", current=None)]


def test_a_later_statement_supersedes_the_earlier_and_its_item(brain: Brain) -> None:
    old = brain.add_note("Priya owns billing.", occurred_at=at("2026-02-01"))
    new = brain.add_note("Sam owns billing.", occurred_at=at("2026-12-01"))
    derive(brain)
    assert owner(brain) == [("Priya", False), ("Sam", True)]
    [was, now] = brain.statements(about="billing", current=None)
    assert was.valid_to == at("2026-12-01") and was.superseded_by == now.id
    assert now.text == "Sam owns billing" and now.byte_range is not None
    assert brain.get(old.id).superseded_by == new.id
    assert brain.get(new.id).supersedes == old.id
    story = brain.story(old.id)
    assert story.derivation == "done"
    assert [link.new.id for link in story.superseded_by] == [new.id]
    assert [s["step"] for s in story.steps if s["kind"] == "derive"] == [
        "mentions",
        "statements",
        "restated",
        "judged",
        "similar",
        "sequence",
    ]


def test_an_older_statement_arriving_late_is_born_superseded(brain: Brain) -> None:
    new = brain.add_note("Sam owns billing.", occurred_at=at("2026-12-01"))
    derive(brain)
    late = brain.add_note("Priya owns billing.", occurred_at=at("2026-02-01"))
    derive(brain)
    assert owner(brain) == [("Priya", False), ("Sam", True)]
    assert brain.get(late.id).superseded_by == new.id
    assert brain.get(new.id).superseded_by is None


def test_the_same_object_again_corroborates_and_rerunning_adds_nothing(brain: Brain) -> None:
    brain.add_note("Priya owns billing.", occurred_at=at("2026-02-01"))
    brain.add_note("As before, Priya owns billing.", occurred_at=at("2026-03-01"))
    derive(brain)
    [s] = brain.statements(about="billing")
    assert s.evidence == 2
    edges = brain.counts()["edges"]
    assert brain.derive_all() == 0  # everything is derived in its current form
    derive(brain)
    assert brain.counts()["edges"] == edges
    assert len(brain.statements(about="billing", current=None)) == 1


def test_disagreement_at_the_same_time_is_a_conflict_not_a_replacement(brain: Brain) -> None:
    brain.add_note("Priya owns billing.", occurred_at=at("2026-05-01"))
    brain.add_note("Sam owns billing.", occurred_at=at("2026-05-01"))
    derive(brain)
    assert sorted(owner(brain)) == [("Priya", True), ("Sam", True)]
    [c] = brain.conflicts()
    assert {c.a.object, c.b.object} == {"Priya", "Sam"}


def test_replacing_by_name_works_for_many_valued_predicates(brain: Brain) -> None:
    brain.add_note("Priya likes tea.", occurred_at=at("2026-01-01"))
    brain.add_note("Priya likes coffee.", occurred_at=at("2026-06-01"))
    derive(brain)
    likes = [(s.object, s.current) for s in brain.statements(about="Priya", current=None)]
    assert sorted(likes) == [("coffee", True), ("tea", True)]  # both hold


def test_instead_of_replaces_even_at_the_same_time(brain: Brain) -> None:
    brain.add_note("Priya owns billing.", occurred_at=at("2026-05-01"))
    brain.add_note("Sam owns billing instead of Priya.", occurred_at=at("2026-05-01"))
    derive(brain)
    assert owner(brain) == [("Priya", False), ("Sam", True)]
    assert brain.conflicts() == []


def test_wait_derived_returns_after_derivation(
    brain: Brain, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orgbrain.jobs.derive as jobs_derive

    monkeypatch.setattr(jobs_derive, "default_extractor", lambda *a, **k: Rules())
    note = brain.add_note("Priya owns billing.", wait="derived")
    assert brain.story(note.id).derivation == "done"
    assert [s.object for s in brain.statements(item_id=note.id)] == ["Priya"]


def test_followed_by_links_notes_of_one_run_and_similar_links_near_twins(brain: Brain) -> None:
    a = brain.add_note("The deploy checklist starts with a dry run.", run_id="run-1")
    b = brain.add_note("Then the on-call engineer approves the change.", run_id="run-1")
    c = brain.add_note("The deploy checklist starts with a dry run first.")
    derive(brain)
    followed = brain.edges(b.id, types=["FOLLOWED_BY"])
    assert [(e.src, e.dst) for e in followed] == [(a.id, b.id)]
    similar = brain.edges(a.id, types=["SIMILAR_TO"])
    assert {e.src for e in similar} | {e.dst for e in similar} == {a.id, c.id}


def test_statements_keep_to_their_sources_scope(brain: Brain) -> None:
    ann = Principal("default", "ann", frozenset())
    bob = Principal("default", "bob", frozenset())
    mine = brain.for_principal(ann).add_note("Priya owns billing.", scope="user:ann")
    derive(brain)
    assert [s.scope for s in brain.statements(about="billing")] == ["user:ann"]
    assert brain.for_principal(bob).statements(about="billing") == []
    assert brain.for_principal(ann).statements(item_id=mine.id)[0].object == "Priya"
    events = brain.for_principal(bob).events_after(0)
    assert all(e.get("item_id") != mine.id for e in events)


def test_forgetting_the_source_takes_its_statements_out(brain: Brain) -> None:
    note = brain.add_note("Priya owns billing.")
    derive(brain)
    brain.forget(note.id, reason="wrong")
    assert brain.statements(about="billing") == []


def test_a_files_sections_are_derived_with_exact_byte_ranges(brain: Brain) -> None:
    doc = "# Handbook\n\nIntro — café rules.\n\n## Billing\n\nBilling owner: Priya Raman\n".encode()
    file = brain.add_file(doc, name="handbook.md", index=True, wait="derived")
    [s] = brain.statements(about="billing")
    assert (s.predicate, s.object) == ("owner", "Priya Raman")
    section = brain.get(s.item_id)
    assert section.parent_id == file.id and s.byte_range is not None
    text = b"".join(brain.read_file(section.id))
    start = s.byte_range.start - (section.byte_range.start if section.byte_range else 0)
    assert text[start : start + s.byte_range.length].decode() == s.text
    assert s.text == "Billing owner: Priya Raman"


def test_the_extractor_tiers_are_a_setting(tmp_path: Path, embedder: Embedder) -> None:
    from dataclasses import replace

    from orgbrain.errors import InvalidInput
    from orgbrain.extraction import TieredExtractor
    from orgbrain.jobs.derive import extractor_for
    from orgbrain.settings import Settings

    with_classifier = Settings.from_env({"ORGBRAIN_EXTRACT_TIERS": "pattern,classifier"})
    with Brain.open(tmp_path / "c", embedder=embedder, settings=with_classifier) as b:
        ctx = b._ctx
        chosen = extractor_for(ctx)
        assert isinstance(chosen, TieredExtractor)
        assert [type(r).__name__ for r in chosen.refiners] == ["StatementClassifier"]
        default = extractor_for(replace(ctx, settings=Settings()))
        assert isinstance(default, TieredExtractor) and default.refiners == ()  # no chat
        bad = replace(ctx, settings=replace(ctx.settings, extract_tiers="pattern,oracle"))
        with pytest.raises(InvalidInput, match="oracle"):
            extractor_for(bad)


# -- named replacement across predicates, with the pattern tier, on both backends -------


@pytest.fixture
def on_backend(backend: Backend, tmp_path: Path, embedder: Embedder) -> Iterator[Brain]:
    """A brain on each backend (SQLite, PostgreSQL), closed after the test."""
    brain = backend.open(tmp_path / "b", embedder=embedder)
    yield brain
    brain.close()


def _pair(brain: Brain, old: str, new: str) -> tuple[str, str]:
    a = brain.add_note(old, occurred_at=at("2026-11-04"), wait="derived")
    b = brain.add_note(new, occurred_at=at("2026-12-03"), wait="derived")
    return a.id, b.id


def test_a_named_replacement_reaches_across_uses_and_migration(
    backend: Backend, tmp_path: Path, embedder: Embedder
) -> None:
    brain = backend.open(tmp_path / "b", embedder=embedder)
    try:
        old, new = _pair(
            brain,
            "Decision: we will use Postgres for the ledger.",
            "Decision: the ledger moves to CockroachDB instead of Postgres.",
        )
        [was, now] = brain.statements(about="ledger", current=None)
        assert (was.predicate, was.object, was.current) == ("uses", "Postgres", False)
        assert (now.predicate, now.object, now.current) == ("migration_target", "CockroachDB", True)
        assert was.superseded_by == now.id
        assert brain.get(old).superseded_by == new
        # A retired thing named beside a use replaces it too.
        old, new = _pair(
            brain,
            "The reporting job uses Airflow.",
            "Airflow is deprecated; the reporting job uses Dagster from now on.",
        )
        assert brain.get(old).superseded_by == new
    finally:
        brain.close()


def test_a_thing_retired_or_replaced_is_no_longer_what_anything_uses(
    backend: Backend, tmp_path: Path, embedder: Embedder
) -> None:
    brain = backend.open(tmp_path / "b", embedder=embedder)
    try:
        old, new = _pair(brain, "Checkout deploys with Jenkins.", "Jenkins is retired.")
        assert brain.get(old).superseded_by == new
        [used] = brain.statements(about="Checkout", current=None)
        assert (used.object, used.current) == ("Jenkins", False)
        old, new = _pair(
            brain,
            "The mobile app uses Sentry.",
            "Sentry is replaced by Bugsnag.",
        )
        assert brain.get(old).superseded_by == new
        # Retiring another thing, or a thing named otherwise, closes nothing.
        kept, _ = _pair(brain, "The admin panel uses Retool.", "The old Retool server is retired.")
        assert brain.get(kept).superseded_by is None
    finally:
        brain.close()


def test_a_use_that_arrives_after_a_retirement_but_dated_before_it_is_born_superseded(
    on_backend: Brain,
) -> None:
    brain = on_backend
    gone = brain.add_note("Jenkins is retired.", occurred_at=at("2026-12-01"), wait="derived")
    late = brain.add_note(
        "Checkout deploys with Jenkins.", occurred_at=at("2026-10-01"), wait="derived"
    )
    [used] = brain.statements(about="Checkout", current=None)
    [retired] = [s for s in brain.statements(about="Jenkins") if s.predicate == "status"]
    assert (used.object, used.current, used.superseded_by) == ("Jenkins", False, retired.id)
    assert used.valid_to == at("2026-12-01")
    assert brain.get(late.id).superseded_by == gone.id
    # The mirror: a use dated after the retirement (Jenkins came back), written
    # later, stays current; so does one written before the retirement but dated after.
    back = brain.add_note(
        "Billing deploys with Jenkins.", occurred_at=at("2026-12-20"), wait="derived"
    )
    [billing] = brain.statements(about="Billing", current=None)
    assert billing.current and brain.get(back.id).superseded_by is None
    first = brain.add_note(
        "Search deploys with Buildkite.", occurred_at=at("2026-12-20"), wait="derived"
    )
    brain.add_note("Buildkite is retired.", occurred_at=at("2026-12-01"), wait="derived")
    [search] = brain.statements(about="Search", current=None)
    assert search.current and brain.get(first.id).superseded_by is None


def test_a_statement_written_first_but_dated_after_stays_the_current_one(on_backend: Brain) -> None:
    brain = on_backend
    new = brain.add_note("Sam owns billing.", occurred_at=at("2026-12-01"), wait="derived")
    old = brain.add_note("Priya owns billing.", occurred_at=at("2026-02-01"), wait="derived")
    [was, now] = brain.statements(about="billing", current=None)
    assert (was.object, was.current, now.object, now.current) == ("Priya", False, "Sam", True)
    assert was.superseded_by == now.id and was.valid_to == at("2026-12-01")
    assert brain.get(old.id).superseded_by == new.id
    assert brain.get(new.id).superseded_by is None
    hits = {h.item.id: h for h in brain.search("who owns billing?").hits}
    assert hits[new.id].supersedes is not None
    assert hits[new.id].supersedes.item_id == old.id


def test_a_named_replacement_ends_the_same_use_worded_around_another_head_noun(
    on_backend: Brain,
) -> None:
    brain = on_backend
    old, new = _pair(
        brain,
        "The checkout team uses Jenkins for deploys.",
        "We moved checkout deploys from Jenkins to GitHub Actions.",
    )
    assert brain.get(old).superseded_by == new
    [used] = [s for s in brain.statements(about="checkout team", current=None)]
    assert (used.object, used.current) == ("Jenkins", False)
    # The old sentence must hold the whole new subject, and name the replaced thing.
    kept, _ = _pair(
        brain,
        "The payments API uses Postgres.",
        "We moved payments reporting from Postgres to BigQuery.",
    )
    other, _ = _pair(
        brain,
        "The search team uses Kafka for checkout events.",
        "We moved checkout deploys from Buildkite to GitHub Actions.",
    )
    several, _ = _pair(
        brain,
        "The data team uses Airflow for the nightly reports and the billing exports.",
        "We moved billing exports from Airflow to Dagster.",
    )
    assert brain.get(kept).superseded_by is None
    assert brain.get(other).superseded_by is None
    assert brain.get(several).superseded_by is None  # still true of the nightly reports


def test_a_named_replacement_never_closes_another_subject_or_an_owner(
    backend: Backend, tmp_path: Path, embedder: Embedder
) -> None:
    brain = backend.open(tmp_path / "b", embedder=embedder)
    try:
        ledger, _ = _pair(
            brain,
            "The ledger uses Postgres.",
            "The analytics store moves to ClickHouse instead of Postgres.",
        )
        owned, _ = _pair(
            brain,
            "Priya owns the data pipeline.",
            "The data pipeline moves to Dagster instead of Priya.",
        )
        assert brain.get(ledger).superseded_by is None
        assert brain.get(owned).superseded_by is None
        assert [
            (s.predicate, s.current) for s in brain.statements(about="ledger", current=None)
        ] == [("uses", True)]
        owner = brain.statements(about="data pipeline", current=None)
        assert [(s.predicate, s.object, s.current) for s in owner if s.predicate == "owner"] == [
            ("owner", "Priya", True)
        ]
    finally:
        brain.close()
