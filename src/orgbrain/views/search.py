"""Search results: each hit with the item it found and the citation to its exact bytes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from pydantic import Field

from ..model import Citation, Hit, NewerAnswer, Replacement, SearchResult, Verdict
from ._base import View
from .items import ByteRangeView, ItemView, LocatorView

__all__ = [
    "CitationView",
    "HitView",
    "NewerAnswerView",
    "ReplacementView",
    "SearchResultView",
    "match_reason",
]


def match_reason(ranks: Mapping[str, int]) -> str:
    """Why a hit was found, for a person (a fused score such as 0.0325 means nothing to
    one): its words, its meaning, or both; ``ranks`` is a hit's rank per stream."""
    words = any(stream.startswith("keyword") for stream in ranks)
    meaning = any(stream.startswith("vector") for stream in ranks)
    if words and meaning:
        return "matched words and meaning"
    if words:
        return "matched words"
    if meaning:
        return "close in meaning"
    if "graph" in ranks:
        return "about what the question names"
    if "supersedes" in ranks:
        return "replaced a match"
    return "next to a match"


class CitationView(View):
    item_id: str
    file_id: str | None
    label: str
    blob_key: str | None
    text_key: str | None
    byte_range: ByteRangeView | None
    locator: LocatorView
    file_name: str | None = Field(default=None, description="The cited file's name as added")
    text: str = Field(description="The citation for a person, e.g. 'handbook.md · Billing'")

    @classmethod
    def of(cls, c: Citation) -> CitationView:
        return cls(
            item_id=c.item_id,
            file_id=c.file_id,
            label=c.label,
            blob_key=c.blob_key,
            text_key=c.text_key,
            byte_range=ByteRangeView.of(c.byte_range),
            locator=LocatorView.of(c.locator),
            file_name=c.file_name,
            text=c.describe(),
        )

    def to_model(self) -> Citation:
        return Citation(
            item_id=self.item_id,
            file_id=self.file_id,
            label=self.label,
            blob_key=self.blob_key,
            text_key=self.text_key,
            byte_range=None if self.byte_range is None else self.byte_range.to_model(),
            locator=self.locator.to_model(),
            file_name=self.file_name,
        )


class ReplacementView(View):
    subject: str
    predicate: str
    old: str = Field(description="What the statement said before")
    new: str = Field(description="What the newer statement says")
    citation: CitationView = Field(
        description="The other item: the older one under replaces, the newer under replaced_by"
    )
    text: str = Field(description="The change for a person, e.g. 'billing owner: Priya -> Ann'")

    @classmethod
    def of(cls, r: Replacement) -> ReplacementView:
        return cls(
            subject=r.subject,
            predicate=r.predicate,
            old=r.old,
            new=r.new,
            citation=CitationView.of(r.citation),
            text=r.describe(),
        )

    def to_model(self) -> Replacement:
        return Replacement(
            self.subject, self.predicate, self.old, self.new, self.citation.to_model()
        )


class NewerAnswerView(View):
    citation: CitationView = Field(description="The newer hit that answers this one anew")
    written: datetime = Field(description="When the newer one was written")
    probability: float = Field(
        description="The supersession judge's probability that the newer replaced this one "
        "(below its bar to say so: that would be superseded_by)"
    )
    text: str = Field(
        description="For a person, e.g. 'an older answer, from 2026-01-12; newer, from "
        "2026-03-23: <citation>'"
    )

    @classmethod
    def of(cls, n: NewerAnswer, older: datetime) -> NewerAnswerView:
        return cls(
            citation=CitationView.of(n.citation),
            written=n.written,
            probability=n.probability,
            text=n.describe(older),
        )

    def to_model(self) -> NewerAnswer:
        return NewerAnswer(self.citation.to_model(), self.written, self.probability)


