"""Recording matches on both databases: exactly once, no lost updates, recompute == incremental."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from typing import Any

import pytest
from hypothesis import given, strategies as st
from sqlalchemy import delete, event, func, insert, select, update
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Engine

from ladder import LadderError, fold, leaderboard as leaderboards, recompute as recomputing
from ladder.fit import fit
from ladder.leaderboard import history, leaderboard
from ladder.models import Bot, Match, MatchSeat, Rating, RatingHistory
from ladder.ratings import EloConfig
from ladder.recompute import recompute
from ladder.store import open_db, record_match

from support.ladder_db import make_log, random_logs, record_all
from support.matches import play_bots

BOTS = ["alpha", "beta", "gamma", "delta", "eps"]


def ratings_snapshot(engine: Engine, game: str = "toy-race") -> list[tuple[Any, ...]]:
    """Every derived value of a ladder, exactly (no tolerance: the fold is deterministic)."""
    with engine.connect() as conn:
        ratings = conn.execute(
            select(Rating.bot_id, Rating.elo, Rating.mu, Rating.sigma, Rating.games, Rating.wins,
                   Rating.draws, Rating.losses, Rating.last_match_pk)
            .where(Rating.game == game).order_by(Rating.bot_id)).all()
        history = conn.execute(
            select(RatingHistory.match_pk, RatingHistory.bot_id, RatingHistory.elo_before,
                   RatingHistory.elo_after, RatingHistory.mu, RatingHistory.sigma)
            .where(RatingHistory.game == game)
            .order_by(RatingHistory.match_pk, RatingHistory.bot_id)).all()
    return [tuple(r) for r in ratings] + [tuple(h) for h in history]


def count(engine: Engine, model: Any) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(model)).scalar_one())


def test_runner_log_is_recorded_with_its_seats_and_ratings(ladder_engine, toy_game):
    log = play_bots("toy-race", [f"{name}=random" for name in BOTS[:3]], 11).log
    assert record_match(ladder_engine, log) is True
    board = {row["bot"]: row for row in leaderboard(ladder_engine, "toy-race")}
    assert set(board) == set(BOTS[:3])
    winners = log["result"]["winners"]
    for seat, name in enumerate(BOTS[:3]):
        row = board[name]
        assert row["games"] == 1 and row["wins"] + row["draws"] + row["losses"] == 1
        assert (row["wins"] == 1) == (winners == [seat])
    with ladder_engine.connect() as conn:
        stored = conn.execute(select(Match.log).where(Match.match_id == log["match_id"])).scalar_one()
    assert stored == log  # the whole log is kept, for replays


def test_recording_twice_changes_nothing(ladder_engine):
    log = make_log("m-1", ["alpha", "beta"], [1, 2])
    assert record_match(ladder_engine, log) is True
    before = ratings_snapshot(ladder_engine)
    assert record_match(ladder_engine, log) is False
    assert record_match(ladder_engine, log, bots={0: "x", 1: "y"}) is False
    assert ratings_snapshot(ladder_engine) == before
    assert count(ladder_engine, Match) == 1 and count(ladder_engine, MatchSeat) == 2


def test_first_win_with_k40_provisional(ladder_engine):
    record_match(ladder_engine, make_log("m-1", ["alpha", "beta"], [1, 2]))
    board = leaderboard(ladder_engine, "toy-race")
    assert [(r["bot"], r["elo"], r["wins"], r["losses"]) for r in board] == [
        ("alpha", 1520.0, 1, 0), ("beta", 1480.0, 0, 1)]
    assert board[0]["elo_provisional"] and board[0]["provisional"] and board[0]["interval"] > 0
    assert board[0]["low"] < board[0]["rating"] < board[0]["high"]
    assert board[0]["openskill"] > board[1]["openskill"]


def test_forfeit_and_bot_names_from_the_caller(ladder_engine):
    # seat 0 "won" the game but forfeited: it loses to everyone; names come from `bots`
    log = make_log("m-f", ["greedy", "greedy", "random"], [1, 2, 3], forfeited=[0])
    record_match(ladder_engine, log, bots={0: "v1", 1: "v2", 2: "rnd"})
    board = {r["bot"]: r for r in leaderboard(ladder_engine, "toy-race")}
    assert board["v1"]["losses"] == 1 and board["v1"]["rating"] < 1500
    assert board["v2"]["wins"] == 1 and board["v2"]["rating"] == max(r["rating"] for r in board.values())


@pytest.mark.parametrize("mutate, message", [
    (lambda log: log.pop("match_id"), "missing field 'match_id'"),
    (lambda log: log["players"].append({"seat": 2, "name": "c"}), "3 players for 2 seats"),
    (lambda log: log["result"]["seats"].pop(), "seats must be 0..n-1"),
    (lambda log: log.update(players=[{"name": "a"}, {"name": "a"}]), "same bot sits in two seats"),
    (lambda log: log.update(match_id=""), "match_id must be a non-empty string"),
    (lambda log: log["result"]["seats"][0].update(rank="first"), "bad match log"),
])
def test_bad_logs_are_refused_with_one_line(ladder_engine, mutate, message):
    log = make_log("m-bad", ["alpha", "beta"], [1, 2])
    mutate(log)
    with pytest.raises(LadderError, match=message) as info:
        record_match(ladder_engine, log)
    assert "\n" not in str(info.value)
    assert count(ladder_engine, Match) == 0


@pytest.mark.parametrize("chunk", [5000, 7, 1])
def test_recompute_equals_incremental(ladder_engine, monkeypatch, chunk):
    # 2-4 seats with ties and forfeits; small chunks put batch boundaries everywhere
    monkeypatch.setattr(recomputing, "CHUNK", chunk)
    logs = random_logs(3, 60, BOTS, "rc")
    assert all(record_match(ladder_engine, log) for log in logs)
    incremental = ratings_snapshot(ladder_engine)
    assert recompute(ladder_engine, "toy-race") == 60
    assert ratings_snapshot(ladder_engine) == incremental
    assert recompute(ladder_engine) == 60  # every game
    assert ratings_snapshot(ladder_engine) == incremental


def history_writes(engine: Engine) -> list[str]:
    """A list that fills with every statement that writes rating history on ``engine``."""
    seen: list[str] = []

    def spy(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "rating_history" in statement and not statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", spy)
    return seen


def test_recompute_that_changes_nothing_writes_no_history(ladder_engine):
    for log in random_logs(4, 30, BOTS, "same"):
        record_match(ladder_engine, log)
    before = ratings_snapshot(ladder_engine)
    writes = history_writes(ladder_engine)
    recompute(ladder_engine, "toy-race")
    assert ratings_snapshot(ladder_engine) == before
    assert writes == []


def test_recompute_restores_lost_history_and_drops_stale_rows(ladder_engine, monkeypatch):
    monkeypatch.setattr(recomputing, "CHUNK", 4)
    for log in random_logs(6, 25, BOTS, "fix"):
        record_match(ladder_engine, log)
    incremental = ratings_snapshot(ladder_engine)
    with ladder_engine.begin() as conn:
        ids = list(conn.execute(select(RatingHistory.id).order_by(RatingHistory.id)).scalars())
        conn.execute(delete(RatingHistory).where(RatingHistory.id.in_(ids[3::5])))  # lost
        conn.execute(update(RatingHistory).where(RatingHistory.id.in_(ids[1::7]))
                     .values(mu=0.0, elo_after=1.0))  # corrupted
        first = conn.execute(select(func.min(Match.id))).scalar_one()
        seated = select(MatchSeat.bot_id).where(MatchSeat.match_pk == first)
        stranger = conn.execute(select(Bot.id).where(Bot.id.not_in(seated))).scalars().first()
        conn.execute(insert(RatingHistory).values(  # a row for a bot that did not play
            match_pk=first, game="toy-race", bot_id=stranger, elo_before=1500.0, elo_after=1600.0,
            mu=30.0, sigma=5.0))
    assert ratings_snapshot(ladder_engine) != incremental
    recompute(ladder_engine, "toy-race")
    assert ratings_snapshot(ladder_engine) == incremental


def test_recompute_with_new_k_rebuilds_under_the_new_settings(ladder_engine):
    record_match(ladder_engine, make_log("m-1", ["alpha", "beta"], [1, 2]))
    recompute(ladder_engine, "toy-race", elo=EloConfig(k=32, k_provisional=32, provisional_games=0))
    assert [r["elo"] for r in leaderboard(ladder_engine, "toy-race")] == [1516.0, 1484.0]
    record_match(ladder_engine, make_log("m-2", ["alpha", "beta"], [1, 1]))  # keeps K 32
    incremental = ratings_snapshot(ladder_engine)
    recompute(ladder_engine, "toy-race")
    assert ratings_snapshot(ladder_engine) == incremental


def test_games_are_separate_ladders(ladder_engine):
    record_match(ladder_engine, make_log("a-1", ["alpha", "beta"], [1, 2], game="toy-race"))
    record_match(ladder_engine, make_log("b-1", ["alpha", "beta"], [2, 1], game="other"))
    assert leaderboard(ladder_engine, "toy-race")[0]["bot"] == "alpha"
    assert leaderboard(ladder_engine, "other")[0]["bot"] == "beta"
    assert leaderboard(ladder_engine, "nothing-here") == []


def test_threads_lose_no_update(ladder_engine):
    batches = [random_logs(10 + t, 12, BOTS, f"th{t}") for t in range(4)]
    barrier = threading.Barrier(len(batches))
    outcomes: list[bool] = []

    def work(logs: list[dict[str, Any]]) -> None:
        barrier.wait()
        outcomes.extend(record_match(ladder_engine, log) for log in logs)

    threads = [threading.Thread(target=work, args=(b,)) for b in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes == [True] * 48
    assert_consistent(ladder_engine, sum(len(b) for b in batches))


def test_threads_racing_on_the_same_matches_record_each_once(ladder_engine):
    logs = random_logs(5, 10, BOTS, "same")
    barrier = threading.Barrier(4)
    outcomes: list[bool] = []

    def work() -> None:
        barrier.wait()
        outcomes.extend(record_match(ladder_engine, log) for log in logs)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == [False] * 30 + [True] * 10
    assert_consistent(ladder_engine, 10)


def test_processes_lose_no_update_and_record_each_match_once(ladder_engine, db_url):
    shared = random_logs(7, 8, BOTS, "shared")  # every process races on these
    jobs = [(db_url, random_logs(20 + p, 8, BOTS, f"proc{p}") + shared) for p in range(3)]
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        results = pool.starmap(record_all, jobs)
    assert [r[:8] for r in results] == [[True] * 8] * 3
    assert sum(sum(r[8:]) for r in results) == len(shared)
    assert_consistent(ladder_engine, 3 * 8 + len(shared))


def assert_consistent(engine: Engine, matches: int) -> None:
    """No lost update: counts add up and the ratings equal the fold over what was stored."""
    assert count(engine, Match) == matches
    seats = count(engine, MatchSeat)
    assert sum(r["games"] for r in leaderboard(engine, "toy-race")) == seats
    assert count(engine, RatingHistory) == seats
    incremental = ratings_snapshot(engine)
    recompute(engine, "toy-race")
    assert ratings_snapshot(engine) == incremental


def test_open_db_reads_referee_db(monkeypatch, tmp_path):
    url = f"sqlite:///{tmp_path / 'env.sqlite3'}"
    monkeypatch.setenv("REFEREE_DB", url)
    engine = open_db()
    try:
        assert str(engine.url) == url
        assert record_match(engine, make_log("env-1", ["alpha", "beta"], [1, 2]))
    finally:
        engine.dispose()
    assert (tmp_path / "env.sqlite3").exists()


def test_sqlite_readers_pass_a_writer_and_writers_wait_for_it(tmp_path):
    """WAL + deferred reads: the leaderboard never queues; a second writer waits, never fails."""
    engine = open_db(f"sqlite:///{tmp_path / 'wal.sqlite3'}")
    try:
        record_match(engine, make_log("w-1", ["alpha", "beta"], [1, 2]))
        waiting: list[bool] = []
        with engine.connect() as holder:
            holder.begin()
            holder.exec_driver_sql("SELECT 1")  # BEGIN IMMEDIATE: this connection holds the lock
            assert [r["bot"] for r in leaderboard(engine, "toy-race")] == ["alpha", "beta"]
            second = threading.Thread(target=lambda: waiting.append(
                record_match(engine, make_log("w-2", ["alpha", "beta"], [2, 1]))))
            second.start()
            second.join(0.5)
            assert second.is_alive() and waiting == []  # blocked on the lock, not failed
            holder.commit()
        second.join(10)
        assert waiting == [True]
    finally:
        engine.dispose()


def test_a_log_that_is_not_json_is_refused(ladder_engine):
    log = make_log("j-1", ["alpha", "beta"], [1, 2])
    log["options"] = {"weird": {1, 2}}  # a set: not JSON
    with pytest.raises(LadderError, match="not JSON serializable"):
        record_match(ladder_engine, log)
    assert count(ladder_engine, Match) == 0


def test_writers_of_different_games_adding_the_same_new_bots_all_succeed(ladder_engine):
    """Different games take different ladder locks but share the bots table (and its names)."""
    errors: list[Exception] = []
    barrier = threading.Barrier(4)

    def work(thread: int) -> None:
        barrier.wait()
        for n in range(15):
            names = [f"new-{n}-{k}" for k in range(4)]
            if thread % 2:
                names.reverse()
            try:
                record_match(ladder_engine, make_log(f"g{thread}-{n}", names, [1, 2, 3, 4],
                                                     game=f"game-{thread}"))
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert count(ladder_engine, Match) == 60


def test_history_chains_each_bots_ratings(ladder_engine):
    for n, ranks in enumerate([[1, 2], [2, 1], [1, 1]]):
        record_match(ladder_engine, make_log(f"h{n}", ["alpha", "beta"], ranks))
    record_match(ladder_engine, make_log("h-other", ["beta", "gamma"], [1, 2]))
    trail = history(ladder_engine, "toy-race", "alpha")
    assert [t["match_id"] for t in trail] == ["h0", "h1", "h2"]
    assert trail[0]["elo_before"] == 1500.0 and trail[0]["elo"] == 1520.0
    assert all(a["elo"] == b["elo_before"] for a, b in zip(trail, trail[1:]))
    alpha = next(r for r in leaderboard(ladder_engine, "toy-race") if r["bot"] == "alpha")
    assert trail[-1]["elo"] == alpha["elo"] and trail[-1]["mu"] == alpha["mu"]
    assert history(ladder_engine, "toy-race", "nobody") == []


TWO_SEAT_MATCHES = st.lists(
    st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 2), st.integers(1, 2),
              st.booleans(), st.booleans()).filter(lambda m: m[0] != m[1]),
    max_size=40)


@given(TWO_SEAT_MATCHES)
def test_the_two_seat_fold_is_the_general_fold_to_the_last_bit(matches):
    """The fold's two-seat step (every match of most ladders, a million in a recompute) leaves
    the same ratings, counts and history values as the step for any number of seats."""
    config = EloConfig(provisional_games=3)
    fast, general = fold.RatingFold("g", config), fold.RatingFold("g", config)
    for pk, (a, b, place_a, place_b, forfeit_a, forfeit_b) in enumerate(matches, 1):
        seats = [(a, place_a, forfeit_a), (b, place_b, forfeit_b)]
        assert fast.step(pk, None, seats) == general._step_many(pk, None, seats)
    assert fast.states == general.states


def test_the_fold_walks_its_matches_in_the_index_and_never_reads_their_rows(
        sqlite_head_template, tmp_path):
    """A CLI match's row holds its whole log, and SQLite reaches a column stored after it by
    walking the log's overflow pages: the fold's read must find the matches it folds (game,
    order, rated and finished) in ``ix_matches_fold`` alone."""
    path = tmp_path / "plan.sqlite3"
    path.write_bytes(sqlite_head_template.read_bytes())
    compiled = recomputing._seats_with_history().compile(dialect=sqlite.dialect())
    params = {**compiled.params, "game": "g", "after": 0}
    with sqlite3.connect(path) as conn:
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + str(compiled),
                                               tuple(params[n] for n in compiled.positiontup))]
    on_matches = [step for step in plan if " matches " in f" {step} "]
    assert on_matches, plan  # SQLite words a step "SEARCH matches" (older: "SEARCH TABLE matches")
    assert all("USING COVERING INDEX ix_matches_fold" in step for step in on_matches), plan



# -- the public rating (issue 27) -----------------------------------------------------------------

def public(engine: Engine) -> list[tuple[str, float, float | None]]:
    return [(r["bot"], r["rating"], r["interval"]) for r in leaderboard(engine, "toy-race")]


def test_the_public_rating_is_the_fit_of_the_stored_results_and_recompute_keeps_it(
        ladder_engine, monkeypatch):
    for n, (names, ranks) in enumerate([(["a", "b"], [1, 2]), (["b", "c"], [1, 2]),
                                        (["a", "c"], [1, 1]), (["c", "a", "b"], [1, 2, 3])]):
        record_match(ladder_engine, make_log(f"p{n}", names, ranks))
    live = public(ladder_engine)
    expected = fit([[("a", 1, False), ("b", 2, False)], [("b", 1, False), ("c", 2, False)],
                    [("a", 1, False), ("c", 1, False)],
                    [("c", 1, False), ("a", 2, False), ("b", 3, False)]])
    assert [bot for bot, _, _ in live] == [bot for bot, _ in expected.ranked()]
    for bot, rating, interval in live:
        assert rating == pytest.approx(expected.bots[bot].rating, abs=1e-9)
        assert interval == pytest.approx(expected.bots[bot].margin, abs=1e-9)
    recompute(ladder_engine, "toy-race", elo=EloConfig(k=10, k_provisional=10))
    monkeypatch.setattr(leaderboards, "_FITS", {})  # another process: no cached fit
    assert public(ladder_engine) == live  # to the last bit: a function of the results alone


def test_the_public_rating_follows_each_new_result(ladder_engine):
    record_match(ladder_engine, make_log("q0", ["a", "b"], [1, 2]))
    first = dict((bot, rating) for bot, rating, _ in public(ladder_engine))
    record_match(ladder_engine, make_log("q1", ["a", "b"], [1, 2]))
    second = dict((bot, rating) for bot, rating, _ in public(ladder_engine))
    assert second["a"] > first["a"] > 1500 > first["b"] > second["b"]


def test_a_bot_that_only_forfeits_is_listed_last(ladder_engine):
    # 'random' loses most of its games; 'quitter' forfeits all of its own (issue 27, item 5)
    for n in range(8):
        record_match(ladder_engine, make_log(f"r{n}", ["greedy", "random"], [1, 2] if n else [2, 1]))
    for n in range(5):
        record_match(ladder_engine, make_log(f"f{n}", ["quitter", "random"], [1, 2],
                                             forfeited=[0]))
    board = leaderboard(ladder_engine, "toy-race")
    assert [r["bot"] for r in board] == ["greedy", "random", "quitter"]
    assert board[-1]["rating"] < board[-2]["rating"] and board[-1]["losses"] == 5
