"""Counting tokens with the bundled all-MiniLM-L6-v2 WordPiece vocabulary."""

from __future__ import annotations

import functools
import threading
from typing import Any

from ..ports import Tokenizer

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
        self._tok: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._tok is None:
                from tokenizers import Tokenizer as HFTokenizer

                path = self._path
                if path is None:
                    from .embed_minilm import bundled_model_dir

                    path = str(bundled_model_dir() / "tokenizer.json")
                tok = HFTokenizer.from_file(path)
                # The file is set up for the encoder: 128-token truncation and padding.
                tok.no_truncation()
                tok.no_padding()
                self._tok = tok
            return self._tok

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._loaded().encode(text, add_special_tokens=False).ids)

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0 or not text:
            return ""
        offsets = self._loaded().encode(text, add_special_tokens=False).offsets
        if len(offsets) <= max_tokens:
            return text
        return str(text[: offsets[max_tokens - 1][1]])


@functools.cache
def default_tokenizer() -> Tokenizer:
    return WordPieceTokenizer()
