"""orgbrain's WordPiece tokenizer against Hugging Face ``tokenizers`` (the test extra has
it): the same ids and offsets for every code point and for a few thousand varied texts,
and so the same vectors from the encoder."""

from __future__ import annotations

import random
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer

from orgbrain.adapters.embed_minilm import bundled_model_dir
from orgbrain.adapters.minilm_numpy import MiniLMNumpy
from orgbrain.adapters.tokenize_wordpiece import WordPieceTokenizer
from orgbrain.adapters.wordpiece import WordPiece
from orgbrain.errors import Unavailable

TOKENIZER_JSON = bundled_model_dir() / "tokenizer.json"

FRAGMENTS = [
    "Alice owns the billing migration; Bob reviews it by Friday.",
    "def index_file(path: str) -> None:\n    return {'a': [1, 2]}  # noqa: E501",
    "if (x != y && z >= 3) { y->next = *p++; } // C++",
    "See https://example.com/path/to?q=1&lang=en#frag or http://localhost:8080/v1/items",
    "Mail alice.smith+tag@example.co.uk, bob@sub.example.org.",
    "It weighs 3.5kg, costs $1,299.99 (€1.200,50), runs at 2.4GHz, 50km/h and 98.6°F.",
    "Résumé, naïve café, façade, coöperate, Ångström, Øresund, smørrebrød.",
    "Größenänderung der Straße: Ärger über Öl und Übermut.",
    "L'été où ça s'est passé, à Noël, «guillemets» — et œuvre.",
    "¿Dónde está el niño? ¡Mañana será otro día, señor!",
    "Zażółć gęślą jaźń; Łódź, Kraków, Gdańsk.",
    "東京都の天気は晴れです。北京欢迎你\uff01서울특별시 한국어 文字",
    "Emoji: 😀👍🏽 family 👨‍👩‍👧 flags 🇫🇷🇩🇪 and ❤️ ✨",
    "Ctrl\x00chars\x07here\x1b[31m red\x7f and \ufffd replacement, zero\u200bwidth, soft\xadhyphen",
    "tabs\tand\nnewlines\r\n  runs   of     spaces\u00a0nbsp\u3000ideographic\u2028line",
    "Ελληνικά ΣΊΣΥΦΟΣ, русский текст Ёлка, עברית, العربية, हिन्दी, ไทย",
    "İstanbul, ǅemal, ﬁnance ligature, \uff26\uff55\uff4c\uff4c width, ①②③, x², H₂O, ½",
    "supercalifragilisticexpialidocious " + "a" * 99 + " " + "b" * 100 + " " + "c" * 101,
    "pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism",
    "[CLS] special [SEP] tokens [MASK] in [PAD] text [UNK] and [cls] [ SEP ] [MASK",
    "version v2.13.0-rc1, id 5a6fd426c9b70174, sha256:0a1b2c, 0xDEADBEEF, 1e-12",
    "a\u0301e\u0300o\u0308 combining; \u1100\u1161 jamo; \u0915\u094d\u0937 conjunct",
    "",
    "   ",
    "\n\n\t",
]


def _corpus(n: int, seed: int = 16) -> list[str]:
    """``n`` texts mixed from the fragments: cut at random points (mid-word, mid-emoji
    sequence), shuffled together, with random code points sprinkled in."""
    rng = random.Random(seed)
    texts = list(FRAGMENTS)
    while len(texts) < n:
        parts = []
        for _ in range(rng.randint(1, 6)):
            frag = rng.choice(FRAGMENTS)
            a = rng.randint(0, len(frag))
            parts.append(frag[a : rng.randint(a, len(frag))])
            if rng.random() < 0.3:
                point = rng.randint(0, sys.maxunicode)
                if not 0xD800 <= point <= 0xDFFF:
                    parts.append(chr(point))
        texts.append(rng.choice(["", " ", "\n", "-", "/"]).join(parts))
    return texts


@pytest.fixture(scope="module")
def hf() -> HFTokenizer:
    tok = HFTokenizer.from_file(str(TOKENIZER_JSON))
    tok.no_truncation()
    tok.no_padding()
    return tok


@pytest.fixture(scope="module")
def wordpiece() -> WordPiece:
    return WordPiece.from_file(TOKENIZER_JSON)


def _assert_same(
    hf: HFTokenizer, wordpiece: WordPiece, texts: list[str], *, ids_alone: bool = True
) -> None:
    for text, want in zip(texts, hf.encode_batch(texts, add_special_tokens=False), strict=True):
        assert wordpiece.tokens_with_offsets(text) == (want.ids, want.offsets), repr(text)
        if ids_alone:
            assert wordpiece.tokens(text) == want.ids, repr(text)


