"""Freshness: old facts sink but never disappear, and sink only below newer facts on
their own topic."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

__all__ = ["NEWER", "age_days", "by_topic", "freshness"]

NEWER = timedelta(days=1)
"""How much later a candidate must be written to count as newer than another in
``by_topic``: under a year's half-life a day is a fifth of a percent of freshness, not
worth comparing two texts for (a corpus written in one sitting compares none)."""


def freshness(age_in_days: float, *, half_life_days: float = 90.0, floor: float = 0.25) -> float:
    """Multiplier in [floor, 1]: halves every ``half_life_days``; future dates count as now."""
    if half_life_days <= 0:
        raise ValueError("half_life_days must be > 0")
    age = max(0.0, age_in_days)
    return max(floor, float(0.5 ** (age / half_life_days)))


def age_days(when: datetime, now: datetime) -> float:
    return (now - when).total_seconds() / 86400.0


def by_topic(
    fresh: Sequence[float],
    written: Sequence[datetime],
    related: Callable[[int, int], bool],
) -> list[float]:
    """Each candidate's freshness against its own topic: ``fresh[i] * top / newest``,
    ``top`` the freshest of all, ``newest`` the freshest of ``i`` and of the candidates
    written ``NEWER`` or more after it that ``related(i, j)`` says share its topic.

    An old note sinks below a newer one on its topic as far as plain freshness sinks it
    (the newer note answers what it answered), but not below a note about something
    else that merely happens to be newer: the newest word on each topic stands as fresh
    as the freshest candidate. When every candidate shares one topic (or one date) this
    is plain freshness; a candidate written less than ``NEWER`` before another is not
    older than it. ``related`` is asked only about pairs that could change a figure,
    freshest candidate first, so its cost is paid where dates differ."""
    if not fresh:
        return []
    top = max(fresh)
    order = sorted(range(len(fresh)), key=lambda j: -fresh[j])
    out: list[float] = []
    for i, f in enumerate(fresh):
        newest = f
        for j in order:
            if fresh[j] <= f:
                break
            if written[j] - written[i] >= NEWER and related(i, j):
                newest = fresh[j]
                break
        # Exactly ``top`` when nothing newer shares the topic: two candidates of equal
        # votes must not be ordered by the float noise of ``f * top / f``.
        out.append(top if newest == f else f * top / newest if newest > 0 else 0.0)
    return out
