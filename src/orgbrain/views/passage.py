"""A cited text in its place: what comes before it, the cited bytes, what comes after."""

from __future__ import annotations

from pydantic import Field

from ..model import Passage
from ._base import View
from .items import ByteRangeView, LocatorView

__all__ = ["PassageView"]


class PassageView(View):
    item_id: str
    before: str = Field(description="The file's text just before the cited range")
    text: str = Field(description="The cited text: a section's exact byte range")
    after: str = Field(description="The file's text just after it")
    byte_range: ByteRangeView | None = None
    locator: LocatorView
    at_start: bool = Field(description="Nothing of the file lies before `before`")
    at_end: bool = Field(description="Nothing of the file lies after `after`")

    @classmethod
    def of(cls, p: Passage) -> PassageView:
        return cls(
            item_id=p.item_id,
            before=p.before,
            text=p.text,
            after=p.after,
            byte_range=ByteRangeView.of(p.byte_range),
            locator=LocatorView.of(p.locator),
            at_start=p.at_start,
            at_end=p.at_end,
        )

    def to_model(self) -> Passage:
        return Passage(
            self.item_id,
            self.before,
            self.text,
            self.after,
            None if self.byte_range is None else self.byte_range.to_model(),
            self.locator.to_model(),
            self.at_start,
            self.at_end,
        )
