"""The geometry of a bot's rating chart, drawn by the page as inline SVG (no script).

x is the match's index in the bot's rated matches of a game (the start at 0), y its Elo after
the match; gridlines fall on round numbers, and a vertical line marks where a new ladder round
begins (a per-match chart can mislead when one round's opponents were harder than another's:
the marks show which matches belong together).

The drawing is an image to assistive technology (its title says what it shows); its markers'
links are for a pointer only. The same games, each with its link, follow it as a table in a
closed ``<details>``: a screen reader reads them, a keyboard reaches them, and nobody has to Tab
through a hundred markers to get past the chart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 14, 12, 30
MAX_MARKERS = 150
"""Beyond this many matches the line is drawn without a marker per match."""


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    rating: float
    change: float
    match_id: int
    index: int


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    line: str
    """The polyline's points attribute."""
    start: tuple[float, float]
    points: list[Point]
    markers: bool
    y_ticks: list[tuple[float, str]]
    x_ticks: list[tuple[float, str]]
    rounds: list[float]
    low: float
    high: float
    plot: tuple[float, float, float, float]
    """left, top, right, bottom of the plotting area."""

    @property
    def listed(self) -> list[Point]:
        """The games the chart's text version lists, each with its match's link: the last
        :data:`MAX_MARKERS` (all of them when every game has a marker)."""
        return self.points[-MAX_MARKERS:]


def rating_chart(series: Sequence[Mapping[str, Any]]) -> Chart | None:
    """The chart of ``series`` (each: ``before``, ``after``, ``match_id``, ``round_id``), or None
    when there is nothing to draw."""
    if not series:
        return None
    values = [float(series[0]["before"])] + [float(s["after"]) for s in series]
    low, high = _padded(min(values), max(values))
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    n = len(series)

    def x_at(i: float) -> float:
        return round(LEFT + (right - LEFT) * i / n, 1)

    def y_at(v: float) -> float:
        return round(bottom - (bottom - TOP) * (v - low) / (high - low), 1)

    points = [Point(x_at(i), y_at(float(s["after"])), float(s["after"]),
                    float(s["after"]) - float(s["before"]), int(s["match_id"]), i)
              for i, s in enumerate(series, start=1)]
    start = (x_at(0), y_at(values[0]))
    line = " ".join(f"{x},{y}" for x, y in [start] + [(p.x, p.y) for p in points])
    rounds = [round((x_at(i) + x_at(i + 1)) / 2, 1) for i in range(1, n)
              if series[i]["round_id"] is not None
              and series[i]["round_id"] != series[i - 1]["round_id"]]
    return Chart(WIDTH, HEIGHT, line, start, points, n <= MAX_MARKERS,
                 [(y_at(v), f"{v:.0f}") for v in nice_ticks(low, high)],
                 [(x_at(i), f"{i:.0f}") for i in nice_ticks(0, n, integers=True)],
                 rounds, low, high, (LEFT, TOP, right, bottom))


def _padded(low: float, high: float) -> tuple[float, float]:
    """A y range around the data with some air, at least 40 points tall."""
    middle, half = (low + high) / 2, max((high - low) / 2 * 1.1, 20.0)
    return middle - half, middle + half


def nice_ticks(low: float, high: float, target: int = 5, integers: bool = False
               ) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) within [low, high], about
    ``target`` of them."""
    span = high - low
    if span <= 0:
        return [low]
    power = 10 ** math.floor(math.log10(span / target))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda s: abs(span / s - target))
    if integers:
        step = max(1.0, float(round(step)))
    first = math.ceil(low / step) * step
    count = int(math.floor((high - first) / step + 1e-9)) + 1
    return [first + k * step for k in range(count)]
