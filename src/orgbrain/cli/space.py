"""``orgbrain reembed``: move the brain's vectors to another embedder's space."""

from __future__ import annotations

from dataclasses import asdict, replace

import click

from ..compose import make_embedder
from .app import CliState, json_option
from .progress import progress
from .render import echo_json

__all__ = ["COMMANDS", "reembed"]


@click.command()
@click.option(
    "--to",
    "to",
    type=click.Choice(["minilm", "minilm-torch", "e5", "openai"]),
    required=True,
    help="The embedder to move to.",
)
@click.option("--embed-url", help="Its URL (openai; else ORGBRAIN_EMBED_URL).")
@click.option("--embed-model", help="Its model (openai; else ORGBRAIN_EMBED_MODEL).")
@json_option
@click.pass_obj
def reembed(state: CliState, to: str, embed_url: str | None, embed_model: str | None) -> None:
    """Embed every item again with another embedder, then switch the brain to it.

    Searches keep answering from the old vectors until the switch; a move cut short goes
    on where it was when run again. Afterwards, open the brain with the new embedder
    (ORGBRAIN_EMBEDDER and its settings)."""
    s = state.settings
    target = make_embedder(
        replace(
            s,
            embedder=to,
            embed_url=embed_url or s.embed_url,
            embed_model=embed_model or s.embed_model,
        )
    )
    brain = state.brain()
    with progress(brain.items_to_reembed(), "reembed", enabled=not state.json) as step:

        def advance(items: int) -> None:
            for _ in range(items):
                step("")

        space = brain.reembed(target, progress=advance)
    if state.json:
        echo_json({"embedding_space": asdict(space)})
        return
    click.echo(f"the brain is in {space.describe()}: open it with ORGBRAIN_EMBEDDER={to}")


COMMANDS = [reembed]
