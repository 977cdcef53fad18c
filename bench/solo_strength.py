"""How the built-in bots fare against Tokaido Duo's Automa: mean score margin and win rate.

    python bench/solo_strength.py                                   # greedy, random; levels 1, 4
    python bench/solo_strength.py --bots greedy mcts:playouts=25 --levels 1 --games 12
    python bench/solo_strength.py --rounds                          # also the game length

Every bot plays the same seeds (``--seed`` .. ``--seed + --games - 1``) at every level, so the
rows are paired: a difference between two bots on a level is not a difference of deals. The
margin is the bot's score minus the Automa's; a win counts 1, a shared result 1/2. Printed per
bot and level: mean margin with its standard error, win rate, the mean scores of both sides
and, with ``--rounds``, the mean rounds played (the Automa's end trigger shortens solo games,
which is what makes assets that never turn into points cost the bot). Games run in a process
pool (``--procs``); each is one seeded match played by ``arena.play_match``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from arena import MatchDescription, Seat, TimeControl, play_match  # noqa: E402

GAME = "tokaido-duo"


def play(bot: str, level: int, seed: int) -> tuple[int, int, float, int]:
    """One solo game: (bot's score, Automa's score, bot's win share, rounds played)."""
    description = MatchDescription(
        GAME, (Seat(bot),), seed, options={"automa": level},
        # A generous clock: a loaded machine must not turn slow search into strikes.
        time_control=TimeControl(decision_ms=60_000),
    )
    result = play_match(description).result
    return (result.seats[0].score, result.seats[1].score, result.win_share(0), result.rounds)


def row(bot: str, level: int, games: list[tuple[int, int, float, int]], rounds: bool) -> str:
    margins = [mine - automa for mine, automa, _, _ in games]
    error = statistics.stdev(margins) / math.sqrt(len(margins)) if len(margins) > 1 else 0.0
    wins = sum(share for _, _, share, _ in games) / len(games)
    mine = statistics.fmean(g[0] for g in games)
    automa = statistics.fmean(g[1] for g in games)
    line = (f"| {bot:<24} | {level} | {statistics.fmean(margins):+7.1f} ± {error:4.1f} "
            f"| {wins:5.2f} | {mine:5.1f} | {automa:5.1f} |")
    if rounds:
        line += f" {statistics.fmean(g[3] for g in games):5.1f} |"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", nargs="+", default=["greedy", "random"])
    parser.add_argument("--levels", nargs="+", type=int, default=[1, 4])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--procs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--rounds", action="store_true", help="also print mean rounds played")
    args = parser.parse_args()
    seeds = list(range(args.seed, args.seed + args.games))
    header = "| bot | level | margin ± s.e. | win rate | bot score | Automa score |"
    print(header + (" rounds |" if args.rounds else ""))
    began = time.perf_counter()
    with ProcessPoolExecutor(args.procs) as pool:
        for bot in args.bots:
            for level in args.levels:
                n = len(seeds)
                games = list(pool.map(play, [bot] * n, [level] * n, seeds))
                print(row(bot, level, games, args.rounds), flush=True)
    print(f"{len(args.bots) * len(args.levels) * len(seeds)} solo games, seeds {seeds[0]}.."
          f"{seeds[-1]}, in {time.perf_counter() - began:.0f} s ({args.procs} processes)")


if __name__ == "__main__":
    main()
