"""The work state machine on both databases: claim and finish are compare-and-swaps, the
sweeper re-enqueues and voids, ratings change only in the finishing transaction."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from ladder.accounts import now_utc
from ladder.leaderboard import leaderboard
from ladder.models import Match, RatingHistory
from ladder.newmatches import MatchSettings
from ladder.recompute import recompute
from ladder.registry import ensure_house_bots
from ladder.work import (
    MAX_ATTEMPTS, SweepPolicy, claim, finish, queue_stats, rotations, schedule, sweep,
)
from referee.netpolicy import UrlPolicy

from service.conftest import fast_bot


@pytest.fixture
def engine(db_url: str) -> Any:
    from ladder.store import open_db

    engine = open_db(db_url)
    ensure_house_bots(engine)
    assert fast_bot(engine) == 4
    yield engine
    engine.dispose()


def play(held) -> dict[str, Any]:
    from api.execution import play as real_play

    return real_play(held, UrlPolicy())


def state(engine, pk):
    with engine.connect() as conn:
        return conn.execute(select(Match.state, Match.attempt, Match.void_reason)
                            .where(Match.id == pk)).one()


def test_one_claim_per_attempt_and_a_per_attempt_match_id(engine):
    [pk] = schedule(engine, "toy-race", [([1, 4], 11, None)], rated=True)
    held = claim(engine, pk, "w1", lease_s=30)
    assert held is not None and held.attempt == 1 and held.attempt_id == f"m{pk}.1"
    assert claim(engine, pk, "w2", lease_s=30) is None  # a duplicate delivery: nothing to do
    log = play(held)
    assert log["match_id"] == f"m{pk}.1"
    assert finish(engine, held, log) is True
    assert finish(engine, held, log) is False  # never twice
    assert claim(engine, pk, "w3", lease_s=30) is None
    assert state(engine, pk).state == "finished"


def test_a_stale_attempt_cannot_finish_after_a_newer_one_took_over(engine):
    [pk] = schedule(engine, "toy-race", [([1, 4], 12, None)], rated=True)
    first = claim(engine, pk, "w1", lease_s=0.05)
    time.sleep(0.1)
    second = claim(engine, pk, "w2", lease_s=30)
    assert second is not None and second.attempt == 2
    assert finish(engine, first, play(first)) is False
    assert finish(engine, second, play(second)) is True
    with engine.connect() as conn:
        rows = conn.execute(select(func.count()).select_from(RatingHistory)
                            .where(RatingHistory.match_pk == pk)).scalar_one()
    assert rows == 2  # one rating step, for two seats


def test_the_sweeper_requeues_expired_leases_and_voids_after_three_attempts(engine):
    [pk] = schedule(engine, "toy-race", [([1, 4], 13, None)], rated=True)
    policy = SweepPolicy(requeue_after_s=3600, max_age_s=3600)
    assert sweep(engine, policy) == []  # just enqueued
    clock = now_utc()
    for attempt in range(1, MAX_ATTEMPTS + 1):
        held = claim(engine, pk, f"w{attempt}", lease_s=60, now=clock)
        assert held is not None and held.attempt == attempt
        assert sweep(engine, policy, now=clock + timedelta(seconds=59)) == []  # a live lease
        clock += timedelta(seconds=61)
        due = sweep(engine, policy, now=clock)
        assert due == ([pk] if attempt < MAX_ATTEMPTS else [])
        assert sweep(engine, policy, now=clock) == []  # enqueued once per expiry
    assert state(engine, pk) == ("voided", MAX_ATTEMPTS,
                                 f"no result after {MAX_ATTEMPTS} attempts")
    assert claim(engine, pk, "late", lease_s=30, now=clock) is None


def test_the_sweeper_requeues_lost_enqueues_and_voids_old_matches(engine):
    [pk, old] = schedule(engine, "toy-race", [([1, 4], 14, None), ([4, 1], 14, None)],
                         rated=False)
    assert sweep(engine, SweepPolicy(requeue_after_s=0, max_age_s=3600)) == [pk, old]
    time.sleep(0.05)
    assert sweep(engine, SweepPolicy(requeue_after_s=3600, max_age_s=0.01)) == []
    assert state(engine, old).void_reason == "not over within the age cap"
    assert queue_stats(engine)["scheduled"] == 0


def test_ratings_of_worker_results_equal_a_recompute(engine):
    ids = schedule(engine, "toy-race", rotations([1, 4], 8, "r") + rotations([4, 1], 4, "s"),
                   rated=True)
    for pk in reversed(ids):  # finished in another order than created
        held = claim(engine, pk, "w", lease_s=30)
        assert finish(engine, held, play(held))
    before = leaderboard(engine, "toy-race")
    recompute(engine, "toy-race")
    after = leaderboard(engine, "toy-race")
    assert [(r["bot"], r["rating"], r["games"]) for r in before] == \
        [(r["bot"], r["rating"], r["games"]) for r in after]
    assert before[0]["games"] == 12


def test_unrated_matches_stay_out_of_the_fold(engine):
    [pk] = schedule(engine, "toy-race", [([1, 4], 15, None)], rated=False)
    held = claim(engine, pk, "w", lease_s=30)
    assert finish(engine, held, play(held))
    assert leaderboard(engine, "toy-race") == []
    assert recompute(engine, "toy-race") == 0


def test_a_held_match_is_neither_swept_nor_claimed_until_released(engine):
    """The matchmaker holds a pair's second game back (``held``) until its bots have room:
    the sweeper does not enqueue it however long it waits, a stray delivery claims nothing,
    a restarted pool does not queue it; released, it is ordinary work."""
    from sqlalchemy import update

    from ladder.work import pending_ids

    [held_pk, free_pk] = schedule(engine, "toy-race", [([1, 4], 15, "p"), ([4, 1], 15, "p")],
                                  rated=False)
    with engine.begin() as conn:
        conn.execute(update(Match).where(Match.id == held_pk).values(held=True,
                                                                      enqueued_at=None))
    later = now_utc() + timedelta(hours=2)
    assert sweep(engine, SweepPolicy(requeue_after_s=0, max_age_s=10**9), now=later) == [free_pk]
    assert claim(engine, held_pk, "stray", lease_s=30) is None
    assert pending_ids(engine) == [free_pk]
    with engine.begin() as conn:
        conn.execute(update(Match).where(Match.id == held_pk).values(held=False,
                                                                      enqueued_at=now_utc()))
    assert pending_ids(engine) == [held_pk, free_pk]
    claimed = claim(engine, held_pk, "w", lease_s=30)
    assert claimed is not None and claimed.settings == MatchSettings()


def test_match_settings_default_to_the_referees_and_fill_in_what_a_row_lacks():
    from referee.match import DEFAULT_STRIKES, TimeControl

    standard = MatchSettings()
    assert (standard.time_ms, standard.bank_ms, standard.strikes) == (
        TimeControl().decision_ms, TimeControl().bank_ms, DEFAULT_STRIKES)
    assert MatchSettings.from_json(None) == MatchSettings.from_json({}) == standard
    fast = MatchSettings.from_json({"time_ms": 250, "options": {"variant": "x"}})
    assert (fast.time_ms, fast.strikes, dict(fast.options)) == (250, DEFAULT_STRIKES,
                                                                {"variant": "x"})
    assert MatchSettings.from_json(fast.to_json()) == fast


def test_the_tick_after_a_match_runs_only_when_the_match_freed_something_of_a_ladder(engine):
    """A challenge between bots on no ladder frees nothing the matchmaker hands out: the
    runner's tick after it is one indexed read, not a tick over every ladder."""
    from dataclasses import replace

    from sqlalchemy import delete, insert

    from api.scheduling import after_match
    from ladder.matchmaking import MatchmakerConfig, TickResult
    from ladder.models import LadderEntry, SoloEntry
    from ladder.work import may_reschedule

    class Sent:
        def __init__(self) -> None:
            self.ids: list[int] = []

        def enqueue(self, ids: Any) -> None:
            self.ids += ids

        def enqueue_checks(self, ids: Any) -> None:
            raise AssertionError("no checks here")

    [pk] = schedule(engine, "toy-race", [([1, 4], 21, None)], rated=False)
    held = claim(engine, pk, "w1", lease_s=30)
    assert held is not None and held.round_id is None
    after = after_match(engine, MatchmakerConfig(), Sent())
    assert may_reschedule(engine, held) is False and after(held) is None
    assert may_reschedule(engine, replace(held, round_id=7)) is True  # a ladder round's
    with engine.begin() as conn:  # bot 1 enters a solo ladder: its waiting games need a slot
        conn.execute(insert(SoloEntry).values(bot_id=1, game="tokaido-duo", level=1,
                                              active=True, joined_at=now_utc()))
    assert may_reschedule(engine, held) is True
    with engine.begin() as conn:
        conn.execute(delete(SoloEntry))
    assert may_reschedule(engine, held) is False
    with engine.begin() as conn:  # bot 4 joins a ladder: its freed slot may start a fixture
        conn.execute(insert(LadderEntry).values(bot_id=4, game="toy-race", active=True,
                                                placement_remaining=0, joined_at=now_utc()))
    assert may_reschedule(engine, held) is True and isinstance(after(held), TickResult)


def test_rated_matches_are_numbered_in_the_order_they_finished(engine):
    """The fold's order is the finishing order, drawn under the ladder's lock (one number
    each, whatever their ids), so that a recompute replays the ratings as they were made."""
    first, second, unrated = schedule(engine, "toy-race", [([1, 4], 31, None),
                                                           ([4, 1], 32, None)], rated=True
                                      ) + schedule(engine, "toy-race", [([1, 4], 33, None)],
                                                   rated=False)
    for pk in (second, unrated, first):
        held = claim(engine, pk, "w1", lease_s=30)
        assert held is not None and finish(engine, held, play(held)) is True
    with engine.connect() as conn:
        seqs = dict(conn.execute(select(Match.id, Match.rating_seq)
                                 .where(Match.id.in_([first, second, unrated]))).all())
        before = conn.execute(select(func.max(Match.rating_seq))
                              .where(Match.id.not_in([first, second, unrated]))).scalar_one()
    base = before or 0
    assert seqs == {second: base + 1, first: base + 2, unrated: None}
