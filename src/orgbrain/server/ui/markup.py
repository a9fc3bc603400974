"""A passage's Markdown shown as a reader sees it, never as HTML from the document.

The text is escaped first, whole; only then are a few marks turned into our own tags:
headings (bold, the ``#`` dropped), ``**strong**``, ``*emphasis*``, ``` `code` ```, list
bullets, and links, which become their text (a document's URL is never made clickable).
Raw HTML in a document stays visible text. Lines stay lines (the page keeps whitespace),
so a passage cut mid-document still lines up with its context before and after.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

__all__ = ["light_markdown"]

_HEADING = re.compile(r"^( {0,3})#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.MULTILINE)
_BULLET = re.compile(r"^([ \t]*)[-*+][ \t]+", re.MULTILINE)
_RULE = re.compile(r"^ {0,3}(?:[-*_][ \t]*){3,}$", re.MULTILINE)
_CODE = re.compile(r"`([^`\n]+)`")
# Images first: their text is what a reader would see in place of the picture.
_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)([^\n]*?\S)\1")
# A single `_` is left alone: identifiers like billing_pg are full of them.
_EM = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])")


def light_markdown(text: str) -> Markup:
    """``text`` escaped, with its few Markdown marks shown as emphasis, code and bullets."""
    html = str(escape(text.replace("\x00", "")))  # NUL marks the set-aside code below
    codes: list[str] = []

    def keep_code(m: re.Match[str]) -> str:
        # Code is set aside so that no other mark is read inside it.
        codes.append(m.group(1))
        return f"\x00{len(codes) - 1}\x00"

    html = _CODE.sub(keep_code, html)
    html = _RULE.sub("", html)
    html = _HEADING.sub(r'\1<strong class="md-h">\2</strong>', html)
    html = _BULLET.sub("\\1• ", html)
    html = _LINK.sub(r"\1", html)
    html = _STRONG.sub(r"<strong>\2</strong>", html)
    html = _EM.sub(r"<em>\1</em>", html)
    html = re.sub("\x00(\\d+)\x00", lambda m: f"<code>{codes[int(m.group(1))]}</code>", html)
    return Markup(html)
