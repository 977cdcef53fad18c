"""What a read costs the web processes, per endpoint and page, and what readers cost the matches.

The production layout: ``referee serve --broker`` (gunicorn, its default 2 processes x 16
threads) on PostgreSQL, holding ``--bots`` bots and ``--matches`` finished rated Tokaido Duo
matches (:mod:`service_seed`: a few played by the real runner, copied in bulk, ratings by the
ladder's recompute).

``cpu`` mode: for each public read of the API and each page, ``--requests`` GETs (4 client
threads, keep-alive), anonymous, cycling over ``--ids`` different bots or matches (the newest
matches, the bots of the top of the board: what is read most); the web CPU is the user +
system time of gunicorn's processes (``/proc/PID/stat``, the master and its workers) over
those requests, divided by their count.  The endpoints are measured in turn, ``--rounds``
times, in a new random order each round; the figure is the median [min-max] of the rounds.

``first`` mode: what a first read of each per-bot read (the bot's page, its matches, ratings
and head-to-head) costs in process, where a profiler can see it: the app on the same database,
Flask's test client, every bot of the board read once a round (``--rounds``), the kept answers
cleared before each read (as a first read finds them); the CPU time of this process
(``time.process_time``: the view, the template, the database driver's side, the answer
cache's fingerprint) per read, median [min-max] over every read.  ``--profile`` adds the
functions that took the most of it (cProfile on the process's CPU clock).

``throughput`` mode: a Celery worker (``-c 2``) plays unrated Tokaido Duo matches between two
HTTP ``random`` bots, ``--tp-matches`` a run, alternately without and with ``--readers`` reader
threads, each reading a random endpoint of the list then waiting ``--pace`` seconds (a
person reading pages, not a flood); the figure is the paired ratio (with / without) per run,
median [min-max].  The readers run on the same machine and take CPU too: the ratio counts
their cost as well as the server's.

Usage: python bench/service_api.py [cpu|throughput|both|first] [--bots 63] [--matches 10000]
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import requests
from service_seed import GAME, seed
from service_support import (
    REDIS, TICKS, Proc, free_port, group_cpu, migrate, pg_schema, processes, start, start_bot, stop,
    wait_http,
)


def endpoints(data: dict[str, Any], ids: int) -> dict[str, list[str]]:
    """Each public read, as the paths its measure cycles over (data as data)."""
    bots, matches = data["top_bots"][:ids], data["matches"][-ids:][::-1]
    g = GAME
    per_bot = {
        "API bot": "/api/v1/bots/{}", "API bot's matches": "/api/v1/bots/{}/matches",
        "API bot's ratings": "/api/v1/bots/{}/ratings?game=" + g,
        "API head-to-head": "/api/v1/bots/{}/head-to-head?game=" + g,
        "page: bot": "/bots/{}"}
    per_match = {
        "API match": "/api/v1/matches/{}", "API match log": "/api/v1/matches/{}/log",
        "API match frames": "/api/v1/matches/{}/frames", "page: match": "/matches/{}"}
    out = {"API games": ["/api/v1/games"], "API leaderboard": [f"/api/v1/leaderboards/{g}"],
           "API bots": ["/api/v1/bots"], "API matches": ["/api/v1/matches"],
           "API matches, page 40": ["/api/v1/matches?page=40"],
           "API matches of a game": [f"/api/v1/matches?game={g}&state=finished"],
           "API rounds": [f"/api/v1/rounds?game={g}"],
           "API challenge": [f"/api/v1/challenges/{data['challenge']}"],
           "API export": [f"/api/v1/export/matches?game={g}"],
           "page: home": ["/"], "page: leaderboard": [f"/leaderboards/{g}"],
           "page: matches": ["/matches"], "page: matches, page 40": ["/matches?page=40"],
           "page: challenge": [f"/challenges/{data['challenge']}"], "page: docs": ["/docs"]}
    out.update({k: [v.format(b) for b in bots] for k, v in per_bot.items()})
    out.update({k: [v.format(m) for m in matches] for k, v in per_match.items()})
    return out


def descendants(table: list[Proc], roots: list[int]) -> set[int]:
    """``roots`` and every process below them (a supervised worker runs in a process group
    of its own)."""
    mine, grew = set(roots), True
    while grew:
        more = {p.pid for p in table if p.ppid in mine} - mine
        mine |= more
        grew = bool(more)
    return mine


def cpu_split(before: dict[int, int], web: int, worker: int,
              bots: list[int]) -> tuple[dict[int, int], list[float]]:
    """CPU seconds, since ``before`` (ticks by pid), of the web, the worker, the bots,
    PostgreSQL's processes and Redis, counting the processes alive now (a database backend
    that ended in between takes its time with it; PostgreSQL's and Redis's figures include
    whatever else on this machine uses them); and the ticks by pid, for the next call."""
    table = processes()
    ticks = {p.pid: p.ticks for p in table}
    spent = {pid: t - before.get(pid, 0) for pid, t in ticks.items()}
    worker_tree, bot_trees = descendants(table, [worker]), descendants(table, bots)
    parts = [{p.pid for p in table if p.pgrp == web}, worker_tree, bot_trees,
             {p.pid for p in table if p.comm == "postgres"},
             {p.pid for p in table if p.comm.startswith("redis-server")}]
    return ticks, [sum(spent[pid] for pid in part) / TICKS for part in parts]


def burst(base: str, paths: list[str], count: int, clients: int = 4) -> None:
    """``count`` GETs over ``paths``, in ``clients`` threads; any answer but 200 stops it."""
    failed: list[str] = []

    def client(n: int) -> None:
        session = requests.Session()
        session.headers["Accept-Encoding"] = "gzip"
        for i in range(n, count, clients):
            path = paths[i % len(paths)]
            answer = session.get(base + path, timeout=120)
            if answer.status_code != 200:
                failed.append(f"{path}: {answer.status_code} {answer.text[:200]}")
                return

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise SystemExit(failed[0])


def measure_cpu(base: str, pgid: int, reads: dict[str, list[str]], count: int,
                rounds: int, title: str, warm: bool = True) -> None:
    """``count`` requests per endpoint per round (0: each of its paths once)."""
    if warm:
        for paths in reads.values():  # every process has loaded what it reads
            burst(base, paths, max(8, len(paths) * 2))
    figures: dict[str, list[float]] = {name: [] for name in reads}
    for r in range(rounds):
        order = list(reads)
        random.Random(r).shuffle(order)
        for name in order:
            paths = reads[name] if count else reads[name][r::rounds]
            n = count or len(paths)
            before = group_cpu(pgid)
            burst(base, paths, n)
            figures[name].append((group_cpu(pgid) - before) / n * 1000)
    print(f"{title}: web CPU per request (ms), {count or 'each path once'} per endpoint per "
          f"round, {rounds} rounds (median [min-max])")
    for name, values in figures.items():
        print(f"  {name:<26} {statistics.median(values):7.2f} "
              f"[{min(values):.2f}-{max(values):.2f}]")


FIRST_READS = ("page: bot", "API bot's matches", "API bot's ratings", "API head-to-head")
"""The per-bot reads ``first`` mode measures (names of :func:`endpoints`)."""


def measure_first(url: str, data: dict[str, Any], rounds: int, profile: bool) -> None:
    """Each of :data:`FIRST_READS` for every bot on the board, once a round, in process, the
    kept answers cleared before each read; CPU ms per read, median [min-max]."""
    import cProfile
    import pstats

    from api import create_app
    from api.caching import answers
    from api.config import ServiceConfig

    app = create_app(ServiceConfig(db_url=url, ratelimit=False))
    client = app.test_client()
    reads = {k: v for k, v in endpoints(data, len(data["top_bots"])).items()
             if k in FIRST_READS}
    for paths in reads.values():  # imports, templates, the board kept: a process that has
        get(client, paths[0])     # served a few pages
    profiler = cProfile.Profile(time.process_time)
    figures: dict[str, list[float]] = {name: [] for name in reads}
    for r in range(rounds):
        order = list(reads)
        random.Random(r).shuffle(order)
        for name in order:
            for path in reads[name]:
                with app.app_context():
                    answers().clear()
                began = time.process_time()
                if profile:
                    profiler.enable()
                get(client, path)
                profiler.disable()
                figures[name].append((time.process_time() - began) * 1000)
    print(f"read first, in process: CPU per read (ms), each of {len(data['top_bots'])} bots "
          f"once a round, {rounds} rounds (median [min-max] of every read)")
    for name, values in figures.items():
        print(f"  {name:<26} {statistics.median(values):7.2f} "
              f"[{min(values):.2f}-{max(values):.2f}]")
    if profile:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    app.extensions["referee"].engine.dispose()


def get(client: Any, path: str) -> None:
    answer = client.get(path, headers={"Accept-Encoding": "gzip"})
    if answer.status_code != 200:
        raise SystemExit(f"{path}: {answer.status_code} {answer.get_data()[:200]!r}")


def readers(base: str, paths: list[str], count: int, pace: float,
            stop_flag: threading.Event, done: list[int]) -> list[threading.Thread]:
    def reader(n: int) -> None:
        rng, session = random.Random(n), requests.Session()
        while not stop_flag.is_set():
            try:
                session.get(base + rng.choice(paths), timeout=120)
                done.append(1)
            except requests.RequestException:
                pass
            stop_flag.wait(pace)

    threads = [threading.Thread(target=reader, args=(n,), daemon=True) for n in range(count)]
    for t in threads:
        t.start()
    return threads


def worker_rate(engine: Any, bots: list[int], queue: str, matches: int) -> float:
    """Matches per minute of ``matches`` unrated matches (a challenge's) on the worker."""
    from service_matches import wait_all

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


def measure_throughput(engine: Any, base: str, pgid: int, paths: list[str], args: Any,
                       folder: Path, pg_url: str) -> None:
    from service_matches import setup_bots

    bot_procs = [start_bot(GAME, s) for s in (1, 2)]
    queue = f"bench-{secrets.token_hex(4)}"
    worker = start(["worker", "-c", "2", "-l", "warning"],
                   {"REFEREE_DB": pg_url, "REFEREE_BROKER": REDIS, "REFEREE_QUEUE": queue,
                    "REFEREE_ALLOW_NETWORKS": "127.0.0.0/8"}, folder / "worker.log")
    try:
        bots = setup_bots(engine, [url for _, url in bot_procs])
        worker_rate(engine, bots, queue, 2)  # warm up: the worker, and each web process's
        burst(base, paths, 4 * len(paths), clients=8)  # reads (a site in steady state)
        pairs: list[tuple[float, float]] = []
        costs: list[tuple[float, ...]] = []
        shares: dict[str, list[list[float]]] = {"without": [], "with": []}
        for _ in range(args.reps):
            alone = worker_rate(engine, bots, queue, args.tp_matches)
            flag, done = threading.Event(), []
            web, mine, began = group_cpu(pgid), time.process_time(), time.perf_counter()
            threads = readers(base, paths, args.readers, args.pace, flag, done)
            read = worker_rate(engine, bots, queue, args.tp_matches)
            flag.set()
            for t in threads:
                t.join()
            n = max(1, len(done))
            costs.append((n / (time.perf_counter() - began), (group_cpu(pgid) - web) / n * 1000,
                          (time.process_time() - mine) / n * 1000))
            pairs.append((alone, read))
            for phase, with_readers in (("without", False), ("with", True)):
                pids = (pgid, worker.pid, [p.pid for p, _ in bot_procs])
                shares[phase].append(phase_cpu(engine, bots, queue, args, pids, base, paths,
                                               with_readers))
        ratios = [b / a for a, b in pairs]
        print(f"matches/min, {args.tp_matches} a run, {args.reps} paired runs, "
              f"{args.readers} readers pacing {args.pace} s (median [min-max])")
        for label, col in (("without readers", [a for a, _ in pairs]),
                           ("with readers", [b for _, b in pairs]), ("ratio", ratios)):
            print(f"  {label:<16} {statistics.median(col):7.2f} [{min(col):.2f}-{max(col):.2f}]")
        for label, col in zip(("reads/s", "web CPU ms/read", "readers' CPU ms/read"),
                              zip(*costs)):
            print(f"  {label:<21} {statistics.median(col):7.2f} [{min(col):.2f}-{max(col):.2f}]")
        print("CPU per match (ms), a run of each after the pair (median [min-max])")
        for phase, rows in shares.items():
            for label, part in zip(SPLIT, zip(*rows)):
                print(f"  {phase} readers, {label:<12} {statistics.median(part):7.1f} "
                      f"[{min(part):.1f}-{max(part):.1f}]")
    finally:
        stop(worker)
        for proc, _ in bot_procs:
            proc.terminate()
            proc.wait()


SPLIT = ("web", "worker", "bots", "PostgreSQL", "Redis", "readers", "machine")


def phase_cpu(engine: Any, bots: list[int], queue: str, args: Any,
              pids: tuple[int, int, list[int]], base: str, paths: list[str],
              with_readers: bool) -> list[float]:
    """Where the CPU goes while ``--tp-matches`` matches play, with or without the readers:
    each part's CPU ms per match, and the whole machine's busy time (``/proc/stat``)."""
    flag, done = threading.Event(), list[int]()
    ticks, _ = cpu_split({}, *pids)
    mine, busy = time.process_time(), machine_busy()
    threads = readers(base, paths, args.readers, args.pace, flag, done) if with_readers else []
    worker_rate(engine, bots, queue, args.tp_matches)
    flag.set()
    for t in threads:
        t.join()
    _, parts = cpu_split(ticks, *pids)
    parts += [time.process_time() - mine, machine_busy() - busy]
    return [p / args.tp_matches * 1000 for p in parts]


def machine_busy() -> float:
    """Seconds every core of this machine spent not idle (``/proc/stat``, all of its users)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICKS  # less idle and iowait


def prepare(engine: Any, args: Any) -> dict[str, Any]:
    """Seed, then what the reads name: the top of the board, a challenge of finished games."""
    from sqlalchemy import select, update

    from ladder.models import Bot, Match
    from ladder.reads import leaderboard_page
    from ladder.work import create_challenge

    began = time.perf_counter()
    data = seed(engine, args.bots, args.matches)
    board = leaderboard_page(engine, GAME)
    data["top_bots"] = [r["bot"]["id"] for r in board["items"] + board["provisional"]]
    with engine.connect() as conn:  # the bench owner owns the copied bots
        owner = conn.execute(select(Bot.owner_id).where(Bot.id == data["bots"][0])).scalar_one()
    challenge, _ = create_challenge(engine, owner, GAME, data["bots"][:2], 10)
    with engine.begin() as conn:  # a challenge whose games are over: ten of the copies
        conn.execute(update(Match).where(Match.challenge_id == challenge)
                     .values(state="voided", void_reason="bench"))
        conn.execute(update(Match).where(Match.id.in_(data["matches"][:10]))
                     .values(challenge_id=challenge))
    data["challenge"] = challenge
    print(f"seeded {args.bots} bots and {args.matches} matches in "
          f"{time.perf_counter() - began:.0f} s")
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", nargs="?", default="both",
                        choices=("cpu", "throughput", "both", "first"))
    parser.add_argument("--bots", type=int, default=63)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=100, help="per endpoint per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ids", type=int, default=10, help="bots or matches cycled over")
    parser.add_argument("--readers", type=int, default=64)
    parser.add_argument("--pace", type=float, default=0.5, help="a reader's wait between reads")
    parser.add_argument("--tp-matches", type=int, default=20, help="matches per run")
    parser.add_argument("--reps", type=int, default=3, help="paired throughput runs")
    parser.add_argument("--fresh-s", help="the web's REFEREE_ANSWER_FRESH_S (unset: its default)")
    parser.add_argument("--profile", action="store_true", help="first mode: where the CPU went")
    args = parser.parse_args()
    from ladder.store import open_db

    folder = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    pg_url, drop = pg_schema()
    engine, web = None, None
    try:
        migrate(pg_url)
        engine = open_db(pg_url)
        data = prepare(engine, args)
        if args.mode == "first":
            measure_first(pg_url, data, args.rounds, args.profile)
            return
        port = free_port()
        web = start(["serve", "--port", str(port)],
                    {"REFEREE_DB": pg_url, "REFEREE_BROKER": REDIS, "REFEREE_RATELIMIT": "0",
                     "REFEREE_QUEUE": f"bench-{secrets.token_hex(4)}",
                     **({"REFEREE_ANSWER_FRESH_S": args.fresh_s} if args.fresh_s else {})},
                    folder / "web.log")
        base = f"http://127.0.0.1:{port}"
        wait_http(base + "/healthz")
        reads = endpoints(data, args.ids)
        if args.mode in ("cpu", "both"):
            measure_cpu(base, web.pid, reads, args.requests, args.rounds,
                        f"read again ({args.ids} bots or matches cycled over)")
            others = {**data, "top_bots": data["top_bots"][args.ids:],
                      "matches": data["matches"][:-args.ids]}  # none of those read above
            first = {k: v for k, v in endpoints(others, args.bots).items() if len(v) > 1}
            measure_cpu(base, web.pid, first, 0, args.rounds,
                        "read first (every bot, or the newest matches, once: nothing kept)",
                        warm=False)
        if args.mode in ("throughput", "both"):
            paths = [p for ps in reads.values() for p in ps]
            measure_throughput(engine, base, web.pid, paths, args, folder, pg_url)
    finally:
        if web is not None:
            stop(web)
        if engine is not None:
            engine.dispose()
        drop()


if __name__ == "__main__":
    main()
