"""chunk and flat_windows: exact spans, exact overlaps, breadcrumbs, stable keys."""

from __future__ import annotations

import re
import time
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgbrain.errors import TooLarge
from orgbrain.ingest import Chunk, Extracted, chunk, extract, flat_windows
from tests.filegen import TITLE, make_docx, make_pdf, make_xlsx

PROPERTY = settings(max_examples=120, deadline=None)


def flat(text: str, **kw: object) -> Extracted:
    return Extracted(text=text, text_is_raw=True, title=None, structured=False, **kw)  # type: ignore[arg-type]


def md(text: str) -> Extracted:
    return Extracted(text=text, text_is_raw=True, title=None, structured=True)


def check_spans(ex: Extracted, chunks: list[Chunk], max_chars: int, overlap: int) -> None:
    """Invariants every chunking must keep."""
    raw = ex.text.encode()
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert len({c.key for c in chunks}) == len(chunks)
    for c in chunks:
        assert 0 <= c.char_start < c.char_end <= len(ex.text)
        assert c.text == ex.text[c.char_start : c.char_end]
        assert raw[c.byte_start : c.byte_end] == c.text.encode()
        assert len(ex.text[: c.char_start].encode()) == c.byte_start
        assert len(c.text) <= max_chars
        assert not c.text.isspace()
    starts = [c.char_start for c in chunks]
    assert starts == sorted(starts)
    for before, c in pairwise([None, *chunks]):
        if c.char_start == 0 or ex.text[c.char_start - 1].isspace():
            continue  # a section opens at the start, on a heading, or just after whitespace
        assert before is not None
        assert_exact_cut(ex.text, c.char_start, before.char_end, overlap)


def assert_exact_cut(text: str, start: int, end_before: int, overlap: int) -> None:
    """A window may open mid-word only ``overlap`` characters before the end of the one
    before it, and only when that stretch (and the character before it) holds no
    whitespace: one word longer than the overlap."""
    assert start == end_before - overlap
    assert not any(ch.isspace() for ch in text[start - 1 : end_before])


def assert_covers(text: str, spans: list[tuple[int, int]]) -> None:
    covered = bytearray(len(text))
    for s, e in spans:
        covered[s:e] = b"\x01" * (e - s)
    missing = [i for i, ch in enumerate(text) if not covered[i] and not ch.isspace()]
    assert not missing, f"uncovered non-blank chars at {missing[:5]}"


_LINE_START = re.compile(r"[\r\n]\s*(?=\S)")


def assert_starts(text: str, windows: list[tuple[int, int]], overlap: int, start: int = 0) -> None:
    """Where windows start: at ``start``, just after whitespace, or else exactly
    ``overlap`` characters before the end of the window before (``assert_exact_cut``).
    Each starts inside the last ``overlap`` characters of the window before it, or after
    it across blank windows that were skipped; never later than the first line start
    in that stretch (a line break is preferred to a word)."""
    for i, (s, _) in enumerate(windows):
        if s != start and not text[s - 1].isspace():
            assert i > 0, "only a window at the start may open without whitespace before"
            assert_exact_cut(text, s, windows[i - 1][1], overlap)
    for (s1, e1), (s2, _) in pairwise(windows):
        assert s1 < s2
        assert s2 >= e1 - overlap
        if s2 > e1:
            assert text[e1:s2].isspace()
        lines = [m.end() for m in _LINE_START.finditer(text, 0, e1) if e1 - overlap <= m.end() < e1]
        if lines:
            assert s2 <= lines[0]


# --- flat_windows -----------------------------------------------------------------------


def test_small_text_is_one_window() -> None:
    assert flat_windows("short text", 0, 10, 100, 10) == [(0, 10)]
    assert flat_windows("", 0, 0, 100, 10) == []
    assert flat_windows("   \n\n  ", 0, 7, 100, 10) == []


def test_windows_prefer_paragraph_breaks() -> None:
    text = "aaaa aaaa\n\nbbbb bbbb\n\ncccc cccc"
    windows = flat_windows(text, 0, len(text), 24, 4)
    assert windows[0] == (0, 22)  # ends after the second paragraph break
    # The last 4 characters ("bb\n\n") hold no word start: the next opens on a line.
    assert windows[1] == (22, len(text))
    assert_starts(text, windows, 4)


