"""``kronograph keys``: make, list and revoke the service's API keys (a JSON
file holding only each secret's hash; see :mod:`kronograph.server.keys`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import InvalidInputError
from ..server.keys import KeyRing
from .options import option
from .output import console, fail

__all__ = ["DEFAULT_KEYS", "Keys", "keys_app"]

DEFAULT_KEYS = "kronograph-keys.json"

Keys = Annotated[
    Path,
    option("FILE", "The key file (JSON; only hashes of the secrets are kept).", "--keys",
           envvar="KRONOGRAPH_API_KEYS_FILE"),
]

keys_app = typer.Typer(no_args_is_help=True, add_completion=False,
                       help="Make, list and revoke API keys for `kronograph serve`.")


def _load(path: Path) -> KeyRing:
    try:
        return KeyRing.load(path)
    except InvalidInputError as exc:
        fail(str(exc))


@keys_app.command("add")
def add(
    name: Annotated[str, typer.Argument(metavar="NAME", help="What the key is for (an agent, a person).")],
    groups: Annotated[list[str] | None, option("GROUP", "A group the key may read and write (repeat it).",
                                               "--group", "-g")] = None,
    admin: Annotated[bool, typer.Option("--admin", help="Every group, and the management endpoints.")] = False,
    keys: Keys = Path(DEFAULT_KEYS),
) -> None:
    """Make a key and print its secret, once: only its hash is written to the file."""
    ring = _load(keys)
    try:
        key, secret = ring.add(name, groups or (), admin=admin)
    except InvalidInputError as exc:
        fail(f"--group: {str(exc).split(': ', 1)[-1]}")
    ring.save(keys)
    scope = "admin (every group)" if key.admin else ", ".join(sorted(key.groups))
    console(stderr=True).print(f"made key {key.id} ({escape(key.name)}) for {escape(scope)} in {escape(str(keys))}; "
                               "its secret is shown this once:", soft_wrap=True)
    typer.echo(secret)


@keys_app.command("list")
def list_(keys: Keys = Path(DEFAULT_KEYS)) -> None:
    """The keys of the file: id, name, groups, admin, made (never a secret)."""
    ring = _load(keys)
    if not len(ring):
        console().print(f"[dim]no keys in {escape(str(keys))}[/]")
        return
    table = Table("id", "name", "groups", "admin", "created")
    for key in ring.keys:
        table.add_row(key.id, escape(key.name), escape(", ".join(sorted(key.groups))), "yes" if key.admin else "",
                      key.created_at)
    console().print(table)


@keys_app.command("revoke")
def revoke(
    key_id: Annotated[str, typer.Argument(metavar="ID", help="The key's id (see keys list).")],
    keys: Keys = Path(DEFAULT_KEYS),
) -> None:
    """Remove a key from the file; a running service refuses it from its next request."""
    ring = _load(keys)
    try:
        key = ring.revoke(key_id)
    except InvalidInputError as exc:
        fail(str(exc).replace("key_id: ", "ID: "))
    ring.save(keys)
    console().print(f"revoked key {key.id} ({escape(key.name)})", soft_wrap=True)
