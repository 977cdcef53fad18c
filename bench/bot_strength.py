"""How often one built-in bot beats others: the strength checks of the issues, as figures.

    python bench/bot_strength.py tokaido-duo greedy random --games 1000
    python bench/bot_strength.py tokaido-duo mcts greedy --games 200
    python bench/bot_strength.py doubletrack mcts greedy --seats 3 --games 300

The bot under test sits in every seat equally often (seats rotate with the seed); the other
seats are all played by the opponent bot. Shared wins count as a share. Prints the win share,
the fair share (1 / seats) and their ratio, with a 95% interval from the normal approximation.
Games run in a process pool (``--procs``); each game is one seeded match through the runner.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots import find_bot  # noqa: E402
from referee.games import find_game  # noqa: E402
from referee.match import Runner, TimeControl  # noqa: E402
from referee.players import InProcessPlayer  # noqa: E402


def play(game_name: str, bot: str, opponent: str, seats: int, seed: int) -> float:
    """One game; the share of the win that ``bot`` took (0, 1, or 1/k for a k-way tie)."""
    game = find_game(game_name)
    me = seed % seats
    players = [
        InProcessPlayer(name=f"seat{s}", bot=find_bot(bot if s == me else opponent, game_name,
                                                       seed * 10 + s))
        for s in range(seats)
    ]
    # A generous clock: a loaded machine must not turn slow search into strikes.
    runner = Runner(game, players, seed, time_control=TimeControl(decision_ms=60_000))
    result = runner.run().result
    return result.win_share(me)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("bot")
    parser.add_argument("opponent")
    parser.add_argument("--seats", type=int, default=None, help="default: the game's fewest")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    game = find_game(args.game)
    seats = args.seats or min(n for n in game.player_counts if n > 1)
    seeds = range(args.seed, args.seed + args.games)
    began = time.perf_counter()
    with ProcessPoolExecutor(args.procs) as pool:
        shares = list(pool.map(play, [args.game] * args.games, [args.bot] * args.games,
                               [args.opponent] * args.games, [seats] * args.games, seeds))
    elapsed = time.perf_counter() - began
    p = sum(shares) / len(shares)
    half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / len(shares))
    fair = 1 / seats
    print(f"{args.game}: {args.bot} vs {seats - 1} x {args.opponent}, {len(shares)} games "
          f"in {elapsed:.0f} s ({args.procs} processes)")
    print(f"  win share {p:.3f} ± {half:.3f}   fair share {fair:.3f}   ratio {p / fair:.2f}")


if __name__ == "__main__":
    main()
