"""Progress of long runs on stderr: a live bar in a terminal, one line per game elsewhere.

In a terminal, a rich progress bar shows games, rate, ETA and the leaders. Anywhere else (CI,
``nohup``, a pipe) a bar would print nothing useful, so every finished game gets one line, as
cutechess prints "Finished game": a log that shows the run is alive and how it stands.

The ETA is the games left divided by the rate since *this* run began (worker start-up
included): rich's own estimate extrapolates from the last few seconds, so the burst of games
that finish together once the workers are up made it read "0:00:00" at the start.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from tournaments.fixtures import Outcome
from tournaments.standings import Standings

Update = Callable[[Outcome, Standings], None]


def eta_seconds(done: int, total: int, elapsed_s: float) -> float | None:
    """Seconds left at the rate so far (``done`` of ``total`` in ``elapsed_s``); ``None``
    before the first game, 0 when nothing is left."""
    if done >= total:
        return 0.0
    if done <= 0 or elapsed_s <= 0:
        return None
    return (total - done) * elapsed_s / done


def format_duration(seconds: float | None) -> str:
    """``1:02:03``, or ``--:--`` when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "--:--"
    whole = int(round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def game_line(outcome: Outcome, table: Standings, total: int, eta: float | None) -> str:
    """``Finished game 3/12 (strong vs weak): 1-0  [strong 3/3 ...]  ETA 0:00:12``."""
    names = [table.entrants[i].name for i in outcome.seats]
    if len(names) == 2:
        score = {(1, 2): "1-0", (2, 1): "0-1"}.get((outcome.ranks[0], outcome.ranks[1]),
                                                   "1/2-1/2")
        who = f"{names[0]} vs {names[1]}"
    else:
        score = "ranks " + "-".join(map(str, outcome.ranks))
        who = ", ".join(names)
    notes = []
    if outcome.end != "normal":
        notes.append(outcome.end)
    struck = [f"{names[s]} {n}" for s, n in enumerate(outcome.strikes) if n]
    if struck:
        notes.append("strikes " + ", ".join(struck))
    note = f" {{{'; '.join(notes)}}}" if notes else ""
    return (f"Finished game {table.played}/{total} ({who}): {score}{note}  "
            f"[{table.leaders()}]  ETA {format_duration(eta)}")


@contextmanager
def game_progress(total: int, done: int, mode: str | None) -> Iterator[Update | None]:
    """A callback for every finished game: ``mode`` ``"bar"`` (a live bar), ``"lines"`` (one
    line each) or ``None`` (quiet)."""
    if mode is None:
        yield None
        return
    began, start_done = time.monotonic(), done

    def eta(played: int) -> float | None:
        return eta_seconds(played - start_done, total - start_done, time.monotonic() - began)

    if mode == "lines":
        def line(outcome: Outcome, table: Standings) -> None:
            click.echo(game_line(outcome, table, total, eta(table.played)), err=True)

        yield line
        return
    with _bar(total, done) as bar_update:
        def update(outcome: Outcome, table: Standings) -> None:
            rate = (table.played - start_done) / max(1e-9, time.monotonic() - began)
            bar_update(table.played, f"{rate:.1f}/s", format_duration(eta(table.played)),
                       table.leaders())

        yield update


@contextmanager
def _bar(total: int, done: int) -> Iterator[Callable[[int, str, str, str], None]]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (TextColumn("games"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TextColumn("ETA {task.fields[eta]}"),
               TextColumn("{task.fields[leaders]}"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("games", total=total, completed=done, rate="", eta="--:--",
                            leaders="")

        def update(played: int, rate: str, eta: str, leaders: str) -> None:
            bar.update(task, completed=played, rate=rate, eta=eta, leaders=leaders)

        yield update


def progress_mode(progress: bool | None) -> str | None:
    """``--progress``: the bar; ``--no-progress``: nothing; neither: the bar in a terminal,
    a line per game anywhere else."""
    if progress is None:
        return "bar" if sys.stderr.isatty() else "lines"
    return "bar" if progress else None

