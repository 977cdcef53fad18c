"""How often one built-in bot beats others: the strength checks of the issues, as figures.

    python bench/bot_strength.py tokaido-duo greedy random --games 1000
    python bench/bot_strength.py tokaido-duo mcts greedy --games 200
    python bench/bot_strength.py doubletrack greedy random --seats 3 --games 1000 --target 1.6
    python bench/bot_strength.py doubletrack mcts greedy --seats 3 --games 300

The bot under test sits in every seat equally often (seats rotate with the seed); the other
seats are all played by the opponent bot. Shared wins count as a share. Prints the win share,
the fair share (1 / seats) and their ratio, with a 95% interval from the normal approximation,
and whether the ratio clears ``--target`` when one is given. Games run in a process pool
(``--procs``); each game is one seeded match played by ``arena.play_match``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena import MatchDescription, Seat, TimeControl, play_match  # noqa: E402
from referee.games import find_game  # noqa: E402


def play(game: str, bot: str, opponent: str, seats: int, seed: int) -> float:
    """One game; the share of the win that ``bot`` took (0, 1, or 1/k for a k-way tie)."""
    me = seed % seats
    description = MatchDescription(
        game, tuple(Seat(bot if s == me else opponent) for s in range(seats)), seed,
        # A generous clock: a loaded machine must not turn slow search into strikes.
        time_control=TimeControl(decision_ms=60_000),
    )
    return play_match(description).result.win_share(me)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("bot")
    parser.add_argument("opponent")
    parser.add_argument("--seats", type=int, default=None, help="default: the game's fewest")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--target", type=float, default=None,
                        help="the ratio to the fair share the bot must clear")
    args = parser.parse_args()
    game = find_game(args.game)
    seats = args.seats or min(n for n in game.player_counts if n > 1)
    seeds = range(args.seed, args.seed + args.games)
    began = time.perf_counter()
    with ProcessPoolExecutor(args.procs) as pool:
        shares = list(pool.map(play, [args.game] * args.games, [args.bot] * args.games,
                               [args.opponent] * args.games, [seats] * args.games, seeds,
                               chunksize=max(1, args.games // (8 * args.procs))))
    elapsed = time.perf_counter() - began
    p = sum(shares) / len(shares)
    half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / len(shares))
    fair = 1 / seats
    print(f"{args.game}: {args.bot} vs {seats - 1} x {args.opponent}, {len(shares)} games "
          f"in {elapsed:.0f} s ({args.procs} processes)")
    verdict = ""
    if args.target is not None:
        verdict = "  target met" if p / fair > args.target else "  BELOW TARGET"
        verdict = f"   target > {args.target:g}:{verdict}"
    print(f"  win share {p:.3f} ± {half:.3f}   fair share {fair:.3f}   ratio {p / fair:.2f}"
          f"{verdict}")


if __name__ == "__main__":
    main()
