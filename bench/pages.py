"""How long the service's pages take to render, and what the frames cache saves.

    python bench/pages.py [--matches 600] [--bots 12] [--rounds 15]

Builds an SQLite ladder of ``--matches`` rated Tokaido Duo matches between ``--bots`` bots
(random and greedy, recorded as the command line records them), then renders each page kind
with Flask's test client, the kinds taken in turn ``--rounds`` times, and prints the median
and the spread (min-max) of the CPU time of each. A match page is timed twice: cold (its
frames built from the log) and warm (from the per-process cache); the frames endpoint the same.
CPU time, not wall time: the figures hold on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api import create_app  # noqa: E402
from api.config import ServiceConfig  # noqa: E402
from api.replays import FRAMES  # noqa: E402
from api.startup import prepare_database  # noqa: E402
from arena import MatchDescription, Seat, play_match  # noqa: E402
from ladder.store import record_match  # noqa: E402
from referee.games import find_game  # noqa: E402


def build(url: str, matches: int, bots: int) -> None:
    config = ServiceConfig(db_url=url, ratelimit=False)
    app = create_app(config, engine=prepare_database(config))  # its pool is never started
    engine = app.extensions["referee"].engine
    rng = random.Random(1)
    names = [f"bot{n}" for n in range(bots)]
    game = find_game("tokaido-duo")
    for n in range(matches):
        a, b = rng.sample(names, 2)
        specs = ["greedy" if int(x[3:]) % 2 else "random" for x in (a, b)]
        log = play_match(MatchDescription("tokaido-duo", tuple(Seat(s) for s in specs), n,
                                           match_id=f"b{n}")).log
        record_match(engine, log, bots={0: a, 1: b})
    engine.dispose()


def cpu_ms(action: Callable[[], object]) -> float:
    began = time.process_time()
    action()
    return (time.process_time() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=600)
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.sqlite3"
        started = time.perf_counter()
        build(url, args.matches, args.bots)
        print(f"ladder: {args.matches} matches, {args.bots} bots, built in "
              f"{time.perf_counter() - started:.0f} s")
        config = ServiceConfig(db_url=url, ratelimit=False)
        app = create_app(config, engine=prepare_database(config))  # its pool is never started
        client = app.test_client()

        def get(path: str) -> Callable[[], object]:
            def fetch() -> object:
                answer = client.get(path)
                assert answer.status_code == 200, (path, answer.status_code)
                return answer
            return fetch

        ids = iter(range(args.matches, 0, -1))
        kinds: dict[str, Callable[[], object]] = {
            "home /": get("/"),
            "leaderboard": get("/leaderboards/tokaido-duo"),
            "bot page": get("/bots/4"),
            "matches list": get("/matches?game=tokaido-duo&page=3"),
            "match page, cold": lambda: get(f"/matches/{next(ids)}")(),
            "match page, warm": get("/matches/1"),
            "frames API, cold": lambda: get(f"/api/v1/matches/{next(ids)}/frames")(),
            "frames API, warm": get("/api/v1/matches/1/frames"),
        }
        for fetch in kinds.values():
            fetch()  # templates compiled, caches primed (the cold kinds take new matches)
        times: dict[str, list[float]] = {k: [] for k in kinds}
        for _ in range(args.rounds):
            for name, fetch in kinds.items():
                times[name].append(cpu_ms(fetch))
        print(f"CPU ms per request, median (min-max) of {args.rounds}, kinds in turn:")
        for name, values in times.items():
            print(f"  {name:<18} {statistics.median(values):7.1f}  "
                  f"({min(values):.1f}-{max(values):.1f})")
        print(f"frames cache: {len(FRAMES)} matches held")
        app.extensions["referee"].engine.dispose()


if __name__ == "__main__":
    main()
