"""Who the matchmaker counts as eligible, placement, the daily cap, and its triggers (the CLI
command, the embedded pool, the runner after a match)."""

from __future__ import annotations

import random
from typing import Any

from click.testing import CliRunner
from sqlalchemy import insert, select, update

from cli import main
from ladder import matchmaking as mm
from ladder.accounts import now_utc
from ladder.matchmaking import MatchmakerConfig
from ladder.models import Bot, Fixture, HealthCheck, LadderEntry, Owner, Round
from ladder.store import open_db

from service.matchmaking_support import add_bot, add_owner, fake_log, finish_match, seats_of
from support.cli import assert_clean_error

GAME = "tokaido-duo"


def ladder(url: str, n: int) -> tuple[Any, list[int]]:
    engine = open_db(url)
    bots = [add_bot(engine, f"bot{i}", add_owner(engine, f"own{i}")) for i in range(n)]
    for b in bots:
        mm.join(engine, b, GAME)
    return engine, bots


def snapshot(engine: Any, number: int) -> list[int]:
    with engine.connect() as conn:
        return sorted(conn.execute(select(Round.eligible).where(
            Round.game == GAME, Round.number == number)).scalar_one())


def play_out(engine: Any, rounds: int, rng: random.Random, config=MatchmakerConfig()) -> None:
    """Tick and finish every released match until ``rounds`` rounds exist."""
    for _ in range(200):
        released = mm.tick(engine, config=config).enqueue
        for pk in released:
            finish_match(engine, pk, rng)
        with engine.connect() as conn:
            if len(conn.execute(select(Round.id).where(Round.game == GAME)).all()) >= rounds:
                return
        if not released:
            return


def test_paused_suspended_unhealthy_and_retired_bots_are_not_eligible(db_url):
    engine, bots = ladder(db_url, 8)
    try:
        mm.pause(engine, bots[0], GAME, "3 failed probes")
        mm.leave(engine, bots[1], GAME)
        with engine.begin() as conn:
            owner = conn.execute(select(Bot.owner_id).where(Bot.id == bots[2])).scalar_one()
            conn.execute(update(Owner).where(Owner.id == owner).values(suspended_at=now_utc()))
            conn.execute(update(Bot).where(Bot.id == bots[3]).values(status="retired"))
            conn.execute(insert(HealthCheck), [
                {"bot_id": bots[4], "at": now_utc(), "ok": False, "status": "timeout",
                 "detail": ""} for _ in range(3)])
            conn.execute(insert(HealthCheck), [  # two failures after a success: still fine
                {"bot_id": bots[5], "at": now_utc(), "ok": ok, "status": "", "detail": ""}
                for ok in (True, False, False)])
        mm.tick(engine)
        assert snapshot(engine, 1) == sorted(bots[5:])
        mm.resume(engine, bots[0], GAME)
        mm.join(engine, bots[1], GAME)
        assert set(bots[:2]) <= set(snapshot_after_tick(engine))
    finally:
        engine.dispose()


def snapshot_after_tick(engine: Any) -> list[int]:
    """The eligible bots the next opened round snapshots (rounds are cleared first)."""
    with engine.begin() as conn:
        conn.execute(update(Round).where(Round.game == GAME).values(closed_at=now_utc()))
    result = mm.tick(engine)
    with engine.connect() as conn:
        return sorted(conn.execute(select(Round.eligible).where(Round.id == result.opened[0])
                                   ).scalar_one())


def test_placement_counts_down_and_a_new_version_places_again(db_url):
    engine, bots = ladder(db_url, 4)
    rng = random.Random(3)
    try:
        play_out(engine, 4, rng)
        mm.tick(engine)  # placement counts a fixture's games when it settles
        with engine.connect() as conn:
            left = dict(conn.execute(select(LadderEntry.bot_id, LadderEntry.placement_remaining)
                                     .where(LadderEntry.game == GAME)).all())
        played = _games(engine, settled=True)
        assert all(left[b] == max(0, 10 - played[b]) for b in bots), (left, played)
        with engine.begin() as conn:
            conn.execute(update(Bot).where(Bot.id == bots[0]).values(version=2))
            conn.execute(update(LadderEntry).where(LadderEntry.bot_id == bots[0])
                         .values(placement_remaining=0))
        mm.tick(engine)
        with engine.connect() as conn:
            entry = conn.execute(select(LadderEntry.placement_remaining, LadderEntry.version)
                                 .where(LadderEntry.bot_id == bots[0])).one()
        assert tuple(entry) == (5, 2)
    finally:
        engine.dispose()


