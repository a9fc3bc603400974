"""Every store refuses to index a file whose section's key another item holds (issue 12:
a note or file written first under that key was made the section, id and history)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orgbrain.errors import InvalidInput
from orgbrain.scopes import Visibility
from tests.contract.test_store_contract import StoreFactory, item, make_store, vec

__all__ = ["make_store"]  # the parametrised fixture, every adapter

ALL = Visibility.everything()


def test_a_section_never_takes_a_row_that_is_not_its_own(make_store: StoreFactory) -> None:
    s = make_store()
    f = s.put_item(item("handbook", cls="file", key="doc:handbook", indexed=False))
    held = s.put_item(item("squatter words", key="doc:handbook#p0"), vec(1))
    section = item("section text", cls="section", key="doc:handbook#p0", parent=f.id)
    with pytest.raises(InvalidInput, match=held.id):
        s.commit_index(replace(f, indexed=True), vec(50), [(section, vec(2))], "system:test")
    kept = s.get_item("w1", held.id, ALL)
    assert kept is not None and kept.storage_class == "note" and kept.body == "squatter words"
    assert not s.get_item("w1", f.id, ALL).indexed  # type: ignore[union-attr]
    # its own sections are still updated in place, run after run
    s.put_item(replace(held, tombstoned_at=None, source_key="doc:elsewhere"))
    first = s.commit_index(replace(f, indexed=True), vec(50), [(section, vec(2))], "system:t")
    again = s.commit_index(replace(f, indexed=True), vec(50), [(section, vec(2))], "system:t")
    assert [x.id for x in again] == [x.id for x in first]
