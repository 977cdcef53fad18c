"""Random Tokaido Duo games per CPU second, engine alone and through the match runner.

See ``random_games.py`` for the method (same games in both, CPU time, warm-up, paired rounds).
Target (issue 15): 1,000 games per CPU second on one core, the runner costing at most 25% on
top.  ``--solo LEVEL`` plays solo games against the Automa instead; ``--profile`` lists the
functions with the most own time.
Usage: python bench/tokaido_speed.py [--games 500] [--reps 5] [--solo LEVEL] [--profile [engine|runner]]
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
    parser.add_argument("--reps", type=int, default=5, help="paired rounds")
    parser.add_argument("--solo", type=int, default=None, metavar="LEVEL",
                        help="Automa level: solo games instead")
    parser.add_argument("--profile", nargs="?", const="engine", choices=("engine", "runner"))
    args = parser.parse_args()
    game = find_game("tokaido-duo")
    options = {"automa": args.solo} if args.solo is not None else None
    seats = 1 if options else 2
    setup = Setup(game, game.load_board(), seats, options, range(1, args.games + 1))
    if args.profile:
        profile(setup, runner=args.profile == "runner")
    else:
        report(setup, args.reps, "tokaido-duo" + (f" solo, Automa level {args.solo}" if options else ""))


if __name__ == "__main__":
    main()