def _games(engine: Any, settled: bool = False) -> dict[int, int]:
    """Finished games per bot (``settled``: only those of fixtures the matchmaker settled)."""
    from collections import Counter

    from ladder.models import FINISHED, Match, MatchSeat

    with engine.connect() as conn:
        done = set(conn.execute(select(Fixture.id).where(Fixture.state == "done")).scalars())
        rows = conn.execute(select(MatchSeat.bot_id, Match.fixture_id).join(
            Match, Match.id == MatchSeat.match_pk).where(Match.state == FINISHED)).all()
    return dict(Counter(b for b, fixture in rows if not settled or fixture in done))


def test_the_daily_cap_keeps_a_bot_out_of_new_rounds(db_url):
    engine, bots = ladder(db_url, 4)
    try:
        play_out(engine, 6, random.Random(4), MatchmakerConfig(daily_cap=4))
        counts = _games(engine)
        assert counts and max(counts.values()) <= 4
    finally:
        engine.dispose()


def test_an_orphan_rests_before_the_next_round_and_plays_it(db_url):
    """A bot whose fixture was cancelled (its opponent paused) while another fixture of the
    round still waited for its bots keeps waiting for a partner; the tick that starts that
    fixture opens the next round, and the orphan must rest first and be in it, not sit it
    out as a bot with a fixture waiting."""
    engine, bots = ladder(db_url, 5)
    rng = random.Random(5)
    try:
        first = mm.tick(engine)  # round 1 plays; round 2 is planned, its bots busy
        assert len(first.opened) == 2
        with engine.connect() as conn:
            fixtures = conn.execute(select(Fixture.round_id, Fixture.kind, Fixture.bots)
                                    .order_by(Fixture.id)).all()
        [rested] = [f.bots[0] for f in fixtures if f.round_id == first.opened[0]
                    and f.kind == mm.Kind.BYE]
        # its round-2 opponent is the orphan: it was busy in round 1, so was the other pair
        [(victim, orphan)] = [(rested, next(b for b in f.bots if b != rested))
                              for f in fixtures if f.round_id == first.opened[1]
                              and f.kind == mm.Kind.FIXTURE and rested in f.bots]
        mm.pause(engine, victim, GAME, "3 failed probes")
        assert mm.tick(engine).opened == []  # the other pair of round 2 still waits
        for pk in first.enqueue:
            finish_match(engine, pk, rng)
        play_out(engine, 3, rng)
        assert snapshot(engine, 3) == sorted(set(bots) - {victim})
        with engine.connect() as conn:
            [bye] = conn.execute(select(Fixture.round_id, Fixture.bots).where(
                Fixture.kind == mm.Kind.BYE, Fixture.reason == "orphan")).all()
        assert tuple(bye) == (first.opened[1], [orphan])  # its rest is in its own round
    finally:
        engine.dispose()


def test_cli_tick(tmp_path):
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    engine, bots = ladder(url, 4)
    engine.dispose()
    out = CliRunner().invoke(main, ["ladder", "tick", "--db", url, "--game", GAME])
    assert out.exit_code == 0, out.output
    assert "opened 2 rounds" in out.output and "released 2 matches" in out.output
    again = CliRunner().invoke(main, ["ladder", "tick", "--db", url])
    assert again.exit_code == 0 and "released 0 matches (0 created)" in again.output
    assert_clean_error(CliRunner().invoke(main, ["ladder", "tick", "--db", url, "-g", "chess"]),
                       2, "unknown game")
    missing = f"sqlite:///{tmp_path / 'typo.sqlite3'}"
    assert_clean_error(CliRunner().invoke(main, ["ladder", "tick", "--db", missing]), 1,
                       "no ladder database")
    assert not (tmp_path / "typo.sqlite3").exists()


