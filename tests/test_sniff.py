"""detect_format: the content decides, the name must agree, refusals say why."""

from __future__ import annotations

from typing import get_args

import pytest

from orgbrain.errors import CorruptFile, InvalidInput, Unsupported
from orgbrain.ingest import MEDIA_TYPES, FileFormat, detect_format
from tests.filegen import (
    bad_zip,
    fake_pptx,
    make_docx,
    make_pdf,
    make_xlsx,
    make_zip,
    ole_file,
    truncated_pdf,
    zip_bomb_docx,
)


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return make_pdf(["hello"])


@pytest.fixture(scope="module")
def docx() -> bytes:
    return make_docx([(1, "Title"), (0, "body")])


@pytest.fixture(scope="module")
def xlsx() -> bytes:
    return make_xlsx({"S": [["a", 1]]})


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("notes.md", "md"),
        ("notes.MARKDOWN", "md"),
        ("notes.txt", "txt"),
        ("dir/notes.text", "txt"),
        ("README", "txt"),
        ("C:\\docs\\plan.Md", "md"),
        ("guide.rst", "rst"),
        ("owners.csv", "csv"),
        ("owners.JSON", "json"),
        ("page.html", "html"),
        ("page.htm", "html"),
    ],
)
def test_text_formats_by_extension(name: str, fmt: str) -> None:
    assert detect_format("# héllo\n\nworld\n".encode(), name) == fmt


def test_binary_formats(pdf: bytes, docx: bytes, xlsx: bytes) -> None:
    assert detect_format(pdf, "a.pdf") == "pdf"
    assert detect_format(pdf, "A.PDF") == "pdf"
    assert detect_format(docx, "a.docx") == "docx"
    assert detect_format(xlsx, "a.xlsx") == "xlsx"


def test_no_extension_goes_by_content(pdf: bytes, docx: bytes, xlsx: bytes) -> None:
    assert detect_format(pdf, "upload") == "pdf"
    assert detect_format(docx, "upload") == "docx"
    assert detect_format(xlsx, ".hidden") == "xlsx"
    with pytest.raises(Unsupported, match="no extension"):
        detect_format(b"\x00\x01\x02", "blob")


def test_pdf_with_junk_before_header_when_named_pdf(pdf: bytes) -> None:
    assert detect_format(b"\r\n junk \r\n" + pdf, "x.pdf") == "pdf"


def test_truncated_pdf_is_still_a_pdf_here() -> None:
    # Sniffing is cheap by design: damage is found by extraction, not here.
    assert detect_format(truncated_pdf(), "x.pdf") == "pdf"


def test_docx_by_content_types_when_part_names_are_unusual() -> None:
    types = (
        b'<Types><Override PartName="/word/main.xml" ContentType="application/'
        b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    )
    data = make_zip({"[Content_Types].xml": types, "word/main.xml": b"<w:document/>"})
    assert detect_format(data, "odd.docx") == "docx"


def test_empty_is_corrupt() -> None:
    with pytest.raises(CorruptFile, match=r"'e\.md' is empty"):
        detect_format(b"", "e.md")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("photo.png", "an image format"),
        ("old.doc", "legacy Word"),
        ("old.xls", "legacy Excel"),
        ("deck.ppt", "legacy PowerPoint"),
        ("archive.zip", "an archive format"),
        ("logo.svg", "an image format"),
    ],
)
def test_extensions_of_things_we_cannot_read_are_refused_even_as_text(
    name: str, words: str
) -> None:
    with pytest.raises(Unsupported, match=words) as info:
        detect_format(b"whatever", name)
    assert repr(name) in str(info.value)
    assert "it looks like UTF-8 text" in str(info.value)
    assert ".docx" in str(info.value)  # says what is supported


@pytest.mark.parametrize(
    "name", ["README.Debian", "notes.org", "setup.cfg", "CHANGES.v2", "data.jsonl", "x.tsv"]
)
def test_utf8_text_under_an_unknown_extension_is_plain_text(name: str) -> None:
    # These were refused ("the .debian format is not supported") although they are text.
    assert detect_format("Paquet: orgbrain\nVersion: 1.0 — ünïcode\n".encode(), name) == "txt"


