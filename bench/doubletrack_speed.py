"""Random Doubletrack games per CPU second, engine alone and through the match runner.

See ``random_games.py`` for the method (same games in both, CPU time, warm-up, paired rounds).
Target (issue 15): 1,000 games per CPU second on one core for 4 seats, the runner costing at most
25% on top.  ``--profile`` lists the functions with the most own time instead.
Usage: python bench/doubletrack_speed.py [--games 500] [--seats 4] [--reps 5] [--profile [engine|runner]]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from random_games import Setup, profile, report  # noqa: E402

from referee.games import find_game  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per round")
    parser.add_argument("--seats", type=int, default=4, choices=(3, 4))
    parser.add_argument("--reps", type=int, default=5, help="paired rounds")
    parser.add_argument("--profile", nargs="?", const="engine", choices=("engine", "runner"))
    args = parser.parse_args()
    game = find_game("doubletrack")
    setup = Setup(game, game.load_board(), args.seats, None, range(1, args.games + 1))
    if args.profile:
        profile(setup, runner=args.profile == "runner")
    else:
        report(setup, args.reps, f"doubletrack, {args.seats} seats")


if __name__ == "__main__":
    main()
