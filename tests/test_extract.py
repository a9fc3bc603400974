"""extract: real files in, exact text out; broken, hostile and oversized files refused."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from typing import get_args

import pytest

import orgbrain.ingest
from orgbrain.errors import CorruptFile, OrgBrainError, TooLarge
from orgbrain.ingest import Extracted, FileFormat, Limits, detect_format, extract
from orgbrain.settings import Settings
from tests.filegen import (
    TITLE,
    bad_zip,
    broken_docx,
    broken_xlsx,
    encrypted_pdf,
    garbage_pdf,
    image_only_pdf,
    make_docx,
    make_pdf,
    make_pptx,
    make_xlsx,
    make_zip,
    truncated_pdf,
    with_extract_version,
    with_zip_entries,
    zip_bomb_docx,
    zip_bomb_xlsx,
)

# --- md / txt ---------------------------------------------------------------------------


def test_txt_is_the_raw_bytes() -> None:
    data = "line one\r\nline two\n\nthird · ünïcode\r\n".encode()
    ex = extract(data, "txt")
    assert ex.text.encode() == data  # newlines untouched
    assert ex.text_is_raw
    assert ex.title is None
    assert not ex.structured
    assert ex.page_starts == () and ex.sheets == ()


def test_bom_is_stripped_and_marks_text_as_not_raw() -> None:
    ex = extract(b"\xef\xbb\xbf# Hello\n", "md")
    assert ex.text == "# Hello\n"
    assert not ex.text_is_raw
    assert ex.title == "Hello"


def test_invalid_utf8_names_the_byte() -> None:
    with pytest.raises(CorruptFile, match="not valid UTF-8 at byte 4"):
        extract(b"good\xc3(", "txt")
    with pytest.raises(CorruptFile, match="not valid UTF-8 at byte 5"):
        extract(b"\xef\xbb\xbfab\xff", "md")


def test_empty_is_corrupt() -> None:
    for fmt in get_args(FileFormat):
        with pytest.raises(CorruptFile, match="empty"):
            extract(b"", fmt)


def test_md_title_from_frontmatter_kept_in_text() -> None:
    data = b'---\ntitle: "Quarterly plan"\ntags: [a]\n---\n# Heading one\n\nBody\n'
    ex = extract(data, "md")
    assert ex.title == "Quarterly plan"
    assert ex.text.startswith("---\ntitle:")  # ranges must stay exact
    assert ex.text_is_raw and ex.structured


@pytest.mark.parametrize(
    ("data", "title"),
    [
        (b"---\ntitle: Plain words # a comment\n---\n", "Plain words"),
        (b"---\ntitle: 'It''s quoted'\n---\n", "It's quoted"),
        (b"---\nauthor: x\n---\n\n## Sub\n# First top ##\n", "First top"),
        (b"intro\n```\n# not a heading\n```\n# Real\n", "Real"),
        (b"no headings at all\n", None),
        (b"---\ntitle: >\n  folded\n---\n# Fallback\n", "Fallback"),
    ],
)
def test_md_titles(data: bytes, title: str | None) -> None:
    assert extract(data, "md").title == title


def test_a_text_as_large_as_the_file_cap_is_read() -> None:
    # The default character cap was 20 million, so a 30 MB text file could be added but
    # never indexed. Now it is as large as the default file cap (100 MiB).
    assert Limits().max_text_chars >= Settings().max_file_bytes
    data = b"thirty megabytes of words. " * 1_111_112
    assert len(extract(data, "txt").text) == len(data) > 30_000_000


def test_text_over_the_char_limit() -> None:
    with pytest.raises(TooLarge):
        extract(b"x" * 101, "txt", Limits(max_text_chars=100))
    assert extract(b"x" * 100, "txt", Limits(max_text_chars=100)).text == "x" * 100


# --- pdf --------------------------------------------------------------------------------


def test_pdf_pages_joined_with_page_starts() -> None:
    data = make_pdf(["First page café", "", "Third page"], title="Report 2024")
    ex = extract(data, "pdf")
    assert ex.title == "Report 2024"
    assert not ex.text_is_raw and not ex.structured
    assert len(ex.page_starts) == 3 and ex.page_starts[0] == 0
    pages = [
        ex.text[a:b].removesuffix("\n\n")
        for a, b in zip(ex.page_starts, [*ex.page_starts[1:], len(ex.text)], strict=True)
    ]
    assert pages == ["First page café", "", "Third page"]
    assert "\r" not in ex.text


def test_pdf_without_title_metadata() -> None:
    assert extract(make_pdf(["x"]), "pdf").title is None


def test_pdf_unicode_text() -> None:
    ex = extract(make_pdf(["Ελληνικά και ρωσικά: привет"]), "pdf")
    assert ex.text == "Ελληνικά και ρωσικά: привет"


def test_pdf_encrypted() -> None:
    with pytest.raises(CorruptFile, match="encrypted"):
        extract(encrypted_pdf(), "pdf")


def test_pdf_with_only_an_owner_password_reads() -> None:
    ex = extract(make_pdf(["open to all"], user_password=""), "pdf")
    assert ex.text == "open to all"


@pytest.mark.parametrize("maker", [truncated_pdf, garbage_pdf, lambda: b"%PDF-1.4\n"])
def test_pdf_damaged(maker: object) -> None:
    with pytest.raises(CorruptFile, match="pdf"):
        extract(maker(), "pdf")  # type: ignore[operator]


def test_pdf_without_text_layer() -> None:
    with pytest.raises(CorruptFile, match=r"no text layer \(scanned\?\)"):
        extract(image_only_pdf(), "pdf")


def test_pdf_over_the_char_limit() -> None:
    with pytest.raises(TooLarge):
        extract(make_pdf(["a" * 80, "b" * 80]), "pdf", Limits(max_text_chars=100))


def test_pdf_from_threads() -> None:
    data = make_pdf(["threaded page"] * 3)
    results: list[str] = []

    def work() -> None:
        results.append(extract(data, "pdf").text)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and len(results) == 6


# --- docx -------------------------------------------------------------------------------


def test_docx_renders_headings_paragraphs_and_tables() -> None:
    data = make_docx(
        [
            (TITLE, "Handbook"),
            (0, "Welcome."),
            (1, "Leave"),
            (0, "Ask your lead."),
            (2, "Sick leave"),
            [["Kind", "Days"], ["sick", "10"]],
            (0, ""),
            (3, "Notes"),
        ],
        title="Staff handbook",
    )
    ex = extract(data, "docx")
    assert ex.text == (
        "# Handbook\n\nWelcome.\n\n# Leave\n\nAsk your lead.\n\n## Sick leave\n\n"
        "Kind | Days\nsick | 10\n\n### Notes"
    )
    assert ex.title == "Staff handbook"
    assert ex.structured and not ex.text_is_raw


def test_docx_title_falls_back_to_first_heading() -> None:
    assert extract(make_docx([(0, "x"), (2, "Deep first"), (1, "Top")]), "docx").title == (
        "Deep first"
    )
    assert extract(make_docx([(0, "only text")]), "docx").title is None


def test_docx_plain_text_that_looks_like_markdown_is_escaped() -> None:
    ex = extract(make_docx([(0, "# not a heading"), (0, "```"), (1, "Real")]), "docx")
    assert ex.text == "\\# not a heading\n\n\\```\n\n# Real"
    ex = extract(make_docx([(0, "---"), (0, "x"), (0, "---")]), "docx")
    assert not ex.text.startswith("---")


def test_docx_merged_cells_appear_once() -> None:
    import io

    import docx

    document = docx.Document()
    table = document.add_table(rows=2, cols=3)
    table.cell(0, 0).merge(table.cell(0, 2)).text = "wide"
    table.cell(1, 0).text = "a"
    table.cell(1, 2).text = "c"
    out = io.BytesIO()
    document.save(out)
    assert extract(out.getvalue(), "docx").text == "wide\na |  | c"


def test_docx_empty_document_has_empty_text() -> None:
    ex = extract(make_docx([]), "docx")
    assert ex.text == "" and ex.title is None


@pytest.mark.parametrize("fmt", ["docx", "xlsx"])
def test_office_bad_zip(fmt: str) -> None:
    with pytest.raises(CorruptFile, match=f"{fmt} is not a readable zip"):
        extract(bad_zip(), fmt)  # type: ignore[arg-type]


@pytest.mark.parametrize(("maker", "fmt"), [(broken_docx, "docx"), (broken_xlsx, "xlsx")])
def test_office_library_errors_are_wrapped(maker: object, fmt: str) -> None:
    with pytest.raises(CorruptFile, match=f"{fmt} cannot be read"):
        extract(maker(), fmt)  # type: ignore[operator,arg-type]


def test_a_pdf_read_as_docx_is_corrupt() -> None:
    with pytest.raises(CorruptFile, match="docx"):
        extract(make_pdf(["x"]), "docx")


@pytest.mark.parametrize(("maker", "fmt"), [(zip_bomb_docx, "docx"), (zip_bomb_xlsx, "xlsx")])
def test_zip_bomb_ratio(maker: object, fmt: str) -> None:
    with pytest.raises(TooLarge, match="zip bomb"):
        extract(maker(), fmt)  # type: ignore[operator,arg-type]


def test_zip_total_size_and_entry_count() -> None:
    data = make_docx([(0, "hello")])
    with pytest.raises(TooLarge, match="would expand to"):
        extract(data, "docx", Limits(max_uncompressed_bytes=1000))
    many = with_zip_entries(data, {f"word/media/{i}.bin": b"x" for i in range(30)})
    with pytest.raises(TooLarge, match="zip entries"):
        extract(many, "docx", Limits(max_entries=20))
    assert extract(many, "docx").text == "hello"


def test_small_compressible_entries_are_fine() -> None:
    # The ratio rule only applies to entries over 1 MiB: small XML compresses well too.
    data = with_zip_entries(make_docx([(0, "ok")]), {"word/media/zeros.bin": bytes(900_000)})
    assert extract(data, "docx").text == "ok"


def test_docx_over_the_char_limit() -> None:
    data = make_docx([(0, "a" * 60), (0, "b" * 60)])
    with pytest.raises(TooLarge):
        extract(data, "docx", Limits(max_text_chars=100))


# --- xlsx -------------------------------------------------------------------------------


def test_xlsx_visible_sheets_rows_and_ranges() -> None:
    import datetime

    data = make_xlsx(
        {
            "Budget": [
                ["item", "cost", "paid"],
                ["rent", 1200, True],
                [None, None, None],
                ["tea", 2.5, False, None, None],
                ["day", datetime.date(2024, 3, 1), datetime.datetime(2024, 3, 1, 9, 30)],
            ],
            "Secret": [["salary", 99]],
            "Deep": [["hidden deeper"]],
            "Empty": [],
            "Notes": [["multi\nline\tcell"]],
        },
        hidden={"Secret"},
        very_hidden={"Deep"},
        title="Money",
    )
    ex = extract(data, "xlsx")
    budget = (
        "item\tcost\tpaid\nrent\t1200\tTRUE\ntea\t2.5\tFALSE\nday\t2024-03-01\t2024-03-01T09:30:00"
    )
    assert ex.text == budget + "\n\nmulti line cell"
    assert [name for name, _, _ in ex.sheets] == ["Budget", "Notes"]
    for name, start, end in ex.sheets:
        assert ex.text[start:end] == (budget if name == "Budget" else "multi line cell")
    assert "salary" not in ex.text and "hidden deeper" not in ex.text
    assert ex.title == "Money"
    assert ex.structured and not ex.text_is_raw


def test_xlsx_uncached_formula_falls_back_to_its_text() -> None:
    ex = extract(make_xlsx({"S": [[1, 2, "=SUM(A1:B1)"]]}), "xlsx")
    assert ex.text == "1\t2\t=SUM(A1:B1)"


def test_xlsx_only_hidden_content_gives_no_text() -> None:
    # openpyxl insists on one visible sheet; an empty one yields no block.
    ex = extract(make_xlsx({"A": [["x"]], "B": [[None, ""]]}, hidden={"A"}), "xlsx")
    assert ex.text == "" and ex.sheets == ()


def test_xlsx_over_the_char_limit() -> None:
    data = make_xlsx({"S": [["a" * 60], ["b" * 60]]})
    with pytest.raises(TooLarge):
        extract(data, "xlsx", Limits(max_text_chars=100))


# --- damage -----------------------------------------------------------------------------


def _damaged(data: bytes, seed: int, n: int) -> Iterator[bytes]:
    """``n`` variants of ``data``: 1-4 bits flipped, half of them in the last quarter (a
    zip's central directory, a PDF's cross-reference table), some also cut short."""
    rng = random.Random(seed)
    for i in range(n):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            lo = len(b) * 3 // 4 if i % 2 else 0
            b[rng.randrange(lo, len(b))] ^= 1 << rng.randrange(8)
        if i % 10 == 9:
            del b[rng.randrange(len(b) // 2, len(b)) :]
        yield bytes(b)


@pytest.mark.parametrize(
    ("fmt", "maker"),
    [
        (
            "docx",
            lambda: make_docx([(1, "Plan"), (0, "body text " * 30), [["a", "b"], ["c", "d"]]]),
        ),
        ("xlsx", lambda: make_xlsx({"S": [["a", 1, "=SUM(B1:B1)"]] * 30, "T": [["x"]]})),
        ("pdf", lambda: make_pdf(["hello world " * 40, "page two"], title="T")),
    ],
)
def test_damaged_files_raise_only_orgbrain_errors(
    fmt: FileFormat, maker: Callable[[], bytes]
) -> None:
    # Bit-flipped docx/xlsx raised NotImplementedError ("zip file version 14.8") and
    # zlib.error ("Error -3 while decompressing data") from detect_format and extract.
    escaped: list[str] = []
    for n, data in enumerate(_damaged(maker(), seed=12, n=200)):
        for step in ("detect_format", "extract"):
            try:
                if step == "detect_format":
                    detect_format(data, f"x.{fmt}")
                else:
                    extract(data, fmt)
            except OrgBrainError as exc:
                assert exc.message
                assert exc.code in ("corrupt_file", "unsupported_format", "too_large")
            except Exception as exc:
                escaped.append(f"{step} on variant {n}: {type(exc).__name__}: {exc}")
    assert not escaped, escaped[:5]


def test_a_zip_entry_needing_an_unknown_zip_version_is_corrupt() -> None:
    types = (
        b'<Types><Override PartName="/word/main.xml" ContentType="application/'
        b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    data = make_zip({"[Content_Types].xml": types, "word/main.xml": b"<w:document/>"})
    damaged = with_extract_version(data, "[Content_Types].xml", 186)
    with pytest.raises(CorruptFile, match=r"damaged zip container .*zip file version 18\.6"):
        detect_format(damaged, "x.docx")
    xlsx = with_extract_version(make_xlsx({"S": [["=A2"]]}), "xl/worksheets/sheet1.xml", 186)
    with pytest.raises(CorruptFile, match=r"xlsx is not a readable zip .*version 18\.6"):
        extract(xlsx, "xlsx")


# --- the whole path ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("a.md", b"# T\n\nx\n"),
        ("a.txt", b"plain"),
        ("a.pdf", make_pdf(["p"])),
        ("a.docx", make_docx([(0, "d")])),
        ("a.xlsx", make_xlsx({"S": [["c"]]})),
        ("a.pptx", make_pptx([("Slide", ["text"])])),
        ("a.rst", b"Title\n=====\n\nx\n"),
        ("a.csv", b"a,b\n1,2\n"),
        ("a.json", b'{"a": 1}'),
        ("a.html", b"<h1>T</h1><p>x</p>"),
        ("README.Debian", b"plain text"),
    ],
)
def test_sniff_then_extract(name: str, data: bytes) -> None:
    ex = extract(data, detect_format(data, name))
    assert isinstance(ex, Extracted) and ex.text.strip()


def test_package_exports_sorted_and_complete() -> None:
    names = orgbrain.ingest.__all__
    upper = [n for n in names if n.isupper()]
    assert names == sorted(upper) + sorted(
        [n for n in names if not n.isupper() and n[0].isupper()]
    ) + sorted([n for n in names if n[0].islower()])
    for name in names:
        assert getattr(orgbrain.ingest, name) is not None
    public = {"Chunk", "Extracted", "Limits", "chunk", "detect_format", "extract"}
    assert public <= set(names)