class HitView(View):
    item: ItemView
    score: float
    fused: float
    citation: CitationView
    ranks: dict[str, int]
    superseded_by: CitationView | None = Field(
        default=None, description="The newer item that replaced this one (cite it instead)"
    )
    supersedes: CitationView | None = Field(
        default=None, description="The older item this one replaced: what was believed before"
    )
    conflicts: list[str] = Field(
        default_factory=list,
        description="Items holding current statements that disagree with this one's",
    )
    replaces: list[ReplacementView] = Field(
        default_factory=list,
        description="Statements of older items that this hit's statements replaced",
    )
    replaced_by: list[ReplacementView] = Field(
        default_factory=list,
        description="This hit's statements that newer items replaced (the hit may stay "
        "current: a note that says two things, one of them replaced)",
    )
    newer_answer: NewerAnswerView | None = Field(
        default=None,
        description="An older answer: a newer hit answers what this one answers, where the "
        "judge was not sure it replaced it (the newer ranks first)",
    )
    rerank: str = Field(
        default="",
        description="What the reranker did: empty for the brain's own order, its name when "
        "it placed this hit, 'skipped: <why>' when it failed and the brain's order stood",
    )

    @classmethod
    def of(cls, h: Hit, *, body_chars: int | None = None) -> HitView:
        return cls(
            item=ItemView.of(h.item, body_chars=body_chars),
            score=h.score,
            fused=h.fused,
            citation=CitationView.of(h.citation),
            ranks=dict(h.ranks),
            superseded_by=None if h.superseded_by is None else CitationView.of(h.superseded_by),
            supersedes=None if h.supersedes is None else CitationView.of(h.supersedes),
            conflicts=list(h.conflicts),
            replaces=[ReplacementView.of(r) for r in h.replaces],
            replaced_by=[ReplacementView.of(r) for r in h.replaced_by],
            newer_answer=None
            if h.newer_answer is None
            else NewerAnswerView.of(h.newer_answer, h.item.when),
            rerank=h.rerank,
        )

    def to_model(self) -> Hit:
        return Hit(
            item=self.item.to_model(),
            score=self.score,
            fused=self.fused,
            citation=self.citation.to_model(),
            ranks=dict(self.ranks),
            superseded_by=None if self.superseded_by is None else self.superseded_by.to_model(),
            supersedes=None if self.supersedes is None else self.supersedes.to_model(),
            conflicts=tuple(self.conflicts),
            replaces=tuple(r.to_model() for r in self.replaces),
            replaced_by=tuple(r.to_model() for r in self.replaced_by),
            newer_answer=None if self.newer_answer is None else self.newer_answer.to_model(),
            rerank=self.rerank,
        )


class SearchResultView(View):
    query: str
    hits: list[HitView]
    verdict: Verdict
    why: str = Field(
        default="",
        description="Why the brain answered or stayed silent, in words: the hit that "
        "answered and what it holds, or the closest one and what it lacks",
    )
    reason: str = Field(
        description="The same with the gate's rules and numbers (cosines, term shares, "
        "floors), for debugging"
    )
    tier: str = Field(
        default="",
        description="Which tier decided the verdict: gate, judge or llm (the chat model, "
        "asked on a close call); empty when only the score floors did",
    )
    top_score: float
    plan: str
    speak: bool
    timings_ms: dict[str, float]
    mode: Literal["current", "history", "as_of"] = Field(
        default="current", description="Which belief the search answered with"
    )
    as_of: datetime | None = Field(default=None, description="The date of an as_of search")
    entities: list[str] = Field(
        default_factory=list, description="The entities the query named (graph anchors)"
    )
    route: str = Field(default="", description="How the read router weighed the streams")
    window: str = Field(
        default="", description="The query's time as read, and its days (UTC), or empty"
    )

    @classmethod
    def of(cls, r: SearchResult, *, body_chars: int | None = None) -> SearchResultView:
        """``r`` as sent; ``body_chars`` cuts the hits' bodies further than the search did."""
        return cls(
            query=r.query,
            hits=[HitView.of(h, body_chars=body_chars) for h in r.hits],
            verdict=r.verdict,
            why=r.why,
            reason=r.reason,
            tier=r.tier,
            top_score=r.top_score,
            plan=r.plan,
            speak=r.speak,
            timings_ms=dict(r.timings_ms),
            mode=r.mode,  # type: ignore[arg-type]
            as_of=r.as_of,
            entities=list(r.entities),
            route=r.route,
            window=r.window,
        )

    def to_model(self) -> SearchResult:
        return SearchResult(
            query=self.query,
            hits=tuple(h.to_model() for h in self.hits),
            verdict=self.verdict,
            reason=self.reason,
            why=self.why,
            tier=self.tier,
            top_score=self.top_score,
            plan=self.plan,
            timings_ms=dict(self.timings_ms),
            mode=self.mode,
            as_of=self.as_of,
            entities=tuple(self.entities),
            route=self.route,
            window=self.window,
        )
