"""``orgbrain history``: an item's versions and the supersession chain through it."""

from __future__ import annotations

from datetime import datetime

import click

from ..model import History, Origin, Superseding
from ..views import HistoryView
from .app import CliState, json_option
from .render import console, echo_json, snippet

__all__ = ["COMMANDS", "history", "history_lines"]


def _at(when: datetime) -> str:
    return when.isoformat(timespec="seconds")


def _said(origin: Origin) -> str:
    run = f", run {origin.run_id}" if origin.run_id else ""
    return f"{origin.actor} via {origin.source}, {_at(origin.at)}{run}"


def _link(link: Superseding) -> str:
    standing = "" if link.old.superseded_by == link.new.id else "; not standing"
    return (
        f"  {link.new.id} ({snippet(link.new.label, 60)}) supersedes "
        f"{link.old.id} ({snippet(link.old.label, 60)})  [{link.reason}; {_said(link.origin)}"
        f"{standing}]"
    )


def history_lines(h: History) -> list[str]:
    """The history as a person reads it: versions newest first, then both chains."""
    item = h.item
    lines = [f"{item.id}  {item.storage_class} · {item.scope} · {snippet(item.label, 80)}"]
    lines.append("versions")
    lines.append(f"  {h.version}  current      written by {_said(item.origin)}")
    for v in h.versions:
        what = v.name or snippet(v.label, 60)
        size = f" · {v.size} bytes" if v.size is not None else ""
        lines.append(
            f"  {v.number}  replaced {_at(v.replaced_at)}  written by {_said(v.origin)}"
            f"  {what}{size}"
        )
        if item.storage_class == "note":
            lines.append(f"       {snippet(v.body, 200)}")
    for title, links in (("supersedes", h.supersedes), ("superseded by", h.superseded_by)):
        if links:
            lines.append(title)
            lines += [_link(link) for link in links]
    if not h.supersedes and not h.superseded_by:
        lines.append("no supersession: it replaced nothing, and nothing replaced it")
    return lines


@click.command()
@click.argument("item_id")
@json_option
@click.pass_obj
def history(state: CliState, item_id: str) -> None:
    """An item's versions (newest first: the same key written again keeps the old one) and
    what it supersedes and what superseded it, both ways, each link with who said so."""
    found = state.brain().history(item_id)
    if state.json:
        echo_json(HistoryView.of(found))
        return
    out = console()
    for line in history_lines(found):
        out.print(line, markup=False, highlight=False)


COMMANDS: tuple[click.Command, ...] = (history,)
