"""The tournament of ``tournament_speed.py`` at ``--concurrency`` 1 and k, counted by callgrind.

On a shared virtual machine the CPU time of the same games moves by tens of percent from run to
run, solo or paired, so ``tournament_speed.py`` cannot tell what the pool costs from what the
machine does.  Instructions can: this script counts them in every process of the tournament
(``valgrind --tool=callgrind --trace-children=yes``), the parent and each worker apart.

Each worker forked from the parent would inherit the parent's count at the fork, so the count
is dumped and zeroed as the parent enters ``fork`` (``--dump-before=fork``): a worker's count
is its own work from the fork on.  A run that only warms up (imports, the board, two games)
is subtracted from the parent's count.  It prints the instructions per game at concurrency 1
(all in one process) and at k (the parent's share and each worker's), the extra work the pool
adds, and the speed-up the counts allow on k free cores: k times the work at 1 over the work at
k (workers pull one match at a time from a queue, so on k free cores they share the work
evenly to within a game; how it fell between them under valgrind, which runs them slower and
unevenly, is printed for information).

    python bench/tournament_callgrind.py [--games 40] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def child(games: int, concurrency: int) -> None:
    """Runs under callgrind: the warm-up, then (unless ``games`` is 0) one tournament; prints
    its own pid (its count's file name) and the games it played."""
    sys.path[:0] = [HERE, os.path.dirname(HERE)]
    from tournament_speed import DEFAULT_BOTS, one_run, pick_game

    game = pick_game()
    one_run(game, DEFAULT_BOTS, 2, 1)
    played = one_run(game, DEFAULT_BOTS, games, concurrency)[0] if games else 0
    print(os.getpid(), played)


def counts(games: int, concurrency: int) -> tuple[int, int, list[int]]:
    """Games played, and the instructions of the parent (all its dumps) and of each worker it
    forked."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--dump-before=fork",
               f"--callgrind-out-file={tmp}/cg.%p", sys.executable, os.path.abspath(__file__),
               "--child", str(games), str(concurrency)]
        done = subprocess.run(cmd, capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": "0"})
        if done.returncode:
            raise SystemExit(f"the counted run failed:\n{done.stderr[-2000:]}")
        parent, played = done.stdout.split()
        totals: dict[str, int] = {}
        for path in glob.glob(f"{tmp}/cg.*"):
            pid = os.path.basename(path).split(".")[1]
            with open(path) as fh:
                found = re.search(r"^totals: (\d+)", fh.read(), re.M)
            totals[pid] = totals.get(pid, 0) + (int(found.group(1)) if found else 0)
        workers = [n for pid, n in totals.items() if pid != parent]
        return int(played), totals.get(parent, 0), sorted(workers, reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=40,
                        help="games per pairing (even; 40 makes 240 games)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (it gives the instruction counts)")
    k = args.concurrency
    _, base, _ = counts(0, 1)
    played, one, _ = counts(args.games, 1)
    _, parent, workers = counts(args.games, k)
    at_one = one - base
    parent_share = parent - base
    at_k = parent_share + sum(workers)
    print(f"{played} games, instructions per game (callgrind, PYTHONHASHSEED=0):")
    print(f"  concurrency 1: {at_one / played / 1e6:.2f} M (one process)")
    print(f"  concurrency {k}: {at_k / played / 1e6:.2f} M: parent {parent_share / played / 1e6:.2f}"
          f" M, workers {', '.join(f'{w / played / 1e6:.2f}' for w in workers)} M")
    print(f"  work the pool adds: {(at_k / at_one - 1) * 100:+.1f}%")
    print(f"  speed-up {k} vs 1 the counts allow on {k} free cores: {k * at_one / at_k:.2f}x")


if __name__ == "__main__":
    main()
