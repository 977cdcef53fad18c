"""Random-vs-random Tokaido Duo games in one process: games per second, decisions per second.

Uses the engine directly (no runner, no views), choices drawn from a seeded generator, so the
figure is the rules engine's own speed.  Target: at least 500 games/s on one core.  Both the
wall-clock and the process CPU-time rates are printed: on a shared machine the CPU figure is
the one-core speed.

    python bench/tokaido_speed.py [--games N] [--seed S] [--solo LEVEL] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from referee.games import find_game


def play(n_games: int, seed: int, solo: int | None) -> tuple[int, float, float]:
    """Play ``n_games``; return (decisions, wall seconds, CPU seconds of this process)."""
    game = find_game("tokaido-duo")
    board = game.load_board()
    rng = random.Random(seed)
    options = {"automa": solo} if solo else None
    seats = 1 if solo else 2
    decisions = 0
    start, cpu = time.perf_counter(), time.process_time()
    for g in range(n_games):
        state = game.new_state(seats, seed + g, board, options)
        pending = state.pending()
        while pending:
            d = pending[0]
            state.apply({d.seat: rng.choice(d.options).id})
            decisions += 1
            pending = state.pending()
    return decisions, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--solo", type=int, default=None, help="Automa level: solo games instead")
    ap.add_argument("--profile", action="store_true", help="print the top of a cProfile run")
    args = ap.parse_args()
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(play, args.games, args.seed, args.solo)
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
        return
    play(20, args.seed, args.solo)  # warm the option cache and imports
    decisions, secs, cpu = play(args.games, args.seed, args.solo)
    print(f"{args.games} games, {decisions / args.games:.1f} decisions/game")
    print(f"wall {secs:.2f}s: {args.games / secs:.0f} games/s, {decisions / secs:.0f} decisions/s")
    print(f"cpu  {cpu:.2f}s: {args.games / cpu:.0f} games/s, {decisions / cpu:.0f} decisions/s"
          " (one core; the figure to quote on a busy machine)")


if __name__ == "__main__":
    main()
