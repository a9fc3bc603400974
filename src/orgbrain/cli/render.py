"""How the CLI shows things: rich tables and panels for people, JSON for programs.

``--json`` prints views (``orgbrain.views``), the shapes HTTP, MCP and the client use, and
the plain dicts and lists a command wraps around them; a model dataclass has no JSON shape
of its own here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from pathlib import PurePath
from typing import Any

import click
from pydantic import BaseModel
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..model import Hit, IndexReport, Item, SearchResult
from ..views import ErrorView, ItemView
from ..views import match_reason as match_reason_of

__all__ = [
    "JSON_PRINTED",
    "console",
    "echo_error_json",
    "echo_json",
    "errors_below",
    "id_column",
    "item_panel",
    "items_table",
    "listing_table",
    "plural",
    "report_line",
    "search_text",
    "sections_table",
    "snippet",
    "to_json",
]

SNIPPET_CHARS = 240
BODY_CHARS = 2000
JSON_PRINTED = "orgbrain.json_printed"
"""Set in the click context's meta once a command printed its JSON result."""


def to_json(obj: object) -> Any:
    """Plain JSON data for a view, or for plain data holding views."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, datetime | date):
        return obj.isoformat()
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, str | int | bool):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_json(v) for v in obj]
    raise TypeError(f"cannot show a {type(obj).__name__} as JSON: build its view")


def echo_json(obj: object) -> None:
    click.echo(json.dumps(to_json(obj), indent=2, ensure_ascii=False))
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[JSON_PRINTED] = True


def echo_error_json(error: ErrorView) -> None:
    """A failed command's ``{"error": {code, message}}`` on stdout, unless the command
    already printed its result there (``add`` and ``index`` list each file's error in it):
    stdout then holds one JSON document either way."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get(JSON_PRINTED):
        return
    echo_json({"error": error})


def console() -> Console:
    # Built per call so it writes to whatever stdout is now (click's test runner swaps it).
    return Console(highlight=False, soft_wrap=True)


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def plural(n: int, word: str) -> str:
    """``1 section``, ``2 sections``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def listing_table(title: str | None = None) -> Table:
    """A table without box lines: at 80 columns the lines took a fifth of the width and
    folded 23-character ids over two or three lines."""
    return Table(title=title, box=None, pad_edge=False, header_style="bold")


def id_column(table: Table, ids: Iterable[str], name: str = "id") -> None:
    table.add_column(name, no_wrap=True, min_width=max((len(i) for i in ids), default=2))


def items_table(items: Sequence[Item], title: str | None = None) -> Group:
    """Items one a line; a failed file's error under the table (a column of its own
    squeezed the labels to a few letters a line)."""
    table = listing_table(title)
    id_column(table, (i.id for i in items))
    for name in ("class", "kind", "label", "indexed", "scope"):
        table.add_column(name, overflow="fold")
    for i in items:
        name = i.label if not i.name or i.name == i.label else f"{i.label} ({i.name})"
        # The label is cut to its column, not folded: a label over three lines hid which
        # row was which (a no_wrap column would take the whole width from the others).
        label = Text(name, no_wrap=True, overflow="ellipsis")
        row = [Text(c) for c in (i.id, i.storage_class, i.kind)]
        table.add_row(*row, label, Text(yes_no(i.indexed)), Text(i.scope))
    return Group(table, *errors_below((i.id, i.index_error) for i in items))


def errors_below(errors: Iterable[tuple[str, str | None]]) -> list[Text]:
    """``error: <id> <message>`` lines for the rows of a table that failed."""
    return [Text(f"error: {i}  {e}", style="red") for i, e in errors if e]


def _locator_text(item: Item) -> str:
    loc = item.locator
    parts = []
    if loc.page_start is not None:
        same = loc.page_end in (None, loc.page_start)
        parts.append(f"p. {loc.page_start}" if same else f"pp. {loc.page_start}-{loc.page_end}")
    if loc.sheet:
        parts.append(f"sheet {loc.sheet}")
    return ", ".join(parts)


def sections_table(sections: Sequence[Item]) -> Table:
    table = listing_table("sections")
    table.add_column("#", justify="right")
    id_column(table, (s.id for s in sections))
    table.add_column("label", overflow="fold")
    table.add_column("bytes", no_wrap=True)
    table.add_column("pages/sheet", overflow="fold")
    for n, s in enumerate(sections, start=1):
        rng = f"[{s.byte_range.start}, {s.byte_range.end})" if s.byte_range else ""
        table.add_row(str(n), s.id, Text(s.label), rng, Text(_locator_text(s)))
    return table


def item_panel(item: Item) -> Table:
    """Every field of an item that has a value, one per row."""
    table = Table(show_header=False, box=None, title=f"{item.storage_class} {item.id}")
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    data = ItemView.of(item).model_dump(mode="json")
    body = str(data.pop("body", "")).rstrip()
    for key, value in data.items():
        if key == "indexed":
            value = yes_no(bool(value))
        elif isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items() if v not in (None, "", []))
        if value not in (None, "", []):
            table.add_row(key, Text(str(value)))
    if body:
        cut = body if len(body) <= BODY_CHARS else body[: BODY_CHARS - 1] + "…"
        table.add_row("body", Text(cut))
    return table


def report_line(report: IndexReport) -> Text:
    label = "" if report.label == report.item_id else f"  {report.label}"
    if report.ok:
        return Text(f"indexed  {report.item_id}{label}  ({plural(report.sections, 'section')})")
    return Text(f"failed   {report.item_id}{label}: {report.error}")


def search_text(result: SearchResult) -> list[Text]:
    """Why the brain answered or not, then the hits by rank, each with why in plain words;
    scores and the gate's reasoning stay in ``--json`` (a score such as 0.0325 means
    nothing to a person)."""
    if not result.hits:
        return [Text(why_text(result))]
    lines: list[Text] = [Text(why_text(result), style="dim")]
    if result.mode == "as_of" and result.as_of is not None:
        lines.append(Text(f"as the brain believed on {result.as_of:%Y-%m-%d}", style="dim"))
    if result.window:
        lines.append(Text(f"read as {result.window}", style="dim"))
    if result.verdict == "conflict":
        lines.append(Text("the best answers disagree: both are shown", style="yellow"))
    for n, hit in enumerate(result.hits, start=1):
        label = hit.item.label
        lines.append(Text(f"{n}. {label}  [{hit.item.id}]  ({match_reason(hit)})", style="bold"))
        # A note's label, citation and first line are often one text: say it once.
        cited, body = hit.citation.describe(), snippet(hit.item.body)
        lines += [Text(f"   {line}") for line in dict.fromkeys((cited, body)) if line != label]
        if hit.superseded_by is not None:
            lines.append(
                Text(
                    f"   superseded by: {hit.superseded_by.describe()}  "
                    f"[{hit.superseded_by.item_id}]",
                    style="yellow",
                )
            )
        if hit.newer_answer is not None:
            newer = hit.newer_answer
            lines.append(
                Text(
                    f"   {newer.describe(hit.item.when)}  [{newer.citation.item_id}]",
                    style="yellow",
                )
            )
        if hit.supersedes is not None:
            lines.append(
                Text(
                    f"   replaces: {hit.supersedes.describe()}  [{hit.supersedes.item_id}]",
                    style="dim",
                )
            )
        lines += [
            Text(
                f"   in part superseded: {r.describe()}, by {r.citation.describe()}  "
                f"[{r.citation.item_id}]",
                style="yellow",
            )
            for r in hit.replaced_in_part
        ]
        lines += [
            Text(
                f"   replaces: {r.describe()}, from {r.citation.describe()}  "
                f"[{r.citation.item_id}]",
                style="dim",
            )
            for r in hit.replaces_in_part
        ]
        if hit.conflicts:
            lines.append(Text(f"   disagrees with: {', '.join(hit.conflicts)}", style="yellow"))
    return lines


def match_reason(hit: Hit) -> str:
    """Why a hit was found: its words, its meaning, or both."""
    return match_reason_of(hit.ranks)


def why_text(result: SearchResult) -> str:
    """Why the brain answered or stayed silent, in words (``SearchResult.why``; the
    technical reason from a server that does not send one)."""
    return result.why or result.reason
