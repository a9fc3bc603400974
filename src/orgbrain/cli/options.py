"""Options the writing commands (``note``, ``add``) share: time as input, what a write
supersedes, and how long it waits for its derivation."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from typing import Any, Literal, TypeVar

import click

from ..brain import Brain
from ..errors import InvalidInput
from ..model import Item

__all__ = [
    "WHEN",
    "Wait",
    "parse_when",
    "report_derivation",
    "resolve_wait",
    "wait_options",
    "write_options",
]

F = TypeVar("F", bound=Callable[..., Any])
Wait = Literal["ack", "derived"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})"
)


def parse_when(value: str) -> datetime:
    """An ISO date (midnight UTC) or an RFC 3339 date-time with its zone, in UTC."""
    text = value.strip()
    try:
        if _DATE.fullmatch(text):
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC)
        if _DATE_TIME.fullmatch(text):
            return datetime.fromisoformat(text.upper().replace("Z", "+00:00")).astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidInput(f"{value!r} is not a real date or time") from None
    raise InvalidInput(
        f"{value!r} is not a date (2024-05-01, midnight UTC) or a date-time with its zone "
        "(2024-05-01T09:00:00Z, 2024-05-01T11:00+02:00)"
    )


class _When(click.ParamType[datetime]):
    name = "WHEN"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        if isinstance(value, datetime):
            return value
        return parse_when(str(value))


WHEN = _When()


def write_options(f: F) -> F:
    """``--occurred-at`` and ``--supersedes`` (repeatable)."""
    f = click.option(
        "--supersedes",
        "supersedes",
        multiple=True,
        metavar="ID",
        help="An item this one replaces (repeatable): it keeps its place in history, "
        "marked superseded. Same scope, or this one is org.",
    )(f)
    return click.option(
        "--occurred-at",
        type=WHEN,
        help="When it happened: a date (midnight UTC) or an RFC 3339 date-time.",
    )(f)


def wait_options(f: F) -> F:
    """``--wait ack|derived`` and ``--no-wait`` (the same as ``--wait ack``)."""
    f = click.option(
        "--no-wait", is_flag=True, help="Return once written; derivation waits in the queue."
    )(f)
    return click.option(
        "--wait",
        type=click.Choice(["ack", "derived"]),
        help="ack: return once written; derived: once its derivation (entities, statements, "
        "supersession) is done too.",
    )(f)


def resolve_wait(wait: str | None, no_wait: bool, default: Wait) -> Wait:
    if no_wait and wait == "derived":
        raise InvalidInput("give --wait derived or --no-wait, not both")
    if no_wait or wait == "ack":
        return "ack"
    return "derived" if wait == "derived" else default


def report_derivation(brain: Brain, items: Sequence[Item], what: str) -> None:
    """Wait for the items' derivation (``settings.derive_wait_s``), then for the files'
    audit passes (as long again); when either is not done by then, say so on stderr: the
    write stands, and the rest waits in the queue."""
    if not items:
        return
    timeout = brain.settings.derive_wait_s
    if not brain.derived_within(items, timeout):
        click.echo(
            f"warning: {what} written, but its derivation was not done within {timeout:g} s; "
            "it waits in the queue (`orgbrain jobs` shows it, `orgbrain worker` runs it)",
            err=True,
        )
        return
    # An embedded brain has no background worker: the files' audit passes run here too.
    files = [brain.get(i.id) for i in items if i.storage_class == "file"]
    if files and not brain.audited_within(files, timeout):
        click.echo(
            f"warning: {what} derived, but its audit pass was not done within {timeout:g} s; "
            "it waits in the queue (`orgbrain worker` runs it)",
            err=True,
        )
