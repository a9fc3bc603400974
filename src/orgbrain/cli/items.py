"""``init``, ``note``, ``items``, ``show`` and ``read``: writing facts and looking at items."""

from __future__ import annotations

import base64
import contextlib
import os
import sys
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import click

from .. import compose
from ..errors import InvalidInput
from ..model import STORAGE_CLASSES, StorageClass
from ..views import ForgottenView, ItemPage, ItemView
from .app import CliState, json_option
from .options import report_derivation, resolve_wait, wait_options, write_options
from .render import console, echo_json, item_panel, items_table, plural, sections_table

__all__ = ["COMMANDS", "init", "items", "note", "read", "show"]


DEFAULT_CLASSES: tuple[StorageClass, ...] = ("file", "note")
"""What `orgbrain items` lists unless told otherwise."""


@click.command()
@json_option
@click.pass_obj
def init(state: CliState) -> None:
    """Create the brain folder (or open the one there); safe to run again."""
    brain = state.brain(create=True)
    store = state.settings.store
    where = state.settings.brain.resolve() if store is None else compose.describe_store(store)
    if state.json:
        echo_json({"brain": where, "workspace": brain.workspace, "counts": brain.counts()})
    else:
        click.echo(f"brain ready at {where} (workspace {brain.workspace})")


@click.command()
@click.argument("text", nargs=-1, required=True)
@click.option("--kind", default="note", show_default=True, help="Free-text kind, e.g. policy.")
@click.option("--label", help="A short label (default: the first line).")
@click.option("--scope", help="org (default), team:<id> or user:<id>.")
@click.option(
    "--source-key",
    help="Identity: the same key again makes a new version (the old one stays in history).",
)
@write_options
@wait_options
@json_option
@click.pass_obj
def note(
    state: CliState,
    text: tuple[str, ...],
    kind: str,
    label: str | None,
    scope: str | None,
    source_key: str | None,
    occurred_at: datetime | None,
    supersedes: tuple[str, ...],
    wait: str | None,
    no_wait: bool,
) -> None:
    """Write a fact straight in, answerable at once. TEXT "-" reads it from stdin.

    By default it returns once its derivation is done too (an embedded brain has no
    background worker): --no-wait returns once it is written."""
    waiting = resolve_wait(wait, no_wait, "derived")
    body = sys.stdin.read() if text == ("-",) else " ".join(text)
    brain = state.brain()
    item = brain.add_note(
        body,
        kind=kind,
        label=label,
        scope=scope,
        source_key=source_key,
        occurred_at=occurred_at,
        supersedes=supersedes,
        source="cli",
    )
    if waiting == "derived":
        report_derivation(brain, [item], item.id)
        item = brain.get(item.id)
    if state.json:
        echo_json(ItemView.of(item))
    else:
        click.echo(item.id)


@click.command()
@click.option("--pending", is_flag=True, help="Only files added but not yet indexed.")
@click.option("--kind", help="Only items of this kind.")
@click.option(
    "--class",
    "storage_class",
    type=click.Choice(STORAGE_CLASSES),
    help="Only this class (default: files and notes).",
)
@click.option("--all", "every", is_flag=True, help="Every class: sections and entities too.")
@click.option("--name", help="Only files whose name contains this.")
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--cursor", help="Continue a listing from where the last page ended.")
@json_option
@click.pass_obj
def items(
    state: CliState,
    pending: bool,
    kind: str | None,
    storage_class: StorageClass | None,
    every: bool,
    name: str | None,
    limit: int,
    cursor: str | None,
) -> None:
    """List files and notes (or --class, --all): id, class, kind, label, indexed, scope."""
    brain = state.brain()
    next_cursor: str | None = None
    if pending:
        if storage_class not in (None, "file") or name or cursor:
            raise InvalidInput("--pending lists files; it takes only --kind and --limit")
        found = [i for i in brain.pending() if kind is None or i.kind == kind][:limit]
    else:
        # Sections are what files are cut into: listed by `show FILE`, or asked for.
        classes = None if storage_class or every else DEFAULT_CLASSES
        page = brain.items(
            kind=kind,
            storage_class=storage_class,
            storage_classes=classes,
            name=name,
            limit=limit,
            cursor=cursor,
        )
        found, next_cursor = list(page.items), page.next_cursor
    if state.json:
        states = brain.index_states(found)  # queued/indexing come from the jobs table
        shown = [ItemView.of(i, state=states.get(i.id)) for i in found]
        echo_json(ItemPage(items=shown, next_cursor=next_cursor))
        return
    if not found:
        click.echo("nothing pending" if pending else "no items")
        return
    out = console()
    out.print(items_table(found, title="pending" if pending else None))
    if next_cursor:
        out.print(f"more: orgbrain items --cursor {next_cursor}", markup=False)


