"""HTTP decisions per second through the tournament pool, from 1 to 64 matches at once, on one
worker process and on one per core.

Every match seats two HTTP bots: the built-in ``random`` behind ``referee bot serve``'s server
(waitress, enough threads and connections for every seat), in a separate process. The matches
go through :class:`~tournaments.pool.MatchPool` as a tournament plays them, with
``http_processes`` 1 (every match on threads of one process: one core referees) and the
default, one per core. The two arms alternate round by round, so that a machine shared with
other work slows both alike.

Printed per concurrency and arm: decisions per second (wall) and the referee's CPU per
decision (this process and its workers; the bot server's is not counted), median and range,
then the ratio of the two arms' rates per round. Strikes are counted too: a bot that answers in
time must get none (issue 15: 0 strikes at any concurrency the machine can hold). On a machine
whose cores the bot server and other work share, the rate ratio understates what one process
per core gives; the CPU per decision staying flat is what shows that nothing serialises. At
concurrency 1 the pool plays in this process, so both arms are the same there.

    python bench/http_throughput.py [--game tokaido-duo] [--concurrency 1 4 16 64] [--reps 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tournament_speed import stop_fork_server  # noqa: E402

from arena import MatchDescription, Seat, TimeControl  # noqa: E402
from tournaments.fixtures import Fixture  # noqa: E402
from tournaments.pool import MatchPool  # noqa: E402

SERVER = (
    "import sys; from bots.server import BotApp, BotServer; "
    "s = BotServer(BotApp('random', sys.argv[1], seed=1), port=0, threads=int(sys.argv[2]), "
    "connections=int(sys.argv[3])); print(s.url, flush=True); s.serve_forever()"
)


def start_server(game: str, seats: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", SERVER, game, "64", str(64 * seats + 64)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def fixtures(game: str, url: str, matches: int, tag: str, time_ms: int) -> list[Fixture]:
    return [Fixture(i, i, (0, 1), MatchDescription(
        game, (Seat(url, "a"), Seat(url, "b")), seed=1000 + i,
        time_control=TimeControl(time_ms), match_id=f"tp-{tag}-{i}"))
        for i in range(matches)]


def one_round(game: str, url: str, concurrency: int, processes: int | None, matches: int,
              tag: str, time_ms: int) -> tuple[int, int, float, float]:
    """Decisions, strikes, wall seconds and CPU seconds of ``matches`` matches."""
    pool = MatchPool(concurrency, keep_logs=True, http_processes=processes)
    decisions = strikes = 0
    began, cpu = time.perf_counter(), cpu_seconds()
    for outcome in pool.run(fixtures(game, url, matches, tag, time_ms)):
        assert outcome.log is not None
        decisions += len(outcome.log["decisions"])
        strikes += sum(outcome.strikes)
    wall = time.perf_counter() - began
    stop_fork_server()  # if the workers came from one: its CPU and theirs is then counted
    return decisions, strikes, wall, cpu_seconds() - cpu  # the pool has joined its workers


def spread(values: list[float], fmt: str) -> str:
    return (f"{statistics.median(values):{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", default="tokaido-duo")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--matches", type=int, default=0,
                        help="matches per round (default: 2 x concurrency, at least 8)")
    parser.add_argument("--time-ms", type=int, default=5000)
    args = parser.parse_args()
    proc, url = start_server(args.game, 2)
    cores = os.cpu_count() or 1
    arms = {"1 process": 1, f"{min(cores, 64)} processes": None}
    try:
        one_round(args.game, url, 2, None, 4, "warm", args.time_ms)
        print(f"{args.game}, 2 HTTP seats per match, bot server in its own process; "
              f"{cores} CPUs; {args.reps} rounds per concurrency, arms alternating")
        for k in args.concurrency:
            matches = args.matches or max(8, 2 * k)
            got: dict[str, list[tuple[int, int, float, float]]] = {a: [] for a in arms}
            for rep in range(args.reps):
                names = list(arms) if rep % 2 == 0 else list(reversed(arms))
                for name in names:
                    got[name].append(one_round(args.game, url, k, arms[name], matches,
                                               f"{k}-{rep}-{name[0]}", args.time_ms))
            for name, rounds in got.items():
                rate = [d / w for d, _, w, _ in rounds]
                cpu = [c / d * 1e6 for d, _, _, c in rounds]
                struck = sum(s for _, s, _, _ in rounds)
                print(f"  {k:>3} at once, {name:<11}: {spread(rate, ',.0f')} decisions/s, "
                      f"referee CPU {spread(cpu, '.0f')} us/decision, strikes {struck}")
            first, second = list(got.values())
            ratio = [(b[0] / b[2]) / (a[0] / a[2]) for a, b in zip(first, second)]
            print(f"  {k:>3} at once, rate per core-count ratio: {spread(ratio, '.2f')}x")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
