"""Random 4-seat Doubletrack games per second, in one process (engine only, no views).

Choices come from a seeded generator so every run plays the same games; the target is 500
games/s on one core. Both the wall-clock and the process CPU-time rates are printed: on a shared
machine the CPU figure is the one-core speed. ``--profile`` prints where the time goes.
Usage: python bench/doubletrack_speed.py [--games 2000] [--seats 4] [--profile]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from referee.games import find_game  # noqa: E402


def play_random(game, board, seats: int, seed: int) -> int:  # type: ignore[no-untyped-def]
    """One game with uniformly random choices; returns the number of decision steps."""
    state = game.new_state(seats, seed, board)
    choose = random.Random(seed).choice
    steps = 0
    pending = state.pending()
    while pending:
        state.apply({d.seat: choose(d.options).id for d in pending})
        pending = state.pending()
        steps += 1
    return steps


def run(games: int, seats: int) -> tuple[float, float, float]:
    """Games per wall second, games per CPU second of this process, decisions per game."""
    game = find_game("doubletrack")
    board = game.load_board()
    began, cpu = time.perf_counter(), time.process_time()
    steps = sum(play_random(game, board, seats, seed) for seed in range(games))
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
    return games / elapsed, games / cpu, steps / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seats", type=int, default=4, choices=(3, 4))
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.profile:
        import cProfile
        import pstats
        profiler = cProfile.Profile()
        profiler.runcall(run, args.games, args.seats)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    rate, cpu_rate, steps = run(args.games, args.seats)
    print(f"{rate:.0f} random {args.seats}-seat games/s wall, {cpu_rate:.0f} per CPU second "
          f"(one core; the figure to quote on a busy machine); {steps:.0f} decisions per game; "
          f"target 500")


if __name__ == "__main__":
    main()
