"""``orgbrain reembed`` from the default model to an OpenAI-compatible toy server of
another dimension, through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbrain import Brain
from orgbrain.adapters.embed_http import OpenAIEmbedder
from orgbrain.cli import app, cli
from orgbrain.ports import Embedder
from orgbrain.settings import Settings
from tests.test_embedders import TOY_DIM, ToyServer, server  # noqa: F401


def test_reembed_moves_a_default_brain_to_a_toy_server_of_another_dimension(
    tmp_path: Path,
    embedder: Embedder,
    server: ToyServer,  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def open_brain(settings: Settings) -> Brain:  # the session's MiniLM, as the default
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()
    where = ["--brain", str(tmp_path / "brain")]
    assert runner.invoke(cli, [*where, "init"]).exit_code == 0
    for text in ("The billing service is owned by Dana.", "Staging is refreshed nightly."):
        assert runner.invoke(cli, [*where, "note", text]).exit_code == 0

    to = ["--to", "openai", "--embed-url", server.url, "--embed-model", "toy-model"]
    moved = runner.invoke(cli, [*where, "reembed", *to, "--json"])
    assert moved.exit_code == 0, moved.output
    space = json.loads(moved.stdout)["embedding_space"]
    assert (space["model"], space["dim"]) == ("toy-model", TOY_DIM)

    refused = runner.invoke(cli, [*where, "search", "billing owner"])  # still MiniLM
    assert refused.exit_code == 5
    assert "toy-model (32 dims)" in refused.stderr and "orgbrain reembed" in refused.stderr
    with Brain.open(tmp_path / "brain", embedder=OpenAIEmbedder(server.url, "toy-model")) as b:
        assert b.search("billing service owned").hits[0].item.body.startswith("The billing")
