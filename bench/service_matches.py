"""Matches per minute on ``referee worker`` (1 and 2 processes) vs ``referee tournament``.

The same Tokaido Duo matches between two fast HTTP bots (the built-in ``random`` behind
waitress, each in its own process) are played three ways, in alternation, ``--reps`` times, in short runs taken in turn (so that a busy moment on a shared machine
hits all three alike):

* ``tournament``: the tournament runner in one process, one match at a time (what
  ``referee tournament a=URL b=URL --concurrency 1`` does, without the command's start-up);
* ``worker -c 1`` and ``worker -c 2``: scheduled in PostgreSQL, enqueued on Redis, played by a
  Celery worker (claim, lease renewal, log and result written in the finishing transaction).

The difference per match between ``tournament`` and ``worker -c 1`` is the service's overhead;
the worker's log line for each match (``claim``, ``play`` with its CPU time, ``finish``) tells
the database's share from the playing's.

Usage: python bench/service_matches.py [--matches 10] [--reps 8]
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from service_support import REDIS, migrate, pg_schema, start, start_bot, stop

GAME = "tokaido-duo"


def tournament_rate(urls: list[str], matches: int, folder: Path) -> float:
    from tournaments.plan import Entrant, Plan
    from tournaments.store import JsonlStateStore, new_tournament_id
    from tournaments.tournament import Tournament

    plan = Plan(GAME, (Entrant("a", urls[0]), Entrant("b", urls[1])), matches, 2,
                secrets.randbits(63))
    t = Tournament.start(plan, JsonlStateStore(folder, new_tournament_id()))
    began = time.perf_counter()
    t.run(1)
    return matches / (time.perf_counter() - began) * 60


def setup_bots(engine: Any, urls: list[str]) -> list[int]:
    from ladder.accounts import create_owner
    from ladder.registry import register_bot

    owner, _ = create_owner(engine, f"bench{secrets.token_hex(3)}")
    return [register_bot(engine, owner["id"], name=f"b{i}-{secrets.token_hex(3)}", url=url,
                         games=[GAME], description="", status="active", nonce="x")
            for i, url in enumerate(urls)]


def wait_all(engine: Any, ids: list[int], timeout: float = 600) -> None:
    from sqlalchemy import func, select

    from ladder.models import Match

    give_up = time.monotonic() + timeout
    while True:
        with engine.connect() as conn:
            left = conn.execute(select(func.count()).select_from(Match).where(
                Match.id.in_(ids), Match.state.in_(("scheduled", "running")))).scalar_one()
        if not left:
            return
        if time.monotonic() > give_up:
            raise SystemExit(f"{left} matches not over after {timeout} s")
        time.sleep(0.1)  # light polling: this process shares the machine with the worker


def worker_rate(engine: Any, bots: list[int], queue: str, matches: int) -> float:
    from api.dispatch import CeleryDispatcher
    from ladder.work import rotations, schedule

    ids = schedule(engine, GAME, rotations(bots, matches, f"w{secrets.token_hex(2)}"),
                   rated=False)
    dispatcher = CeleryDispatcher(REDIS, queue)
    began = time.perf_counter()
    dispatcher.enqueue(ids)
    wait_all(engine, ids)
    elapsed = time.perf_counter() - began
    dispatcher.close()
    return matches / elapsed * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10, help="per run (even)")
    parser.add_argument("--reps", type=int, default=8)
    args = parser.parse_args()
    from ladder.store import open_db

    folder = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    pg_url, drop = pg_schema()
    bots_procs = [start_bot(GAME, seed) for seed in (1, 2)]
    urls = [url for _, url in bots_procs]
    engine = None
    try:
        migrate(pg_url)
        engine = open_db(pg_url)
        bot_ids = setup_bots(engine, urls)
        rates: dict[str, list[float]] = {"tournament (1 process)": [], "worker -c 1": [],
                                         "worker -c 2": []}
        workers, queues = [], {}
        for concurrency in (1, 2):  # both stay up; idle, they cost nothing
            queue = queues[concurrency] = f"bench-{secrets.token_hex(4)}"
            env = {"REFEREE_DB": pg_url, "REFEREE_BROKER": REDIS, "REFEREE_QUEUE": queue,
                   "REFEREE_ALLOW_NETWORKS": "127.0.0.0/8"}
            workers.append(start(["worker", "-c", str(concurrency), "-l", "warning"], env,
                                 folder / f"worker{concurrency}.log"))
        try:
            for concurrency in (1, 2):
                worker_rate(engine, bot_ids, queues[concurrency], 2)  # warm up: ready
            for _ in range(args.reps):  # short runs in turn, so a busy moment hits all three
                rates["tournament (1 process)"].append(
                    tournament_rate(urls, args.matches, folder))
                for concurrency in (1, 2):
                    rates[f"worker -c {concurrency}"].append(
                        worker_rate(engine, bot_ids, queues[concurrency], args.matches))
        finally:
            for worker in workers:
                stop(worker)
        print(f"{args.matches} Tokaido Duo matches per run between two HTTP random bots, "
              f"{args.reps} runs each, alternating (median [min-max])")
        medians = {}
        for name, values in rates.items():
            medians[name] = statistics.median(values)
            print(f"  {name:<24} {medians[name]:7.1f} matches/min "
                  f"[{min(values):.1f}-{max(values):.1f}]")
        ratios = [w / t for w, t in zip(rates["worker -c 1"], rates["tournament (1 process)"])]
        base, one = medians["tournament (1 process)"], medians["worker -c 1"]
        print(f"  worker -c 1 / tournament, paired runs: median {statistics.median(ratios):.2f} "
              f"[{min(ratios):.2f}-{max(ratios):.2f}]; service overhead per match (medians): "
              f"{(60 / one - 60 / base) * 1000:+.0f} ms")
    finally:
        if engine is not None:
            engine.dispose()
        for proc, _ in bots_procs:
            proc.terminate()
            proc.wait()
        drop()
        os.environ.pop("REFEREE_DB", None)


if __name__ == "__main__":
    main()
