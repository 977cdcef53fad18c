"""CPU time of ``referee --help`` in fresh processes: this checkout against another, paired.

``referee --help`` is the first command a new user runs and the one a shell completion runs on
every tab; it should cost the interpreter's start and click, not the engines, SQLAlchemy and
Flask. Each round runs the command once per tree (alternating, so that drift on a shared machine
hits both), in a fresh interpreter with the tree first on the path, and takes the child's CPU
time (user + system) from the operating system. Prints each tree's median and range, and the
number of modules the command imported. Make the other tree with ``git worktree add ../before
<commit>``; without ``--tree`` only this checkout is measured.

    python bench/cli_startup.py [--tree ../before] [--reps 15] [ARGS...]   # default ARGS: --help
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = "import sys, cli; sys.argv[0] = 'referee'; cli.main()"
COUNT = ("import atexit, sys; atexit.register(lambda: print(len(sys.modules), file=sys.stderr));"
         " import cli; sys.argv[0] = 'referee'; cli.main()")


def run(tree: str, args: list[str], code: str = CHILD) -> tuple[float, str]:
    """One fresh process on ``tree``: its CPU seconds and what it wrote to stderr."""
    env = dict(os.environ, PYTHONPATH=tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=tree,
                          capture_output=True, text=True)  # -c puts the cwd first on the path
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"referee {' '.join(args)} on {tree} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stderr


def spread(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"{statistics.median(ms):.0f} ms median ({min(ms):.0f}-{max(ms):.0f}, "
            f"n={len(ms)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tree", help="the other checkout (the code before)")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("args", nargs="*", default=["--help"])
    options = parser.parse_args()
    trees = {"this tree": ROOT}
    if options.tree:
        trees = {"other tree": os.path.abspath(options.tree), **trees}
    for tree in trees.values():  # warm the file cache and the bytecode
        run(tree, options.args)
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(options.reps):
        for name, tree in trees.items():
            times[name].append(run(tree, options.args)[0])
    for name, tree in trees.items():
        modules = run(tree, options.args, COUNT)[1].strip().splitlines()[-1]
        print(f"referee {' '.join(options.args)}, {name}: CPU {spread(times[name])}, "
              f"{modules} modules imported")


if __name__ == "__main__":
    main()
