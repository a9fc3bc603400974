"""A question's time narrows what may answer; it never answers.

"What did we decide last week about billing?" is answered by what was decided about
billing, among the notes of last week: the window (``when.read_time``) keeps the
candidates that happened in it, or whose text says its words, and drops the rest. Only
a window that picks out a handful of candidates (no more than the gate reads) tells
them apart: they gain a vote as a stream's rows do, and a hit's date holds the
question's time as one of its terms ("what happened on December 4?"). A window that
holds many (``"this week"`` in a brain whose files were all added this week) narrows
them and says nothing more (``Window.narrows``, read by ``evidence._coverage``): "Who is
on call for the payments team this week?" must be answered by a note about on-call and
payments, not by any note written this week.
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import text_stems
from ..model import ItemSketch
from .evidence import TIME_SLACK
from .terms import coverage, query_terms
from .when import Window

__all__ = ["narrow", "timely"]


def timely(item: ItemSketch, window: Window, said: list[str]) -> bool:
    """Whether ``item`` happened in ``window`` (give or take ``TIME_SLACK``) or its text
    says all of the window's words, ``said`` (``query_terms(window.phrase)``, read once
    per search: "Two weeks ago we ordered laptops")."""
    if window.holds(item.when, TIME_SLACK):
        return True
    return coverage(said, text_stems(f"{item.label}\n{item.body}")) == 1.0


def narrow(
    fused: dict[str, float],
    items: dict[str, ItemSketch],
    window: Window,
    depth: int,
    weight: float,
    k: int,
) -> tuple[dict[str, float], Window]:
    """The candidates of ``fused`` that are ``timely``, best first; and the window. When
    at most ``depth`` of them (the hits the gate reads) remain, each gains
    ``weight / (k + rank)`` in its fused order; when more remain, or none, their votes
    are kept and the window is marked as not narrowing: it cannot tell which one
    answers, and a hit's date holds no term of the question.

    None in the window leaves the candidates as they were (the brain holds nothing of
    then, or its dates are not the asker's): the gate then reads each hit's own words.
    The asker's time (``Window.askers``: "tomorrow", a time in a clause that sets the
    scene) narrows nothing: the note that answers was written at another time."""
    if window.askers:
        return fused, window
    said = query_terms(window.phrase)
    kept = {
        i: f
        for i, f in fused.items()
        if (s := items.get(i)) is not None and timely(s, window, said)
    }
    if not kept or len(kept) > depth:
        return kept or fused, replace(window, narrows=False)
    for r, item_id in enumerate(kept, start=1):
        kept[item_id] += weight / (k + r)
    return dict(sorted(kept.items(), key=lambda kv: -kv[1])), window
