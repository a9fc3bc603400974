"""The facade's indexing side: making added files answerable, one or all pending, and
recording why one could not be."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..context import BrainContext
from ..errors import OrgBrainError
from ..indexer import Embedded, Indexer, IndexReport
from ..model import Item
from ..ports import ItemFilter

__all__ = ["IndexingFacade"]


class IndexingFacade:
    """``Brain``'s indexing methods (one class of the facade)."""

    _ctx: BrainContext
    _indexer: Indexer

    def index(self, item_id: str) -> IndexReport:
        """Make an added file answerable. Raises on a bad file after recording the error."""
        return self._indexer.index(self._ctx.get(item_id))

    def pending(self) -> list[Item]:
        """Files added but not yet indexed (and not failed)."""
        added = self._ctx.each_item(ItemFilter(storage_class="file", indexed=False))
        return [i for i in added if i.index_error is None]

    def index_pending(
        self,
        ids: Sequence[str] | None = None,
        *,
        progress: Callable[[IndexReport], None] | None = None,
        on_embedded: Callable[[Embedded], None] | None = None,
    ) -> list[IndexReport]:
        """Index ``ids`` (default: every pending file); one bad file never stops the rest.

        One report per id, in order. The files' texts are embedded together in batches
        (``Indexer.index_many``) and each file commits on its own, so a crash loses at
        most the files not yet committed, which stay pending. ``on_embedded`` hears the
        bytes and sections each embedding call stood for (a progress bar's steps).
        """
        if ids is None:
            return self._indexer.index_many(
                self.pending(), progress=progress, on_embedded=on_embedded
            )
        reports: dict[int, IndexReport] = {}
        found: list[tuple[int, Item]] = []
        for position, item_id in enumerate(ids):
            try:
                found.append((position, self._ctx.get(item_id)))
            except OrgBrainError as exc:
                reports[position] = IndexReport(item_id, item_id, 0, exc.message, exc.code)
                if progress is not None:
                    progress(reports[position])
        indexed = self._indexer.index_many(
            [item for _, item in found], progress=progress, on_embedded=on_embedded
        )
        for (position, _), report in zip(found, indexed, strict=True):
            reports[position] = report
        return [reports[position] for position in range(len(ids))]

    def set_index_error(self, item_id: str, error: str | None) -> None:
        """Record (or clear) why a visible file could not be indexed."""
        item = self._ctx.get(item_id)
        self._ctx.items.set_index_error(self._ctx.workspace, item.id, error)
