"""Time to rebuild a ladder of 100,000 results from scratch (SQLite), and to show it.

Fills a temporary SQLite ladder with synthetic results (``--bots`` bots of hidden strengths,
2-seat games by default, a few draws and forfeits), then times ``recompute`` (the Elo and
openskill fold over every match, rewriting ratings and history) and ``leaderboard`` (which
fits Bradley-Terry with intervals).  The results are inserted in bulk, not through
``record_match``, so the set-up stays fast; recompute reads only what record_match stores.
Usage: python bench/ladder_recompute.py [--results 100000] [--bots 100] [--seats 2] [--db URL]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import insert

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ladder.db import make_engine, migrate  # noqa: E402
from ladder.models import Bot, Ladder, Match, MatchSeat  # noqa: E402
from ladder.ratings import EloConfig, standings  # noqa: E402
from ladder.store import leaderboard, recompute  # noqa: E402

GAME = "bench-game"
CHUNK = 10_000


def synthetic(results: int, bots: int, seats: int, seed: int) -> tuple[list[Any], list[Any]]:
    """Match rows and seat rows: placings drawn from the bots' hidden Elo strengths."""
    rng = random.Random(seed)
    strength = [rng.gauss(1500, 200) for _ in range(bots)]
    now = datetime.now(timezone.utc)
    matches: list[dict[str, Any]] = []
    seat_rows: list[dict[str, Any]] = []
    for pk in range(1, results + 1):
        table = rng.sample(range(bots), seats)
        # performance = strength plus logistic-ish noise; ties (draws) about 5% of the time
        perf = [round((strength[b] + rng.gauss(0, 250)) / 40) for b in table]
        ranks = [1 + sum(1 for p in perf if p > mine) for mine in perf]
        forfeited = [rng.random() < 0.002 for _ in table]
        places = standings(ranks, forfeited)
        matches.append({"id": pk, "match_id": f"bench-{pk}", "game": GAME, "rules_version": "1",
                        "num_seats": seats, "end_reason": "normal", "rounds": 10,
                        "recorded_at": now, "log": {"match_id": f"bench-{pk}"}})
        seat_rows.extend(
            {"match_pk": pk, "seat": s, "bot_id": b + 1, "rank": ranks[s], "standing": places[s],
             "score": None, "forfeited": forfeited[s], "strikes": 0}
            for s, b in enumerate(table)
        )
    return matches, seat_rows


def fill(url: str, results: int, bots: int, seats: int) -> None:
    engine = make_engine(url)
    migrate(engine)
    matches, seat_rows = synthetic(results, bots, seats, seed=1)
    now = datetime.now(timezone.utc)
    default = EloConfig()
    with engine.begin() as conn:
        conn.execute(insert(Bot),
                     [{"id": b + 1, "name": f"bot-{b}", "created_at": now} for b in range(bots)])
        conn.execute(insert(Ladder), [{
            "game": GAME, "elo_k": default.k, "elo_k_provisional": default.k_provisional,
            "elo_provisional_games": default.provisional_games, "created_at": now}])
        for start in range(0, len(matches), CHUNK):
            conn.execute(insert(Match), matches[start:start + CHUNK])
        for start in range(0, len(seat_rows), CHUNK):
            conn.execute(insert(MatchSeat), seat_rows[start:start + CHUNK])
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--seats", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--db", default=None, help="an empty database (default: a temp SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.db or f"sqlite:///{os.path.join(folder, 'bench.sqlite3')}"
        started = time.perf_counter()
        fill(url, args.results, args.bots, args.seats)
        print(f"set-up: {args.results} results, {args.bots} bots, {args.seats} seats "
              f"in {time.perf_counter() - started:.1f} s")
        engine = make_engine(url)
        started = time.perf_counter()
        count = recompute(engine, GAME)
        took = time.perf_counter() - started
        print(f"recompute: {count} results in {took:.2f} s ({count / took:,.0f} results/s)")
        started = time.perf_counter()
        rows = leaderboard(engine, GAME)
        print(f"leaderboard with Bradley-Terry fit: {len(rows)} bots in "
              f"{time.perf_counter() - started:.2f} s; top: {rows[0]['bot']} "
              f"Elo {rows[0]['rating']:.0f}, BT {rows[0]['bt']:.0f} ± {rows[0]['interval']:.0f}")
        engine.dispose()


if __name__ == "__main__":
    main()
