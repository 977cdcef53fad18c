"""API read latency under 64 concurrent clients: gunicorn + PostgreSQL vs the embedded server.

Both servers hold the same data (finished Tokaido Duo matches between house bots, played by the
real runner).  64 client threads, each with a keep-alive session, alternate
``GET /api/v1/leaderboards/tokaido-duo`` and ``GET /api/v1/matches/{id}``.  The two setups are
measured in alternation, ``--rounds`` times each, and the figures are the median (and spread) of
the per-round p50 and p99 latencies and of the throughput.  The load generator runs on the same
machine and takes CPU from the servers: compare the setups with each other, not with figures
from elsewhere.

Usage: python bench/service_api.py [--clients 64] [--requests 20] [--rounds 3] [--matches 60]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

import requests
from service_support import (
    REDIS, free_port, migrate, percentile, pg_schema, sqlite_url, start, stop, wait_http,
)


def seed_data(url: str, matches: int) -> list[int]:
    """Finished matches played by the real runner (house random vs another random)."""
    from api.execution import play
    from ladder.identity import claim_names
    from ladder.registry import ensure_house_bots
    from ladder.store import open_db
    from ladder.work import claim, finish, rotations, schedule
    from referee.netpolicy import UrlPolicy

    engine = open_db(url)
    ensure_house_bots(engine)
    claim_names(engine, {"random-b": "random"})
    ids = schedule(engine, "tokaido-duo", rotations([1, 4], matches, "bench"), rated=True)
    for pk in ids:
        held = claim(engine, pk, "bench", 60)
        assert held is not None
        finish(engine, held, play(held, UrlPolicy()))
    engine.dispose()
    return ids


def load(base: str, ids: list[int], clients: int, per_client: int) -> tuple[list[float], float]:
    latencies: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients + 1)

    def client(n: int) -> None:
        rng = random.Random(n)
        session = requests.Session()
        mine = []
        barrier.wait()
        for i in range(per_client):
            path = ("/api/v1/leaderboards/tokaido-duo" if i % 2 == 0 else
                    f"/api/v1/matches/{rng.choice(ids)}")
            began = time.perf_counter()
            answer = session.get(base + path, timeout=60)
            mine.append((time.perf_counter() - began) * 1000)
            if answer.status_code != 200:
                raise SystemExit(f"{path}: {answer.status_code} {answer.text[:200]}")
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    began = time.perf_counter()
    for t in threads:
        t.join()
    return latencies, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--requests", type=int, default=20, help="per client per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--matches", type=int, default=60)
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="referee-bench-logs-"))
    pg_url, drop = pg_schema()
    lite = sqlite_url()
    procs = []
    try:
        migrate(pg_url)
        ids = seed_data(pg_url, args.matches)
        seed_data(lite, args.matches)
        common = {"REFEREE_RATELIMIT": "0"}
        gport, eport = free_port(), free_port()
        procs.append(start(["serve", "--port", str(gport), "--workers", "4", "--threads", "8"],
                           {**common, "REFEREE_DB": pg_url, "REFEREE_BROKER": REDIS,
                            "REFEREE_QUEUE": "bench-unused"}, logs / "gunicorn.log"))
        procs.append(start(["serve", "--port", str(eport), "--threads", "64"],
                           {**common, "REFEREE_DB": lite}, logs / "embedded.log"))
        setups = {"gunicorn (4 procs x 8 threads) + PostgreSQL": f"http://127.0.0.1:{gport}",
                  "embedded (waitress, 64 threads) + SQLite": f"http://127.0.0.1:{eport}"}
        for base in setups.values():
            wait_http(base + "/healthz")
            load(base, ids, 8, 4)  # warm up
        figures: dict[str, list[tuple[float, float, float]]] = {k: [] for k in setups}
        for _ in range(args.rounds):
            for name, base in setups.items():
                lat, wall = load(base, ids, args.clients, args.requests)
                figures[name].append((percentile(lat, 50), percentile(lat, 99), len(lat) / wall))
        print(f"{args.clients} clients, {args.requests} requests each per round, "
              f"{args.rounds} rounds (median [min-max] of the rounds)")
        for name, rows in figures.items():
            cols = list(zip(*rows))
            text = "  ".join(
                f"{label} {statistics.median(c):7.1f} [{min(c):.1f}-{max(c):.1f}]{unit}"
                for label, c, unit in zip(("p50", "p99", "rate"), cols, (" ms", " ms", " req/s")))
            print(f"  {name:<46} {text}")
    finally:
        for proc in procs:
            stop(proc)
        drop()


if __name__ == "__main__":
    main()
