"""Freshness: old facts sink but never disappear."""

from __future__ import annotations

from datetime import datetime

__all__ = ["age_days", "freshness"]


def freshness(age_in_days: float, *, half_life_days: float = 90.0, floor: float = 0.25) -> float:
    """Multiplier in [floor, 1]: halves every ``half_life_days``; future dates count as now."""
    if half_life_days <= 0:
        raise ValueError("half_life_days must be > 0")
    age = max(0.0, age_in_days)
    return max(floor, float(0.5 ** (age / half_life_days)))


def age_days(when: datetime, now: datetime) -> float:
    return (now - when).total_seconds() / 86400.0
