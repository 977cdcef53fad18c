"""Random games per CPU second of this checkout's engines against another checkout's, paired.

Absolute games per second depend on the machine (the same engine runs twice as fast on one
virtual machine as on another), so a speed-up is measured against a checkout of the code from
before, on the same machine, in one run: rounds alternate the two trees, each arm a fresh
process (``PYTHONPATH`` set to its tree) that warms up, then times ``--games`` games in CPU
time.  Three arms per round:

- before, by id: the other tree's engine as a random game drives it (``pending`` and
  ``apply`` by option id, one seeded choice per decision), as engines were driven before
  ``choice_counts``/``apply_index`` existed;
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

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAY = r'''
import random, sys, time
from referee.games import find_game
name, seats, mode, games = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
game = find_game(name)
board = game.load_board()
rng = random.Random(1)

def play(count, first_seed):
    for seed in range(first_seed, first_seed + count):
        state = game.new_state(seats, seed, board)
        if mode == "fast":
            counts = state.choice_counts()
            while counts:
                state.apply_index({seat: rng.randrange(n) for seat, n in counts})
                counts = state.choice_counts()
        else:
            pending = state.pending()
            while pending:
                state.apply({d.seat: rng.choice(d.options).id for d in pending})
                pending = state.pending()

play(20, 10_000)
began = time.process_time()
play(games, 1)
print(games / (time.process_time() - began))
'''


def rate(tree: str, game: str, seats: int, mode: str, games: int) -> float:
    """Games per CPU second of one fresh process on ``tree``."""
    env = {**os.environ, "PYTHONPATH": tree}
    done = subprocess.run([sys.executable, "-c", PLAY, game, str(seats), mode, str(games)],
                          env=env, capture_output=True, text=True, cwd=tree)
    if done.returncode:
        raise SystemExit(f"{mode} on {tree} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout)


def spread(values: list[float], fmt: str) -> str:
    return (f"{statistics.median(values):{fmt}} median "
            f"({min(values):{fmt}}-{max(values):{fmt}}, n={len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tree", required=True, help="the other checkout (the code before)")
    parser.add_argument("--game", default="tokaido-duo")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    other = os.path.abspath(args.tree)
    arms = {"before, by id": (other, "id"), "by id": (HERE, "id"), "fast path": (HERE, "fast")}
    rates: dict[str, list[float]] = {name: [] for name in arms}
    for rep in range(args.reps):
        names = list(arms)
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:  # rotate, so that order cannot bias
            tree, mode = arms[name]
            rates[name].append(rate(tree, args.game, args.seats, mode, args.games))
    print(f"{args.game}, {args.seats} seats: {args.games} random games per arm and round, "
          f"{args.reps} rounds; games per CPU second")
    for name, values in rates.items():
        print(f"  {name:<14} {spread(values, '.0f')}")
    for name in ("by id", "fast path"):
        ratios = [a / b for a, b in zip(rates[name], rates["before, by id"])]
        print(f"  {name} / before: {spread(ratios, '.2f')}x per round")


if __name__ == "__main__":
    main()
