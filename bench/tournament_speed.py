"""A 4-entrant in-process tournament: games per second at ``--concurrency`` 1 and 2.

Plays the same round-robin (every pair, seat-swapped game pairs) through the full tournament
machinery, match runner, state file and all, once per concurrency, and prints the games per
second and the scaling ratio. Concurrency 1 plays in this process; 2 and more start a
spawn-context process pool, whose start-up is included in the time (it is what a user waits
for). Uses Tokaido Duo when its engine is installed, else the toy race game from the tests.

    python bench/tournament_speed.py [--games N] [--concurrency 1 2 ...] [--bots B B B B]
"""

from __future__ import annotations

import argparse
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


def games_per_second(game: str, bots: list[str], games: int, concurrency: int) -> tuple[int, float]:
    plan = Plan(game, tuple(parse_entrants(bots)), games, 2, 1,
                time_control=TimeControl(60_000))
    with tempfile.TemporaryDirectory() as state_dir:
        t = Tournament.start(plan, JsonlStateStore(Path(state_dir), new_tournament_id()))
        began = time.perf_counter()
        table = t.run(concurrency)
        return table.played, table.played / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing (even)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--bots", nargs=4, default=DEFAULT_BOTS)
    args = parser.parse_args()
    game = pick_game()
    print(f"game {game}; entrants {' '.join(args.bots)}; {args.games} games per pairing")
    rates = {}
    for k in args.concurrency:
        played, rates[k] = games_per_second(game, args.bots, args.games, k)
        print(f"  concurrency {k}: {played} games, {rates[k]:.1f} games/s")
    base = rates.get(1)
    if base:
        for k, rate in rates.items():
            if k != 1:
                print(f"  scaling {k} vs 1: {rate / base:.2f}x")


if __name__ == "__main__":
    main()
