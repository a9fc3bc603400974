"""``orgbrain migrate``: moving house. The brain this command is pointed at (``--brain``,
or ``--store``) is copied into a PostgreSQL database (``--to``) and its blobs into a bucket
(``--blobs``), resumably, then the two are compared; docs/postgres.md, "Moving house"."""

from __future__ import annotations

from dataclasses import replace

import click

from .. import compose
from ..errors import InvalidInput
from ..move_report import MoveOptions, MoveReport
from ..settings import Settings, is_store_url
from ..views import MoveReportView
from .app import CliState, json_option, open_brain, require_brain
from .render import console, echo_json

__all__ = ["COMMANDS", "migrate", "report_lines"]

EXIT_DIFFERS = 5
"""The exit code of a move whose verification found a difference (the report says which)."""


def _sample(value: str) -> int | None:
    if value.strip().lower() == "all":
        return None
    if not value.strip().isdigit():
        raise InvalidInput(f"--sample takes a count of blobs or all, not {value!r}")
    return int(value)


def _name(settings: Settings) -> str:
    where = (
        compose.describe_store(settings.store) if settings.store else str(settings.brain.resolve())
    )
    return f"{where} (blobs {settings.blobs})" if settings.blobs else where


def report_lines(r: MoveReport) -> list[str]:
    """The report as people read it: what was copied, then each check."""
    v = r.verification
    copied = ", ".join(f"{k} {n}" for k, n in r.copied.items() if n)
    lines = [
        f"{'resumed' if r.resumed else 'moved'} {r.source} -> {r.target} in {r.seconds:.1f}s",
        f"copied this run: {copied or 'nothing (all there already)'}; "
        f"vectors {r.vectors}, none re-embedded",
    ]
    for c in v.counts:
        mark = "ok" if c.ok else "DIFFERS"
        lines.append(f"  {c.kind:<10} {c.workspace:<16} {c.source:>8} {c.target:>8}  {mark}")
    b = v.blobs
    lines.append(
        f"blobs: {b.named} named, {b.sized} sizes compared, {b.hashed} hashed, "
        f"{len(b.missing)} missing, {len(b.differ)} differ"
        + (f", {b.absent_in_source} not in the source either" if b.absent_in_source else "")
    )
    lines += [f"  missing: {k}" for k in b.missing] + [f"  differs: {k}" for k in b.differ]
    for p in v.probes:
        mark = "same top hit" if p.ok else f"DIFFERS ({p.source_top} vs {p.target_top})"
        lines.append(f"search [{p.workspace}] {p.query[:60]!r}: {mark}")
    lines += [f"note: {n}" for n in r.notes]
    lines.append("verified: the two brains agree" if r.ok else "NOT verified: see DIFFERS above")
    return lines


@click.command()
@click.option(
    "--to",
    "target",
    required=True,
    metavar="URL",
    help="The new brain's PostgreSQL database (postgresql://...): empty, or holding a move "
    "of this brain that was cut short.",
)
@click.option(
    "--blobs",
    default=None,
    metavar="URL",
    help="Where the new brain keeps file bytes (s3://bucket/prefix); without it they stay "
    "where this brain has them and are not copied.",
)
@click.option(
    "--batch",
    default=500,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Records per page: one transaction and one checkpoint each.",
)
@click.option(
    "--sample",
    default="50",
    show_default=True,
    metavar="N|all",
    help="How many blobs the verification hashes on both sides (every size is compared).",
)
@click.option(
    "--probes",
    default=5,
    show_default=True,
    type=click.IntRange(0, 100),
    help="How many searches the verification asks both brains.",
)
@json_option
@click.pass_obj
def migrate(
    state: CliState, target: str, blobs: str | None, batch: int, sample: str, probes: int
) -> None:
    """Move this brain (every workspace: items, versions, edges, statements, events,
    proposals, jobs, API keys and blobs) into a PostgreSQL database and a bucket, then
    verify the copy. Killed or failed, run it again: it goes on where it stopped."""
    source = state.settings
    if not is_store_url(target):
        raise InvalidInput(f"--to is a postgresql:// URL, not {target!r}")
    if target == source.store:
        raise InvalidInput("--to names the brain being moved")
    options = MoveOptions(batch=batch, sample=_sample(sample), probes=probes)
    if source.store is None:
        require_brain(source.brain)
    stays = blobs is None or blobs == source.blobs
    there = replace(source, store=target, blobs=source.blobs if stays else blobs)
    old, new = state.brain(), open_brain(there)
    try:
        keys = compose.open_key_store(source.brain, store=source.store)
        target_keys = compose.open_key_store(source.brain, store=target)
        try:
            report = old.move_to(
                new,
                keys=keys,
                target_keys=target_keys,
                name=_name(source),
                target_name=_name(there),
                options=replace(options, copy_blobs=not stays),
                progress=None if state.json else _progress,
            )
        finally:
            target_keys.close()
            keys.close()
    finally:
        new.close()
    if state.json:
        echo_json(MoveReportView.of(report))
    else:
        out = console()
        for line in report_lines(report):
            out.print(line, markup=False, highlight=False)
    if not report.ok:
        raise click.exceptions.Exit(EXIT_DIFFERS)


def _progress(what: str, done: int, total: int) -> None:
    if done == total:
        click.echo(f"{what}: {done}", err=True)


COMMANDS: tuple[click.Command, ...] = (migrate,)