def test_windows_fall_back_to_lines_then_spaces_then_hard_cuts() -> None:
    lines = "one two\nthree four\nfive six"
    assert flat_windows(lines, 0, len(lines), 15, 2)[0] == (0, 8)
    words = "one two three four five"
    assert flat_windows(words, 0, len(words), 10, 2)[0] == (0, 8)
    solid = "x" * 25
    assert flat_windows(solid, 0, 25, 10, 3) == [(0, 10), (7, 17), (14, 24), (21, 25)]


def test_windows_open_on_a_word_not_mid_word() -> None:
    # The old exact 100-character overlap opened sections with "undled.tar.bz2)".
    text = "Fetch it from the bundled.tar.bz2) archive, unpack it and run the installer " * 40
    for s, _ in flat_windows(text, 0, len(text), 1000, 100):
        assert s == 0 or text[s - 1] == " "
        assert not text[s].isspace()
    [(_, e1), (s2, _), *_] = flat_windows(text, 0, len(text), 1000, 100)
    assert e1 - 100 <= s2 < e1 and text[e1 - 100 : s2].count(" ") <= 1  # the first word


def test_windows_prefer_a_sentence_or_a_line_to_a_word() -> None:
    sentence = "alpha beta gamma. Delta epsilon zeta eta theta iota kappa lambda mu"
    [(_, e1), (s2, _), *_] = flat_windows(sentence, 0, len(sentence), 40, 30)
    assert sentence[s2:].startswith("Delta") and s2 >= e1 - 30
    quoted = 'alpha beta "gamma." Delta epsilon zeta eta theta iota kappa lambda'
    [_, (s2, _), *_] = flat_windows(quoted, 0, len(quoted), 40, 30)
    assert quoted[s2:].startswith("Delta")
    lines = "alpha beta gamma delta\nepsilon zeta eta theta iota kappa lambda mu"
    [(_, e1), (s2, _)] = flat_windows(lines, 0, len(lines), 45, 30)
    assert lines[s2:].startswith("epsilon") and s2 >= e1 - 30
    plain = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    [(_, e1), (s2, _), *_] = flat_windows(plain, 0, len(plain), 40, 12)
    assert plain[s2:].startswith("zeta") and e1 - 12 <= s2  # the first word in the stretch


def test_the_tail_of_a_long_word_is_not_overlapped() -> None:
    # The last 5 characters are the tail of one word and a space: the next window opens
    # on the next word rather than inside that word.
    text = "x" * 18 + " " + "y" * 18
    assert flat_windows(text, 0, len(text), 20, 5) == [(0, 19), (19, 37)]


def test_windows_inside_a_span() -> None:
    text = "HEAD" + "word " * 50 + "TAIL"
    windows = flat_windows(text, 4, len(text) - 4, 40, 5)
    assert windows[0][0] == 4 and windows[-1][1] == len(text) - 4
    assert_starts(text, windows, 5, 4)


def test_blank_windows_are_skipped() -> None:
    text = "a" * 10 + " " * 50 + "b" * 10
    windows = flat_windows(text, 0, len(text), 20, 2)
    assert all(not text[s:e].isspace() for s, e in windows)
    assert_covers(text, windows)
    assert_starts(text, windows, 2)


@pytest.mark.parametrize(("max_chars", "overlap"), [(0, 0), (10, 10), (10, -1)])
def test_bad_sizes(max_chars: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        flat_windows("abc", 0, 3, max_chars, overlap)
    with pytest.raises(ValueError):
        chunk(flat("abc"), max_chars=max_chars, overlap=overlap)


def test_bad_span() -> None:
    with pytest.raises(ValueError):
        flat_windows("abc", 2, 5, 10, 1)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    max_chars = draw(st.integers(min_value=1, max_value=120))
    return max_chars, draw(st.integers(min_value=0, max_value=max_chars - 1))


_pieces = ["alpha", "beta ", " ", "\n", "\n\n", "é中", "y" * 70, "\t", "  \n \n", "-"]
texts = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab é中\n\t -")), max_size=400),
    st.lists(st.sampled_from(_pieces), max_size=300).map("".join),
)


