"""`orgbrain demo`: the main job on the embedded default, on a bundled sample."""

from __future__ import annotations

from dataclasses import replace
from importlib import resources
from pathlib import Path

import click
from rich.markup import escape

from ..settings import Settings
from ..views import IndexReportView, ItemView, SearchResultView
from . import app
from .app import CliState, json_option
from .deriving import derive_files
from .render import console, echo_json, match_reason, plural, why_text

__all__ = ["COMMANDS", "demo"]

QUESTION = "Who owns the billing migration, and when is the cut-over?"


@click.command()
@click.option(
    "--brain",
    "path",
    type=click.Path(path_type=Path),
    default=Path(".orgbrain-demo"),
    show_default=True,
    help="Where to build the demo brain.",
)
@click.option("--question", default=QUESTION, show_default=True, help="What to ask.")
@json_option
@click.pass_context
def demo(ctx: click.Context, path: Path, question: str) -> None:
    """Add a small organisation's documents, index them, and answer with a citation."""
    state = ctx.find_object(CliState)
    as_json = state is not None and state.json
    out = console()
    say = (lambda *_a, **_k: None) if as_json else out.print
    settings = state.settings if state is not None else Settings.from_env()
    sample = resources.files("orgbrain") / "sample"
    _keep_out_of_git(path)
    with app.open_brain(replace(settings, brain=path)) as brain:
        say(f"[bold]1. add[/bold] the sample documents to {path}/")
        added = []
        for entry in sorted(sample.iterdir(), key=lambda e: e.name):
            if entry.name.startswith((".", "_")) or not entry.is_file():
                continue
            item = brain.add_file(entry.read_bytes(), name=entry.name)
            added.append(item)
            state_text = "indexed" if item.indexed else "added, not indexed"
            say(f"   {item.id}  {item.name:<16} {state_text}")

        before = brain.search(question)
        say(f"\n[bold]2. ask[/bold] before indexing: {question!r}")
        known = sum(item.indexed for item in added)
        if known:
            # A second run: the same bytes were indexed by the first, so the brain knows them.
            which = "these documents" if known == len(added) else f"{known} of them"
            say(f"   {plural(len(before.hits), 'hit')}: an earlier demo indexed {which} already")
        else:
            say(f"   {plural(len(before.hits), 'hit')}: what is only added is not known yet")

        say("\n[bold]3. index[/bold] what is pending")
        reports = brain.index_pending()
        if not reports:
            say("   nothing: every document is indexed already")
        for report in reports:
            status = plural(report.sections, "section") if report.ok else f"error: {report.error}"
            say(f"   {report.item_id}  {report.label:<34} {status}")
        # Derived here, as `orgbrain index` does: the sample's living memory is there now.
        indexed = brain.get_many([r.item_id for r in reports if r.ok])
        derived = derive_files(brain, list(indexed.values()), quiet=as_json)
        if derived.done:
            say(f"   derived {plural(derived.done, 'section')}: entities, statements, supersession")

        result = brain.search(question, k=3)
        say(f"\n[bold]4. ask[/bold] again: {question!r}  (verdict: {result.verdict})")
        say(f"   {escape(why_text(result))}")
        for n, hit in enumerate(result.hits, start=1):
            say(f"\n   [{n}] {hit.citation.describe()}  ({match_reason(hit)})")
            cited = b"".join(brain.read_file(hit.item.id)).decode("utf-8", "replace")
            for line in cited.strip().splitlines()[:8]:
                say(f"       │ {line}", markup=False)
        small = brain.search("yo")
        said = plural(len(small.hits), "hit")
        say(f"\n[bold]5. small talk[/bold] 'yo' → {said}: {escape(why_text(small))}")
        say(f"\nTry: orgbrain --brain {path} search \"what does 'the migration' mean?\"")
        say(f"Or in a browser: orgbrain serve --brain {path}, then open the address it prints")
        if as_json:
            echo_json(
                {
                    "brain": str(path),
                    "added": [ItemView.of(i) for i in added],
                    "before_index": SearchResultView.of(before),
                    "indexed": [IndexReportView.of(r) for r in reports],
                    "answer": SearchResultView.of(result),
                    "small_talk": SearchResultView.of(small),
                }
            )


def _keep_out_of_git(path: Path) -> None:
    """A new demo folder holds a ``.gitignore`` of ``*`` (as a venv does): a demo run in a
    checkout must not show up in ``git status``."""
    if path.exists():
        return
    path.mkdir(parents=True)
    (path / ".gitignore").write_text("# made by orgbrain demo\n*\n", encoding="utf-8")


COMMANDS = (demo,)
