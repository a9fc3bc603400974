"""A file's sections take only their own rows (issue 12: identity no one can borrow).

A section's key is its file's key and ``#<part>``, so a note or a file written under that
key before the file was indexed (a custom file key, or a file named ``a.md#Heading#0``)
would have been found by key and turned into the section: its id and history taken, its
class changed. Indexing checks, in its own transaction, that every row holding one of
its sections' keys is a section of this file, and refuses the index otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInput
from ...model import Item
from .dialect import Connection, Dialect
from .rows import stored_key

__all__ = ["check_section_keys"]

_BATCH = 500


def check_section_keys(conn: Connection, d: Dialect, file: Item, sections: Sequence[Item]) -> None:
    """Raise ``InvalidInput`` if a row other than ``file``'s own section holds one of
    ``sections``' keys (in their scope: keys are per scope, so only the file's)."""
    keys = [stored_key(s.scope, s.source_key) for s in sections if s.source_key]
    for i in range(0, len(keys), _BATCH):
        cond, params = d.any_of("source_key", keys[i : i + _BATCH])
        rows = conn.execute(
            d.sql(f"SELECT id, class, parent_id FROM items WHERE workspace = ? AND {cond}"),
            [file.workspace, *params],
        ).fetchall()
        for r in rows:
            if r["class"] != "section" or r["parent_id"] != file.id:
                raise InvalidInput(
                    f"{file.name or file.id}: one of its sections' keys is held by "
                    f"{r['class']} {r['id']} (a key starting {file.source_key}#); "
                    "give the file another source key"
                )
