"""``orgbrain add`` and ``orgbrain index``: the two moments, storing and knowing."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from ..brain import Brain
from ..errors import InvalidInput, OrgBrainError
from ..indexer import IndexReport
from ..jobs import WorkReport
from ..model import Item, utcnow
from ..scopes import parse_scope
from ..views import ErrorView, IndexReportView, ItemView, WorkReportView
from .app import CliState, json_option
from .deriving import derive_files
from .options import report_derivation, resolve_wait, wait_options, write_options
from .progress import progress, work_progress
from .render import console, echo_json, report_line

__all__ = ["COMMANDS", "add", "index"]


@dataclass(frozen=True, slots=True)
class _Target:
    path: Path
    source_key: str | None
    explicit: bool

    @property
    def shown(self) -> str:
        return str(self.path)


@dataclass
class _Added:
    items: list[tuple[_Target, Item]]
    skipped: list[tuple[_Target, OrgBrainError]]
    failed: list[tuple[_Target, OrgBrainError]]


def _walk(root: Path) -> Iterator[_Target]:
    """Every visible file under ``root``. Each is keyed as a file added alone would be (its
    path from the brain's root folder), so same-named files in different folders stay
    distinct and a file is one item however it arrives."""
    base = root.resolve()
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.startswith(".") or not path.is_file():
                continue
            yield _Target(root / path.relative_to(base), None, explicit=False)


def _targets(paths: Sequence[Path], source_key: str | None) -> list[_Target]:
    out: list[_Target] = []
    seen: set[Path] = set()
    for p in paths:
        for t in _walk(p) if p.is_dir() else [_Target(p, source_key, explicit=True)]:
            if t.path.resolve() not in seen:  # the same file named twice is added once
                seen.add(t.path.resolve())
                out.append(t)
    return out


def _with_path(target: _Target, exc: OrgBrainError) -> str:
    return exc.message if target.path.name in exc.message else f"{target.shown}: {exc.message}"


def _add_all(
    brain: Brain, targets: list[_Target], fields: dict[str, Any], *, quiet: bool
) -> _Added:
    done = _Added([], [], [])
    with progress(len(targets), "adding", enabled=not quiet) as step:
        for t in targets:
            try:
                item = brain.add_file(t.path, source_key=t.source_key, **fields)
            except InvalidInput as exc:
                (done.failed if t.explicit else done.skipped).append((t, exc))
            except OrgBrainError as exc:
                if not t.explicit:
                    raise
                done.failed.append((t, exc))
            else:
                done.items.append((t, item))
            step(t.path.name)
    return done


def _index_all(brain: Brain, items: Sequence[Item], *, quiet: bool) -> list[IndexReport]:
    """Index ``items`` under a bar that moves section by section, with an ETA."""
    total = sum(i.size or 0 for i in items)
    with work_progress(total, f"indexing {len(items)} files", enabled=not quiet) as advance:
        return brain.index_pending(
            [i.id for i in items], on_embedded=lambda e: advance(e.bytes, e.sections)
        )


def _derive_here(brain: Brain, files: Sequence[Item], *, quiet: bool) -> WorkReport:
    """Derive the indexed files' sections and run their audit passes in this process."""
    indexed = [f for f in files if f.indexed]
    report = derive_files(brain, indexed, quiet=quiet)
    report_derivation(brain, indexed, f"{len(indexed)} file(s)")
    return report


def _raise_index_failures(reports: Sequence[IndexReport]) -> None:
    failed = [r for r in reports if not r.ok]
    if failed:
        first = failed[0]
        which = (
            first.item_id if first.label == first.item_id else f"{first.item_id} ({first.label})"
        )
        raise OrgBrainError.from_code(
            first.error_code,
            f"{len(failed)} of {len(reports)} files failed to index; {which}: {first.error}",
        )


def _status(item: Item) -> str:
    if item.indexed:
        return "indexed"
    if item.index_error:
        return "failed to index"
    return "added (not indexed)"


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--index", "index_now", is_flag=True, help="Index right after adding.")
@click.option("--kind", default="file", show_default=True, help="Free-text kind of the files.")
@click.option("--scope", help="org (default), team:<id> or user:<id>.")
@click.option("--label", help="Label for the file (one file only; default: its name).")
@click.option(
    "--source-key",
    help="Identity (one file only): the same key again makes a new version of that item.",
)
@write_options
@wait_options
@json_option
@click.pass_obj
def add(
    state: CliState,
    paths: tuple[Path, ...],
    index_now: bool,
    kind: str,
    scope: str | None,
    label: str | None,
    source_key: str | None,
    occurred_at: datetime | None,
    supersedes: tuple[str, ...],
    wait: str | None,
    no_wait: bool,
) -> None:
    """Store files (and folders, recursively): findable by name, not yet answerable.

    With --index they are indexed too, and it returns once their sections' derivation is
    done (--no-wait: once indexed). A file added again with new bytes becomes a new
    version, indexed and derived at once when the previous one was indexed (so it keeps
    answering); the previous one stays readable (`orgbrain history`)."""
    scope = parse_scope(scope)
    if wait == "derived" and not index_now:
        raise InvalidInput("--wait derived needs --index: a file is derived from its sections")
    # A changed file that was indexed is indexed again as it is added: derived here too.
    waiting = resolve_wait(wait, no_wait, "derived")
    targets = _targets(paths, source_key)
    if (source_key or label or supersedes) and (len(targets) != 1 or not targets[0].explicit):
        raise InvalidInput("--source-key, --label and --supersedes need exactly one file")
    brain = state.brain()
    fields: dict[str, Any] = {
        "kind": kind,
        "label": label,
        "scope": scope,
        "occurred_at": occurred_at,
        "supersedes": supersedes,
    }
    started = utcnow()
    done = _add_all(brain, targets, fields, quiet=state.json)
    reports: list[IndexReport] = []
    todo = [item for _, item in done.items if not item.indexed]
    if index_now:
        reports = _index_all(brain, todo, quiet=state.json)
    # What this command indexed: files it indexed, and changed files indexed as added.
    touched = {i.id for i in todo} | {i.id for _, i in done.items if i.origin.at >= started}
    done.items = [(t, brain.get(item.id)) for t, item in done.items]
    if waiting == "derived":
        _derive_here(brain, [i for _, i in done.items if i.id in touched], quiet=state.json)
    _show_added(state, done, reports)
    if done.failed:
        target, exc = done.failed[0]
        more = f" (and {len(done.failed) - 1} more not added)" if len(done.failed) > 1 else ""
        raise type(exc)(_with_path(target, exc) + more)
    if not done.items:
        what = f"all {len(done.skipped)} files were skipped" if done.skipped else "no files found"
        raise InvalidInput(f"nothing added: {what}")
    _raise_index_failures(reports)


def _show_added(state: CliState, done: _Added, reports: Sequence[IndexReport]) -> None:
    if state.json:
        echo_json(
            {
                "added": [{"path": t.shown, "item": ItemView.of(item)} for t, item in done.items],
                "skipped": [_problem(t, e) for t, e in done.skipped],
                "failed": [_problem(t, e) for t, e in done.failed],
                "index_reports": [IndexReportView.of(r) for r in reports],
            }
        )
        return
    out = console()
    for t, item in done.items:
        out.print(f"{_status(item):<20} {item.id}  {t.shown}", markup=False)
    for t, exc in done.skipped:
        out.print(f"{'skipped':<20} {_with_path(t, exc)}", markup=False)
    waiting = sum(1 for _, item in done.items if not item.indexed and not item.index_error)
    if waiting:
        out.print(
            f"{waiting} added, not indexed yet: run `orgbrain index --pending` to make "
            "them answerable",
            markup=False,
        )


def _problem(target: _Target, exc: OrgBrainError) -> dict[str, object]:
    return {"path": target.shown, "error": ErrorView.of(exc)}


@click.command()
@click.argument("ids", nargs=-1)
@click.option("--pending", is_flag=True, help="Index every pending file (the default).")
@click.option(
    "--no-wait",
    is_flag=True,
    help="Return once indexed; derivation waits in the queue for `orgbrain worker`.",
)
@json_option
@click.pass_obj
def index(state: CliState, ids: tuple[str, ...], pending: bool, no_wait: bool) -> None:
    """Make added files answerable: extract, chunk, embed; then derive them (entities,
    statements, supersession) here, unless --no-wait. One bad file never stops the rest."""
    if ids and pending:
        raise InvalidInput("give ids or --pending, not both")
    brain = state.brain()
    targets = [brain.get(i) for i in ids] if ids else brain.pending()
    reports = _index_all(brain, targets, quiet=state.json)
    derived = WorkReport()
    if not no_wait:
        indexed = brain.get_many([r.item_id for r in reports if r.ok])
        derived = _derive_here(brain, list(indexed.values()), quiet=state.json)
    if state.json:
        echo_json(
            {
                "reports": [IndexReportView.of(r) for r in reports],
                "indexed": sum(1 for r in reports if r.ok),
                "failed": sum(1 for r in reports if not r.ok),
                "derivation": WorkReportView.model_validate(derived, from_attributes=True),
            }
        )
    elif not reports:
        click.echo("nothing to index: no pending files")
    else:
        out = console()
        for report in reports:
            out.print(report_line(report))
        if derived.claimed:
            click.echo(
                f"derived {derived.done} sections and notes (entities, statements, "
                f"supersession), {derived.retried} to retry, {derived.failed} failed"
            )
    _raise_index_failures(reports)


COMMANDS: tuple[click.Command, ...] = (add, index)
