"""The rating chart's geometry: every match a point inside the plot, in order; round numbers
for gridlines; a mark where each new round begins."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from api.pages.charts import MAX_MARKERS, nice_ticks, rating_chart

ratings = st.floats(min_value=-5000, max_value=9000, allow_nan=False)


@st.composite
def series(draw):
    n = draw(st.integers(1, 2 * MAX_MARKERS))
    values = draw(st.lists(ratings, min_size=n + 1, max_size=n + 1))
    rounds = draw(st.lists(st.one_of(st.none(), st.integers(1, 4)), min_size=n, max_size=n))
    return [{"before": values[i], "after": values[i + 1], "match_id": 100 + i,
             "round_id": rounds[i]} for i in range(n)]


@settings(max_examples=50)
@given(series())
def test_every_match_is_a_point_inside_the_plot_left_to_right(s):
    chart = rating_chart(s)
    left, top, right, bottom = chart.plot
    xs = [chart.start[0]] + [p.x for p in chart.points]
    ys = [chart.start[1]] + [p.y for p in chart.points]
    assert len(chart.points) == len(s) and len(chart.line.split()) == len(s) + 1
    assert xs == sorted(xs) and xs[0] == left and xs[-1] == right
    assert all(top <= y <= bottom for y in ys)
    assert [p.match_id for p in chart.points] == [m["match_id"] for m in s]
    assert chart.markers == (len(s) <= MAX_MARKERS)
    best = max(range(len(s)), key=lambda i: s[i]["after"])
    assert min(p.y for p in chart.points) == chart.points[best].y  # up is better
    for y, _ in chart.y_ticks:
        assert top - 0.1 <= y <= bottom + 0.1


@settings(max_examples=50)
@given(series())
def test_a_mark_for_each_change_of_round(s):
    changes = sum(1 for a, b in zip(s, s[1:])
                  if b["round_id"] is not None and b["round_id"] != a["round_id"])
    assert len(rating_chart(s).rounds) == changes


@given(st.floats(-1e6, 1e6), st.floats(1e-3, 1e6), st.booleans())
def test_ticks_are_round_evenly_spaced_and_within_the_range(low, span, integers):
    high = low + span
    ticks = nice_ticks(low, high, integers=integers)
    assert len(ticks) <= 12
    assert ticks or (integers and span < 1)  # whole ticks need a whole number in range
    assert all(low - 1e-6 * span <= t <= high + 1e-6 * span for t in ticks)
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) <= 1
    if steps:
        step = steps.pop()
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 6) in (1, 2, 5, 10)


def test_no_series_no_chart():
    assert rating_chart([]) is None