def test_the_embedded_pool_ticks_and_the_runner_ticks_after_a_match(tmp_path):
    from api.dispatch import EmbeddedPool
    from api.runner import run_match
    from ladder.work import SweepPolicy
    from referee.netpolicy import UrlPolicy

    engine, bots = ladder(f"sqlite:///{tmp_path / 'pool.sqlite3'}", 2)
    try:
        pool = EmbeddedPool(engine, UrlPolicy(), workers=1, lease_s=30, sweep_s=60,
                            sweep_policy=SweepPolicy(), start=False)
        pool.tick()
        first = pool._queue.get_nowait()
        assert pool._queue.empty()  # the pair's second game is held
        games: list[str] = []
        def play(held: Any, policy: Any) -> dict[str, Any]:
            return fake_log(2, random.Random(1))

        assert run_match(engine, first, UrlPolicy(), lease_s=30, play=play,
                         after=lambda held: (games.append(held.game), pool.tick())) == "finished"
        assert games == [GAME]
        second = pool._queue.get_nowait()
        assert seats_of(engine)[second] == seats_of(engine)[first][::-1]
        with engine.connect() as conn:
            assert conn.execute(select(Fixture.made).where(Fixture.kind == "fixture")
                                ).scalars().all()[0] == 2
    finally:
        engine.dispose()


def test_joining_needs_an_active_bot_that_plays_the_game(tmp_path):
    import pytest

    from ladder import ConflictError, InvalidError, NotFoundError

    engine, bots = ladder(f"sqlite:///{tmp_path / 'j.sqlite3'}", 1)
    try:
        with pytest.raises(NotFoundError):
            mm.join(engine, 999, GAME)
        with engine.begin() as conn:
            conn.execute(update(Bot).where(Bot.id == bots[0]).values(games=["doubletrack"]))
        with pytest.raises(InvalidError, match="does not play"):
            mm.join(engine, bots[0], "tokaido-duo-x")
        with engine.begin() as conn:
            conn.execute(update(Bot).where(Bot.id == bots[0]).values(status="retired"))
        with pytest.raises(ConflictError, match="retired"):
            mm.join(engine, bots[0], "doubletrack")
        with pytest.raises(NotFoundError, match="not on the doubletrack ladder"):
            mm.pause(engine, bots[0], "doubletrack", "why")
    finally:
        engine.dispose()


def test_a_fixture_voided_again_and_again_is_given_up_after_three_make_ups(tmp_path):
    engine = open_db(f"sqlite:///{tmp_path / 'v.sqlite3'}")
    try:
        bots = [add_bot(engine, f"v{i}", add_owner(engine, f"vo{i}")) for i in range(4)]
        for b in bots:
            mm.join(engine, b, "doubletrack")
        from ladder.work import void

        for _ in range(4):  # the table, then its three make-ups
            [pk] = mm.tick(engine).enqueue
            void(engine, pk, "no result after 3 attempts")
        mm.tick(engine)
        with engine.connect() as conn:
            rows = conn.execute(select(Fixture.kind, Fixture.reason, Fixture.round_id)
                                .order_by(Fixture.id)).all()
        round1 = [r for r in rows if r.round_id == rows[0].round_id]
        assert [r.kind for r in round1].count("makeup") == 3
        assert sorted(r.reason for r in round1 if r.kind == "bye") == ["void"] * 4
    finally:
        engine.dispose()


def test_a_tick_that_does_not_settle_raises_and_keeps_nothing(db_url, monkeypatch):
    """A step that changes something on every pass (a bug) would keep a tick going for ever:
    the loop stops after its bound and raises, and the tick's transaction keeps nothing."""
    import pytest

    from ladder.matchmaking import loop
    from ladder.models import Match

    engine, _ = ladder(db_url, 4)
    passes: list[str] = []
    sound = loop.close

    def restless(lad: Any) -> None:
        sound(lad)
        passes.append(lad.game)
        lad.changes += 1

    monkeypatch.setattr(loop, "close", restless)
    try:
        with pytest.raises(mm.UnsettledError, match=f"after {mm.MAX_PASSES} passes"):
            mm.tick(engine)
        assert passes == [GAME] * mm.MAX_PASSES
        with engine.connect() as conn:
            assert conn.execute(select(Round.id)).all() == []
            assert conn.execute(select(Match.id)).all() == []
        monkeypatch.undo()
        assert mm.tick(engine).opened  # the next tick starts again from the rows
    finally:
        engine.dispose()