@click.command()
@click.argument("item_id")
@json_option
@click.pass_obj
def show(state: CliState, item_id: str) -> None:
    """Every field of an item; for a file, its sections too."""
    brain = state.brain()
    item = brain.get(item_id)
    sections = brain.sections(item.id) if item.storage_class == "file" else []
    if state.json:
        index_state = brain.index_state(item.id)  # as HTTP shows it: from the jobs table
        echo_json(
            {
                "item": ItemView.of(item, state=index_state),
                "sections": [ItemView.of(s) for s in sections],
            }
        )
        return
    out = console()
    out.print(item_panel(item))
    if sections:
        out.print(sections_table(sections))
    elif item.storage_class == "file" and not item.indexed:
        out.print("not indexed yet: no sections", markup=False)


@click.command()
@click.argument("item_id")
@click.option("--section", help="A section's number (as `show` lists them) or its id.")
@click.option(
    "--version",
    "version",
    type=click.IntRange(min=1),
    help="A version of the file, as `orgbrain history` numbers them.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to FILE instead of stdout.",
)
@json_option
@click.pass_obj
def read(
    state: CliState, item_id: str, section: str | None, version: int | None, output: Path | None
) -> None:
    """Stream the exact bytes of a file (of one of its versions), or of one of its sections."""
    chunks = state.brain().read_file(item_id, section=section, version=version)
    if output is not None:
        size = _write_atomically(output, chunks)
        if state.json:
            echo_json({"id": item_id, "section": section, "output": output, "bytes": size})
        else:
            click.echo(f"wrote {size} bytes to {output}")
    elif state.json:
        data = b"".join(chunks)
        echo_json({"id": item_id, "section": section, "bytes": len(data), **_as_text(data)})
    else:
        stdout = sys.stdout.buffer
        for chunk in chunks:
            stdout.write(chunk)
        stdout.flush()


def _as_text(data: bytes) -> dict[str, str]:
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _write_atomically(path: Path, chunks: Iterable[bytes]) -> int:
    """Write to a temporary file beside ``path`` and move it into place when complete."""
    tmp = path.with_name(f".{path.name}.orgbrain-part")
    size = 0
    try:
        with tmp.open("wb") as f:
            for chunk in chunks:
                f.write(chunk)
                size += len(chunk)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return size


def _forget_command(erase: bool) -> click.Command:
    verb = "erase" if erase else "forget"

    @click.command(
        verb,
        help=(
            "Erase ITEM_ID: forget it and delete its bytes, extracted text and name, "
            "leaving only an audit record (who, when, why). For content that must not be "
            "kept: a leaked secret, personal data."
            if erase
            else "Forget ITEM_ID: it (and a file's sections) leaves every search, listing "
            "and read at once; the row and an audit record (who, when, why) stay."
        ),
    )
    @click.argument("item_id")
    @click.option("--reason", required=True, help="Why; kept in the audit record.")
    @json_option
    @click.pass_obj
    def command(state: CliState, item_id: str, reason: str) -> None:
        brain = state.brain()
        act = brain.erase if erase else brain.forget
        done = act(item_id, reason=reason)
        if state.json:
            echo_json(ForgottenView.of(done))
            return
        what = "erased" if done.erased else "forgotten"
        extra = f" (and {plural(done.items - 1, 'section')})" if done.items > 1 else ""
        click.echo(f"{what}: {done.item_id}{extra} · audit record {done.event_id}")

    return command


forget = _forget_command(erase=False)
erase = _forget_command(erase=True)

COMMANDS: tuple[click.Command, ...] = (init, note, items, show, read, forget, erase)