@PROPERTY
@given(text=texts, size=sizes(), data=st.data())
def test_flat_windows_properties(text: str, size: tuple[int, int], data: st.DataObject) -> None:
    max_chars, overlap = size
    start = data.draw(st.integers(min_value=0, max_value=len(text)))
    end = data.draw(st.integers(min_value=start, max_value=len(text)))
    windows = flat_windows(text, start, end, max_chars, overlap)
    for s, e in windows:
        assert start <= s < e <= end
        assert e - s <= max_chars
        assert not text[s:e].isspace()
    assert_starts(text, windows, overlap, start)
    assert_covers(text[start:end], [(s - start, e - start) for s, e in windows])
    assert windows == flat_windows(text, start, end, max_chars, overlap)


# --- flat chunks (txt, pdf) -------------------------------------------------------------


def test_txt_chunks_with_byte_offsets() -> None:
    text = "Ünïcödé para one.\n\n" + "x" * 30 + "\n\n中文 third"
    ex = flat(text)
    chunks = chunk(ex, max_chars=25, overlap=5)
    check_spans(ex, chunks, 25, 5)
    assert [c.key for c in chunks] == [f"p{i}" for i in range(len(chunks))]
    assert chunks[0].text == "Ünïcödé para one.\n\n"
    assert chunks[0].byte_end == len(chunks[0].text.encode()) > chunks[0].char_end
    assert all(c.heading_path == () and c.page_start is None for c in chunks)


def test_small_txt_is_one_chunk_and_blank_is_none() -> None:
    [only] = chunk(flat("hello world"))
    assert (only.key, only.char_start, only.char_end) == ("p0", 0, 11)
    assert chunk(flat(" \n\n \t")) == []
    assert chunk(flat("")) == []


@PROPERTY
@given(text=texts, size=sizes())
def test_flat_chunk_properties(text: str, size: tuple[int, int]) -> None:
    max_chars, overlap = size
    ex = flat(text)
    chunks = chunk(ex, max_chars=max_chars, overlap=overlap)
    check_spans(ex, chunks, max_chars, overlap)
    spans = [(c.char_start, c.char_end) for c in chunks]
    assert_covers(text, spans)
    assert_starts(text, spans, overlap)
    assert chunks == chunk(ex, max_chars=max_chars, overlap=overlap)


@PROPERTY
@given(
    pages=st.lists(st.text(alphabet="ab é\n", max_size=200), min_size=1, max_size=6),
    size=sizes(),
)
def test_pdf_pages_of_chunks(pages: list[str], size: tuple[int, int]) -> None:
    starts, at = [], 0
    for p in pages:
        starts.append(at)
        at += len(p) + 2
    ex = flat("\n\n".join(pages), page_starts=tuple(starts))
    chunks = chunk(ex, max_chars=size[0], overlap=size[1])
    check_spans(ex, chunks, size[0], size[1])

    def page_of(i: int) -> int:
        return max(n for n, s in enumerate(starts, start=1) if s <= i)

    for c in chunks:
        assert c.page_start == page_of(c.char_start)
        assert c.page_end == page_of(c.char_end - 1)


def test_real_pdf_chunks_carry_pages() -> None:
    ex = extract(make_pdf(["alpha " * 60, "beta " * 60, "gamma " * 60]), "pdf")
    chunks = chunk(ex, max_chars=200, overlap=20)
    check_spans(ex, chunks, 200, 20)
    assert chunks[0].page_start == 1
    assert chunks[-1].page_end == 3
    assert any(c.page_start != c.page_end for c in chunks)
    assert {c.page_start for c in chunks} == {1, 2, 3}


# --- structured chunks (md, docx) -------------------------------------------------------


DOC = """---
title: Handbook
# a YAML comment, not a heading
---
Preamble line.

# HelixDB basics
Intro.
## Query model
Queries are typed.
```
# not a heading inside a fence
```
### Deep
deeper
## Storage
Disk.
# Second top
Text.
## Query model
Again, under another parent.
"""


def test_breadcrumbs_and_keys() -> None:
    ex = md(DOC)
    chunks = chunk(ex)
    check_spans(ex, chunks, 1000, 100)
    assert [c.heading_path for c in chunks] == [
        (),
        ("HelixDB basics",),
        ("HelixDB basics", "Query model"),
        ("HelixDB basics", "Query model", "Deep"),
        ("HelixDB basics", "Storage"),
        ("Second top",),
        ("Second top", "Query model"),
    ]
    assert chunks[0].key == "#0"
    assert chunks[0].text.startswith("---\ntitle: Handbook")  # frontmatter in the preamble
    assert chunks[2].key == "HelixDB basics > Query model#0"
    assert "# not a heading inside a fence" in chunks[2].text
    assert "".join(c.text for c in chunks) == DOC  # sections partition the text


