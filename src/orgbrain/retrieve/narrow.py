"""A question's time narrows what may answer; it never answers.

"What did we decide last week about billing?" is answered by what was decided about
billing, among the notes of last week: the window (``when.read_time``) keeps the
candidates that happened in it, or whose text says its words of a time in it, and
credits them as a stream's rows are credited. It drops the rest, but for those that
hold every other word of the question: a note is dated when it was written, and an
account is often written after what it tells ("I've known these friends for 4 years,
since I moved"). A window that holds none of the candidates changes nothing. Only a
window that picks out a handful (no more than the gate reads) lets a hit's date hold
the question's time as one of its terms ("what happened on December 4?"); one that
holds more (``"this week"`` in a brain whose files were all added this week) says
nothing to the gate (``Window.narrows``, read by ``evidence._coverage``): "Who is on
call for the payments team this week?" must be answered by a note about on-call and
payments, not by any note written this week.
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import text_stems
from ..model import ItemSketch
from .evidence import TIME_SLACK
from .query import Query
from .terms import coverage
from .when import Window, read_time

__all__ = ["narrow", "timely"]


def timely(item: ItemSketch, window: Window, said: list[str]) -> bool:
    """Whether ``item`` happened in ``window`` (give or take ``TIME_SLACK``), or its text
    says all of the window's words, ``said`` (``Query.time_terms``, read once per
    search: "Two weeks ago we ordered laptops"), and they, read at the item's own
    date, name a time in the window: a turn of 2022 that says "last week" tells of a
    week of 2022, not of the asker's last week."""
    if window.holds(item.when, TIME_SLACK):
        return True
    if coverage(said, _stems(item)) < 1.0:
        return False
    own = read_time(window.phrase, item.when).window
    return own is not None and (
        window.holds(own.start, TIME_SLACK) or own.holds(window.start, TIME_SLACK)
    )


def narrow(
    fused: dict[str, float],
    items: dict[str, ItemSketch],
    query: Query,
    depth: int,
    weight: float,
    k: int,
) -> tuple[dict[str, float], Window]:
    """The candidates of ``fused`` that are ``timely`` in ``query``'s window (it has
    one), each gaining ``weight / (k + rank)`` in its fused order, with those that are
    not but whose text holds every one of the query's terms besides the window's, at
    their own votes; best first. And
    the window, marked as not narrowing (a hit's date then holds no term of the
    question) unless at most ``depth`` candidates (the hits the gate reads) are timely.

    A window that holds none of the candidates (the brain holds nothing of then, or its
    dates are not the asker's) leaves them as they were: the gate then reads each hit's
    own words. The asker's time (``Window.askers``: "tomorrow", a time in a clause that
    sets the scene) narrows nothing: the note that answers was written at another time."""
    window = query.window
    assert window is not None
    if window.askers:
        return fused, window
    said = query.time_terms
    kept = {
        i: f
        for i, f in fused.items()
        if (s := items.get(i)) is not None and timely(s, window, said)
    }
    if not kept:
        return fused, replace(window, narrows=False)
    held = len(kept)
    for r, item_id in enumerate(kept, start=1):
        kept[item_id] += weight / (k + r)
    if rest := [t for t in query.terms if t not in said]:
        kept |= {
            i: f
            for i, f in fused.items()
            if i not in kept
            and (s := items.get(i)) is not None
            and coverage(rest, _stems(s)) == 1.0
        }
    ordered = dict(sorted(kept.items(), key=lambda kv: -kv[1]))
    return ordered, window if held <= depth else replace(window, narrows=False)


def _stems(item: ItemSketch) -> frozenset[str]:
    return text_stems(f"{item.label}\n{item.body}")
