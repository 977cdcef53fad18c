"""The work state machine's promises, each pinned on both databases with a fake clock.

A match is played at most three times (docs/service.md: "voids a match after 3 attempts"); a
lease is live up to and including its last instant; only the attempt that holds the row may
finish it (a stale worker's result loses and writes nothing); what a finished match leaves in
its rows (ranks, standings, forfeits) and whether it moved the ratings (``rated``) is stored in
the same transaction.  The tests build the finished log by hand (no match is played), so
every number in the stored rows is known in advance, and pass ``now`` explicitly wherever
the code takes it: nothing here reads the wall clock to decide.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from ladder.identity import claim_names
from ladder.models import Bot, Incident, Match, MatchLog, MatchSeat, Rating, RatingHistory
from ladder.newmatches import MatchSettings
from ladder.work import (
    REFEREE_FAILURE, Claim, SweepPolicy, claim, fail_attempt, finish, renew, schedule, seat_stats,
    split_log, sweep, void,
)

from support.ladder_db import sqlite_head_url

ATTEMPTS = 3
"""The documented number of attempts a match gets (docs/service.md), written out here so
that a change of the constant fails a test rather than moving it along."""
LEASE_S = 60
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def engine(ladder_engine: Engine) -> Engine:
    """Both databases: for what rests on how each compares times and counts updated rows."""
    claim_names(ladder_engine, {"alpha": "random", "beta": "random"})
    return ladder_engine


@pytest.fixture
def lite(tmp_path: Path, sqlite_head_template: Path) -> Iterator[Engine]:
    """SQLite only (a fresh PostgreSQL database costs a second): for what the SQL does alike."""
    from ladder.store import open_db

    engine = open_db(sqlite_head_url(sqlite_head_template, tmp_path / "work.sqlite3"))
    claim_names(engine, {"alpha": "random", "beta": "random"})
    yield engine
    engine.dispose()


def bot_ids(engine: Engine) -> list[int]:
    with engine.connect() as conn:
        return [conn.execute(select(Bot.id).where(Bot.name == name)).scalar_one()
                for name in ("alpha", "beta")]


def scheduled(engine: Engine, rated: bool = True) -> int:
    [pk] = schedule(engine, "toy-race", [(bot_ids(engine), 7, None)], rated=rated)
    return pk


def log_of(held: Claim, ranks: tuple[int, int] = (1, 2), forfeited: tuple[int, ...] = (),
           bot_line: str | None = None) -> dict[str, Any]:
    """A finished log as the runner writes it (the fields ``finish`` reads)."""
    decision = {"step": 0, "seat": 0, "kind": "move", "options": 2, "choice": "a", "ms": 4.0,
                "status": "ok"}
    if bot_line is not None:
        decision["log"] = bot_line
    return {
        "match_id": held.attempt_id,
        "players": [{"seat": i, "name": p.name, "strikes": 3 if i in forfeited else 0,
                     "forfeited": i in forfeited} for i, p in enumerate(held.seats)],
        "decisions": [decision],
        "faults": [], "forfeited": list(forfeited),
        "result": {"end": "forfeit" if forfeited else "normal", "rounds": 5,
                   "winners": [i for i, r in enumerate(ranks) if r == 1],
                   "reason": "test", "seats": [{"seat": i, "score": 10 - i, "rank": r}
                                               for i, r in enumerate(ranks)]},
    }


def row(engine: Engine, pk: int) -> Any:
    with engine.connect() as conn:
        return conn.execute(select(Match.state, Match.attempt, Match.void_reason,
                                   Match.lease_owner).where(Match.id == pk)).one()


def count(engine: Engine, table: Any, pk: int) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)
                            .where(table.match_pk == pk)).scalar_one()


def expire_and_claim(engine: Engine, pk: int, held: Claim, worker: str) -> Claim | None:
    return claim(engine, pk, worker, LEASE_S, now=held.lease_until + timedelta(microseconds=1))


# -- claiming: leases and attempts ------------------------------------------------------------

def test_a_lease_is_live_up_to_and_including_its_last_instant(engine):
    pk = scheduled(engine)
    held = claim(engine, pk, "w1", LEASE_S, now=T0)
    assert held is not None and held.lease_until == T0 + timedelta(seconds=LEASE_S)
    assert claim(engine, pk, "w2", LEASE_S, now=held.lease_until) is None
    assert row(engine, pk) == ("running", 1, None, "w1")
    taken = expire_and_claim(engine, pk, held, "w2")
    assert taken is not None and (taken.attempt, taken.worker) == (2, "w2")


def test_a_match_gets_three_attempts_then_is_voided_by_the_next_claim(engine):
    pk = scheduled(engine)
    held = claim(engine, pk, "w1", LEASE_S, now=T0)
    for attempt in range(2, ATTEMPTS + 1):
        assert held is not None
        held = expire_and_claim(engine, pk, held, f"w{attempt}")
        assert held is not None and held.attempt == attempt
    assert held is not None
    assert claim(engine, pk, "late", LEASE_S, now=held.lease_until) is None  # still live
    assert row(engine, pk).state == "running"
    assert expire_and_claim(engine, pk, held, "late") is None
    assert row(engine, pk) == ("voided", ATTEMPTS, f"no result after {ATTEMPTS} attempts", None)


def test_the_sweeper_voids_only_an_expired_last_attempt(lite):
    pk = scheduled(lite)
    policy = SweepPolicy(requeue_after_s=3600, max_age_s=10 ** 9)
    held = claim(lite, pk, "w1", LEASE_S, now=T0)
    for attempt in range(2, ATTEMPTS + 1):
        assert held is not None
        assert sweep(lite, policy, now=held.lease_until) == []  # a live lease
        assert sweep(lite, policy, now=held.lease_until + timedelta(microseconds=1)) == [pk]
        held = expire_and_claim(lite, pk, held, f"w{attempt}")
    assert held is not None and held.attempt == ATTEMPTS
    assert sweep(lite, policy, now=held.lease_until) == []
    assert row(lite, pk).state == "running"
    assert sweep(lite, policy, now=held.lease_until + timedelta(microseconds=1)) == []
    assert row(lite, pk).state == "voided"


def test_renewing_belongs_to_the_attempt_that_holds_the_row(lite):
    pk = scheduled(lite)
    first = claim(lite, pk, "w1", LEASE_S, now=T0)
    assert first is not None and renew(lite, first, LEASE_S) is True
    with lite.connect() as conn:
        renewed = conn.execute(select(Match.lease_until).where(Match.id == pk)).scalar_one()
    second = claim(lite, pk, "w2", LEASE_S, now=renewed.replace(tzinfo=timezone.utc)
                   + timedelta(microseconds=1))
    assert second is not None
    assert renew(lite, first, LEASE_S) is False
    assert renew(lite, second, LEASE_S) is True


# -- finishing: exactly once ------------------------------------------------------------------

@pytest.mark.parametrize("newer_first", [False, True], ids=["stale-first", "newer-first"])
def test_of_two_workers_holding_different_attempts_only_the_newer_finishes(engine, newer_first):
    pk = scheduled(engine)
    stale = claim(engine, pk, "w1", LEASE_S, now=T0)
    assert stale is not None
    newer = expire_and_claim(engine, pk, stale, "w2")
    assert newer is not None and newer.attempt == 2
    if newer_first:
        assert finish(engine, newer, log_of(newer, ranks=(2, 1))) is True
    assert finish(engine, stale, log_of(stale, ranks=(1, 2))) is False
    if not newer_first:
        assert row(engine, pk) == ("running", 2, None, "w2")  # the stale result wrote nothing
        assert count(engine, MatchLog, pk) == 0 and count(engine, RatingHistory, pk) == 0
        assert finish(engine, newer, log_of(newer, ranks=(2, 1))) is True
    assert finish(engine, newer, log_of(newer, ranks=(2, 1))) is False  # never twice
    assert row(engine, pk).state == "finished"
    with engine.connect() as conn:
        ranks = conn.execute(select(MatchSeat.rank).where(MatchSeat.match_pk == pk)
                             .order_by(MatchSeat.seat)).scalars().all()
    assert ranks == [2, 1]  # the newer attempt's result, whatever the order
    assert count(engine, MatchLog, pk) == 1 and count(engine, RatingHistory, pk) == 2


def test_a_voided_match_cannot_be_finished(lite):
    pk = scheduled(lite)
    held = claim(lite, pk, "w1", LEASE_S, now=T0)
    assert held is not None
    assert void(lite, pk, "not this attempt", attempt=held.attempt + 1) is False
    assert row(lite, pk).state == "running"
    assert void(lite, pk, "operator", attempt=held.attempt) is True
    assert finish(lite, held, log_of(held)) is False
    assert row(lite, pk)[:3] == ("voided", 1, "operator")
    assert void(lite, pk, "again") is False  # over: nothing to void


def test_forfeits_ranks_and_standings_are_stored_per_seat(lite):
    pk = scheduled(lite)
    held = claim(lite, pk, "w1", LEASE_S, now=T0)
    assert held is not None
    assert finish(lite, held, log_of(held, ranks=(2, 1), forfeited=(0,),
                                       bot_line="thinking")) is True
    with lite.connect() as conn:
        seats = conn.execute(select(MatchSeat.seat, MatchSeat.rank, MatchSeat.standing,
                                    MatchSeat.score, MatchSeat.forfeited, MatchSeat.strikes)
                             .where(MatchSeat.match_pk == pk).order_by(MatchSeat.seat)).all()
        history = dict(conn.execute(select(RatingHistory.bot_id, RatingHistory.elo_after
                                           - RatingHistory.elo_before)
                                    .where(RatingHistory.match_pk == pk)).all())
        stored = conn.execute(select(MatchLog.seat_logs).where(MatchLog.match_pk == pk)
                              ).scalar_one()
    # a forfeit stands below every seat (standing n + 1), whatever rank it was given
    assert [tuple(s) for s in seats] == [(0, 2, 3, 10.0, True, 3), (1, 1, 1, 9.0, False, 0)]
    alpha, beta = bot_ids(lite)
    assert history[alpha] < 0 < history[beta]  # the forfeiting seat lost rating
    assert stored == {"0": [{"step": 0, "kind": "move", "ms": 4.0, "log": "thinking"}]}


@pytest.mark.parametrize("rated", [True, False])
def test_only_a_rated_match_moves_the_ratings(lite, rated):
    pk = scheduled(lite, rated=rated)
    held = claim(lite, pk, "w1", LEASE_S, now=T0)
    assert held is not None and held.rated is rated
    assert finish(lite, held, log_of(held)) is True
    with lite.connect() as conn:
        ratings = conn.execute(select(func.count()).select_from(Rating)).scalar_one()
        seq = conn.execute(select(Match.rating_seq).where(Match.id == pk)).scalar_one()
    assert count(lite, RatingHistory, pk) == (2 if rated else 0)
    assert (ratings, seq) == ((2, 1) if rated else (0, None))


# -- the referee's own failures ---------------------------------------------------------------

def test_the_referees_failures_retry_then_void_after_the_last_attempt(lite):
    pk = scheduled(lite)
    outcomes = []
    for attempt in range(1, ATTEMPTS + 1):
        held = claim(lite, pk, f"w{attempt}", LEASE_S, now=T0)
        assert held is not None and held.attempt == attempt  # a retry is claimable at once
        outcomes.append(fail_attempt(lite, held, f"boom {attempt}", "trace", now=T0))
        if attempt < ATTEMPTS:
            assert row(lite, pk) == ("scheduled", attempt, None, None)
    assert outcomes == ["retried"] * (ATTEMPTS - 1) + ["voided"]
    assert row(lite, pk) == ("voided", ATTEMPTS, REFEREE_FAILURE, None)
    assert claim(lite, pk, "late", LEASE_S, now=T0) is None
    with lite.connect() as conn:
        booked = conn.execute(select(Incident.attempt, Incident.outcome, Incident.error)
                              .where(Incident.match_pk == pk).order_by(Incident.id)).all()
    assert [tuple(b) for b in booked] == [(1, "retried", "boom 1"), (2, "retried", "boom 2"),
                                          (3, "voided", "boom 3")]


def test_a_superseded_attempts_failure_changes_nothing_but_the_incidents(lite):
    pk = scheduled(lite)
    stale = claim(lite, pk, "w1", LEASE_S, now=T0)
    assert stale is not None
    newer = expire_and_claim(lite, pk, stale, "w2")
    assert fail_attempt(lite, stale, "late failure", now=T0) == "superseded"
    assert row(lite, pk) == ("running", 2, None, "w2")
    assert newer is not None and finish(lite, newer, log_of(newer)) is True


def test_bots_log_lines_leave_the_public_log_for_their_owners():
    log = {"decisions": [{"step": 0, "seat": 1, "kind": "k", "ms": 1.5, "log": "mine"},
                         {"step": 1, "seat": 0, "kind": "k", "ms": 2.0}]}
    public, seat_logs = split_log(log)
    assert public["decisions"] == [{"step": 0, "seat": 1, "kind": "k", "ms": 1.5},
                                   {"step": 1, "seat": 0, "kind": "k", "ms": 2.0}]
    assert seat_logs == {"1": [{"step": 0, "kind": "k", "ms": 1.5, "log": "mine"}]}
    assert "log" in log["decisions"][0]  # the caller's log is left as it was


def test_a_match_scheduled_without_settings_gets_the_ladders_defaults(lite):
    """1 s a decision, no bank, forfeit at the third strike (docs/service.md), the game's
    default options; settings given are played as given."""
    pk = scheduled(lite)
    held = claim(lite, pk, "w1", LEASE_S, now=T0)
    assert held is not None
    assert held.settings.to_json() == {"time_ms": 1000, "bank_ms": 0, "strikes": 3,
                                       "options": {}}
    assert (held.game, held.seed, [p.name for p in held.seats]) == ("toy-race", 7,
                                                                    ["alpha", "beta"])
    given = MatchSettings(time_ms=250, bank_ms=900, strikes=5)
    [other] = schedule(lite, "toy-race", [(bot_ids(lite)[::-1], 8, None)], rated=False,
                       settings=given)
    again = claim(lite, other, "w1", LEASE_S, now=T0)
    assert again is not None and again.settings == given
    assert [p.name for p in again.seats] == ["beta", "alpha"]


def test_a_seats_stats_count_its_own_strikes_and_the_decisions_it_answered():
    """Decision times leave out the fallback's (a forfeited seat is not asked) and the strike
    reasons leave out ``/end`` faults (never strikes); p95 is the nearest-rank percentile."""
    decisions = [{"seat": 0, "ms": float(ms), "status": "ok"} for ms in range(20, 0, -1)]
    decisions += [{"seat": 0, "ms": 999.0, "status": "forfeited"},
                  {"seat": 1, "ms": 7.0, "status": "ok"}]
    faults = [{"seat": 0, "reason": "timeout", "kind": "move"},
              {"seat": 0, "reason": "timeout", "kind": "move"},
              {"seat": 0, "reason": "bad_json", "kind": "end"},
              {"seat": 1, "reason": "bot_error", "kind": "start"}]
    log = {"decisions": decisions, "faults": faults,
           "players": [{"strikes": 2}, {"strikes": 1}, {}]}
    assert seat_stats(log, 0) == {"strikes": 2, "strike_reasons": {"timeout": 2},
                                  "mean_ms": 10.5, "p95_ms": 19.0}
    assert seat_stats(log, 1) == {"strikes": 1, "strike_reasons": {"bot_error": 1},
                                  "mean_ms": 7.0, "p95_ms": 7.0}
    assert seat_stats(log, 2) == {"strikes": 0, "strike_reasons": {}, "mean_ms": None,
                                  "p95_ms": None}


def test_a_match_whose_bot_was_retired_is_voided_when_claimed_and_no_other(lite):
    from sqlalchemy import update

    from ladder.models import RETIRED

    pk, other = scheduled(lite), scheduled(lite)
    with lite.begin() as conn:
        conn.execute(update(Bot).where(Bot.name == "beta").values(status=RETIRED))
    assert claim(lite, pk, "w1", LEASE_S, now=T0) is None
    assert row(lite, pk) == ("voided", 1, "bot retired before the match: beta", None)
    assert row(lite, other) == ("scheduled", 0, None, None)
