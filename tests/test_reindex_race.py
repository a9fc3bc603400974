"""A file re-added while it is being indexed keeps its new bytes: the stale run's commit
is refused in the same transaction, and the next run indexes the new version."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from orgbrain import Brain, Conflict
from orgbrain.ports import Vector
from tests.toy import HashEmbedder


class MidwayEmbedder(HashEmbedder):
    """A real embedder that runs ``midway`` once, between reading a file and committing
    it: the moment another writer's upload would land."""

    def __init__(self) -> None:
        super().__init__()
        self.midway: Callable[[], None] | None = None

    def embed(self, texts: Sequence[str]) -> Vector:
        hook, self.midway = self.midway, None
        if hook is not None:
            hook()
        return super().embed(texts)


V1 = b"# Billing\n\nThe billing migration target is Postgres.\n"
V2 = b"# Billing\n\nWe moved billing to CockroachDB instead.\n"


@pytest.mark.parametrize("how", ["index", "index_pending"])
def test_a_reupload_during_indexing_is_not_reverted(tmp_path: Path, how: str) -> None:
    embedder = MidwayEmbedder()
    with (
        Brain.open(tmp_path / "b", embedder=embedder) as brain,
        Brain.open(tmp_path / "b", embedder=HashEmbedder()) as other,
    ):
        v1 = brain.add_file(V1, name="billing.md")
        embedder.midway = lambda: other.add_file(V2, name="billing.md")
        if how == "index":
            with pytest.raises(Conflict, match="changed while it was being indexed"):
                brain.index(v1.id)
        else:
            (report,) = brain.index_pending()
            assert not report.ok and report.error_code == "conflict"
        now = brain.get(v1.id)
        assert not now.indexed and now.index_error is None  # the new version is not blamed
        assert now.content_hash != v1.content_hash and now.size == len(V2)
        assert b"".join(brain.read_file(now.id)) == V2
        assert brain.sections(now.id) == [] and brain.search("Postgres", plan="bm25").hits == ()
        assert [p.id for p in brain.pending()] == [now.id]
        brain.index(now.id)  # the next run indexes what the file now holds
        (hit,) = brain.search("CockroachDB", plan="bm25", k=1).hits
        assert hit.item.parent_id == now.id
        assert b"CockroachDB" in b"".join(brain.read_file(hit.item.id))
