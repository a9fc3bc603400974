"""``orgbrain serve``: the HTTP API (and anything mounted beside it) under uvicorn."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from ..errors import Unavailable
from ..keys import issue_key
from ..settings import Settings
from . import app as cli_app
from .app import CliState

__all__ = ["COMMANDS", "FIRST_USER", "configure_logging", "serve"]

FIRST_USER = "owner"
"""Who the first key, made by a ``serve`` that finds none, is for."""


def configure_logging(level: str) -> None:
    """Access logs as bare JSON lines on stderr; everything else with a short prefix."""
    lvl = getattr(logging, level.upper(), logging.INFO)
    access = logging.getLogger("orgbrain.http.access")
    if not access.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access.addHandler(handler)
    access.propagate = False
    access.setLevel(lvl)
    logging.basicConfig(
        level=lvl, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="TCP port."
)
@click.option(
    "--brain",
    "brain_path",
    type=click.Path(path_type=Path),
    default=None,
    help="The brain folder (default: orgbrain --brain / ORGBRAIN_BRAIN).",
)
@click.option(
    "--store",
    "store_url",
    default=None,
    metavar="URL",
    help="A postgresql:// URL to serve (default: orgbrain --store / ORGBRAIN_STORE; "
    "none: the brain folder's own file).",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    envvar="ORGBRAIN_DEADLINE_S",
    help="Seconds a request may take before a 503 (0: none; also ORGBRAIN_DEADLINE_S).",
)
@click.option(
    "--index-threads",
    type=click.IntRange(0, 16),
    default=2,
    show_default=True,
    help="Threads indexing files in the background (0: none; `orgbrain worker` processes "
    "over the same store run the queue).",
)
@click.option(
    "--blobs",
    default=None,
    metavar="s3://BUCKET/PREFIX",
    help="Keep files' bytes in an S3-compatible bucket (default: ORGBRAIN_BLOBS, else the "
    "brain's own folder; the server's address: ORGBRAIN_S3_ENDPOINT or ?endpoint=).",
)
@click.option("--log-level", default="info", show_default=True, help="debug, info, warning...")
@click.option(
    "--json", "as_json", is_flag=True, help="Announce the address as one JSON line on stdout."
)
@click.option(
    "--first-key/--no-first-key",
    default=True,
    show_default=True,
    help="With no API key in the brain yet, make one for its owner and print it once.",
)
@click.pass_context
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    brain_path: Path | None,
    store_url: str | None,
    deadline: float,
    index_threads: int,
    blobs: str | None,
    log_level: str,
    as_json: bool,
    first_key: bool,
) -> None:
    """Serve the web UI (/ui), the HTTP API (/v1, API keys), MCP (/mcp), /openapi.json,
    /healthz and /readyz."""
    from ..compose import open_key_store
    from ..server import ServerConfig, create_app
    from ..server.ui import UiConfig

    try:
        import uvicorn
    except ImportError as exc:
        hint = f"orgbrain serve needs uvicorn: pip install 'orgbrain[server]' ({exc})"
        raise Unavailable(hint) from exc

    state = ctx.find_object(CliState)
    base = state.settings if state is not None else Settings.from_env()
    settings = Settings.from_env(
        brain=brain_path or base.brain,
        store=store_url or base.store,
        blobs=blobs or base.blobs,
    )
    configure_logging(log_level)
    if settings.store is None:
        cli_app.require_brain(settings.brain)
    brain = cli_app.open_brain(settings)
    try:
        keys = open_key_store(settings.brain, store=settings.store)
        try:
            token = None
            if not keys.list_keys():
                if first_key:
                    token = issue_key(
                        keys,
                        settings.workspace,
                        FIRST_USER,
                        "read,write,review,admin",
                        label="the first key, printed by orgbrain serve",
                    ).token
                else:
                    click.echo(
                        "no API keys yet: orgbrain keys create --workspace default "
                        "--principal user:<you> --perm read,write,review,admin",
                        err=True,
                    )
            config = ServerConfig.from_settings(
                settings, deadline_s=deadline, index_threads=index_threads
            )
            from ..server.heap import settled_heap
            from ..server.mcp import McpHttpApp

            mcp_app = McpHttpApp()
            app = create_app(
                brain,
                keys,
                config=config,
                extra_mounts={"/mcp": mcp_app},
                lifespans=[lambda _app: mcp_app.running(), settled_heap],
                ui=UiConfig.from_settings(settings),
            )
            url = f"http://{host}:{port}"
            if as_json or (state is not None and state.json):
                line = {"url": url, "ui": f"{url}/ui", "brain": _where(settings)}
                click.echo(json.dumps(line | ({"first_key": token} if token else {})))
            else:
                click.echo(f"orgbrain serving {_where(settings)} on {url}", err=True)
                click.echo(f"  open {url}/ui and sign in with an API key", err=True)
                if token:
                    click.echo(
                        f"  the first key (user:{FIRST_USER}, read,write,review,admin; shown "
                        f"once, only its hash is kept):\n  {token}",
                        err=True,
                    )
            uvicorn.run(
                app, host=host, port=port, log_config=None, access_log=False, log_level=log_level
            )
        finally:
            keys.close()
    finally:
        brain.close()


def _where(settings: Settings) -> str:
    """The brain served: its folder, or its database (the URL without its password)."""
    if settings.store is None:
        return str(settings.brain.resolve())
    from ..compose import describe_store

    return describe_store(settings.store)


COMMANDS: tuple[click.Command, ...] = (serve,)
