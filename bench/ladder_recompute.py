"""CPU seconds to rebuild a ladder from scratch, 20,000 to 1,000,000 results; the old path vs the new.

For each size, a fresh ladder (a temporary SQLite file, or ``--db``) is filled in bulk with
synthetic results (``--bots`` bots of hidden strengths, a few ties and forfeits), and a first
``recompute`` writes their rating history, as ``record_match`` would have.  Then, ``--reps``
times each, alternating:

- recompute, nothing changed: the usual re-run (every result read and folded, no row written);
- recompute under a new Elo K: every history row rewritten, the worst case.

Before/after (issue 15): on the smallest size, the recompute as it was before (openskill's
``PlackettLuce.rate``, which deep-copies its input and draws a uuid4 per rating; SQLAlchemy rows
in and out; every history row held in memory, then deleted and inserted again) and today's,
alternating, ``--pairs`` times: the ratio of each pair, median and range.  Both must leave the
same ratings and history to the last bit (checked).  ``--before-at-largest`` also times the old
path once at the largest size (minutes, and about 2 GB of memory at 1,000,000).

Times are CPU seconds of this process (SQLite runs inside it; with a PostgreSQL ``--db`` the
server's work is not counted, so wall seconds are printed too).  The old path needs openskill,
a test dependency: ``pip install -e '.[test]'``.

Usage: python bench/ladder_recompute.py [--results 20000,100000,1000000] [--bots 100]
       [--seats 2] [--reps 3] [--pairs 7] [--before-at-largest] [--db URL]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from itertools import groupby
from typing import Any, cast

from sqlalchemy import Engine, delete, insert, select

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ladder.db import lock_ladder, make_engine, migrate  # noqa: E402
from ladder.fold import BotRating, ladder_config, rating_row  # noqa: E402
from ladder.leaderboard import leaderboard  # noqa: E402
from ladder.models import Bot, Ladder, Match, MatchSeat, Rating, RatingHistory  # noqa: E402
from ladder.ratings import EloConfig, elo_update, outcomes, standings  # noqa: E402
from ladder.recompute import CHUNK, recompute  # noqa: E402

GAME = "bench-game"
SHARP, SOFT = EloConfig(), EloConfig(k=32.0, k_provisional=48.0)
"""Two Elo settings to switch between, so that every recompute under 'new K' rewrites all."""


# -- the ladder -------------------------------------------------------------------------------

def synthetic(results: int, bots: int, seats: int, seed: int) -> Iterator[tuple[list[Any], list[Any]]]:
    """Match rows and seat rows, ``CHUNK`` matches at a time: placings drawn from the bots'
    hidden Elo strengths, ties (draws) about 5% of the time, forfeits 0.2% of seats."""
    rng = random.Random(seed)
    strength = [rng.gauss(1500, 200) for _ in range(bots)]
    now = datetime.now(timezone.utc)
    for start in range(1, results + 1, CHUNK):
        matches: list[dict[str, Any]] = []
        seat_rows: list[dict[str, Any]] = []
        for pk in range(start, min(start + CHUNK, results + 1)):
            table = rng.sample(range(bots), seats)
            perf = [round((strength[b] + rng.gauss(0, 250)) / 40) for b in table]
            ranks = [1 + sum(1 for p in perf if p > mine) for mine in perf]
            forfeited = [rng.random() < 0.002 for _ in table]
            places = standings(ranks, forfeited)
            matches.append({"id": pk, "match_id": f"bench-{pk}", "game": GAME,
                            "rules_version": "1", "num_seats": seats, "end_reason": "normal",
                            "rounds": 10, "recorded_at": now, "finished_at": now, "rating_seq": pk,
                            "log": {"match_id": f"bench-{pk}"}})
            seat_rows.extend(
                {"match_pk": pk, "seat": s, "bot_id": b + 1, "rank": ranks[s],
                 "standing": places[s], "score": None, "forfeited": forfeited[s], "strikes": 0}
                for s, b in enumerate(table)
            )
        yield matches, seat_rows


def fill(engine: Engine, results: int, bots: int, seats: int) -> None:
    """An empty ladder of ``results`` results, without ratings or history yet."""
    migrate(engine)
    now = datetime.now(timezone.utc)
    with engine.begin() as conn:
        for model in (RatingHistory, Rating, MatchSeat, Match, Ladder, Bot):
            conn.execute(delete(model))
        conn.execute(insert(Bot),
                     [{"id": b + 1, "name": f"bot-{b}", "created_at": now} for b in range(bots)])
        conn.execute(insert(Ladder), [{
            "game": GAME, "elo_k": SHARP.k, "elo_k_provisional": SHARP.k_provisional,
            "elo_provisional_games": SHARP.provisional_games, "created_at": now}])
        for matches, seat_rows in synthetic(results, bots, seats, seed=1):
            conn.execute(insert(Match), matches)
            conn.execute(insert(MatchSeat), seat_rows)


def fingerprint(engine: Engine) -> str:
    """A digest of every rating and history value, in a fixed order: equal means equal."""
    digest = hashlib.sha256()
    with engine.connect() as conn:
        for query in (
            select(Rating.bot_id, Rating.elo, Rating.mu, Rating.sigma, Rating.games, Rating.wins,
                   Rating.draws, Rating.losses, Rating.last_match_pk)
            .where(Rating.game == GAME).order_by(Rating.bot_id),
            select(RatingHistory.match_pk, RatingHistory.bot_id, RatingHistory.elo_before,
                   RatingHistory.elo_after, RatingHistory.mu, RatingHistory.sigma)
            .where(RatingHistory.game == GAME)
            .order_by(RatingHistory.match_pk, RatingHistory.bot_id),
        ):
            for row in conn.execute(query):
                digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


# -- the recompute before issue 15, kept to measure against ------------------------------------

def recompute_before(engine: Engine, game: str) -> int:
    """The old path: openskill's rate per match, SQLAlchemy rows, history inserted at the end.

    Elo and the win/draw/loss counts use today's functions, whose arithmetic is the old one
    (and a little faster), so the old path's figure is, if anything, on the low side.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    with engine.begin() as conn:
        lock_ladder(conn, game)
        config = ladder_config(conn, game)
        assert config is not None
        states: dict[int, BotRating] = {}
        history: list[dict[str, Any]] = []
        rows = conn.execute(
            select(Match.id, Match.recorded_at, MatchSeat.bot_id, MatchSeat.standing,
                   MatchSeat.forfeited)
            .join(MatchSeat, MatchSeat.match_pk == Match.id)
            .where(Match.game == game).order_by(Match.id, MatchSeat.seat)
        )
        count = 0
        for match_pk, seats in groupby(rows, key=lambda r: r[0]):
            seat_rows = list(seats)
            bots = [r[2] for r in seat_rows]
            places = cast(list[int], [r[3] for r in seat_rows])  # set on every finished match
            forfeited = cast(list[bool], [r[4] for r in seat_rows])
            current = [states.setdefault(b, BotRating(config.start, model.mu, model.sigma))
                       for b in bots]
            elo = elo_update([s.elo for s in current], [s.games for s in current], places, config)
            teams = [[model.create_rating([s.mu, s.sigma])] for s in current]
            rated = model.rate(teams, ranks=[float(p) for p in places])
            for i, (bot_id, state) in enumerate(zip(bots, current)):
                history.append({"match_pk": match_pk, "game": game, "bot_id": bot_id,
                                "elo_before": state.elo, "elo_after": elo[i],
                                "mu": rated[i][0].mu, "sigma": rated[i][0].sigma})
                state.elo, state.mu, state.sigma = elo[i], rated[i][0].mu, rated[i][0].sigma
                result = outcomes(places, forfeited)[i]
                state.wins += result == "win"
                state.draws += result == "draw"
                state.losses += result == "loss"
                state.games += 1
                state.last_match_pk, state.last_played = match_pk, seat_rows[0][1]
            count += 1
        conn.execute(delete(RatingHistory).where(RatingHistory.game == game))
        conn.execute(delete(Rating).where(Rating.game == game))
        for model_, rows_ in ((Rating, [rating_row(game, b, s) for b, s in states.items()]),
                              (RatingHistory, history)):
            for start in range(0, len(rows_), CHUNK):
                conn.execute(insert(model_), rows_[start:start + CHUNK])
        return count


