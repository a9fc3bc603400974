"""`orgbrain demo`: the main job on the embedded default, on a bundled sample."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import click
from rich.console import Console

from ..brain import Brain
from ..settings import Settings

__all__ = ["demo"]

QUESTION = "Who owns the billing migration, and when is the cut-over?"


@click.command()
@click.option("--brain", "path", type=click.Path(path_type=Path), default=Path(".orgbrain-demo"),
              show_default=True, help="Where to build the demo brain.")
@click.option("--question", default=QUESTION, show_default=True, help="What to ask.")
def demo(path: Path, question: str) -> None:
    """Add a small organisation's documents, index them, and answer with a citation."""
    out = Console(highlight=False)
    sample = resources.files("orgbrain") / "sample"
    with Brain.open(path, settings=Settings.from_env(brain=path)) as brain:
        out.print(f"[bold]1. add[/bold] the sample documents to {path}/")
        for entry in sorted(sample.iterdir(), key=lambda e: e.name):
            if entry.name.startswith((".", "_")) or not entry.is_file():
                continue
            item = brain.add_file(entry.read_bytes(), name=entry.name)
            state = "indexed" if item.indexed else "added, not indexed"
            out.print(f"   {item.id}  {item.name:<16} {state}")

        before = brain.search(question)
        out.print(f"\n[bold]2. ask[/bold] before indexing: {question!r}")
        out.print(f"   {len(before.hits)} hits ({before.reason}): added is not known")

        out.print("\n[bold]3. index[/bold] what is pending")
        for report in brain.index_pending():
            status = f"{report.sections} sections" if report.ok else f"error: {report.error}"
            out.print(f"   {report.item_id}  {report.label:<34} {status}")

        result = brain.search(question, k=3)
        out.print(f"\n[bold]4. ask[/bold] again: {question!r}  (verdict: {result.verdict})")
        for n, hit in enumerate(result.hits, start=1):
            out.print(f"\n   [{n}] score {hit.score:.4f}  {hit.citation.describe()}")
            cited = b"".join(brain.read_file(hit.item.id)).decode("utf-8", "replace")
            for line in cited.strip().splitlines()[:8]:
                out.print(f"       │ {line}", markup=False)
        small = brain.search("yo")
        out.print(f"\n[bold]5. small talk[/bold] 'yo' → {len(small.hits)} hits ({small.reason})")
        out.print(f"\nTry: orgbrain --brain {path} search \"what does 'the migration' mean?\"")
