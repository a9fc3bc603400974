"""The ``orgbrain`` click group: global options, the lazily opened brain, and the one place
where errors become an exit code and a single line on stderr (and, with ``--json``,
``{"error": {code, message}}`` on stdout)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ..errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    OrgBrainError,
    Unauthenticated,
    Unavailable,
)
from ..settings import DEFAULT_BRAIN, Settings
from ..views import INTERNAL, ErrorView
from .render import echo_error_json

if TYPE_CHECKING:
    from ..brain import Brain

__all__ = [
    "EXIT_CODES",
    "EXIT_INTERNAL",
    "CliState",
    "cli",
    "error_for_code",
    "exit_code_for",
    "json_option",
    "open_brain",
    "require_brain",
]

F = TypeVar("F", bound=Callable[..., Any])

# Checked in order: the first class an error is an instance of decides. Unsupported,
# TooLarge and CorruptFile are InvalidInput, so they exit 2 too.
EXIT_CODES: tuple[tuple[type[OrgBrainError], int], ...] = (
    (InvalidInput, 2),
    (NotFound, 3),
    (Forbidden, 4),
    (Unauthenticated, 4),
    (Conflict, 5),
    (Unavailable, 6),
)
EXIT_INTERNAL = 1


def exit_code_for(exc: OrgBrainError) -> int:
    for cls, code in EXIT_CODES:
        if isinstance(exc, cls):
            return code
    return EXIT_INTERNAL


def error_for_code(code: str | None, message: str) -> OrgBrainError:
    """Rebuild the error a stable ``code`` (as recorded in an IndexReport) stands for."""
    return OrgBrainError.from_code(code, message)


def require_brain(path: Path) -> None:
    if not (path / "brain.sqlite").is_file():
        raise NotFound(
            f"no brain at {path.resolve()}: run `orgbrain init` there, or point --brain "
            "(or ORGBRAIN_BRAIN) at an existing brain folder"
        )


def open_brain(settings: Settings) -> Brain:
    """The CLI's one way to a brain; tests replace it to share an embedder."""
    from ..brain import Brain

    return Brain.open(settings.store or settings.brain, settings=settings)


@dataclass
class CliState:
    """What every command gets: settings, the output mode, and the brain once asked for."""

    settings: Settings
    json: bool = False
    _brain: Brain | None = field(default=None, repr=False)

    def brain(self, *, create: bool = False) -> Brain:
        """The brain at ``settings.brain``; only ``create`` (init, the demo) makes one, so a
        mistyped path is an error naming it, not a new empty brain."""
        if self._brain is None:
            if not create and self.settings.store is None:
                require_brain(self.settings.brain)
            self._brain = open_brain(self.settings).via("cli")
        return self._brain

    def close(self) -> None:
        if self._brain is not None:
            brain, self._brain = self._brain, None
            brain.close()


class OrgBrainGroup(click.Group):
    """A group that closes the brain and maps every error, whatever the command."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            finally:
                if isinstance(ctx.obj, CliState):
                    ctx.obj.close()
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except OrgBrainError as exc:
            _fail(ctx, exc.code, exc.message, exit_code_for(exc))
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise  # click quiets a closed pipe (`orgbrain read ... | head`)
            _internal(ctx, exc)
        except Exception as exc:
            _internal(ctx, exc)


def _one_line(message: str) -> str:
    return " ".join(message.split()) or "unknown error"


def _fail(ctx: click.Context, code: str, message: str, exit_code: int) -> NoReturn:
    line = _one_line(message)
    if isinstance(ctx.obj, CliState) and ctx.obj.json:
        echo_error_json(ErrorView(code=code, message=line))
    click.echo(f"error: {line}", err=True)
    raise click.exceptions.Exit(exit_code)


def _internal(ctx: click.Context, exc: Exception) -> NoReturn:
    if os.environ.get("ORGBRAIN_DEBUG") == "1":
        raise exc
    message = f"internal: {type(exc).__name__}: {exc} (ORGBRAIN_DEBUG=1 shows the traceback)"
    _fail(ctx, INTERNAL, message, EXIT_INTERNAL)


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    state = ctx.find_object(CliState)
    if value and state is not None:
        state.json = True


def json_option(f: F) -> F:
    """``--json`` on a command, the same switch as ``orgbrain --json``."""
    option = click.option(
        "--json",
        is_flag=True,
        expose_value=False,
        callback=_set_json,
        help="Print JSON instead of text.",
    )
    return option(f)


@click.group(cls=OrgBrainGroup)
@click.option(
    "--brain",
    "brain_path",
    type=click.Path(path_type=Path),
    envvar="ORGBRAIN_BRAIN",
    default=DEFAULT_BRAIN,
    show_default=True,
    help="The brain folder (also ORGBRAIN_BRAIN).",
)
@click.option(
    "--store",
    "store_url",
    envvar="ORGBRAIN_STORE",
    default=None,
    metavar="URL",
    help="A postgresql:// URL: items, jobs and keys live there, blobs in the brain "
    "folder (also ORGBRAIN_STORE; docs/postgres.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.version_option(package_name="orgbrain")
@click.pass_context
def cli(ctx: click.Context, brain_path: Path, store_url: str | None, as_json: bool) -> None:
    """orgbrain: an organisation's shared memory. Add files, index them, search, cite."""
    ctx.obj = CliState(Settings.from_env(brain=brain_path, store=store_url), json=as_json)