@pytest.mark.slow  # ~13 s
def test_every_code_point_tokenizes_as_tokenizers_does(
    hf: HFTokenizer, wordpiece: WordPiece
) -> None:
    # Glued between letters: whether it is dropped, a space, a mark, punctuation, an
    # ideograph, or a letter, each shows in the ids or the offsets. Planes 4 to 13 have
    # never had a character assigned (they are all alike, and would triple the time).
    points = [
        p
        for p in (*range(0x40000), *range(0xE0000, sys.maxunicode + 1))
        if not 0xD800 <= p <= 0xDFFF
    ]
    texts = [
        "".join(f"ab{chr(p)}cd " for p in points[i : i + 256]) for i in range(0, len(points), 256)
    ]
    _assert_same(hf, wordpiece, texts, ids_alone=False)


def test_varied_texts_tokenize_as_tokenizers_does(hf: HFTokenizer, wordpiece: WordPiece) -> None:
    _assert_same(hf, wordpiece, _corpus(3000))


def test_runs_of_marks_reorder_and_align_as_tokenizers_does(
    hf: HFTokenizer, wordpiece: WordPiece
) -> None:
    # NFD sorts a run of marks by combining class across characters, and tokenizers then
    # aligns each mark with its place, not its character: offsets show it.
    marks = [chr(p) for p in range(0x30000) if unicodedata.combining(chr(p))]
    marks += ["\x07", "\u0f73", "\u0344", "\u00e9", "\u1ea5"]
    rng = random.Random(4)
    texts = []
    for _ in range(3000):
        letters = [
            rng.choice("aeiouAEIOUn\u00e7\u00df\u03b1\u0436\u3042\uac00 .\u4e00")
            + "".join(rng.choices(marks, k=rng.randint(0, 3)))
            for _ in range(rng.randint(1, 6))
        ]
        texts.append(rng.choice(["", rng.choice(marks)]) + "".join(letters))
    _assert_same(hf, wordpiece, texts)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_any_text_tokenizes_as_tokenizers_does(
    hf: HFTokenizer, wordpiece: WordPiece, text: str
) -> None:
    _assert_same(hf, wordpiece, [text])


class _OldTokenization:
    """What the encoder used before: ``tokenizers`` itself, cut at the encoder's length."""

    def __init__(self, max_length: int) -> None:
        self._hf = HFTokenizer.from_file(str(TOKENIZER_JSON))
        self._hf.no_padding()
        self._hf.enable_truncation(max_length=max_length)

    def ids(self, text: str, *, max_length: int | None = None) -> list[int]:
        return list(self._hf.encode(text).ids)


def _models() -> tuple[MiniLMNumpy, MiniLMNumpy]:
    new = MiniLMNumpy.from_folder(bundled_model_dir())
    tokenization = _OldTokenization(new.max_length)
    return new, MiniLMNumpy(new.weights, tokenization, new.max_length)  # type: ignore[arg-type]


def test_the_encoder_gets_the_ids_tokenizers_gave_it() -> None:
    new, old = _models()
    texts = [*_corpus(1000, seed=7), " ".join(FRAGMENTS) * 3]  # the last past the cut
    ids = new.token_ids(texts)
    assert ids == old.token_ids(texts)
    assert len(ids[-1]) == new.max_length


@pytest.mark.slow  # ~30 s
def test_the_encoder_gives_the_vectors_it_gave_with_tokenizers() -> None:
    new, old = _models()
    texts = [*_corpus(200, seed=8), " ".join(FRAGMENTS) * 3]
    assert np.array_equal(new.encode(texts), old.encode(texts))


def test_the_token_counter_cuts_where_tokenizers_offsets_say(hf: HFTokenizer) -> None:
    counter = WordPieceTokenizer()
    text = FRAGMENTS[6] + " " + FRAGMENTS[11] + " " + FRAGMENTS[13]
    offsets = hf.encode(text, add_special_tokens=False).offsets
    assert counter.count(text) == len(offsets)
    for n in (1, 5, 17, len(offsets) - 1):
        assert counter.truncate(text, n) == text[: offsets[n - 1][1]]


def test_a_file_that_is_not_bert_wordpiece_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE"}}')
    with pytest.raises(Unavailable, match="tokenizer"):
        WordPiece.from_file(bad)
