"""Instructions per random game, for both engines and the runner, counted by callgrind.

CPU time on a shared machine wanders by tens of percent from one run to the next; the number of
instructions a game executes does not (it moves by well under 1% between runs), so it is the
figure to compare a change against.  Each count is taken twice under ``valgrind
--tool=callgrind``: once after the warm-up game alone and once after the warm-up plus ``games``
games (the same seeds and random choices as ``random_games.py``); the difference divided by
``games`` is the cost of one game, imports, start-up and cold caches left out (the warm-up
plays ``--warmup`` games of other seeds first, as a long run of games would have).

``--tree DIR`` measures the code of another checkout (say, an unchanged copy of the main
branch) with this script, for a before/after comparison.  Needs ``valgrind`` on the PATH; the
counts run about 50 times slower than the plain interpreter.
Usage: python bench/engine_callgrind.py [--games 20] [--warmup 50] [--tree DIR] [--only tokaido-duo|doubletrack]
       [--engine-only | --runner-only | --by-id]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = {
    "tokaido-duo": ("tokaido-duo", 2),
    "doubletrack": ("doubletrack", 4),
}
WORDS = {"engine": "engine", "by id": "engine by id", "runner": "through the runner"}
"""The arms of ``random_games.ARMS``, as the figures name them."""


def child(tree: str, game_name: str, seats: int, mode: str, games: int, warmup: int) -> None:
    """Runs under callgrind: ``warmup`` games, then ``games`` games of ``mode``."""
    sys.path[:0] = [HERE, tree]
    from random_games import ARMS, Setup

    from referee.games import find_game

    game = find_game(game_name)
    setup = Setup(game, game.load_board(), seats, None, range(1, games + 1))
    play = ARMS[mode]
    for seed in range(10_000, 10_000 + warmup):  # tables, caches, lazy imports
        play(setup, seed)
    for seed in setup.seeds:
        play(setup, seed)


def instructions(tree: str, game_name: str, seats: int, mode: str, games: int,
                 warmup: int) -> int:
    """Instructions executed by a child process playing ``games`` games after the warm-up."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               sys.executable, os.path.abspath(__file__), "--child", game_name, str(seats), mode,
               str(games), str(warmup), "--tree", tree]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONHASHSEED": "0"})
        with open(out, encoding="utf-8") as fh:
            for line in fh:
                match = re.match(r"(?:summary|totals): (\d+)", line)
                if match:
                    return int(match.group(1))
    raise SystemExit(f"no instruction total in the callgrind output for {game_name} {mode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games counted per figure")
    parser.add_argument("--tree", default=os.path.dirname(HERE),
                        help="the checkout whose engines are measured (default: this one)")
    parser.add_argument("--only", choices=sorted(CASES), help="one game only")
    parser.add_argument("--engine-only", action="store_true", help="no runner figures")
    parser.add_argument("--runner-only", action="store_true", help="no engine figures")
    parser.add_argument("--by-id", action="store_true",
                        help="also the engine's path by id (pending + apply), which the runner drives")
    parser.add_argument("--warmup", type=int, default=50,
                        help="games played first (other seeds), so that caches are warm")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    tree = os.path.abspath(args.tree)
    if args.child:
        name, seats, mode, games, warmup = args.child
        child(tree, name, int(seats), mode, int(games), int(warmup))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (it gives the instruction counts)")
    print(f"instructions per random game (callgrind, {args.games} games after {args.warmup} "
          f"warm-up games), code of {tree}")
    for label, (name, seats) in CASES.items():
        if args.only and args.only != label:
            continue
        per_game = {}
        for mode in chosen_modes(args):
            base = instructions(tree, name, seats, mode, 0, args.warmup)
            total = instructions(tree, name, seats, mode, args.games, args.warmup)
            per_game[mode] = (total - base) / args.games
        figures = ", ".join(f"{WORDS[mode]} {n / 1e6:.2f} M" for mode, n in per_game.items())
        if "engine" in per_game and "runner" in per_game:
            figures += f" (+{100 * (per_game['runner'] / per_game['engine'] - 1):.0f}%)"
        print(f"  {label} ({seats} seats): {figures}")


def chosen_modes(args: argparse.Namespace) -> list[str]:
    """The arms to count, in the order printed."""
    if args.engine_only:
        return ["engine"]
    if args.runner_only:
        return ["runner"]
    return ["engine", "by id", "runner"] if args.by_id else ["engine", "runner"]


if __name__ == "__main__":
    main()
