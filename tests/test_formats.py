"""The formats added beside md/txt/pdf/docx/xlsx: rst, csv, json, html and pptx.

Each is read from real bytes through ``detect_format`` and ``extract``, and cut by
``chunk`` with the same invariants as every other format (``check_spans``).
"""

from __future__ import annotations

import json
import time

import pytest

from orgbrain.errors import CorruptFile, OrgBrainError, TooLarge
from orgbrain.ingest import MEDIA_TYPES, chunk, detect_format, extract
from tests.filegen import make_pptx, make_zip
from tests.test_chunk import check_spans

# --- rst --------------------------------------------------------------------------------

RST = """\
=========
 Runbook
=========

How we deploy.

Install
=======

Run the installer.

On Linux
--------

apt install it.

Not a title, the paragraph goes on
---
and on.

    Indented
    ========

Upgrade
=======

Twice a year.
"""


def test_rst_is_raw_text_cut_at_its_section_titles() -> None:
    data = RST.encode()
    assert detect_format(data, "runbook.rst") == "rst"
    ex = extract(data, "rst")
    assert ex.text == RST and ex.text_is_raw and ex.structured
    assert ex.title == "Runbook"
    assert [(h.level, h.title) for h in ex.headings or ()] == [
        (1, "Runbook"),
        (2, "Install"),
        (3, "On Linux"),
        (2, "Upgrade"),
    ]
    chunks = chunk(ex)
    check_spans(ex, chunks, 1000, 100)
    assert [c.heading_path for c in chunks] == [
        ("Runbook",),
        ("Runbook", "Install"),
        ("Runbook", "Install", "On Linux"),
        ("Runbook", "Upgrade"),
    ]
    assert chunks[0].text.startswith("=========\n Runbook")  # the overline opens it
    assert "Not a title" in chunks[2].text and "Indented" in chunks[2].text
    assert "".join(c.text for c in chunks) == RST


def test_rst_without_titles_is_one_flat_stretch() -> None:
    ex = extract(b"Just a paragraph.\n\n----------\n\nAfter a transition.\n", "rst")
    assert ex.headings == () and ex.title is None
    assert [c.heading_path for c in chunk(ex)] == [()]


def test_rst_with_more_titles_than_sections_allowed_is_refused() -> None:
    with pytest.raises(TooLarge, match="rst has more than 250000 headings"):
        extract(b"Title\n-----\n\n" * 250_001, "rst")


# --- csv --------------------------------------------------------------------------------


def test_csv_rows_become_lines_with_the_header_first() -> None:
    data = (
        b'name,team,notes\r\nPriya,billing,"owns it, since 2023"\r\n\r\n,,\r\nLi,"ops\nteam",,\r\n'
    )
    assert detect_format(data, "owners.csv") == "csv"
    ex = extract(data, "csv")
    assert ex.text == "name\tteam\tnotes\nPriya\tbilling\towns it, since 2023\nLi\tops team"
    assert not ex.text_is_raw and not ex.structured and ex.title is None
    check_spans(ex, chunk(ex), 1000, 100)


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_csv_delimiter_is_read_from_the_first_line(sep: str) -> None:
    data = f"a{sep}b{sep}c\n1{sep}2,5{sep}3\n".encode()
    assert extract(data, "csv").text == "a\tb\tc\n1\t2,5\t3"


def test_a_csv_that_does_not_parse_keeps_its_text() -> None:
    data = b'id,blob\n1,"' + b"x" * 200_000 + b'"\n'  # over csv's field size limit
    ex = extract(data, "csv")
    assert ex.text == data.decode() and ex.text_is_raw


def test_a_long_csv_is_cut_at_row_ends() -> None:
    rows = "\n".join(f"row {i},value {i * 7},note {i}" for i in range(400))
    ex = extract(("id,value,note\n" + rows).encode(), "csv")
    chunks = chunk(ex)
    assert len(chunks) > 5
    assert all(c.text.endswith("\n") for c in chunks[:-1])
    assert all(c.char_start == 0 or ex.text[c.char_start - 1] == "\n" for c in chunks)


