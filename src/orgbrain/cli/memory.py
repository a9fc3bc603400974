"""``inspect``, ``statements``, ``conflicts`` and ``derive``: what the brain worked out
after a write, and working it out now."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import click
from rich.text import Text

from ..jobs import WorkReport
from ..model import STATEMENT_TYPES, Statement, StatementType, Story, Superseding
from ..views import (
    ConflictList,
    ConflictView,
    StatementList,
    StatementView,
    StoryView,
    WorkReportView,
)
from .app import CliState, json_option
from .deriving import Counted, derive_handler
from .progress import progress
from .render import console, echo_json, snippet

__all__ = ["COMMANDS", "conflicts", "derive", "derive_handler", "inspect", "statements"]


def _when(value: object) -> str:
    return f"{value:%Y-%m-%d %H:%M:%S %Z}".strip()


def _cite(s: Statement) -> str:
    rng = f" bytes [{s.byte_range.start}, {s.byte_range.end})" if s.byte_range else ""
    return f"{s.item_id}{rng}"


def _mark(s: Statement) -> str:
    if s.current:
        return "conflict" if s.conflicts else "current"
    return f"superseded by {s.superseded_by}" if s.superseded_by else "ended"


def statement_line(s: Statement) -> Text:
    """``[current] fact: search owner Lena  (since ...; ITEM bytes [a, b), 2 sources)``."""
    sources = f", {s.evidence} sources" if s.evidence > 1 else ""
    return Text(
        f"[{_mark(s)}] {s.type}: {s.subject} {s.predicate} {s.object}"
        f"  (since {s.valid_from:%Y-%m-%d}; {_cite(s)}{sources}: {snippet(s.text, 120)!r})"
    )


def _produced(values: dict[str, object]) -> str:
    parts = []
    for key, value in values.items():
        if isinstance(value, list):
            if value:
                parts.append(f"{key} {', '.join(str(v) for v in value)}")
        elif value not in (None, "", 0):
            parts.append(f"{key} {value}")
    return "; ".join(parts) or "nothing"


def _link(link: Superseding) -> str:
    by = f"{link.origin.actor} via {link.origin.source}, {_when(link.origin.at)}"
    return (
        f"{link.new.id} ({link.new.label}) supersedes {link.old.id} ({link.old.label})"
        f"  [{link.reason}{_verdict(link)}; {by}]"
    )


def _verdict(link: Superseding) -> str:
    """A judged link's probability and deciding signals, as ``inspect`` prints them."""
    if "probability" not in link.why:
        return ""
    signals = link.why.get("signals")
    named = (
        ", ".join(f"{k} {v:+g}" for k, v in signals.items()) if isinstance(signals, dict) else ""
    )
    said = link.why.get("llm")
    if link.why.get("tier") == "llm" and isinstance(said, dict):
        # the judge was unsure; the chat model decided, and its reason is the one to read
        reason = said.get("why")
        return f" p={link.why['probability']} by {link.why.get('judge')}, LLM: {reason!r}"
    return f" p={link.why['probability']} by {link.why.get('judge')}: {named}"


def story_lines(story: Story) -> list[Text]:
    item = story.item
    lines = [
        Text(f"{item.storage_class} {item.id}  {item.label}", style="bold"),
        Text(f"acknowledged  {_when(story.acknowledged_at)}  by {item.origin.actor}"),
        Text(f"derivation    {story.derivation}" + (f": {story.error}" if story.error else "")),
    ]
    for step in StoryView.of(story).steps:
        ms = "" if step.ms is None else f" ({step.ms:g} ms)"
        lines.append(Text(f"  {_when(step.at)}  {step.step}{ms}: {_produced(step.produced)}"))
    if story.item.storage_class == "file":
        err = f": {story.audit_error}" if story.audit_error else ""
        lines.append(Text(f"audit         {story.audit}{err}"))
        for step in StoryView.of(story).audit_steps:
            ms = "" if step.ms is None else f" ({step.ms:g} ms)"
            produced = {k: v for k, v in step.produced.items() if k not in ("pass", "n", "args")}
            args = step.produced.get("args")
            if isinstance(args, dict):
                produced = {**{k: v for k, v in args.items() if v is not None}, **produced}
            n = step.produced.get("n")
            head = f"{n}. {step.step}" if isinstance(n, int) and n > 0 else step.step
            lines.append(Text(f"  {_when(step.at)}  {head}{ms}: {_produced(produced)}"))
    if story.statements:
        lines.append(Text("statements", style="bold"))
        lines.extend(Text("  ") + statement_line(s) for s in story.statements)
    for title, links in (("supersedes", story.supersedes), ("superseded by", story.superseded_by)):
        if links:
            lines.append(Text(title, style="bold"))
            lines.extend(Text(f"  {_link(link)}") for link in links)
    return lines


