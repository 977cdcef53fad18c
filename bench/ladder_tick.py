"""CPU seconds of one matchmaker tick that opens a round, for 1,000 and 10,000 eligible bots.

Scheduling only, no match is played: a fresh ladder (a temporary SQLite file) with ``N`` bots
of random ratings and owners, each joined to the game; each rep deletes the rounds, fixtures
and matches of the previous one, then times ``tick`` (lock, eligibility with health and
caps, meetings, pairing, the round and its fixtures stored, up to ``--depth`` matches
created).  Prints the median and range of ``--reps`` reps, the pairing alone, and a tick
right after (nothing to do: what the tick after every finished match costs).

Usage: python bench/ladder_tick.py [--bots 1000,10000] [--game tokaido-duo] [--reps 5]
       [--depth 32]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import delete, insert  # noqa: E402

from ladder import matchmaking as mm  # noqa: E402
from ladder.accounts import now_utc  # noqa: E402
from ladder.models import (  # noqa: E402
    ACTIVE, Bot, Fixture, LadderEntry, Match, MatchSeat, Owner, Round,
)
from ladder.pairing import Entrant, plan_round  # noqa: E402
from ladder.store import open_db  # noqa: E402


def fill(engine, n: int, game: str, rng: random.Random) -> None:
    now = now_utc()
    with engine.begin() as conn:
        conn.execute(insert(Owner), [{"name": f"o{i}", "is_admin": False, "created_at": now}
                                     for i in range(n // 2)])
        conn.execute(insert(Bot), [{"name": f"b{i}", "spec": "random", "version": 1,
                                    "owner_id": rng.randrange(1, n // 2 + 1), "status": ACTIVE,
                                    "created_at": now, "max_concurrency": 1} for i in range(n)])
        conn.execute(insert(LadderEntry), [
            {"bot_id": i + 1, "game": game, "active": True, "placement_remaining": 0,
             "joined_at": now, "version": 1, "last_rest": 0, "byes": 0} for i in range(n)])


def reset(engine) -> None:
    with engine.begin() as conn:
        for table in (MatchSeat, Match, Fixture, Round):
            conn.execute(delete(table))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", default="1000,10000")
    parser.add_argument("--game", default="tokaido-duo")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--depth", type=int, default=32)
    args = parser.parse_args()
    rng = random.Random(7)
    big = mm.big_table(args.game)
    for n in [int(x) for x in args.bots.split(",")]:
        with tempfile.TemporaryDirectory() as folder:
            engine = open_db(f"sqlite:///{Path(folder) / 'tick.sqlite3'}")
            fill(engine, n, args.game, rng)
            ticks, plans, idle = [], [], []
            for _ in range(args.reps):
                reset(engine)
                began = time.process_time()
                result = mm.tick(engine, config=mm.MatchmakerConfig(depth=args.depth))
                ticks.append(time.process_time() - began)
                assert result.opened, "no round opened"
                began = time.process_time()
                again = mm.tick(engine, config=mm.MatchmakerConfig(depth=args.depth))
                idle.append(time.process_time() - began)
                assert not again.enqueue and not again.opened
                entrants = [Entrant(i, rng.gauss(1500, 200), rng.randrange(n // 2))
                            for i in range(n)]
                began = time.process_time()
                plan_round(entrants, big, {}, rng)
                plans.append(time.process_time() - began)
            engine.dispose()
        print(f"{args.game} {n:>6} bots: tick {statistics.median(ticks):.3f} s CPU "
              f"(range {min(ticks):.3f}-{max(ticks):.3f}, {args.reps} reps; "
              f"{len(result.opened)} rounds opened, {result.created} matches created); "
              f"pairing alone {statistics.median(plans):.3f} s "
              f"({min(plans):.3f}-{max(plans):.3f}); a tick with nothing to do "
              f"{statistics.median(idle):.3f} s ({min(idle):.3f}-{max(idle):.3f})")


if __name__ == "__main__":
    main()
