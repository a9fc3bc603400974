"""A source key names one item per scope: a writer can neither take over, hide nor
detect an item in a scope it cannot see by writing its key."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from orgbrain import Brain, InvalidInput, Item, NotFound, Principal
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.scopes import Visibility
from tests.toy import HashEmbedder


@pytest.fixture
def owner(tmp_path: Path) -> Iterator[Brain]:
    b = Brain.open(tmp_path / "b", embedder=HashEmbedder())
    try:
        yield b
    finally:
        b.close()


def user(b: Brain, name: str, *teams: str) -> Brain:
    return b.for_principal(Principal(b.workspace, name, frozenset(teams)))


def test_a_writer_cannot_take_over_an_org_note_by_its_key(owner: Brain) -> None:
    alice, bob, carol = user(owner, "alice"), user(owner, "bob"), user(owner, "carol")
    org = alice.add_note("Billing is owned by Priya.", source_key="fact:billing-owner")
    mine = bob.add_note("My billing notes.", source_key=org.source_key, scope="user:bob")
    assert mine.id != org.id and mine.scope == "user:bob"
    for reader in (alice, carol):
        assert reader.get(org.id).scope == "org"  # still there, still org, still readable
        assert reader.get(org.id).body == "Billing is owned by Priya."
    with pytest.raises(NotFound):
        alice.get(mine.id)


def test_a_writer_cannot_take_over_an_org_file_by_its_key(owner: Brain) -> None:
    alice, bob = user(owner, "alice"), user(owner, "bob")
    org = alice.add_file(b"# Plan\n\nShip in May.\n", name="plan.md")
    taken = bob.add_file(b"# Mine\n", name="plan.md", source_key=org.source_key, scope="user:bob")
    assert taken.id != org.id
    assert b"".join(alice.read_file(org.id)) == b"# Plan\n\nShip in May.\n"


def test_a_private_key_answers_exactly_as_a_free_one(owner: Brain) -> None:
    """No existence oracle: bob's writes with alice's private keys (file name, note text,
    explicit key) behave as they do with keys nobody holds."""
    alice, bob = user(owner, "alice"), user(owner, "bob")
    secret_note = alice.add_note("Salary review: Mei +10%", scope="user:alice")
    alice.add_file(b"layoff plan", name="layoffs.txt", scope="user:alice")
    alice.add_note("x", source_key="hr:case-17", scope="user:alice")

    def outcome(write: object) -> str:
        try:
            return type(write()).__name__  # type: ignore[operator]
        except Exception as exc:
            return type(exc).__name__

    held = [
        lambda: bob.add_note("Salary review: Mei +10%", scope="user:bob"),
        lambda: bob.add_file(b"mine", name="layoffs.txt", scope="user:bob"),
        lambda: bob.add_note("y", source_key="hr:case-17", scope="user:bob"),
        lambda: bob.add_note("y", source_key=secret_note.source_key, scope="user:bob"),
    ]
    free = [
        lambda: bob.add_note("Salary review: Ann +5%", scope="user:bob"),
        lambda: bob.add_file(b"mine", name="holidays.txt", scope="user:bob"),
        lambda: bob.add_note("y", source_key="hr:case-18", scope="user:bob"),
        lambda: bob.add_note("y", source_key="note:000000000000000000000000", scope="user:bob"),
    ]
    assert [outcome(w) for w in held] == [outcome(w) for w in free] == ["Item"] * 4
    bobs = [i for i in bob.items(limit=100).items if i.scope == "user:bob"]
    assert len(bobs) == 8  # each of bob's writes made his own item, held key or free
    assert {i.id for i in alice.items(limit=100).items}.isdisjoint(i.id for i in bobs)
    assert len([i for i in alice.items(limit=100).items if i.scope == "user:alice"]) == 3


def test_keys_show_as_written_and_at_is_reserved(owner: Brain) -> None:
    ops = user(owner, "olu", "ops")
    item = ops.add_note("Pager rota", source_key="doc:oncall", scope="team:ops")
    assert item.source_key == "doc:oncall"
    assert ops.add_note("Pager rota v2", source_key="doc:oncall", scope="team:ops").id == item.id
    with pytest.raises(InvalidInput, match="may not start with '@'"):
        owner.add_note("x", source_key="@team:ops/doc:oncall")


def test_the_migration_namespaces_keys_of_an_older_brain(tmp_path: Path) -> None:
    with Brain.open(tmp_path / "b", embedder=HashEmbedder()) as b:
        old = b.add_file(b"Team plan", name="plan.txt", scope="team:ops")
    db = tmp_path / "b" / "brain.sqlite"
    with sqlite3.connect(db) as conn:  # as a brain from before migration 0006 held it
        conn.execute("UPDATE items SET source_key = 'file:team:ops:plan.txt'")
        conn.execute("DELETE FROM migrations WHERE name = '0006_scoped_source_keys'")
    store = SQLiteStore(db)
    try:
        row = store.get_by_source_key(
            "default", "file:team:ops:plan.txt", Visibility.everything(), scope="team:ops"
        )
    finally:
        store.close()
    assert row is not None and row.id == old.id and row.source_key == "file:team:ops:plan.txt"
    with Brain.open(tmp_path / "b", embedder=HashEmbedder()) as b:
        again = b.add_file(b"Team plan", name="plan.txt", scope="team:ops")
        assert again.id == old.id  # re-adding finds the same item, no duplicate


# -- a key belongs to one storage class ---------------------------------------------------


def _entity(b: Brain, scope: str = "org") -> Item:
    src = b.add_note("Priya Raman owns billing.", scope=scope)
    found = b.observe_mention(src.id, "person", "Priya Raman", "Priya Raman")
    return b.get(found.entity.id)


def test_a_note_cannot_take_an_entitys_key(owner: Brain) -> None:
    """Issue 12.4: a note written with an org entity's key took its id and made it a note."""
    entity = _entity(owner)
    alice = user(owner, "alice")
    for kind in ("note", "decision", "entity"):
        # kind 'entity' is refused for any key since issue 15 (derived kinds are reserved)
        with pytest.raises(InvalidInput, match=r"belongs to a entity|are for|is reserved"):
            alice.add_note("x", kind=kind, source_key=entity.source_key)
    with pytest.raises(InvalidInput):
        alice.add_file(b"x", name="x.txt", source_key=entity.source_key)
    after = owner.get(entity.id)
    assert (after.storage_class, after.body, after.canonical) == (
        "entity",
        entity.body,
        entity.canonical,
    )


