"""The gate on plain organisation facts: short sentences and "Label: value" lines answer
plain questions; what the set does not hold stays silent; the conversation readings
(vocatives, speakers, short filler) still apply to a conversation's turns, and only there.
Then ``orgbrain eval facts`` end to end on a tiny file, and the shipped dev set."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

import orgbrain.cli.eval as eval_cli
import orgbrain.cli.eval_kit as eval_kit
from orgbrain import Brain
from orgbrain.analysis import stem, text_stems
from orgbrain.brain import NoteInput
from orgbrain.conversation import is_conversational
from orgbrain.errors import InvalidInput
from orgbrain.evals import load_facts, run_facts
from orgbrain.model import Item, Origin
from orgbrain.ports import Embedder
from orgbrain.retrieve.evidence import every_sentence_asks, hit_evidence
from orgbrain.retrieve.plan import get_plan
from orgbrain.retrieve.query import Query
from orgbrain.retrieve.terms import coverage
from orgbrain.settings import Settings

FACTS = (
    "Priya owns billing.",
    "Billing owner: Priya Raman",
    "Deploy freeze: Fridays",
    "Database: CockroachDB",
)

AT = datetime(2026, 12, 5, tzinfo=UTC)
"""When the queries of these tests are read (none names a time)."""


def _cited(brain: Brain, query: str) -> list[str]:
    """The bodies of what ``query`` gets under the default plan, each hit cited."""
    result = brain.search(query)
    assert all(h.citation.item_id == h.item.id for h in result.hits)
    return [h.item.body for h in result.hits]


@pytest.fixture
def facts_brain(brain: Brain) -> Brain:
    brain.add_notes([NoteInput(body=f) for f in FACTS])
    return brain


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("who owns billing?", "Priya owns billing."),
        ("who owns billing?", "Billing owner: Priya Raman"),
        ("when is the deploy freeze?", "Deploy freeze: Fridays"),
        ("which database do we use?", "Database: CockroachDB"),
    ],
)
def test_short_facts_answer_plain_questions(facts_brain: Brain, query: str, answer: str) -> None:
    assert answer in _cited(facts_brain, query)


def test_a_question_the_facts_do_not_answer_stays_silent(facts_brain: Brain) -> None:
    for query in ("who owns the mobile app?", "what is the wifi password?"):
        result = facts_brain.search(query)
        assert result.hits == () and result.verdict == "none", result.reason


def test_conversation_readings_apply_to_turns_only(tmp_path: Path, embedder: Embedder) -> None:
    """The same words, as a note and as a conversation's turn: a turn's "Speaker:" is its
    speaker, and what follows is read as speech (three words are filler there)."""
    said = "Caroline: Priya owns billing."
    answers = {}
    for kind in ("note", "turn"):
        with Brain.open(tmp_path / kind, embedder=embedder) as brain:
            brain.add_notes([NoteInput(body=said, kind=kind)])
            answers[kind] = _cited(brain, "who owns billing?")
    assert answers == {"note": [said], "turn": []}


def _item(body: str, kind: str) -> Item:
    origin = Origin("test", "test", datetime(2024, 1, 1, tzinfo=UTC))
    return Item("it1", "ws", kind, "note", body.split("\n")[0], body, "k", True, "org", origin)


def test_vocatives_and_listeners_are_read_in_turns_only() -> None:
    query = "What did Caroline say about the race?"
    thanks = "Melanie: Thanks, Caroline! The race was great."
    listener = "Caroline: That race sounds great, Mel! You must be proud of yourself."
    for body, asked in ((thanks, query), (listener, "What did Caroline run?")):
        turn, note = _item(body, "turn"), _item(body, "note")
        assert is_conversational(turn) and not is_conversational(note)
        seen = hit_evidence(Query(asked, AT), [turn, note], {"it1": 0.9})
        assert [e.names for e in seen] == [False, True]


def test_a_document_only_asks_when_every_sentence_asks() -> None:
    assert every_sentence_asks("Open question: who should own the mobile app?")
    assert not every_sentence_asks("Who owns billing?\nPriya Raman.")
    assert not every_sentence_asks("Database: CockroachDB")
    assert not every_sentence_asks("Priya owns billing.")
    faq = _item("Who owns billing? Priya Raman.", "note")
    (seen,) = hit_evidence(Query("who owns billing?", AT), [faq], {})
    assert not seen.asks and seen.coverage == 1.0


# -- orgbrain eval facts -------------------------------------------------------------------


def write_facts(path: Path) -> Path:
    rows = [
        {"fact": "f1", "form": "sentence", "text": "Priya owns billing."},
        {"fact": "f2", "form": "label", "text": "Deploy freeze: Fridays"},
        {"fact": "f3", "form": "label", "text": "Database: CockroachDB"},
        {"fact": "f4", "form": "bullet", "text": "- Team lunch is on Thursdays."},
        {"question": "who owns billing?", "answers": ["f1"]},
        {"question": "when is the deploy freeze?", "answers": ["f2"]},
        {"question": "what is the wifi password?", "answers": []},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_eval_facts_command(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def shared(_settings: Settings) -> Embedder:
        return embedder

    monkeypatch.setattr(eval_kit, "embedder_factory", shared)
    out = tmp_path / "rows.jsonl"
    file = write_facts(tmp_path / "facts.jsonl")
    result = CliRunner().invoke(
        eval_cli.eval_group, ["facts", str(file), "--json", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    metrics = report["plans"]["tuned-z"]
    assert metrics["false_silence"] == 0.0 and metrics["recall_shipped"] == 1.0
    assert metrics["false_speech"] == 0.0
    assert metrics["false_silence:label"] == 0.0
    assert report["info"]["questions_answerable"] == 2
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["hits"][:1] for r in rows] == [["f1"], ["f2"], []]

    table = CliRunner().invoke(
        eval_cli.eval_group, ["facts", str(file), "--plan", "hybrid,tuned-z", "--out", str(out)]
    )
    assert table.exit_code == 0, table.output
    assert "| hybrid |" in table.stdout and "| tuned-z |" in table.stdout


def test_a_set_in_another_language_reports_its_english_questions_apart(
    tmp_path: Path, embedder: Embedder
) -> None:
    rows = [
        {"fact": "d1", "form": "sentence", "text": "Die Kantine ist ab 11:15 Uhr geöffnet."},
        {"fact": "d2", "form": "label", "text": "Datenbank: PostgreSQL 16"},
        {"question": "Wann öffnet die Kantine?", "answers": ["d1"]},
        {"question": "Welche Datenbanken nutzen wir?", "answers": ["d2"]},
        {"question": "When does the canteen open?", "answers": ["d1"], "lang": "en"},
        {"question": "Wie lautet das WLAN-Passwort?", "answers": []},
        {"question": "What is the wifi password?", "answers": [], "lang": "en"},
    ]
    file = tmp_path / "facts_de.jsonl"
    file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    data = load_facts(file)
    assert [q.lang for q in data.questions] == [None, None, "en", None, "en"]
    out = tmp_path / "rows.jsonl"
    report = run_facts(data, (get_plan("tuned-z"),), embedder, out=out)
    (scores,) = report.plans
    assert {"recall@3", "false_silence:asked-en", "recall@3:asked-en"} <= set(scores.metrics)
    assert "false_speech:asked-en" in scores.metrics
    assert report.info["questions:asked-en"] == 2
    assert [json.loads(line)["lang"] for line in out.read_text().splitlines()][2] == "en"
    with pytest.raises(InvalidInput, match="lang"):
        file.write_text(json.dumps({**rows[0]}) + "\n" + json.dumps({**rows[2], "lang": 3}))
        load_facts(file)


def test_a_german_question_is_held_by_the_german_note_that_answers_it() -> None:
    """The question's stopwords go ("welche", "nutzen", "wir"), and its words are stemmed
    as German on both sides: "Datenbanken" meets "Datenbank"."""
    query = "Welche Datenbanken nutzen wir zurzeit?"
    note = _item("Datenbank: PostgreSQL 16", "note")
    q = Query(query, AT)
    assert q.terms == ["datenbanken"]
    (seen,) = hit_evidence(q, [note], {})
    assert seen.coverage == 1.0


def test_fact_sets_are_checked(tmp_path: Path, embedder: Embedder) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"fact": "f1", "text": "Priya owns billing."}\n'
        '{"question": "who owns billing?", "answers": ["f9"]}\n'
    )
    with pytest.raises(InvalidInput, match="f9"):
        load_facts(bad)
    data = load_facts(write_facts(tmp_path / "ok.jsonl"))
    with pytest.raises(InvalidInput):
        run_facts(data, (), embedder)


def test_the_shipped_dev_set() -> None:
    data = load_facts()
    assert len(data.facts) >= 60 and len(data.questions) >= 60
    answerable = [q for q in data.questions if q.answers]
    assert len(answerable) >= 30 and len(data.questions) - len(answerable) >= 30
    assert {"sentence", "label", "bullet", "handbook", "runbook", "decision"} <= {
        f.form for f in data.facts
    }


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_the_shipped_sets_in_other_languages(lang: str) -> None:
    """Shipped in the package (its data glob): a facts set with questions asked in
    English, and a living set."""
    from importlib import resources

    from orgbrain.evals.living import load_cases

    data = resources.files("orgbrain.evals").joinpath("data")
    facts = load_facts(Path(str(data.joinpath(f"facts_{lang}.jsonl"))))
    english = [q for q in facts.questions if q.lang == "en"]
    assert len(facts.facts) >= 40 and len(english) >= 20
    assert sum(1 for q in english if q.answers) >= 20
    assert len(load_cases(Path(str(data.joinpath(f"{lang}_living.jsonl"))))) >= 20


def test_a_word_and_its_plural_share_a_stem() -> None:
    for forms in (
        ("escalate", "escalates", "escalated", "escalating"),
        ("database", "databases"),
        ("release", "releases", "released"),
        ("paint", "painted", "painting", "paints"),
    ):
        assert len({stem(w) for w in forms}) == 1, forms
    assert coverage(["database"], text_stems("Two databases: Postgres and Redis.")) == 1.0


def test_the_evidence_counts_the_query_names() -> None:
    item = _item("John: I told Tim about the trip to Ireland.", "turn")
    [two] = hit_evidence(Query("What did John and Tim plan?", AT), [item], {})
    [none] = hit_evidence(Query("what did we plan?", AT), [item], {})
    assert (two.names_asked, none.names_asked) == (2, 0)


def test_a_query_of_names_alone_has_no_other_term_to_miss() -> None:
    """ "Who is Anthony?" asks nothing but the name: a hit that speaks of Anthony holds
    all of the rest, so the gate hears it however far its cosine."""
    from orgbrain.retrieve import Gate, membership

    turn = _item("John: Anthony is my cousin, he lives in Boston.", "turn")
    [named] = hit_evidence(Query("Who is Anthony?", AT), [turn], {"it1": 0.33})
    assert named.names and named.coverage == 1.0
    assert membership([named], Gate(depth=5, min_cosine=0.4, min_coverage=0.5))[0]
    # Without names nothing is vacuous: a query of no terms covers nothing.
    [plain] = hit_evidence(Query("Who is it?", AT), [turn], {})
    assert plain.coverage == 0.0
    # Other terms are counted as before.
    asked = "Where does Anthony live?"
    [lives] = hit_evidence(Query(asked, AT), [turn], {})
    assert lives.coverage == 1.0
    [works] = hit_evidence(Query("Where does Anthony work?", AT), [turn], {})
    assert works.coverage == 0.0
