"""BERT's uncased WordPiece tokenizer in plain Python, read from a ``tokenizer.json``.

Why not the ``tokenizers`` package: it was the default install's largest avoidable part
(it brings ``huggingface_hub``, ``hf-xet``, ``fsspec`` and more, ~35 MB), and orgbrain
uses one tokenizer of it. This gives the same ids and offsets as ``tokenizers`` for that
kind of file (``tests/test_wordpiece.py`` holds it to ``tokenizers`` over every code point
and a few thousand texts):

1. the special tokens (``[CLS]``, ``[MASK]``...) are cut out of the raw text first;
2. BertNormalizer: drop controls, NUL and U+FFFD, whitespace to spaces, CJK ideographs
   spaced apart, NFD without nonspacing marks, lowercase;
3. BertPreTokenizer: split on whitespace and on punctuation, each mark its own word;
4. WordPiece: greedy longest match first, ``##`` for the pieces after the first, a word
   with no match (or over 100 characters) is one ``[UNK]``.

The character classes come from ``wordpiece_tables`` (generated from ``tokenizers``),
since its Unicode is older than Python's. Each character is normalized once and each word
split once: both are cached, so a text costs a few dict look-ups per word.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import Unavailable
from .wordpiece_tables import DROPPED, LEADS, MARKS, NONSTARTERS, PUNCTUATION

__all__ = ["WordPiece"]

Offsets = list[tuple[int, int]]

# What Rust's char::is_whitespace counts, plus the three controls BERT keeps as spaces.
_WHITESPACE = frozenset("\t\n\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)
_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_WORD_CACHE = 1 << 16


def _member(ranges: Sequence[tuple[int, int]]) -> Callable[[str], bool]:
    ranges = sorted(ranges)
    starts = [a for a, _ in ranges]

    @functools.cache
    def test(c: str) -> bool:
        i = bisect.bisect_right(starts, ord(c)) - 1
        return i >= 0 and ord(c) <= ranges[i][1]

    return test


_dropped = _member(DROPPED)
_mark = _member(MARKS)
_cjk = _member(_CJK)
_nonstarter = _member(NONSTARTERS)


@functools.cache
def _clean_char(c: str) -> str:
    """BertNormalizer's first two steps on one character: drop, space, or ideograph."""
    if c in "\t\n\r":
        return " "
    if _dropped(c):
        return ""
    if c in _WHITESPACE:
        return " "
    return f" {c} " if _cjk(c) else c


@functools.cache
def _finish_char(c: str) -> str:
    """The last two steps on one character of the NFD text: accents go, then lowercase
    (in that order, as tokenizers does: "İ" is "i", not "i" + U+0307)."""
    return "" if _mark(c) else "".join(d.lower() for d in c)


@functools.cache
def _normalize_char(c: str) -> str:
    """BertNormalizer on one character; the text's is this, character by character, unless
    NFD reorders marks across two characters (``_normalize`` then)."""
    return "".join(map(_finish_char, unicodedata.normalize("NFD", _clean_char(c))))


def _ccc(c: str) -> int:
    return unicodedata.combining(c) if _nonstarter(c) else 0


def _normalize(text: str, at: int) -> tuple[str, list[int]]:
    """BertNormalizer on ``text``, and for each character of the result the index (from
    ``at``) of the character of ``text`` it came from, as tokenizers aligns them.

    Its NFD sorts each run of marks by combining class, and a mark keeps the alignment
    of its place, not of its character: each character that starts a decomposition takes
    the next character of the input in order, each further one of a decomposition the
    last taken (what ``unicode-normalization-alignments`` does).
    """
    if not _REORDERS.search(text):  # no run of marks to sort: one character at a time
        normal = [_normalize_char(c) for c in text]
        return "".join(normal), [i for i, n in enumerate(normal, start=at) for _ in n]
    cleaned = [(d, i) for i, c in enumerate(text, start=at) for d in _clean_char(c)]
    decomposed: list[tuple[str, bool]] = []  # (character, starts its decomposition)
    for c, _ in cleaned:
        parts = unicodedata.normalize("NFD", c)
        decomposed.extend((d, k == 0) for k, d in enumerate(parts))
    start = 0
    while start < len(decomposed):  # sort each run of nonstarters by class (stable)
        end = start
        while end < len(decomposed) and _ccc(decomposed[end][0]):
            end += 1
        if end - start > 1:
            decomposed[start:end] = sorted(decomposed[start:end], key=lambda d: _ccc(d[0]))
        start = end + 1
    chars: list[str] = []
    origin: list[int] = []
    taken = -1
    for c, first in decomposed:
        if first or taken < 0:
            taken += 1
        finished = _finish_char(c)
        chars.append(finished)
        origin.extend([cleaned[taken][1]] * len(finished))
    return "".join(chars), origin


def _char_class(ranges: Sequence[tuple[int, int]]) -> str:
    return "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


_PUNCT = _char_class(PUNCTUATION)  # ASCII symbols like $ + < = > ^ ` | ~ included
_WS = _char_class([(ord(c), ord(c)) for c in sorted(_WHITESPACE)])
# A word is a run of neither whitespace nor punctuation, or one punctuation mark.
_WORDS = re.compile(f"[^{_WS}{_PUNCT}]+|[{_PUNCT}]")
# A character that decomposes to a mark first: NFD may have marks to sort across characters.
_REORDERS = re.compile(f"[{_char_class(LEADS)}]")
_ASCII_NORMAL = str.maketrans(
    {
        **{chr(c): None for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]},
        "\t": " ",
        "\n": " ",
        "\r": " ",
    }
)


