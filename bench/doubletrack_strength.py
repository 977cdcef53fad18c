"""Greedy against random at Doubletrack: win rates at 3 and 4 seats.

The greedy bot must win at least 1.6 times its fair share (over 53.3% at 3 seats, over 40% at 4)
of 1,000 games against random opponents. Seats rotate so that greedy sits in every seat equally.
Usage: python bench/doubletrack_strength.py [--games 1000] [--procs 2]
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots import find_bot  # noqa: E402
from referee.games import find_game  # noqa: E402


def play(seats: int, seed: int) -> bool:
    """One game, greedy in seat ``seed % seats``; True when greedy wins (shared wins count)."""
    game = find_game("doubletrack")
    me = seed % seats
    bots = [find_bot("greedy" if s == me else "random", "doubletrack", seed * 10 + s)
            for s in range(seats)]
    state = game.new_state(seats, seed)
    while True:
        pending = state.pending()
        if not pending:
            break
        state.apply({d.seat: _answer(bots[d.seat], d, state) for d in pending})
    result = state.result()
    assert result is not None
    return me in result.winners


def _answer(bot, decision, state) -> str:  # type: ignore[no-untyped-def]
    from referee.players import LazyView
    out = bot.decide(decision, LazyView(lambda: state.view(decision.seat)))
    return out[0] if isinstance(out, tuple) else out


def win_rate(seats: int, games: int, procs: int, base_seed: int = 0) -> float:
    seeds = range(base_seed, base_seed + games)
    if procs > 1:
        with ProcessPoolExecutor(procs) as pool:
            wins = sum(pool.map(play, [seats] * games, seeds, chunksize=20))
    else:
        wins = sum(play(seats, s) for s in seeds)
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for seats in (3, 4):
        rate = win_rate(seats, args.games, args.procs, args.seed)
        need = 1.6 / seats
        verdict = "ok" if rate > need else "BELOW TARGET"
        print(f"{seats} seats: greedy wins {rate:.1%} of {args.games} games "
              f"(fair share {1 / seats:.1%}, target > {need:.1%}) {verdict}")


if __name__ == "__main__":
    main()