@click.command()
@click.argument("item_id")
@json_option
@click.pass_obj
def inspect(state: CliState, item_id: str) -> None:
    """An item's write story: acknowledged when, each derivation step with its time and
    what it produced, its statements, what it supersedes and what superseded it."""
    story = state.brain().story(item_id)
    if state.json:
        echo_json(StoryView.of(story))
        return
    out = console()
    for line in story_lines(story):
        out.print(line)


@click.command()
@click.argument("about")
@click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice(STATEMENT_TYPES),
    help="Only this type (repeatable).",
)
@click.option("--all", "every", is_flag=True, help="Superseded and ended ones too.")
@click.option("--limit", type=click.IntRange(1, 1000), default=200, show_default=True)
@json_option
@click.pass_obj
def statements(
    state: CliState, about: str, types: tuple[str, ...], every: bool, limit: int
) -> None:
    """Statements about ABOUT (an entity's name or id), oldest first: current ones unless
    --all."""
    found = state.brain().statements(
        about=about,
        types=cast(Sequence[StatementType], types) or None,
        current=None if every else True,
        limit=limit,
    )
    if state.json:
        echo_json(StatementList(statements=[StatementView.of(s) for s in found]))
        return
    if not found:
        click.echo(f"no statements about {about}")
        return
    out = console()
    for s in found:
        out.print(statement_line(s))


@click.command()
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    default=200,
    show_default=True,
    help="The most pairs to list.",
)
@json_option
@click.pass_obj
def conflicts(state: CliState, limit: int) -> None:
    """Current statements from different sources that disagree at overlapping times."""
    found = state.brain().conflicts(limit)
    if state.json:
        echo_json(ConflictList(conflicts=[ConflictView.of(d) for d in found]))
        return
    if not found:
        click.echo("no conflicts")
        return
    out = console()
    for n, d in enumerate(found, start=1):
        out.print(Text(f"{n}. {d.a.subject} {d.a.predicate}: {d.a.object} / {d.b.object}"))
        for s in (d.a, d.b):
            out.print(Text(f"   {s.object}: {_cite(s)} {snippet(s.text, 120)!r} ({s.id})"))


@click.command()
@click.argument("ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Everything not derived yet (the default).")
@json_option
@click.pass_obj
def derive(state: CliState, ids: tuple[str, ...], every: bool) -> None:
    """Work out entities, statements, supersession and links for notes and sections not
    derived yet (or IDS), in this process; also runs derivation jobs already queued."""
    brain = state.brain()
    if ids and every:
        raise click.UsageError("give ids or --all, not both")
    asked = len(brain.request_derive([brain.get(i) for i in ids])) if ids else brain.derive_all()
    waiting = len(brain.jobs(state="queued", kind="derive", limit=1000).jobs)
    report = WorkReport()
    if waiting:
        with progress(waiting, "deriving", enabled=not state.json) as step:
            handler = Counted(derive_handler(), lambda _job: step(""))
            report = brain.worker(handlers=[handler]).drain()
    if state.json:
        view = WorkReportView.model_validate(report, from_attributes=True)
        echo_json({"asked": asked, "report": view})
        return
    if not report.claimed:
        click.echo("nothing to derive")
        return
    click.echo(
        f"{report.done} derived, {report.retried} to retry, {report.failed} failed"
        + (" (orgbrain jobs --kind derive shows why)" if report.retried or report.failed else "")
    )


COMMANDS: tuple[click.Command, ...] = (inspect, statements, conflicts, derive)
