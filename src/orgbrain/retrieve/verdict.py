"""Floors: the simple, logged thresholds that decide whether the brain speaks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Verdict

__all__ = ["Floored", "apply_floors"]


@dataclass(frozen=True, slots=True)
class Floored:
    keep: int
    verdict: Verdict
    reason: str


def apply_floors(
    scores: Sequence[float],
    *,
    best_fused: float,
    floor_abs: float,
    floor_rel: float,
    k: int,
) -> Floored:
    """Decide how many of the (descending) ``scores`` to keep.

    Nothing if the best fused score is under ``floor_abs``; otherwise keep hits scoring at
    least ``floor_rel`` of the top, at most ``k``. ``single`` when one survives.
    """
    if not scores:
        return Floored(0, "none", "no candidates")
    if best_fused < floor_abs:
        return Floored(0, "none", f"best fused score {best_fused:.4f} < floor {floor_abs}")
    top = scores[0]
    cut = top * floor_rel
    keep = 0
    for s in scores[:k]:
        if s < cut:
            break
        keep += 1
    verdict: Verdict = "single" if keep == 1 else "many"
    dropped = min(len(scores), k) - keep
    reason = f"kept {keep}" + (f", cut {dropped} under {floor_rel:.0%} of top" if dropped else "")
    return Floored(keep, verdict, reason)
