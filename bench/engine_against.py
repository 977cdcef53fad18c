"""Random games per CPU second of this checkout's engines against another checkout's, paired.

Absolute games per second depend on the machine (the same engine runs twice as fast on one
virtual machine as on another), so a speed-up is measured against a checkout of the code from
before, on the same machine, in one run: rounds alternate the two trees, each arm a fresh
process that puts its tree first on the path, warms up, then times ``--games`` games in CPU
time with ``random_games.py``'s arms (the same seeds and picks as ``tokaido_speed.py``).  Three
arms per round:

- before, by id: the other tree's engine driven by option id (``pending`` and ``apply``), as
  engines were driven before ``choice_counts``/``apply_index`` existed;
- by id: the same loop on this tree;
- fast path: this tree's ``choice_counts`` and ``apply_index`` (what a random playout uses).

Prints each arm's games per CPU second and this tree's arms over the other's per round
(median and range).  Make the other tree with ``git worktree add ../before <commit>``.

    python bench/engine_against.py --tree ../before [--game tokaido-duo] [--seats 2] [--games 300] [--reps 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child(tree: str, game_name: str, seats: int, arm: str, games: int) -> None:
    """Runs in a fresh process on ``tree``: a warm-up, then prints the arm's games per CPU
    second (``random_games``'s arms and seeds, the same as ``tokaido_speed.py``'s)."""
    sys.path[:0] = [HERE, tree]
    from random_games import ARMS, Setup, cpu_rate

    from referee.games import find_game

    game = find_game(game_name)
    setup = Setup(game, game.load_board(), seats, None, range(1, games + 1))
    ARMS[arm](setup, 10_000)  # imports, board tables, caches
    print(cpu_rate(ARMS[arm], setup)[0])


def rate(tree: str, game: str, seats: int, arm: str, games: int) -> float:
    """Games per CPU second of one fresh process on ``tree``."""
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", tree, game,
                           str(seats), arm, str(games)], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{arm} on {tree} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout)


def spread(values: list[float], fmt: str) -> str:
    return (f"{statistics.median(values):{fmt}} median "
            f"({min(values):{fmt}}-{max(values):{fmt}}, n={len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tree", help="the other checkout (the code before)")
    parser.add_argument("--game", default="tokaido-duo")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tree, game, seats, arm, games = args.child
        child(tree, game, int(seats), arm, int(games))
        return
    if not args.tree:
        parser.error("--tree is required (the other checkout)")
    other = os.path.abspath(args.tree)
    arms = {"before, by id": (other, "by id"), "by id": (ROOT, "by id"),
            "fast path": (ROOT, "engine")}
    rates: dict[str, list[float]] = {name: [] for name in arms}
    for rep in range(args.reps):
        names = list(arms)
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:  # rotate, so that order cannot bias
            tree, arm = arms[name]
            rates[name].append(rate(tree, args.game, args.seats, arm, args.games))
    print(f"{args.game}, {args.seats} seats: {args.games} random games per arm and round, "
          f"{args.reps} rounds; games per CPU second")
    for name, values in rates.items():
        print(f"  {name:<14} {spread(values, '.0f')}")
    for name in ("by id", "fast path"):
        ratios = [a / b for a, b in zip(rates[name], rates["before, by id"])]
        print(f"  {name} / before: {spread(ratios, '.2f')}x per round")


if __name__ == "__main__":
    main()
