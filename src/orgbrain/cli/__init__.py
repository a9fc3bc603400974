"""The ``orgbrain`` command line: a thin client of :class:`orgbrain.Brain`.

Each module holds one group of commands and lists them in ``COMMANDS``; all are
registered here, on the one group defined in ``app``.
"""

from __future__ import annotations

from . import (
    add,
    agent,
    demo,
    history,
    items,
    jobs,
    keys,
    memory,
    migrate,
    search,
    serve,
    space,
    stats,
    writeback,
)
from . import eval as eval_commands
from .app import cli

__all__ = ["cli", "main"]

for _command in (
    *add.COMMANDS,
    *items.COMMANDS,
    *history.COMMANDS,
    *search.COMMANDS,
    *demo.COMMANDS,
    *eval_commands.COMMANDS,
    *agent.COMMANDS,
    *keys.COMMANDS,
    *serve.COMMANDS,
    *jobs.COMMANDS,
    *memory.COMMANDS,
    *writeback.COMMANDS,
    *stats.COMMANDS,
    *migrate.COMMANDS,
    *space.COMMANDS,
):
    cli.add_command(_command)


def main() -> None:
    """Entry point of the ``orgbrain`` script."""
    cli.main(prog_name="orgbrain")