# -- timing -----------------------------------------------------------------------------------

def timed(action: Callable[[], Any]) -> tuple[float, float]:
    """CPU and wall seconds of ``action``."""
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return time.process_time() - cpu, time.perf_counter() - wall


def spread(values: list[float], unit: str = "s") -> str:
    return (f"{statistics.median(values):.2f} {unit} median "
            f"({min(values):.2f}-{max(values):.2f}, n={len(values)})")


def set_k(engine: Engine, config: EloConfig) -> Callable[[], Any]:
    return lambda: recompute(engine, GAME, elo=config)


def measure_size(engine: Engine, results: int, args: argparse.Namespace) -> None:
    cpu, _ = timed(lambda: fill(engine, results, args.bots, args.seats))
    folded: list[int] = []
    first, _ = timed(lambda: folded.append(recompute(engine, GAME)))
    if folded != [results]:  # the synthetic rows lack something the fold now asks for
        sys.exit(f"the recompute folded {folded[0]:,} of {results:,} results")
    print(f"{results:,} results, {args.bots} bots, {args.seats} seats: set-up {cpu:.1f} s CPU; "
          f"first recompute (writes all history) {first:.2f} s CPU")
    same: list[tuple[float, float]] = []
    new_k: list[tuple[float, float]] = []
    for rep in range(args.reps):  # alternating, so that drift hits both alike
        same.append(timed(lambda: recompute(engine, GAME)))
        new_k.append(timed(set_k(engine, SOFT if rep % 2 == 0 else SHARP)))
    for label, runs in (("nothing changed", same), ("new Elo K, all history rewritten", new_k)):
        cpus = [c for c, _ in runs]
        print(f"  recompute, {label}: {spread(cpus)} CPU, "
              f"{results / statistics.median(cpus):,.0f} results per CPU second; "
              f"wall {spread([w for _, w in runs])}")


