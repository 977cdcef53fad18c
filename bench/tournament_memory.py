"""Memory a tournament holds per game when every log comes back to be recorded (``--db``).

Plays a round-robin of ``random`` bots at ``--concurrency`` 2 with the logs kept (as ``--db``
asks) and a recorder that serialises each log (as the ladder does), at two lengths, and
measures in the parent what is still allocated once the tournament is over but still held
(tracemalloc, started at the first result so that it traces only the parent, not the workers
forked before), and the growth of its resident set. The slope between the two lengths is the
cost per game; target (issue 15): at most 10 KiB. ``--as-before`` books outcomes with their
logs, as the tournament did before it dropped them, for the comparison.

    python bench/tournament_memory.py [--games 200 800] [--reps 3] [--as-before]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tournament_speed import DEFAULT_BOTS, pick_game  # noqa: E402

from arena import TimeControl  # noqa: E402
from tournaments.fixtures import Fixture, Outcome  # noqa: E402
from tournaments.plan import Plan, parse_entrants  # noqa: E402
from tournaments.standings import Standings  # noqa: E402
from tournaments.store import JsonlStateStore, new_tournament_id  # noqa: E402
from tournaments.tournament import Tournament  # noqa: E402


def resident_bytes() -> int:
    """This process's resident set now (Linux), or 0."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def keep_logs_as_before() -> None:
    """Book outcomes with their logs, as :meth:`Tournament._book` did before."""
    def book(self: Tournament, outcome: Outcome, table: Standings, progress: Any) -> None:
        self.store.append(outcome)
        self.done[outcome.index] = outcome
        table.add(outcome)
        if progress is not None:
            progress(outcome, table)

    Tournament._book = book  # type: ignore[method-assign]


def held_after(game: str, games: int, concurrency: int) -> tuple[int, int, int]:
    """Games played, bytes still allocated since the first result, and resident growth."""
    pairings = 6  # four entrants
    plan = Plan(game, tuple(parse_entrants(DEFAULT_BOTS)), max(2, 2 * round(games / pairings / 2)),
                2, 1, time_control=TimeControl(60_000), keep_logs=True)
    with tempfile.TemporaryDirectory() as state_dir:
        t = Tournament.start(plan, JsonlStateStore(Path(state_dir), new_tournament_id()))
        written = [0]

        def record(outcome: Outcome, fixture: Fixture) -> None:
            written[0] += len(json.dumps(outcome.log))  # what the ladder does with it

        def progress(outcome: Outcome, table: Standings) -> None:
            if not tracemalloc.is_tracing():
                tracemalloc.start()

        gc.collect()
        rss = resident_bytes()
        table = t.run(concurrency, record=record, progress=progress)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        grown = resident_bytes() - rss
        assert table.played == len(t.done) and written[0] > 0
        return table.played, held, grown


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, nargs=2, default=[200, 800])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--as-before", action="store_true",
                        help="keep every log in memory, as before issue 15")
    args = parser.parse_args()
    if args.as_before:
        keep_logs_as_before()
    game = pick_game()
    short, long = args.games
    traced, resident = [], []
    for _ in range(args.reps):
        n1, held1, rss1 = held_after(game, short, args.concurrency)
        n2, held2, rss2 = held_after(game, long, args.concurrency)
        if n2 == n1:
            sys.exit(f"--games {short} {long} both play {n1} games; give lengths further apart")
        traced.append((held2 - held1) / (n2 - n1) / 1024)
        resident.append((rss2 - rss1) / (n2 - n1) / 1024)
    print(f"game {game}, concurrency {args.concurrency}, logs kept for a recorder; "
          f"{n1} vs {n2} games, {args.reps} reps{' (as before: logs kept)' if args.as_before else ''}")
    for name, values in (("held (tracemalloc)", traced), ("resident growth", resident)):
        print(f"  {name}: {statistics.median(values):.1f} KiB/game median "
              f"({min(values):.1f} to {max(values):.1f})")


if __name__ == "__main__":
    main()
