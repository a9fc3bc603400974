"""A passage's Markdown as a reader sees it: escaped first, a few marks shown."""

from __future__ import annotations

from orgbrain.server.ui.markup import light_markdown


def test_headings_emphasis_code_and_bullets_are_shown_not_spelled_out() -> None:
    text = (
        "# Billing\n\nThe **billing service** is *owned* by Priya.\n\n"
        "## Refunds ##\n- over `500 EUR`\n* need finance\n"
    )
    assert light_markdown(text) == (
        '<strong class="md-h">Billing</strong>\n\nThe <strong>billing service</strong> is '
        "<em>owned</em> by Priya.\n\n"
        '<strong class="md-h">Refunds</strong>\n• over <code>500 EUR</code>\n• need finance\n'
    )


def test_a_document_never_brings_its_own_html() -> None:
    text = '<script>alert(1)</script> <img src=x onerror="alert(2)"> **<b>bold</b>**'
    html = str(light_markdown(text))
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert html.startswith("&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=")
    assert html.endswith("<strong>&lt;b&gt;bold&lt;/b&gt;</strong>")


def test_links_are_their_text_and_code_is_left_as_written() -> None:
    text = "See [the ADR](javascript:alert(1)) and ![a chart](c.png); `**not bold**` stays"
    assert light_markdown(text) == ("See the ADR and a chart; <code>**not bold**</code> stays")


def test_identifiers_and_arithmetic_keep_their_marks() -> None:
    text = "billing_pg_flag and 2 * 3 * 4 and snake_case_name\n---\nnext"
    assert light_markdown(text) == "billing_pg_flag and 2 * 3 * 4 and snake_case_name\n\nnext"
