"""Mentions, entities, links and neighbourhoods on real SQLite brains."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orgbrain import Forbidden, InvalidInput, NotFound, Principal, graph
from orgbrain.context import BrainContext
from orgbrain.ids import new_id
from orgbrain.model import Edge, Item, Origin, utcnow
from orgbrain.writes import NoteInput, add_notes
from tests.toy import toy_context


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[BrainContext]:
    """The graph is a service: its tests hold a context, as the facade does."""
    ctx = toy_context(tmp_path / "brain")
    try:
        yield ctx
    finally:
        ctx.store.close()


def as_user(ctx: BrainContext, user: str, *teams: str) -> BrainContext:
    return ctx.for_principal(Principal(ctx.workspace, user, frozenset(teams), agent=True))


def add_note(ctx: BrainContext, body: str, **fields: str) -> Item:
    return add_notes(ctx, [NoteInput(body, **fields)])[0]


# -- mentions and entities --------------------------------------------------------------


def test_a_mention_finds_or_creates_its_entity(toy: BrainContext) -> None:
    a = add_note(toy, "Priya Raman owns billing.", label="a")
    b = add_note(toy, "Ask PRIYA raman about refunds.", label="b")
    first = graph.observe_mention(
        toy, a.id, "person", "Priya Raman", "Priya Raman", start=0, end=11
    )
    second = graph.observe_mention(toy, b.id, " Person ", "PRIYA  raman", "PRIYA raman", start=4)
    assert first.entity_created and not second.entity_created
    entity = first.entity
    assert second.entity.id == entity.id
    assert (entity.storage_class, entity.kind, entity.label, entity.scope) == (
        "entity",
        "person",
        "Priya Raman",
        "org",
    )
    assert entity.canonical is not None
    assert (entity.canonical.type, entity.canonical.value) == ("person", "priya raman")
    assert entity.source_key == graph.entity_source_key("person", "priya raman", "org")
    assert entity.origin.source == "mention"
    edges = toy.store.edges_of(toy.workspace, entity.id, toy.visibility, types=["MENTIONS"])
    assert {(e.src, e.props["text"], e.props["start"], e.props["end"]) for e in edges} == {
        (a.id, "Priya Raman", 0, 11),
        (b.id, "PRIYA raman", 4, None),
    }


def test_the_same_mention_twice_is_one_edge(toy: BrainContext) -> None:
    note = add_note(toy, "Northwind signed in May.", label="deal")
    m1 = graph.observe_mention(toy, note.id, "company", "Northwind", "Northwind", run_id="r1")
    m2 = graph.observe_mention(toy, note.id, "company", "northwind", "Northwind", run_id="r2")
    assert m1.edge_created and not m2.edge_created and m1.edge.id == m2.edge.id
    assert m1.edge.props["run_id"] == "r1" and m1.edge.origin.run_id == "r1"
    other_span = graph.observe_mention(toy, note.id, "company", "Northwind", "Northwind signed")
    assert other_span.edge_created
    assert len(toy.store.edges_of(toy.workspace, note.id, toy.visibility)) == 2


def test_entities_are_embedded_and_findable_by_meaning(toy: BrainContext) -> None:
    note = add_note(toy, "Project Zeus ships in June.", label="zeus")
    entity = graph.observe_mention(toy, note.id, "project", "Project Zeus", "Project Zeus").entity
    vector = toy.embedder.embed(["Project Zeus (project)"])[0]
    rows = toy.store.vector_search(toy.workspace, "entity", vector, 5, toy.visibility)
    assert rows and rows[0][0] == entity.id


def test_an_entity_takes_the_narrowest_scope_of_its_sources(toy: BrainContext) -> None:
    alice, bob = as_user(toy, "alice"), as_user(toy, "bob")
    private = add_note(alice, "Zeus is my side project.", label="mine", scope="user:alice")
    public = add_note(toy, "Zeus is the new search backend.", label="org")
    mine = graph.observe_mention(alice, private.id, "project", "Zeus", "Zeus").entity
    ours = graph.observe_mention(toy, public.id, "project", "Zeus", "Zeus").entity
    assert mine.scope == "user:alice" and ours.scope == "org" and mine.id != ours.id
    with pytest.raises(NotFound):
        bob.get(mine.id)
    assert bob.get(ours.id).id == ours.id
    # Bob sees the org entity, but not the private note's mention of anything.
    assert bob.store.edges_of(bob.workspace, mine.id, bob.visibility) == []
    team = add_note(toy, "Zeus budget", label="t", scope="team:search")
    with pytest.raises(Forbidden, match="incomparable scopes"):
        graph.entity_for(toy, "project", "Zeus", [private, team])
    with pytest.raises(Forbidden, match="cannot place entity project:zeus"):
        graph.entity_for(toy, "project", "Zeus", [team, toy.get(private.id)])
    assert graph.entity_for(toy, "project", "Zeus", [public, team])[0].scope == "team:search"


def test_mention_arguments_are_checked(toy: BrainContext) -> None:
    note = add_note(toy, "Mei Chen owns search.", label="n")
    for bad in ("", "two words!", "x" * 41, "9lives"):
        with pytest.raises(InvalidInput, match="entity type"):
            graph.observe_mention(toy, note.id, bad, "Mei", "Mei")
    with pytest.raises(InvalidInput, match="needs a value"):
        graph.observe_mention(toy, note.id, "person", "   ", "Mei")
    with pytest.raises(InvalidInput, match="text it was read from"):
        graph.observe_mention(toy, note.id, "person", "Mei", " ")
    with pytest.raises(InvalidInput, match="before start"):
        graph.observe_mention(toy, note.id, "person", "Mei", "Mei", start=5, end=2)
    entity = graph.observe_mention(toy, note.id, "person", "Mei Chen", "Mei Chen").entity
    with pytest.raises(InvalidInput, match="is an entity"):
        graph.observe_mention(toy, entity.id, "person", "Mei", "Mei")
    assert graph.normalise_type("Product Area") == "product_area"


# -- links ------------------------------------------------------------------------------


def test_links_are_soft_and_idempotent(toy: BrainContext) -> None:
    a = add_note(toy, "The Billing service charges cards.", label="Billing")
    b = add_note(toy, "Payments service (old name of billing).", label="Payments")
    before = toy.store.counts(toy.workspace)
    same = graph.link(toy, a.id, b.id, "SAME_AS", note="renamed in 2024", run_id="r9")
    assert same.created and same.edge.type == "SAME_AS"
    assert same.edge.props == {"note": "renamed in 2024", "run_id": "r9"}
    assert same.edge.origin.run_id == "r9" and same.edge.origin.source == "link"
    again = graph.link(toy, a.id, b.id, "same-as")
    assert not again.created and again.edge.id == same.edge.id
    # Nothing merged: both items are still there, unchanged; only an edge was added.
    assert toy.get(a.id) == a and toy.get(b.id) == b
    after = toy.store.counts(toy.workspace)
    assert after["note"] == before["note"] and after["edges"] == before["edges"] + 1


def test_link_rules(toy: BrainContext) -> None:
    a = add_note(toy, "a", label="a")
    hidden = add_note(toy, "b", label="b", scope="user:carol")
    alice = as_user(toy, "alice")
    with pytest.raises(Forbidden, match="reserved"):
        graph.link(toy, a.id, hidden.id, "has_section")
    with pytest.raises(InvalidInput, match="itself"):
        graph.link(toy, a.id, a.id, "RELATES_TO")
    with pytest.raises(InvalidInput, match="invalid edge type"):
        graph.link(toy, a.id, hidden.id, "relates to!")
    with pytest.raises(NotFound):
        graph.link(alice, a.id, hidden.id, "RELATES_TO")
    with pytest.raises(NotFound):
        graph.link(alice, hidden.id, a.id, "RELATES_TO")


# -- neighbourhoods ---------------------------------------------------------------------


def _notes(b: BrainContext, n: int, prefix: str, scope: str = "org") -> list[Item]:
    now = utcnow()
    items = [
        Item(
            id=new_id("not"),
            workspace=b.workspace,
            kind="note",
            storage_class="note",
            label=f"{prefix} {i}",
            body=f"{prefix} {i}",
            source_key=f"test:{prefix}:{i}",
            indexed=True,
            scope=scope,
            origin=Origin("test", "test", now),
        )
        for i in range(n)
    ]
    return b.store.put_items([(i, None) for i in items])


def _edge(b: BrainContext, src: str, dst: str, type_: str = "RELATES_TO") -> Edge:
    return b.store.put_edge(
        Edge(new_id("edg"), b.workspace, type_, src, dst, Origin("test", "test", utcnow()))
    )


def test_neighborhood_caps_and_visibility_on_a_big_graph(toy: BrainContext) -> None:
    """A hub with 300 neighbours, a third of them private to someone else; ten of the
    first neighbours have 20 leaves each, and the leaves of one are private too."""
    hub = _notes(toy, 1, "hub")[0]
    visible = _notes(toy, 200, "near")
    hidden = _notes(toy, 100, "secret", scope="user:bob")
    for i in range(100):  # interleave, so the caps meet hidden rows on the way
        _edge(toy, hub.id, visible[i].id)
        _edge(toy, hidden[i].id, hub.id)
    for item in visible[100:]:
        _edge(toy, item.id, hub.id, "MENTIONS")
    leaves = []
    for k in range(10):
        scope = "user:bob" if k == 0 else "org"
        mine = _notes(toy, 20, f"leaf{k}", scope=scope)
        leaves += mine
        for leaf in mine:
            _edge(toy, visible[k].id, leaf.id)
    _edge(toy, visible[0].id, visible[1].id)  # inside hop 1: no new item, one new edge

    alice = as_user(toy, "alice")
    one = graph.neighborhood(alice, hub.id, 1)
    (hop,) = one.hops
    assert len(hop.items) == graph.MAX_ITEMS_PER_HOP and hop.truncated
    assert len(hop.edges) <= graph.MAX_EDGES_PER_HOP
    assert all(i.scope == "org" for i in hop.items)
    assert [i.id for i in hop.items] == [v.id for v in visible[:50]]

    two = graph.neighborhood(alice, hub.id, 2)
    assert len(two.hops) == 2
    first, second = two.hops
    assert first == hop
    assert len(second.items) == graph.MAX_ITEMS_PER_HOP and second.truncated
    assert len(second.edges) <= graph.MAX_EDGES_PER_HOP
    bobs = {i.id for i in hidden} | {leaf.id for leaf in leaves if leaf.scope != "org"}
    shown = {two.center.id} | {i.id for i in two.items}
    assert not shown & bobs
    for e in two.edges:
        assert e.src in shown and e.dst in shown
    assert len({e.id for e in two.edges}) == len(two.edges)

    # The local owner sees Bob's rows too, still within the caps.
    owner = graph.neighborhood(toy, hub.id, 1).hops[0]
    assert len(owner.items) == graph.MAX_ITEMS_PER_HOP
    assert any(i.scope == "user:bob" for i in owner.items)
    assert len(graph.neighborhood(toy, hub.id, 2).hops[1].edges) <= graph.MAX_EDGES_PER_HOP


def test_neighborhood_edges_need_both_ends_visible(toy: BrainContext) -> None:
    a, b = _notes(toy, 2, "n")
    secret = _notes(toy, 1, "s", scope="user:bob")[0]
    _edge(toy, a.id, b.id)
    _edge(toy, a.id, secret.id)
    _edge(toy, secret.id, b.id)
    alice = as_user(toy, "alice")
    result = graph.neighborhood(alice, a.id, 2)
    assert [i.id for i in result.items] == [b.id]
    assert len(result.edges) == 1 and not any(h.truncated for h in result.hops)
    with pytest.raises(NotFound):
        graph.neighborhood(alice, secret.id)
    for hops in (0, 3):
        with pytest.raises(InvalidInput):
            graph.neighborhood(alice, a.id, hops)
    lone = _notes(toy, 1, "lone")[0]
    assert graph.neighborhood(toy, lone.id, 2).hops == (graph.Hop(1, (), (), False),)
