"""A 4-entrant in-process tournament at ``--concurrency`` 1 and 2: the speed-up, paired.

Plays the same round-robin (every pair, seat-swapped game pairs) through the full tournament
machinery, match runner, state file and all, alternating the concurrencies round by round so
that a machine shared with other work slows both alike. Concurrency 1 plays in this process;
2 and more start worker processes, whose start-up is included (it is what a user waits for).

Per round and concurrency it measures the wall time and the CPU time of this process and its
workers together, and prints for each concurrency the games per second and the CPU per game
(median and range), then the speed-up against concurrency 1 computed per round (median and
range), and the speed-up the CPU allows: with k free cores, k times the CPU at concurrency 1
over the CPU at k (what the wall-clock speed-up tends to when nothing else runs; on a shared
machine the wall clock says more about the neighbours). Target (issue 15): at least 1.8x at
2 on two free cores, 240 games.

The machine's own ceiling is measured beside them: the same games split in halves, each half
played at concurrency 1 by its own process, both at once (forked from this one, no pool, no
queue, nothing shared). No pool can beat that; where it is below 2x, the cores slow each other
down (shared caches and memory, or a virtual machine's cores sharing physical ones).

Uses Tokaido Duo when its engine is installed, else the toy race game from the tests.

    python bench/tournament_speed.py [--games N] [--reps 7] [--concurrency 1 2 ...] [--bots B B B B]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena import TimeControl
from referee.core import UnknownGameError
from referee.games import find_game
from tournaments.plan import Plan, parse_entrants
from tournaments.store import JsonlStateStore, new_tournament_id
from tournaments.tournament import Tournament

DEFAULT_BOTS = ["random", "r2=random", "r3=random", "r4=random"]


def pick_game() -> str:
    """Tokaido Duo if it loads, else the test suite's toy game (registered from tests/)."""
    try:
        find_game("tokaido-duo").load_board()
        return "tokaido-duo"
    except (UnknownGameError, ImportError):
        from referee.games import register_game

        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        register_game("toy-race", "support.toy")
        return "toy-race"


def cpu_seconds() -> float:
    """CPU of this process and of its children that have ended (spawned workers, or the
    fork server with the workers it forked, once :func:`stop_fork_server` has ended it)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def stop_fork_server() -> None:
    """End the pool's fork server, if one was started, so that its CPU and its workers' is
    counted, and so that every round pays for starting one, as every ``referee tournament``
    does. (A private function of multiprocessing: a bench may.)"""
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)  # type: ignore[attr-defined]
    if stop is not None:
        stop()


def one_run(game: str, bots: list[str], games: int, concurrency: int) -> tuple[int, float, float]:
    """Games played, wall seconds and CPU seconds (all processes) of one tournament."""
    plan = Plan(game, tuple(parse_entrants(bots)), games, 2, 1,
                time_control=TimeControl(60_000))
    with tempfile.TemporaryDirectory() as state_dir:
        t = Tournament.start(plan, JsonlStateStore(Path(state_dir), new_tournament_id()))
        began, cpu = time.perf_counter(), cpu_seconds()
        table = t.run(concurrency)
        wall = time.perf_counter() - began
        stop_fork_server()
        return table.played, wall, cpu_seconds() - cpu


def halves_at_once(game: str, bots: list[str], games: int) -> tuple[float, float]:
    """Wall and CPU seconds of the tournament's games split between two independent processes
    playing at once (the machine's ceiling for two cores); each plays ``games // 2`` per
    pairing, together as many games as one run."""
    context = multiprocessing.get_context("fork")
    halves = [context.Process(target=one_run, args=(game, bots, games // 2, 1))
              for _ in range(2)]
    began, cpu = time.perf_counter(), cpu_seconds()
    for half in halves:
        half.start()
    for half in halves:
        half.join()
    if any(half.exitcode for half in halves):
        raise SystemExit("a half of the ceiling run failed")
    return time.perf_counter() - began, cpu_seconds() - cpu


def spread(values: list[float], fmt: str = ".2f") -> str:
    return (f"{statistics.median(values):{fmt}} median "
            f"({min(values):{fmt}}-{max(values):{fmt}}, n={len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=40,
                        help="games per pairing (a multiple of 4; 40 makes 240 games)")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--bots", nargs=4, default=DEFAULT_BOTS)
    args = parser.parse_args()
    if args.games % 4:
        sys.exit("--games: a multiple of 4 (the ceiling's two halves each play an even number "
                 "of games per pairing)")
    game = pick_game()
    levels = list(dict.fromkeys([1, *args.concurrency]))
    one_run(game, args.bots, 2, 1)  # imports and board out of the first round
    runs: dict[int, list[tuple[int, float, float]]] = {k: [] for k in levels}
    ceiling: list[tuple[float, float]] = []
    arms = [*levels, 0]  # 0: the two halves at once
    for rep in range(args.reps):
        shift = rep % len(arms)
        for k in arms[shift:] + arms[:shift]:  # rotate, so that order cannot bias
            if k:
                runs[k].append(one_run(game, args.bots, args.games, k))
            else:
                ceiling.append(halves_at_once(game, args.bots, args.games))
    played = runs[1][0][0]
    print(f"game {game}; entrants {' '.join(args.bots)}; {played} games per run; "
          f"{args.reps} rounds, concurrencies in rotating order; {os.cpu_count()} CPUs")
    for k in levels:
        rates = [n / wall for n, wall, _ in runs[k]]
        cpu = [c / n * 1000 for n, _, c in runs[k]]
        print(f"  concurrency {k}: {spread(rates, '.1f')} games/s, "
              f"CPU {spread(cpu)} ms/game (all processes)")
    for k in levels[1:]:
        ratio = [one[1] / other[1] for one, other in zip(runs[1], runs[k])]
        print(f"  speed-up {k} vs 1 (wall, per round): {spread(ratio)}x")
        cores = min(k, os.cpu_count() or 1)
        bound = [cores * one[2] / other[2] for one, other in zip(runs[1], runs[k])]
        print(f"  speed-up {k} vs 1 the CPU allows on {cores} free cores ({cores} x CPU at 1 / "
              f"CPU at {k}, per round): {spread(bound)}x")
    ratio = [one[1] / wall for one, (wall, _) in zip(runs[1], ceiling)]
    cpu = [c / played * 1000 for _, c in ceiling]
    print(f"  the machine's ceiling, two independent halves at once: {spread(ratio)}x the "
          f"rate at 1 (wall, per round); CPU {spread(cpu)} ms/game")


if __name__ == "__main__":
    main()
