"""A move's report (``orgbrain migrate --json``)."""

from __future__ import annotations

from pydantic import Field

from ..move_report import BlobCheck, CountCheck, MoveReport, ProbeCheck
from ._base import View

__all__ = ["BlobCheckView", "CountCheckView", "MoveReportView", "ProbeCheckView"]


class CountCheckView(View):
    kind: str = Field(description="A record kind (items, versions, ..., jobs) or keys")
    workspace: str
    source: int
    target: int
    ok: bool

    @classmethod
    def of(cls, c: CountCheck) -> CountCheckView:
        return cls(kind=c.kind, workspace=c.workspace, source=c.source, target=c.target, ok=c.ok)


class BlobCheckView(View):
    named: int = Field(description="Distinct blobs the new brain's items and versions name")
    sized: int = Field(description="Of those, compared by size on both sides")
    hashed: int = Field(description="Of those, hashed (SHA-256) on both sides")
    missing: list[str] = Field(description="Held by the source, not by the new brain")
    differ: list[str] = Field(description="Of another size or hash on the two sides")
    absent_in_source: int = Field(description="Named, but not in the source either")
    ok: bool

    @classmethod
    def of(cls, b: BlobCheck) -> BlobCheckView:
        return cls(
            named=b.named,
            sized=b.sized,
            hashed=b.hashed,
            missing=list(b.missing),
            differ=list(b.differ),
            absent_in_source=b.absent_in_source,
            ok=b.ok,
        )


class ProbeCheckView(View):
    workspace: str
    query: str
    source_top: str | None = Field(description="The old brain's top hit (an item id)")
    target_top: str | None = Field(description="The new brain's top hit")
    ok: bool

    @classmethod
    def of(cls, p: ProbeCheck) -> ProbeCheckView:
        return cls(
            workspace=p.workspace,
            query=p.query,
            source_top=p.source_top,
            target_top=p.target_top,
            ok=p.ok,
        )


class MoveReportView(View):
    source: str
    target: str
    resumed: bool = Field(description="Whether this run went on with a move cut short")
    copied: dict[str, int] = Field(
        description="New this run: records by kind, blobs, blob_bytes and keys"
    )
    vectors: str = Field(description="copied: the stored vectors came over, none re-embedded")
    seconds: float
    ok: bool = Field(description="Every count, blob and probe agrees")
    counts: list[CountCheckView]
    blobs: BlobCheckView
    probes: list[ProbeCheckView]
    notes: list[str]

    @classmethod
    def of(cls, r: MoveReport) -> MoveReportView:
        v = r.verification
        return cls(
            source=r.source,
            target=r.target,
            resumed=r.resumed,
            copied=dict(r.copied),
            vectors=r.vectors,
            seconds=r.seconds,
            ok=r.ok,
            counts=[CountCheckView.of(c) for c in v.counts],
            blobs=BlobCheckView.of(v.blobs),
            probes=[ProbeCheckView.of(p) for p in v.probes],
            notes=list(r.notes),
        )