# --- json -------------------------------------------------------------------------------


def test_json_is_pretty_printed() -> None:
    value = {"owners": [{"name": "Priya", "area": "billing"}], "city": "Zürich", "n": 3}
    data = json.dumps(value, separators=(",", ":")).encode()
    assert detect_format(data, "owners.json") == "json"
    ex = extract(data, "json")
    assert ex.text == json.dumps(value, indent=2, ensure_ascii=False)
    assert '"city": "Zürich"' in ex.text
    assert not ex.text_is_raw and not ex.structured
    check_spans(ex, chunk(ex), 1000, 100)


@pytest.mark.parametrize(
    "data",
    [
        b'{\n  // a comment\n  "a": 1,\n}\n',
        b'{"a": 1}\n{"b": 2}\n',
        b"[" * 100_000 + b"]" * 100_000,  # too deep for the parser
    ],
)
def test_json_that_does_not_parse_keeps_its_text(data: bytes) -> None:
    ex = extract(data, "json")
    assert ex.text == data.decode() and ex.text_is_raw


def test_json_nested_deep_but_parseable() -> None:
    data = b"[" * 900 + b"1" + b"]" * 900
    ex = extract(data, "json")
    assert ex.text.replace(" ", "").replace("\n", "") == data.decode()


# --- html -------------------------------------------------------------------------------

HTML = b"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Team &amp; owners</title>
<style>h1 { color: red }</style><script>var s = "<h1>not text</h1>";</script></head>
<body>
<h1>Billing</h1>
<p>Priya owns <b>billing</b>.<br>Ask her first.</p>
<ul><li>invoices</li><li><p>refunds</p></li></ul>
<table><tr><th>Name</th><th>Team</th></tr>
<tr><td>Priya</td><td>Billing <i>ops</i></td></tr></table>
<noscript>Enable JavaScript</noscript><template><p>template text</p></template>
<h2 class="x">Deploys</h2>
<pre>
# a shell comment
  make deploy