class WordPiece:
    """Text to token ids (and character offsets into the text) for one vocabulary."""

    def __init__(
        self,
        vocab: dict[str, int],
        *,
        special: dict[str, int],
        unk: str = "[UNK]",
        prefix: str = "##",
        max_word_chars: int = 100,
        cls: str = "[CLS]",
        sep: str = "[SEP]",
    ) -> None:
        self.vocab = vocab
        self.unk_id = vocab[unk]
        self.cls_id = vocab[cls]
        self.sep_id = vocab[sep]
        self._special = special
        self._prefix = prefix
        self._max_word_chars = max_word_chars
        # Longest first, so that of two tokens where one starts the other the longer wins.
        names = sorted(special, key=len, reverse=True)
        self._special_re = re.compile("|".join(re.escape(s) for s in names)) if names else None
        self._pieces = functools.lru_cache(maxsize=_WORD_CACHE)(self._split_word)

    @classmethod
    def from_file(cls, path: Path) -> WordPiece:
        """The tokenizer a ``tokenizer.json`` describes, if it is BERT's WordPiece."""
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
            model = spec["model"]
            normalizer = spec["normalizer"]
            want = {
                "type": "BertNormalizer",
                "clean_text": True,
                "handle_chinese_chars": True,
                "lowercase": True,
            }
            if (
                model["type"] != "WordPiece"
                or any(normalizer.get(k) != v for k, v in want.items())
                or normalizer.get("strip_accents") not in (None, True)
                or spec["pre_tokenizer"]["type"] != "BertPreTokenizer"
            ):
                raise ValueError("not an uncased BERT WordPiece tokenizer")
            special = {
                t["content"]: int(t["id"])
                for t in spec.get("added_tokens", [])
                if not t.get("normalized", True)
                and not (t.get("single_word") or t.get("lstrip") or t.get("rstrip"))
            }
            if len(special) != len(spec.get("added_tokens", [])):
                raise ValueError("an added token this tokenizer does not handle")
            return cls(
                {str(k): int(v) for k, v in model["vocab"].items()},
                special=special,
                unk=model["unk_token"],
                prefix=model["continuing_subword_prefix"],
                max_word_chars=int(model["max_input_chars_per_word"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise Unavailable(f"cannot read the tokenizer {path}: {exc}") from exc

    def ids(self, text: str, *, max_length: int | None = None) -> list[int]:
        """``[CLS]`` + the text's tokens + ``[SEP]``, cut to ``max_length`` in all (the
        text's tokens are cut, the two marks stay), as the encoder takes them."""
        body = self.tokens(text)
        if max_length is not None:
            del body[max(max_length - 2, 0) :]
        return [self.cls_id, *body, self.sep_id]

    def tokens(self, text: str) -> list[int]:
        """The text's token ids, no ``[CLS]``/``[SEP]`` added."""
        out: list[int] = []
        for segment, special_id in self._segments(text):
            if special_id is not None:
                out.append(special_id)
                continue
            if segment.isascii():
                normal = segment.translate(_ASCII_NORMAL).lower()
            elif _REORDERS.search(segment):
                normal = _normalize(segment, 0)[0]
            else:
                normal = "".join(map(_normalize_char, segment))
            for word in _WORDS.findall(normal):
                out.extend(piece[0] for piece in self._pieces(word))
        return out

    def tokens_with_offsets(self, text: str) -> tuple[list[int], Offsets]:
        """The text's token ids and each one's ``(start, end)`` character span in ``text``."""
        ids: list[int] = []
        offsets: Offsets = []
        at = 0
        for segment, special_id in self._segments(text):
            if special_id is not None:
                ids.append(special_id)
                offsets.append((at, at + len(segment)))
                at += len(segment)
                continue
            normal, origin = _normalize(segment, at)
            for match in _WORDS.finditer(normal):
                base = match.start()
                for token_id, start, end in self._pieces(match.group()):
                    ids.append(token_id)
                    offsets.append((origin[base + start], origin[base + end - 1] + 1))
            at += len(segment)
        return ids, offsets

    def _segments(self, text: str) -> list[tuple[str, int | None]]:
        """The text cut around its special tokens: ``(text, None)`` or ``(token, id)``."""
        if self._special_re is None or "[" not in text:
            return [(text, None)]
        out: list[tuple[str, int | None]] = []
        at = 0
        for match in self._special_re.finditer(text):
            if match.start() > at:
                out.append((text[at : match.start()], None))
            out.append((match.group(), self._special[match.group()]))
            at = match.end()
        if at < len(text):
            out.append((text[at:], None))
        return out

    def _split_word(self, word: str) -> tuple[tuple[int, int, int], ...]:
        """``(id, start, end)`` for each piece of one word, greedy longest match first."""
        if len(word) > self._max_word_chars:
            return ((self.unk_id, 0, len(word)),)
        pieces: list[tuple[int, int, int]] = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else self._prefix + word[start:end]
                token_id = self.vocab.get(piece)
                if token_id is not None:
                    pieces.append((token_id, start, end))
                    start = end
                    break
            else:
                return ((self.unk_id, 0, len(word)),)
        return tuple(pieces)
