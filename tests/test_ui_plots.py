"""The health page's plots, drawn on the server as SVG shapes: bars on one scale, stacks
that add up, durations on a log scale over time, inbox ages in their buckets, and text
escaped when rendered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from orgbrain.server.ui import Renderer
from orgbrain.server.ui.pages.health import AGE_BUCKETS, inbox_ages
from orgbrain.server.ui.plots import Bar, Figure, Series, Stack, bars, duration, stacked, timeline
from orgbrain.views import ProposalView

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _widths(fig: Figure) -> list[float]:
    return [float(dict(s.attrs)["width"]) for s in fig.shapes if s.tag == "rect"]


def test_bars_share_one_scale_and_a_zero_draws_nothing() -> None:
    fig = bars("f", "t", "d", [Bar("a", 10, "x"), Bar("b", 5, "x"), Bar("c", 0, "x")])
    wide, half = _widths(fig)
    assert abs(wide - 2 * half) < 0.2
    labels = [s.text for s in fig.shapes if s.tag == "text"]
    assert labels == ["a", "10", "b", "5", "c", "0"]
    assert bars("f", "t", "d", [Bar("a", 0, "x")]).shapes[1].text == "0"


def test_stacks_add_up_on_one_scale() -> None:
    fig = stacked(
        "f",
        "t",
        "d",
        [Stack("http", (("s", 3), ("q", 1))), Stack("ui", (("s", 2), ("q", 0)), "2 · 100%")],
        [("s", "spoke"), ("q", "silent")],
    )
    a, b, c = _widths(fig)
    assert abs(a - 3 * b) < 0.5 and abs(c - 2 * b) < 0.5  # 3, 1 | 2 (zero drawn as nothing)
    assert [s.text for s in fig.shapes if s.tag == "text"] == ["http", "4", "ui", "2 · 100%"]
    assert fig.legend == (("s", "spoke"), ("q", "silent"))


def test_a_timeline_puts_longer_higher_on_a_log_scale_and_later_further_right() -> None:
    pts = ((T0, 0.5), (T0 + timedelta(minutes=1), 5.0), (T0 + timedelta(minutes=2), 50.0))
    fig = timeline("f", "t", "d", [Series("k", "index", pts), Series("e", "none", ())])
    dots = [dict(s.attrs) for s in fig.shapes if s.tag == "circle"]
    xs = [float(d["cx"]) for d in dots]
    ys = [float(d["cy"]) for d in dots]
    assert xs == sorted(xs) and ys == sorted(ys, reverse=True)  # SVG's y grows downward
    assert abs((ys[0] - ys[1]) - (ys[1] - ys[2])) < 0.5  # each a factor of 10
    ticks = [s.text for s in fig.shapes if s.tag == "text"]
    assert {"1 s", "10 s", "1 min"} <= set(ticks) and "10 min" not in ticks and "09:00 UTC" in ticks
    assert fig.legend == (("k", "index"),)
    assert timeline("f", "t", "d", []).empty


def test_inbox_ages_fall_in_their_buckets() -> None:
    def pending(age: timedelta) -> ProposalView:
        return ProposalView(
            id="p",
            workspace="w",
            run_id="r",
            actor="human:a",
            kind="fact",
            label="",
            body="b",
            scope="org",
            confidence=0.5,
            sensitivity=[],
            evidence=[],
            supersedes=[],
            state="pending",
            reason="",
            created_at=T0 - age,
            writer="offline",
            item_id=None,
            decided_by=None,
            decided_at=None,
            review_reason=None,
        )

    ages = [timedelta(minutes=5), timedelta(hours=3), timedelta(days=2), timedelta(days=60)]
    counted = inbox_ages([pending(a) for a in ages], T0)
    assert [label for label, _ in counted] == [label for _, label in AGE_BUCKETS]
    assert [n for _, n in counted] == [1, 1, 1, 0, 1]


def test_durations_read_as_people_say_them() -> None:
    assert [duration(s) for s in (None, 0.42, 12, 250, 7500, 200_000)] == [
        "-",
        "0.4 s",
        "12 s",
        "4m 10s",
        "2h 5m",
        "2d 7h",
    ]


def test_a_figure_escapes_its_text() -> None:
    fig = bars("f", "<b>t</b>", "d & e", [Bar("<script>x</script>", 1, "x")])
    html = (
        Renderer()
        .env.from_string('{% from "_plots.html" import figure %}{{ figure(f, "c") }}')
        .render(f=fig)
    )
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;" in html
    assert 'role="img"' in html and "d &amp; e" in html
