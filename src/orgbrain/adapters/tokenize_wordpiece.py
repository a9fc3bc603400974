"""Counting tokens with the bundled all-MiniLM-L6-v2 WordPiece vocabulary."""

from __future__ import annotations

import functools
import threading
from pathlib import Path

from ..ports import Tokenizer
from .wordpiece import WordPiece

__all__ = ["WordPieceTokenizer", "default_tokenizer"]


class WordPieceTokenizer:
    """The bundled all-MiniLM-L6-v2 tokenizer, loaded from its ``tokenizer.json`` on first
    use (so building one costs nothing for commands that never count tokens).

    Offline by construction (tiktoken's encodings need a download). WordPiece splits
    English into slightly more pieces than the BPE vocabularies of chat models, so a
    budget counted here is a safe upper bound for them.
    """

    def __init__(self, path: str | None = None) -> None:
        self._path = path
        self._tok: WordPiece | None = None
        self._lock = threading.Lock()

    def _loaded(self) -> WordPiece:
        with self._lock:
            if self._tok is None:
                if self._path is None:
                    from .embed_minilm import bundled_model_dir

                    self._tok = WordPiece.from_file(bundled_model_dir() / "tokenizer.json")
                else:
                    self._tok = WordPiece.from_file(Path(self._path))
            return self._tok

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._loaded().tokens(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0 or not text:
            return ""
        _, offsets = self._loaded().tokens_with_offsets(text)
        if len(offsets) <= max_tokens:
            return text
        return str(text[: offsets[max_tokens - 1][1]])


@functools.cache
def default_tokenizer() -> Tokenizer:
    return WordPieceTokenizer()
