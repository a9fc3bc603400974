"""``orgbrain jobs`` (what the queue holds) and ``orgbrain worker`` (run it standalone)."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from types import FrameType
from typing import cast

import click
from rich.table import Table
from rich.text import Text

from ..jobs import JOB_STATES, WorkReport, worker_name
from ..ports import Job, JobState
from ..views import JobList, WorkReportView
from .app import CliState, json_option
from .render import console, echo_json

__all__ = ["COMMANDS", "jobs", "worker"]


def _when(job: Job) -> str:
    if job.state == "running" and job.lease_until is not None:
        return f"lease until {job.lease_until:%H:%M:%S}"
    if job.state == "queued" and job.attempts:
        return f"retry after {job.run_after:%H:%M:%S}"
    return f"{(job.finished_at or job.updated_at):%Y-%m-%d %H:%M:%S}"


def jobs_table(found: list[Job]) -> Table:
    table = Table()
    table.add_column("id", no_wrap=True)
    for name in ("kind", "state", "tries", "item", "when", "error"):
        table.add_column(name, overflow="fold")
    for job in found:
        tries = f"{job.attempts}/{job.max_attempts}"
        row = [job.id, job.kind, job.state, tries, job.subject or "", _when(job)]
        table.add_row(*(Text(cell) for cell in row), Text(job.last_error or ""))
    return table


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
    out.print(jobs_table(list(page.jobs)))
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