def test_repeated_breadcrumbs_get_a_suffix() -> None:
    keys = [c.key for c in chunk(md("# A\nx\n# A\ny\n# B\nz\n# A\nw\n"))]
    assert keys == ["A#0", "A#0~1", "B#0", "A#0~2"]


def test_keys_survive_edits_to_other_sections() -> None:
    before = {c.key: c.text for c in chunk(md(DOC))}
    edited = DOC.replace("Disk.", "Disk, much longer now.\n\nWith a new paragraph.")
    after = {c.key: c.text for c in chunk(md(edited))}
    assert before.keys() == after.keys()
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"HelixDB basics > Storage#0"}


def test_long_section_is_split_and_keeps_its_breadcrumb() -> None:
    body = "\n\n".join(f"Paragraph {i} " + "word " * 30 for i in range(12))
    ex = md(f"# Top\n## Long\n{body}\n## After\nshort\n")
    chunks = chunk(ex, max_chars=300, overlap=30)
    check_spans(ex, chunks, 300, 30)
    long = [c for c in chunks if c.heading_path == ("Top", "Long")]
    assert len(long) > 3
    assert [c.key for c in long] == [f"Top > Long#{i}" for i in range(len(long))]
    assert long[0].text.startswith("## Long")
    assert_starts(ex.text, [(c.char_start, c.char_end) for c in long], 30, long[0].char_start)
    assert chunks[-1].key == "Top > After#0"


def test_heading_edge_cases() -> None:
    text = (
        "#hashtag is text\n####### seven is text\n   ### Indented ok ###\n"
        "    # code block\n#\n# Closing #####\n~~~\n# fenced\n~~~\n## Tail\r\nx\r\n"
    )
    paths = [c.heading_path for c in chunk(md(text))]
    assert paths == [(), ("Indented ok",), ("Closing",), ("Closing", "Tail")]


def test_unclosed_fence_hides_later_headings() -> None:
    assert [c.heading_path for c in chunk(md("# A\n```\n# B\n"))] == [("A",)]


def test_docx_chunks_by_heading() -> None:
    data = make_docx(
        [(TITLE, "Guide"), (0, "intro"), (1, "Setup"), (2, "Linux"), (0, "apt install")]
    )
    ex = extract(data, "docx")
    chunks = chunk(ex)
    check_spans(ex, chunks, 1000, 100)
    assert [c.key for c in chunks] == ["Guide#0", "Setup#0", "Setup > Linux#0"]
    assert chunks[2].text == "## Linux\n\napt install"


word = st.sampled_from(["alpha", "beta", "é", "中文", "x" * 40, "go"])
words = st.lists(word, min_size=1, max_size=12).map(" ".join)
fence = words.map(lambda w: f"```\n# {w}\n```")
body = st.lists(st.one_of(words, fence), max_size=4).map("\n\n".join)
sections = st.lists(
    st.tuples(st.integers(min_value=1, max_value=6), st.lists(word, min_size=1, max_size=3), body),
    max_size=8,
)


@PROPERTY
@given(preamble=st.one_of(st.just(""), words), parts=sections, size=sizes())
def test_structured_properties(
    preamble: str, parts: list[tuple[int, list[str], str]], size: tuple[int, int]
) -> None:
    max_chars, overlap = size
    text = preamble + "\n" if preamble else ""
    expected: list[tuple[int, tuple[str, ...]]] = []  # (section start, breadcrumb)
    stack: list[tuple[int, str]] = []
    for level, title_words, section_body in parts:
        title = " ".join(title_words)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        expected.append((len(text), tuple(t for _, t in stack)))
        text += "#" * level + " " + title + "\n" + section_body + "\n"
    ex = md(text)
    chunks = chunk(ex, max_chars=max_chars, overlap=overlap)
    check_spans(ex, chunks, max_chars, overlap)
    assert_covers(text, [(c.char_start, c.char_end) for c in chunks])
    for c in chunks:
        above = [path for start, path in expected if start <= c.char_start]
        assert c.heading_path == (above[-1] if above else ())
        bounds = [s for s, _ in expected if c.char_start < s]
        assert not bounds or c.char_end <= bounds[0]  # never crosses a heading
    assert chunks == chunk(ex, max_chars=max_chars, overlap=overlap)
    if len(chunks) > 3:
        with pytest.raises(TooLarge):
            chunk(ex, max_chars=max_chars, overlap=overlap, max_sections=3)
    else:
        assert chunk(ex, max_chars=max_chars, overlap=overlap, max_sections=3) == chunks