</pre>
<p>a &lt; b &gt; c &copy; 2024 &mdash; 3 < 4</p><!-- a comment <h1>no</h1> -->
<div>## not a heading</div>
</body></html>
"""


def test_html_visible_text_with_headings_as_sections() -> None:
    assert detect_format(HTML, "team.html") == "html"
    assert detect_format(HTML, "team.HTM") == "html"
    ex = extract(HTML, "html")
    assert ex.title == "Team & owners"
    assert ex.text == (
        "# Billing\n\nPriya owns billing.\nAsk her first.\n\n- invoices\n\n- refunds\n\n"
        "Name | Team\nPriya | Billing ops\n\n## Deploys\n\n\\# a shell comment\n  make deploy"
        "\n\na < b > c © 2024 — 3 < 4\n\n\\## not a heading"
    )
    assert ex.structured and not ex.text_is_raw
    chunks = chunk(ex)
    check_spans(ex, chunks, 1000, 100)
    assert [c.heading_path for c in chunks] == [("Billing",), ("Billing", "Deploys")]


def test_html_title_falls_back_to_the_first_heading() -> None:
    assert extract(b"<p>x</p><h3>Deep</h3><h1>Top</h1>", "html").title == "Deep"
    assert extract(b"<p>only text</p>", "html").title is None


@pytest.mark.parametrize(
    "hostile",
    [
        b"<a" * 200_000,
        b"</" * 200_000,
        b"<?" * 200_000,
        b"<!--" + b"<p>x" * 100_000,
        b"<a b='" * 100_000,
        b"<script>" + b"x</" * 100_000,
        b"<script>x" * 100_000,
        b"<title>" * 100_000,
    ],
)
def test_broken_html_is_read_in_linear_time(hostile: bytes) -> None:
    # html.parser took 9 s on 40,000 characters of "<a<a<a...": the tokenizer here is linear.
    t0 = time.perf_counter()
    extract(b"<p>before</p>" + hostile, "html")
    assert time.perf_counter() - t0 < 3


# --- pptx -------------------------------------------------------------------------------


def _deck() -> bytes:
    return make_pptx(
        [
            ("Kickoff", ["Welcome, everyone\n\nBilling moves to Priya"]),
            (None, ["A slide without a title"]),
            ("Draft", ["not ready"]),
            ("Numbers", [[["Quarter", "Revenue"], ["Q1", "10"]]]),
            (None, []),
            ("Wrap-up", ["# hash at the start\nsecond line"]),
        ],
        notes={0: "Say hello first"},
        hidden={2},
        order=[0, 1, 2, 3, 4, 5],
        title="All hands",
    )


def test_pptx_one_section_per_slide_with_slide_numbers() -> None:
    data = _deck()
    assert detect_format(data, "deck.pptx") == "pptx"
    assert detect_format(data, "deck") == "pptx"
    ex = extract(data, "pptx")
    assert ex.title == "All hands"
    assert ex.text == (
        "# Slide 1: Kickoff\n\nWelcome, everyone\nBilling moves to Priya\n\n"
        "Notes: Say hello first\n\n"
        "# Slide 2\n\nA slide without a title\n\n"
        "# Slide 4: Numbers\n\nQuarter | Revenue\nQ1 | 10\n\n"
        "# Slide 6: Wrap-up\n\n\\# hash at the start second line"
    )
    chunks = chunk(ex)
    check_spans(ex, chunks, 1000, 100)
    assert [(c.key, c.page_start, c.page_end) for c in chunks] == [
        ("Slide 1: Kickoff#0", 1, 1),
        ("Slide 2#0", 2, 2),
        ("Slide 4: Numbers#0", 4, 4),
        ("Slide 6: Wrap-up#0", 6, 6),
    ]
    assert "not ready" not in ex.text  # the hidden slide


def test_pptx_follows_the_presentation_order_not_the_part_names() -> None:
    ex = extract(make_pptx([("One", ["a"]), ("Two", ["b"])], order=[1, 0, 1]), "pptx")
    assert ex.text == "# Slide 1: Two\n\nb\n\n# Slide 2: One\n\na"  # listed twice, read once
    assert ex.title == "Two"


def test_pptx_title_of_several_lines() -> None:
    ex = extract(make_pptx([("Quarterly\nresults", ["up"])]), "pptx")
    assert ex.text == "# Slide 1: Quarterly results\n\nup" and ex.title == "Quarterly results"


def test_pptx_damaged_or_not_a_deck() -> None:
    with pytest.raises(CorruptFile, match="pptx"):
        extract(make_zip({"ppt/slides/slide1.xml": b"<p:sld"}), "pptx")
    with pytest.raises(CorruptFile, match="not a readable zip"):
        extract(b"PK\x03\x04 not a zip", "pptx")


def test_pptx_damage_raises_only_orgbrain_errors() -> None:
    from tests.test_extract import _damaged

    for data in _damaged(_deck(), seed=7, n=200):
        for step in (0, 1):
            try:
                if step:
                    extract(data, "pptx")
                else:
                    detect_format(data, "x.pptx")
            except OrgBrainError:
                pass


# --- every format -----------------------------------------------------------------------


def test_every_format_has_its_own_media_type() -> None:
    # The indexer maps an item's media type back to its format.
    assert len(set(MEDIA_TYPES.values())) == len(MEDIA_TYPES)
    assert MEDIA_TYPES["rst"] == "text/x-rst" and MEDIA_TYPES["csv"] == "text/csv"
    assert MEDIA_TYPES["json"] == "application/json" and MEDIA_TYPES["html"] == "text/html"
    assert MEDIA_TYPES["pptx"].endswith("presentationml.presentation")
