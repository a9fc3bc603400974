"""``orgbrain keys create|list|revoke``: API keys for the HTTP service.

A key is printed once, at creation; only its hash is kept. The commands open the key store
in the brain folder themselves (``--brain``, else the ``orgbrain --brain`` option, else
ORGBRAIN_BRAIN), so they need neither the model nor the brain's tables.
"""

from __future__ import annotations

from pathlib import Path

import click

from .. import compose
from ..keys import ApiKey, KeyStore, issue_key, revoke_key
from ..settings import Settings
from ..views import KeyCreated, KeyList, KeyView
from .app import CliState
from .render import echo_json

__all__ = ["COMMANDS", "keys", "open_key_store"]

_BRAIN_META = "orgbrain.keys.brain"


def brain_folder(ctx: click.Context, explicit: Path | None) -> Path:
    """``--brain`` here, else the root group's, else ORGBRAIN_BRAIN, else the default."""
    if explicit is not None:
        return explicit
    state = ctx.find_object(CliState)
    if state is not None:
        return state.settings.brain
    return Settings.from_env().brain


def store_url(ctx: click.Context) -> str | None:
    """The root group's ``--store`` (or ORGBRAIN_STORE): keys live in that database."""
    state = ctx.find_object(CliState)
    return state.settings.store if state is not None else Settings.from_env().store


def open_key_store(ctx: click.Context) -> KeyStore:
    path = ctx.meta.get(_BRAIN_META)
    return compose.open_key_store(brain_folder(ctx, path), store=store_url(ctx))


def _wants_json(ctx: click.Context, flag: bool) -> bool:
    state = ctx.find_object(CliState)
    return flag or bool(state is not None and state.json)


def _principal(k: ApiKey) -> str:
    return f"{'agent' if k.agent else 'user'}:{k.user_id}"


def _line(k: ApiKey) -> str:
    teams = ",".join(sorted(k.team_ids)) or "-"
    status = "active" if k.active else f"revoked {k.revoked_at:%Y-%m-%d %H:%M}"
    return (
        f"{k.id}  {k.workspace}  user:{k.user_id}{' (agent)' if k.agent else ''}  "
        f"teams={teams}  perm={','.join(sorted(k.permissions))}  "
        f"created {k.created_at:%Y-%m-%d %H:%M}  {status}" + (f"  {k.label}" if k.label else "")
    )


@click.group()
@click.option(
    "--brain",
    "brain_path",
    type=click.Path(path_type=Path),
    default=None,
    help="The brain folder holding the keys (default: orgbrain --brain / ORGBRAIN_BRAIN).",
)
@click.pass_context
def keys(ctx: click.Context, brain_path: Path | None) -> None:
    """API keys for the HTTP service: each bound to a workspace, a principal, permissions."""
    ctx.meta[_BRAIN_META] = brain_path


@keys.command("create")
@click.option("--workspace", required=True, help="The workspace the key belongs to.")
@click.option("--principal", required=True, help="Who the key acts as: user:<id>.")
@click.option("--teams", default="", help="Comma-separated team ids the principal is in.")
@click.option("--agent", is_flag=True, help="The key is used by an agent acting for the user.")
@click.option(
    "--perm",
    "perm",
    default="read",
    show_default=True,
    help="Comma-separated: read (search, get, read), write (add, index, note), admin (keys), "
    "review (approve or reject write-back proposals at org and the key's teams).",
)
@click.option("--label", default="", help="A note on what the key is for.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def create(
    ctx: click.Context,
    workspace: str,
    principal: str,
    teams: str,
    agent: bool,
    perm: str,
    label: str,
    as_json: bool,
) -> None:
    """Create a key and print it, once: only its hash is stored."""
    store = open_key_store(ctx)
    try:
        issued = issue_key(
            store, workspace, principal, perm, teams=teams.split(","), agent=agent, label=label
        )
    finally:
        store.close()
    if _wants_json(ctx, as_json):
        echo_json(KeyCreated(key=KeyView.of(issued.key), token=issued.token))
        return
    click.echo(issued.token)
    k = issued.key
    click.echo(
        f"key {k.id} for {_principal(k)} in workspace {k.workspace} "
        f"({', '.join(sorted(k.permissions))}): shown once, store it now",
        err=True,
    )
    _warn_if_empty(ctx, k.workspace)


def _warn_if_empty(ctx: click.Context, workspace: str) -> None:
    """A key for a workspace that holds nothing serves silence: say so, and where the
    brain's items are."""
    sizes = compose.workspace_sizes(
        brain_folder(ctx, ctx.meta.get(_BRAIN_META)), store=store_url(ctx)
    )
    if sizes.get(workspace, 0) > 0:
        return
    elsewhere = ", ".join(f"{ws} ({n} items)" for ws, n in sorted(sizes.items())) or "none"
    click.echo(
        f"note: workspace {workspace} holds no items yet, so this key's searches find "
        f"nothing. Workspaces with items: {elsewhere}. Add to it with "
        f"ORGBRAIN_WORKSPACE={workspace} orgbrain add ..., or make the key for the "
        "workspace that holds your files.",
        err=True,
    )


@keys.command("list")
@click.option("--workspace", default=None, help="Only this workspace's keys.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def list_(ctx: click.Context, workspace: str | None, as_json: bool) -> None:
    """List keys (never their secrets), revoked ones too."""
    store = open_key_store(ctx)
    try:
        found = store.list_keys(workspace)
    finally:
        store.close()
    if _wants_json(ctx, as_json):
        echo_json(KeyList(keys=[KeyView.of(k) for k in found]))
        return
    if not found:
        click.echo("no keys")
    for k in found:
        click.echo(_line(k))


@keys.command("revoke")
@click.argument("key_id")
@click.option("--workspace", default=None, help="Refuse unless the key is in this workspace.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def revoke(ctx: click.Context, key_id: str, workspace: str | None, as_json: bool) -> None:
    """Revoke a key by id: it stops working at once. Revoking twice is harmless."""
    store = open_key_store(ctx)
    try:
        key = revoke_key(store, key_id, workspace=workspace)
    finally:
        store.close()
    if _wants_json(ctx, as_json):
        echo_json(KeyView.of(key))
    else:
        click.echo(f"revoked {key.id}")


COMMANDS: tuple[click.Command, ...] = (keys,)