def test_an_unknown_extension_goes_by_content(pdf: bytes, docx: bytes) -> None:
    assert detect_format(pdf, "report.final") == "pdf"
    assert detect_format(docx, "letter.dotx") == "docx"
    with pytest.raises(
        Unsupported,
        match=r"named \.bin, which is not a format we know, and "
        r"looks like binary data \(it contains NUL bytes\)",
    ) as info:
        detect_format(b"\x00\x01\x02", "blob.bin")
    assert ".docx" in str(info.value)
    with pytest.raises(Unsupported, match="a zip archive"):
        detect_format(make_zip({"a.txt": b"hi"}), "bundle.epub")


def test_legacy_doc_content_is_described() -> None:
    with pytest.raises(Unsupported, match="OLE"):
        detect_format(ole_file(), "report.doc")
    with pytest.raises(Unsupported, match=r"named \.docx but looks like a legacy or password"):
        detect_format(ole_file(), "report.docx")


@pytest.mark.parametrize(
    ("maker", "name", "looks"),
    [
        ("zip", "x.pdf", "a zip archive"),
        ("pdf", "x.txt", "a PDF document"),
        ("pdf", "x.md", "a PDF document"),
        ("docx", "x.xlsx", "a Word document"),
        ("xlsx", "x.docx", "an Excel workbook"),
        ("pptx", "x.docx", "a PowerPoint presentation"),
        ("docx", "x.pdf", "a Word document"),
        ("text", "x.pdf", "UTF-8 text"),
        ("text", "x.docx", "UTF-8 text"),
        ("text", "x.pptx", "UTF-8 text"),
        ("pdf", "x.html", "a PDF document"),
        ("docx", "x.csv", "a Word document"),
        ("pptx", "x.xlsx", "a PowerPoint presentation"),
    ],
)
def test_name_and_content_disagree(
    maker: str, name: str, looks: str, pdf: bytes, docx: bytes, xlsx: bytes
) -> None:
    data = {
        "zip": make_zip({"a.txt": b"hi"}),
        "pdf": pdf,
        "docx": docx,
        "xlsx": xlsx,
        "pptx": fake_pptx(),
        "text": b"just some words",
    }[maker]
    with pytest.raises(Unsupported, match=looks) as info:
        detect_format(data, name)
    assert repr(name) in str(info.value)


def test_binary_named_as_text() -> None:
    with pytest.raises(Unsupported, match="NUL"):
        detect_format(b"abc\x00def", "x.txt")
    with pytest.raises(Unsupported, match="not valid UTF-8 at byte 3"):
        detect_format(b"abc\xff\xfe", "x.md")
    with pytest.raises(Unsupported, match="PNG"):
        detect_format(b"\x89PNG\r\n\x1a\n....", "x.md")
    for name in ("x.rst", "x.csv", "x.json", "x.html"):
        with pytest.raises(Unsupported, match="NUL"):
            detect_format(b"abc\x00def", name)


def test_damaged_zip_named_as_office_is_corrupt() -> None:
    with pytest.raises(CorruptFile, match="damaged zip"):
        detect_format(bad_zip(), "x.docx")
    with pytest.raises(CorruptFile, match="damaged zip"):
        detect_format(bad_zip(), "x.pptx")
    with pytest.raises(Unsupported, match="damaged zip"):
        detect_format(bad_zip(), "x.pdf")


def test_sniffing_a_zip_bomb_does_not_inflate_it() -> None:
    # Only the central directory is read; the bomb is refused later, by extract.
    assert detect_format(zip_bomb_docx(), "b.docx") == "docx"


def test_errors_are_input_errors() -> None:
    assert issubclass(Unsupported, InvalidInput)
    assert issubclass(CorruptFile, InvalidInput)


def test_media_types_cover_every_format() -> None:
    assert set(MEDIA_TYPES) == set(get_args(FileFormat))
    assert len(set(MEDIA_TYPES.values())) == len(MEDIA_TYPES)  # the indexer maps them back
    assert MEDIA_TYPES["md"] == "text/markdown"
    assert MEDIA_TYPES["pdf"] == "application/pdf"