def before_after(engine: Engine, results: int, args: argparse.Namespace) -> None:
    """The old path and the new, alternating on the same ladder; both must agree exactly."""
    try:
        import openskill  # noqa: F401
    except ImportError:
        sys.exit("before/after needs openskill, a test dependency: pip install -e '.[test]'")
    fill(engine, results, args.bots, args.seats)
    recompute(engine, GAME)
    reference = fingerprint(engine)
    ratios, olds, news = [], [], []
    for _ in range(args.pairs):
        old, _ = timed(lambda: recompute_before(engine, GAME))
        if fingerprint(engine) != reference:
            sys.exit("the old path disagrees with the new one")
        new, _ = timed(lambda: recompute(engine, GAME))
        if fingerprint(engine) != reference:
            sys.exit("the new path disagrees with the old one")
        olds.append(old)
        news.append(new)
        ratios.append(old / new)
    print(f"before/after on {results:,} results ({args.seats} seats), {args.pairs} pairs, "
          "alternating; identical ratings and history:")
    print(f"  before {spread(olds)} CPU, after {spread(news)} CPU")
    print(f"  speed-up {spread(ratios, 'x')} per pair")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--results", default="20000,100000,1000000",
                        help="comma-separated ladder sizes; the smallest also runs before/after")
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--seats", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=7, help="before/after pairs (0: skip)")
    parser.add_argument("--before-at-largest", action="store_true",
                        help="also time the old path once at the largest size (minutes)")
    parser.add_argument("--db", default=None,
                        help="a database to fill and empty (default: a temporary SQLite file)")
    args = parser.parse_args()
    try:
        sizes = sorted(int(s.replace("_", "")) for s in args.results.split(","))
    except ValueError:
        sys.exit(f"--results: expected numbers separated by commas, got {args.results!r}")
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(args.db or f"sqlite:///{os.path.join(folder, 'bench.sqlite3')}")
        try:
            if args.pairs:
                before_after(engine, sizes[0], args)
            for results in sizes:
                measure_size(engine, results, args)
            if args.before_at_largest:
                old, _ = timed(lambda: recompute_before(engine, GAME))
                print(f"before, once at {sizes[-1]:,} results: {old:.1f} s CPU")
            cpu, wall = timed(lambda: leaderboard(engine, GAME))  # the first read fits
            cached, _ = timed(lambda: leaderboard(engine, GAME))
            top = leaderboard(engine, GAME)[0]
            print(f"leaderboard with the public rating's fit at {sizes[-1]:,} results: "
                  f"{cpu:.2f} s CPU, {cached:.2f} s with the fit cached; top {top['bot']} "
                  f"{top['rating']:.0f} ± {top['interval']:.0f}, live Elo {top['elo']:.0f}")
        finally:
            engine.dispose()


if __name__ == "__main__":
    main()
