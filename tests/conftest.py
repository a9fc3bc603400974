"""Shared fixtures: one real embedding model per test session, real brains in tmp dirs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from orgbrain import Brain
from orgbrain.ports import Embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    from orgbrain.adapters.embed_minilm import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture
def brain(tmp_path: Path, embedder: Embedder) -> Iterator[Brain]:
    b = Brain.open(tmp_path / "brain", embedder=embedder)
    try:
        yield b
    finally:
        b.close()
