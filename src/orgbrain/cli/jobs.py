"""``orgbrain jobs`` (what the queue holds) and ``orgbrain worker`` (run it standalone)."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from datetime import datetime, timedelta
from types import FrameType
from typing import cast

import click
from rich.console import Group
from rich.text import Text

from ..jobs import JOB_STATES, WorkReport, worker_name
from ..model import utcnow
from ..ports import Job, JobState
from ..views import JobList, WorkReportView
from .app import CliState, json_option
from .render import console, echo_json, errors_below, id_column, listing_table

__all__ = ["COMMANDS", "jobs", "worker"]


def _when(job: Job, now: datetime) -> str:
    """How long ago, or until when, in a few characters: the ids take most of 80 columns."""
    if job.state == "running" and job.lease_until is not None:
        return f"lease {_span(job.lease_until - now)}"
    if job.state == "queued" and job.attempts:
        return f"retry {_span(job.run_after - now)}"
    return f"{_span(now - (job.finished_at or job.updated_at))} ago"


def _span(gap: timedelta) -> str:
    seconds = max(0, int(gap.total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def jobs_table(found: list[Job], now: datetime) -> Group:
    table = listing_table()
    id_column(table, (job.id for job in found))
    for name in ("kind", "state", "tries"):
        table.add_column(name, overflow="fold")
    id_column(table, (job.subject or "" for job in found), "item")
    table.add_column("when", no_wrap=True)
    for job in found:
        tries = f"{job.attempts}/{job.max_attempts}"
        row = [job.id, job.kind, job.state, tries, job.subject or "", _when(job, now)]
        table.add_row(*(Text(cell) for cell in row))
    return Group(table, *errors_below((job.id, job.last_error) for job in found))


@click.command()
@click.option(
    "--state", "state_filter", type=click.Choice(JOB_STATES), help="Only jobs in this state."
)
@click.option("--kind", help="Only jobs of this kind (e.g. index).")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--cursor", help="Continue a listing from where the last page ended.")
@json_option
@click.pass_obj
def jobs(
    state: CliState, state_filter: str | None, kind: str | None, limit: int, cursor: str | None
) -> None:
    """List background jobs, newest first: kind, state, attempts, item, last error."""
    page = state.brain().jobs(
        state=cast(JobState | None, state_filter), kind=kind, limit=limit, cursor=cursor
    )
    if state.json:
        echo_json(JobList.of(page))
        return
    if not page.jobs:
        click.echo("no jobs")
        return
    out = console()
    out.print(jobs_table(list(page.jobs), utcnow()))
    if page.next_cursor:
        out.print(f"more: orgbrain jobs --cursor {page.next_cursor}", markup=False)


@click.command()
@click.option("--once", is_flag=True, help="Do every job that is ready, then exit.")
@click.option(
    "--threads", type=click.IntRange(1, 16), default=1, show_default=True, help="Worker threads."
)
@click.option(
    "--lease",
    "lease_s",
    type=click.FloatRange(min=1),
    default=60.0,
    show_default=True,
    help="Seconds a claimed job is held before another worker may take it (renewed while it runs).",
)
@click.option(
    "--poll",
    "poll_s",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    help="Seconds between looks at an empty queue.",
)
@json_option
@click.pass_obj
def worker(state: CliState, once: bool, threads: int, lease_s: float, poll_s: float) -> None:
    """Run background jobs (indexing) from the brain's queue, beside or instead of a server."""
    brain = state.brain()
    if not state.json:
        logging.basicConfig(
            level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s"
        )
    stop = threading.Event()
    reports = [WorkReport() for _ in range(threads)]
    workers = [
        brain.worker(name=worker_name(f"cli-{n}"), lease_s=lease_s, poll_s=poll_s)
        for n in range(threads)
    ]

    def run(n: int) -> None:
        reports[n] = workers[n].drain(stop) if once else workers[n].run(stop)

    if not once:
        _stop_on_signals(stop)
        click.echo(
            f"orgbrain worker: {threads} thread(s) on {state.settings.brain}; Ctrl-C stops",
            err=True,
        )
    running = [threading.Thread(target=run, args=(n,), daemon=True) for n in range(threads)]
    for t in running:
        t.start()
    try:
        while any(t.is_alive() for t in running):
            for t in running:
                t.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        for t in running:
            t.join()
    total = WorkReport()
    for report in reports:
        total.add(report)
    if state.json:
        echo_json(WorkReportView.model_validate(total, from_attributes=True))
    else:
        click.echo(
            f"{total.done} done, {total.retried} to retry, {total.failed} failed"
            + (f", {total.lost} lost to other workers" if total.lost else "")
        )


def _stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM stops like Ctrl-C: the batches in hand finish, then the worker exits."""

    def handle(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handle)


COMMANDS: tuple[click.Command, ...] = (jobs, worker)
