"""Plots drawn on the server as inline SVG: no script, no network, nothing to download.

A ``Figure`` is a list of SVG shapes in a fixed coordinate box (the page scales it to its
width); ``_plots.html`` renders it with a ``<title>`` and ``<desc>`` for screen readers,
and every page that shows one also shows its numbers as a table. Tag and attribute names
come only from this module; every value and text is escaped by the template.

Three kinds: horizontal bars (``bars``), horizontal stacked bars (``stacked``) and a
scatter of durations over time on a log scale (``timeline``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

__all__ = [
    "Bar",
    "Figure",
    "Series",
    "Shape",
    "Stack",
    "bars",
    "duration",
    "stacked",
    "timeline",
]

WIDTH = 720
LABEL_W = 150
ROW_H = 28
BAR_H = 18
PAD = 8


@dataclass(frozen=True, slots=True)
class Shape:
    tag: Literal["rect", "circle", "line", "text"]
    attrs: tuple[tuple[str, str], ...]
    text: str = ""


@dataclass(frozen=True, slots=True)
class Figure:
    id: str
    title: str
    desc: str
    width: int
    height: int
    shapes: tuple[Shape, ...]
    legend: tuple[tuple[str, str], ...] = ()
    """(CSS class, label) of each colour used."""

    @property
    def empty(self) -> bool:
        return not self.shapes


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float
    cls: str
    note: str = ""
    """Printed after the bar (else the value)."""


@dataclass(frozen=True, slots=True)
class Stack:
    label: str
    parts: tuple[tuple[str, int], ...]
    """(CSS class, count) of each segment, left to right."""
    note: str = ""


@dataclass(frozen=True, slots=True)
class Series:
    cls: str
    label: str
    points: tuple[tuple[datetime, float], ...]
    """(when, seconds)."""


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _rect(x: float, y: float, w: float, h: float, cls: str, title: str = "") -> Shape:
    attrs = (("x", _num(x)), ("y", _num(y)), ("width", _num(w)), ("height", _num(h)))
    return Shape("rect", (*attrs, ("class", cls)), title)


def _text(x: float, y: float, text: str, cls: str = "plot-label", anchor: str = "start") -> Shape:
    attrs = (("x", _num(x)), ("y", _num(y)), ("class", cls), ("text-anchor", anchor))
    return Shape("text", attrs, text)


def _line(x1: float, y1: float, x2: float, y2: float, cls: str = "plot-axis") -> Shape:
    attrs = (("x1", _num(x1)), ("y1", _num(y1)), ("x2", _num(x2)), ("y2", _num(y2)))
    return Shape("line", (*attrs, ("class", cls)))


def bars(fid: str, title: str, desc: str, rows: Sequence[Bar]) -> Figure:
    """One bar a row, all on one scale (the largest value fills the width)."""
    top = max((r.value for r in rows), default=0.0)
    span = WIDTH - LABEL_W - 90
    shapes: list[Shape] = []
    for i, r in enumerate(rows):
        y = PAD + i * ROW_H
        shapes.append(_text(LABEL_W - 8, y + BAR_H - 4, r.label, anchor="end"))
        w = span * r.value / top if top > 0 else 0.0
        if r.value > 0:
            shapes.append(_rect(LABEL_W, y, max(w, 2.0), BAR_H, r.cls))
        shapes.append(_text(LABEL_W + w + 6, y + BAR_H - 4, r.note or _num(r.value)))
    return Figure(fid, title, desc, WIDTH, 2 * PAD + len(rows) * ROW_H, tuple(shapes))


def stacked(
    fid: str, title: str, desc: str, rows: Sequence[Stack], legend: Sequence[tuple[str, str]]
) -> Figure:
    """One stacked bar a row, all on one scale (the largest total fills the width)."""
    top = max((sum(n for _, n in r.parts) for r in rows), default=0)
    span = WIDTH - LABEL_W - 150
    shapes: list[Shape] = []
    for i, r in enumerate(rows):
        y = PAD + i * ROW_H
        shapes.append(_text(LABEL_W - 8, y + BAR_H - 4, r.label, anchor="end"))
        x = float(LABEL_W)
        for cls, n in r.parts:
            if n <= 0 or top <= 0:
                continue
            w = max(span * n / top, 2.0)
            shapes.append(_rect(x, y, w, BAR_H, cls))
            x += w
        total = sum(n for _, n in r.parts)
        shapes.append(_text(x + 6, y + BAR_H - 4, r.note or str(total)))
    height = 2 * PAD + len(rows) * ROW_H
    return Figure(fid, title, desc, WIDTH, height, tuple(shapes), tuple(legend))


_TICKS = (
    (0.1, "0.1 s"),
    (1.0, "1 s"),
    (10.0, "10 s"),
    (60.0, "1 min"),
    (600.0, "10 min"),
    (3600.0, "1 h"),
    (36_000.0, "10 h"),
    (86_400.0, "1 d"),
    (864_000.0, "10 d"),
)


def timeline(fid: str, title: str, desc: str, series: Sequence[Series]) -> Figure:
    """Each point a dot: when (x, first to last) against how many seconds (y, log)."""
    points = [p for s in series for p in s.points]
    if not points:
        return Figure(fid, title, desc, WIDTH, 0, ())
    height, left, bottom, top_pad = 240, 64, 30, 10
    plot_h = height - bottom - top_pad
    # Headroom both ways, so no dot sits on an axis.
    lo = min(max(min(v for _, v in points), 0.01), 1.0) / 2
    hi = max(max(v for _, v in points), lo * 10) * 2
    log_lo, log_hi = math.log10(lo), math.log10(hi)
    t0 = min(t for t, _ in points).timestamp()
    t1 = max(t for t, _ in points).timestamp()
    span_t = max(t1 - t0, 1.0)
    right, inset = WIDTH - 12, 10

    def y_of(seconds: float) -> float:
        v = math.log10(max(seconds, lo))
        return top_pad + plot_h * (1 - (v - log_lo) / (log_hi - log_lo))

    def x_of(ts: float) -> float:
        return left + inset + (right - left - 2 * inset) * (ts - t0) / span_t

    shapes: list[Shape] = [
        _line(left, top_pad, left, top_pad + plot_h),
        _line(left, top_pad + plot_h, right, top_pad + plot_h),
    ]
    for value, label in _TICKS:
        if lo <= value <= hi:
            y = y_of(value)
            shapes.append(_line(left, y, right, y, "plot-grid"))
            shapes.append(_text(left - 6, y + 4, label, "plot-tick", "end"))
    for ts, anchor in ((t0, "start"), (t1, "end")):
        shapes.append(_text(x_of(ts), height - 10, _when(ts, span_t), "plot-tick", anchor))
    for s in series:
        for when, seconds in s.points:
            attrs = (
                ("cx", _num(x_of(when.timestamp()))),
                ("cy", _num(y_of(seconds))),
                ("r", "4"),
                ("class", s.cls),
            )
            shapes.append(Shape("circle", attrs))
    legend = tuple((s.cls, s.label) for s in series if s.points)
    return Figure(fid, title, desc, WIDTH, height, tuple(shapes), legend)


def _when(ts: float, span_s: float) -> str:
    at = datetime.fromtimestamp(ts, UTC)
    return at.strftime("%H:%M UTC" if span_s < 86_400 else "%Y-%m-%d")


def duration(seconds: float | None) -> str:
    """``3d 4h``, ``2h 5m``, ``4m 10s``, ``12 s``, ``0.4 s``: a wait as people read it."""
    if seconds is None:
        return "-"
    if seconds < 10:
        return f"{seconds:.1f} s"
    s = int(seconds)
    days, s = divmod(s, 86_400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {s}s" if minutes else f"{s} s"
