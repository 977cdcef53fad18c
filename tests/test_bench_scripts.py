"""Every quick bench script still runs against today's code, at its smallest size.

Bench scripts are not tests (they print figures; nothing here checks a figure), but they import
the project's internals and fill its tables, so they break silently when those change: the
recompute bench once filled rows the fold no longer read and printed zeros. Each runs here in a
subprocess with tiny arguments and must exit cleanly and print its figures' line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

QUICK = [
    (["tokaido_speed.py", "--games", "3", "--reps", "1"], "games per CPU second"),
    (["doubletrack_speed.py", "--games", "3", "--reps", "1"], "games per CPU second"),
    (["engine_against.py", "--tree", str(ROOT), "--games", "3", "--reps", "1"], "fast path / before"),
    (["tournament_speed.py", "--games", "4", "--reps", "1"], "the machine's ceiling"),
    (["tournament_memory.py", "--games", "12", "24", "--reps", "1"], "KiB/game"),
    (["ladder_recompute.py", "--results", "300", "--pairs", "1", "--reps", "1"],
     "results per CPU second"),
    (["ladder_tick.py", "--bots", "10", "--reps", "1"], "tick"),
    (["cli_startup.py", "--reps", "1"], "modules imported"),
    (["solo_strength.py", "--games", "2", "--levels", "1", "--procs", "1"], "solo games"),
    (["frames_cost.py", "--matches", "1", "--reps", "1"], "| doubletrack |"),
    # Every hand-made mutant still names code that exists (a refactor moves it: fix the list).
    (["mutation.py", "--list"], "work L"),
]


@pytest.mark.parametrize("argv, expected", QUICK, ids=[argv[0] for argv, _ in QUICK])
def test_a_bench_script_runs_at_its_smallest_size(argv, expected):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / argv[0]), *argv[1:]],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert expected in done.stdout, done.stdout[-2000:]
