"""``orgbrain.client.Client`` against a real server: the Brain's methods, typed results,
the exception tree, and exactly one retry on a transient failure."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from orgbrain import (
    Citation,
    CorruptFile,
    Forbidden,
    Hit,
    InvalidInput,
    Item,
    NotFound,
    SearchResult,
    TooLarge,
    Unauthenticated,
    Unavailable,
    Unsupported,
)
from orgbrain.client import Client
from orgbrain.indexer import IndexReport
from tests.backends import Backend
from tests.filegen import ole_file, truncated_pdf
from tests.test_server import HANDBOOK, Served, serve


@pytest.fixture
def served(tmp_path: Path, backend: Backend) -> Iterator[Served]:
    with serve(tmp_path / "brain", max_file_bytes=8192, backend=backend) as s:
        yield s


@pytest.fixture
def client(served: Served) -> Iterator[Client]:
    with Client(served.url, served.key(teams=["eng"])) as c:
        yield c


def test_add_index_read_and_search_with_typed_results(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "handbook.md"
    path.write_bytes(HANDBOOK)
    when = datetime.now(UTC).replace(microsecond=0)
    item = client.add_file(path, scope="team:eng", occurred_at=when)
    assert isinstance(item, Item)
    assert (item.name, item.scope, item.indexed, item.storage_class) == (
        "handbook.md",
        "team:eng",
        False,
        "file",
    )
    assert item.occurred_at == when
    assert item.origin.actor == "human:alice"

    report = client.index(item.id)
    assert isinstance(report, IndexReport) and report.ok and report.sections >= 2
    assert client.get(item.id).indexed and client.state(item.id).state == "indexed"

    sections = client.sections(item.id)
    assert [s.ordinal for s in sections] == sorted(s.ordinal or 0 for s in sections)
    first = sections[0]
    assert first.byte_range is not None and first.locator.heading_path
    assert b"".join(client.read_file(item.id)) == HANDBOOK
    assert client.read_bytes(item.id, byte_range=(2, 9)) == HANDBOOK[2:9]
    wanted = HANDBOOK[first.byte_range.start : first.byte_range.end]
    assert b"".join(client.read_file(item.id, section=1)) == wanted
    assert client.read_bytes(first.id) == wanted

    note = client.add_note("Refund approvals go through the finance lead.", kind="policy")
    assert note.kind == "policy" and note.indexed and note.storage_class == "note"

    result = client.search("refunds approval finance", k=3)
    assert isinstance(result, SearchResult) and result.hits
    assert all(isinstance(h, Hit) and isinstance(h.citation, Citation) for h in result.hits)
    cited = {h.citation.file_id for h in result.hits}
    assert item.id in cited
    hit = next(h for h in result.hits if h.citation.file_id == item.id)
    assert hit.citation.byte_range is not None and hit.citation.describe()
    assert result.verdict in ("single", "many") and result.speak

    edges = client.edges(item.id)
    assert {e.dst for e in edges} == {s.id for s in sections}


def test_add_with_index_waits_and_pages_through_items(client: Client) -> None:
    item = client.add_file(b"# Guide\n\nhow we ship\n", name="guide.md", index=True)
    assert item.indexed
    for i in range(3):
        client.add_note(f"fact number {i}")
    page = client.items(limit=2)
    assert len(page.items) == 2 and page.next_cursor is not None
    rest = client.items(limit=10, cursor=page.next_cursor)
    assert rest.next_cursor is None
    every = [*page.items, *rest.items]
    assert {i.storage_class for i in every} == {"file", "section", "note"}
    assert [i.id for i in client.items(storage_class="file").items] == [item.id]
    assert client.items(name="guide", storage_class="file").items[0].id == item.id
    assert client.me()["scopes"] == ["org", "team:eng", "user:alice"]


def test_problems_raise_the_matching_exception(served: Served, client: Client) -> None:
    with pytest.raises(NotFound):
        client.get("not_" + "0" * 19)
    with pytest.raises(NotFound):
        client.read_file("fil_" + "0" * 19)
    with pytest.raises(Forbidden):
        client.add_note("x", scope="team:ops")
    with pytest.raises(TooLarge):
        client.add_file(b"# big\n" + b"x" * 9000, name="big.md")
    with pytest.raises(Unsupported):
        client.add_file(ole_file(), name="deck.ppt")
    with pytest.raises(InvalidInput):
        client.search("   ")
    with pytest.raises(InvalidInput):
        client.items(limit=0)
    with pytest.raises(InvalidInput):
        client.add_file(b"# A", name=None)
    bad = client.add_file(truncated_pdf(), name="broken.pdf")
    with pytest.raises(CorruptFile):
        client.index(bad.id)
    with Client(served.url, "ob_" + "1" * 16 + "_" + "2" * 64) as stranger:
        with pytest.raises(Unauthenticated):
            stranger.items()
    with Client(served.url, served.key(perms="read")) as reader:
        with pytest.raises(Forbidden):
            reader.add_note("a fact")


class FlakyTransport(httpx.BaseTransport):
    """A real transport to the server that first fails ``failures`` times."""

    def __init__(self, failures: list[str]) -> None:
        self.failures = failures
        self.sent = 0
        self._inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += 1
        if self.failures:
            kind = self.failures.pop(0)
            if kind == "reset":
                raise httpx.ReadError("connection reset by peer", request=request)
            return httpx.Response(int(kind), json={"code": "unavailable", "detail": "busy"})
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


@pytest.mark.parametrize("failure", ["reset", "502", "503", "504"])
def test_one_retry_on_a_transient_failure(served: Served, failure: str) -> None:
    transport = FlakyTransport([failure])
    with Client(served.url, served.key(), transport=transport, retry_wait=0) as c:
        note = c.add_note("retried once, written once")
        assert transport.sent == 2
        assert [i.id for i in c.items().items] == [note.id]


def test_only_one_retry(served: Served) -> None:
    transport = FlakyTransport(["503", "503"])
    with Client(served.url, served.key(), transport=transport, retry_wait=0) as c:
        with pytest.raises(Unavailable, match="busy"):
            c.items()
    assert transport.sent == 2
    no_retry = FlakyTransport(["500"])
    with Client(served.url, served.key(), transport=no_retry, retry_wait=0) as c:
        with pytest.raises(Unavailable):
            c.items()
    assert no_retry.sent == 1


def test_connection_refused_is_unavailable_after_one_retry() -> None:
    with Client("http://127.0.0.1:9", "ob_" + "1" * 16 + "_" + "2" * 64, retry_wait=0) as c:
        with pytest.raises(Unavailable, match="ConnectError"):
            c.items()


def test_client_is_exported_for_the_package() -> None:
    import orgbrain.client as module

    assert module.__all__ == sorted(module.__all__)
    assert "Client" in module.__all__