def test_a_note_cannot_take_a_sections_key_nor_a_file_a_notes(owner: Brain) -> None:
    file = owner.add_file(b"# Plan\n\nShip in May.\n", name="plan.md", source_key="doc:plan")
    owner.index(file.id)
    [section] = owner.sections(file.id)
    note = owner.add_note("A note.", source_key="doc:note")
    with pytest.raises(InvalidInput, match="belongs to a section"):
        owner.add_note("x", source_key=section.source_key)
    with pytest.raises(InvalidInput, match="belongs to a note"):
        owner.add_file(b"x", name="x.txt", source_key=note.source_key)
    with pytest.raises(InvalidInput, match=r"belongs to a note|is reserved"):
        owner.add_note("x", kind="entity", source_key=note.source_key)
    assert owner.get(section.id).storage_class == "section"
    assert owner.get(note.id).storage_class == "note"
    # a note still updates itself by its key
    assert owner.add_note("A note, v2.", source_key="doc:note").id == note.id


def test_a_note_cannot_squat_the_key_a_files_section_will_have(owner: Brain) -> None:
    """Indexing upserts sections by key (``<file key>#<part>``): a note written first under
    such a key became a section of the file, its id and history with it."""
    plan = owner.add_file(b"# Plan\n\nShip in May.\n", name="plan.md", index=True)
    [section] = owner.sections(plan.id)
    later = section.source_key.replace("plan.md", "plan2.md")
    for key in (later, "file:plan2.md"):
        with pytest.raises(InvalidInput, match="are for files"):
            owner.add_note("squatter", source_key=key)
    plan2 = owner.add_file(b"# Plan\n\nShip in May.\n", name="plan2.md", index=True)
    assert [s.source_key for s in owner.sections(plan2.id)] == [later]
    assert [i.body for i in owner.items(limit=100).items if i.body == "squatter"] == []


def test_no_item_written_first_under_a_sections_future_key_becomes_that_section(
    owner: Brain,
) -> None:
    """Only the ``file:`` prefix was kept for files: a note under the key a custom-keyed
    file's section will have, or a file named like another file's section, was taken over
    by indexing (its id and history made a section). The file now fails to index, with
    the reason, and the squatter stays what it was."""
    note = owner.add_note("squatter", source_key="doc:x#Heading#0")
    x = owner.add_file(b"# Heading\n\nReal text.\n", name="x.md", source_key="doc:x")
    squat = owner.add_file(b"other words", name="a.md#Heading#0")  # key file:a.md#Heading#0
    a = owner.add_file(b"# Heading\n\nSection text.\n", name="a.md")
    for file, holder in ((x, note), (a, squat)):
        with pytest.raises(InvalidInput, match=holder.id):
            owner.index(file.id)
        assert owner.sections(file.id) == []
        assert holder.id in (owner.get(file.id).index_error or "")
    assert owner.get(note.id).storage_class == "note" and owner.get(note.id).body == "squatter"
    assert owner.get(squat.id).storage_class == "file"


def test_a_note_cannot_squat_the_key_an_approved_proposal_will_have(owner: Brain) -> None:
    """An approved proposal is written as the note under ``proposal:<id>``: a note written
    there first would have been taken over by the approval, id and history."""
    with pytest.raises(InvalidInput, match="are write-back's"):
        owner.add_note("squatted", source_key="proposal:prp_0123456789")
    assert owner.add_note("fine", source_key="proposals:x").source_key == "proposals:x"
