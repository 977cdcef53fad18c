"""Revision 0002_service, up and down, with data in the tables, on SQLite and PostgreSQL."""

from __future__ import annotations

from sqlalchemy import func, select, text

from ladder.db import current_revision, head_revision, make_engine, migrate
from ladder.identity import claim_names
from ladder.leaderboard import leaderboard
from ladder.models import Match, MatchSeat, RatingHistory
from ladder.recompute import recompute
from ladder.registry import ensure_house_bots
from ladder.store import record_match
from ladder.work import claim, finish, schedule
from referee.netpolicy import UrlPolicy

from support.ladder_db import make_log


def ratings(engine):
    return [(r["bot"], round(r["rating"], 9), r["games"]) for r in leaderboard(engine, "toy-race")]


def test_upgrade_keeps_the_ladder_and_downgrade_keeps_its_rated_matches(empty_db_url):
    from api.execution import play

    engine = make_engine(empty_db_url)
    try:
        migrate(engine, "0001")
        for n in range(6):  # the 0001 code path: plain inserts, as that version wrote them
            with engine.begin() as conn:
                _insert_0001(conn, n)
        migrate(engine)
        assert current_revision(engine) == head_revision()
        with engine.connect() as conn:
            seqs = conn.execute(select(Match.id, Match.rating_seq, Match.state)).all()
        assert all(seq == pk and state == "finished" for pk, seq, state in seqs)
        recompute(engine, "toy-race")
        folded = ratings(engine)
        assert [r[2] for r in folded] == [6, 6]
        record_match(engine, make_log("after", ["a", "b"], [2, 1]))
        ensure_house_bots(engine)
        claim_names(engine, {"r2": "random"})
        with engine.connect() as conn:
            ids = dict(conn.execute(text("SELECT name, id FROM bots")).all())
        seats = [ids["random"], ids["r2"]]
        [rated, unrated] = schedule(engine, "toy-race", [(seats, 3, None), (seats[::-1], 3, None)],
                                    rated=True)
        with engine.begin() as conn:
            conn.execute(text("UPDATE matches SET rated = false WHERE id = :id"),
                         {"id": unrated})
        held = claim(engine, rated, "w", 30)
        assert finish(engine, held, play(held, UrlPolicy()))
        before = ratings(engine)
        migrate(engine, "0001", down=True)
        assert current_revision(engine) == "0001"
        with engine.connect() as conn:
            kept = conn.execute(select(func.count()).select_from(text("matches"))).scalar_one()
            log = conn.execute(text("SELECT log FROM matches ORDER BY id DESC")).first()
        assert kept == 8  # 6 + "after" + the rated service match; the unrated one is gone
        assert log is not None
        migrate(engine)
        recompute(engine, "toy-race")
        assert ratings(engine) == before
        with engine.connect() as conn:
            history = conn.execute(select(func.count()).select_from(RatingHistory)).scalar_one()
            seats = conn.execute(select(func.count()).select_from(MatchSeat)).scalar_one()
        assert history == seats == 16
    finally:
        engine.dispose()


def _insert_0001(conn, n: int) -> None:
    """A match, seats, ratings and history rows as revision 0001's store wrote them."""
    now = "2026-01-01 00:00:00"
    if n == 0:
        conn.execute(text("INSERT INTO bots (name, created_at) VALUES ('a', :t), ('b', :t)"),
                     {"t": now})
        conn.execute(text("INSERT INTO ladders VALUES ('toy-race', 24, 40, 10, :t)"), {"t": now})
    bot_ids = [conn.execute(text("SELECT id FROM bots WHERE name = :n"), {"n": n_}).scalar_one()
               for n_ in ("a", "b")]
    pk = conn.execute(text(
        "INSERT INTO matches (match_id, game, rules_version, num_seats, end_reason, rounds, "
        "recorded_at, log) VALUES (:mid, 'toy-race', '1', 2, 'normal', 3, :t, :log) "
        "RETURNING id"), {"mid": f"old-{n}", "t": now, "log": '{"old": true}'}).scalar_one()
    winner = bot_ids[n % 2]
    for seat, bot in enumerate(bot_ids):
        rank = 1 if bot == winner else 2
        conn.execute(text("INSERT INTO match_seats VALUES (:m, :s, :b, :r, :r, NULL, false, 0)"),
                     {"m": pk, "s": seat, "b": bot, "r": rank})
        conn.execute(text("INSERT INTO rating_history (match_pk, game, bot_id, elo_before, "
                          "elo_after, mu, sigma) VALUES (:m, 'toy-race', :b, 1500, 1500, 25, 8)"),
                     {"m": pk, "b": bot})