# --- sheets -----------------------------------------------------------------------------


def test_sheet_chunks() -> None:
    rows = [[f"row {i}", i * 10] for i in range(60)]
    data = make_xlsx({"Small": [["a", 1]], "Big": rows, "Gone": [["x"]]}, hidden={"Gone"})
    ex = extract(data, "xlsx")
    chunks = chunk(ex, max_chars=200, overlap=20)
    check_spans(ex, chunks, 200, 20)
    assert chunks[0].key == "sheet:Small#0" and chunks[0].text == "a\t1"
    assert chunks[0].heading_path == ("Small",) and chunks[0].sheet == "Small"
    big = chunks[1:]
    assert [c.key for c in big] == [f"sheet:Big#{i}" for i in range(len(big))]
    assert all(c.sheet == "Big" and c.heading_path == ("Big",) for c in big)
    assert all(c.text.endswith("\n") or c is big[-1] for c in big)  # cut at row ends
    assert big[-1].text.endswith("row 59\t590")


# --- limits and scale -------------------------------------------------------------------


def test_a_large_text_is_cut_whole() -> None:
    # 8 MB of text used to stop at 1000 sections, the last one ending at byte 752,018.
    data = b"".join(b"Sentence number %d is here, with some words. " % i for i in range(180_000))
    assert len(data) > 8_000_000
    ex = extract(data, "txt")
    chunks = chunk(ex)
    assert len(chunks) > 8_000
    assert chunks[-1].byte_end == len(data) and chunks[-1].char_end == len(ex.text)
    assert_covers(ex.text, [(c.char_start, c.char_end) for c in chunks])


def test_too_many_sections_is_refused_never_cut() -> None:
    ex = flat("word " * 2000)
    assert len(chunk(ex, max_chars=100, overlap=10)) > 7
    with pytest.raises(TooLarge, match="more than 7 sections"):
        chunk(ex, max_chars=100, overlap=10, max_sections=7)
    with pytest.raises(TooLarge):
        chunk(ex, max_sections=0)
    assert chunk(flat("  "), max_sections=0) == []
    with pytest.raises(ValueError):
        chunk(ex, max_sections=-1)


def test_more_headings_than_sections_allowed_is_refused_early() -> None:
    data = b"# a\n" * 300_000
    ex = extract(data, "md")  # the title is found without reading every heading
    assert ex.title == "a"
    with pytest.raises(TooLarge, match="more than 250000 headings"):
        chunk(ex)
    assert len(chunk(extract(b"# a\n" * 1000, "md"))) == 1000


def test_a_heading_full_of_spaces_is_quick() -> None:
    # The closing-hashes regex backtracked quadratically: 20,000 spaces took 8 s.
    text = "# a" + " " * 200_000 + "b ##\n\nbody\n# " + "\t " * 100_000 + "#\nend\n"
    t0 = time.perf_counter()
    chunks = chunk(md(text))
    assert time.perf_counter() - t0 < 2
    assert chunks[0].heading_path == ("a" + " " * 200_000 + "b",)
    assert len({c.heading_path for c in chunks}) == 1  # "# <blanks> #" is no heading


def test_megabytes_of_non_ascii_text_are_quick() -> None:
    para = "Ünïcode paragraph with 中文 words and more words to fill a line.\n\n"
    ex = flat(para * 60_000)  # ~4 MB of text
    t0 = time.perf_counter()
    chunks = chunk(ex)
    elapsed = time.perf_counter() - t0
    assert len(chunks) > 4000
    last = chunks[-1]
    assert last.byte_end == len(ex.text.encode()) and last.char_end == len(ex.text)
    assert elapsed < 5, elapsed
