"""Admin: pause and resume a ladder, void a match (ratings equal a recompute), recompute."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from api.runner import run_match
from ladder.admin import ladder_paused
from ladder.models import Bot, Match, Owner, Rating, RatingHistory
from ladder.recompute import recompute
from ladder.work import schedule

from service.conftest import Client, fast_bot

GAME = "toy-race"
ADMIN_WRITES = [f"/api/v1/admin/ladders/{GAME}/pause", f"/api/v1/admin/ladders/{GAME}/resume",
                f"/api/v1/admin/ladders/{GAME}/recompute", "/api/v1/admin/matches/1/void"]


@pytest.fixture
def site(make_service, db_url):
    """The app, an anonymous client, an admin and a plain owner."""
    app = make_service(db_url)
    anon = Client(app)
    admin, owner = anon.owner("root"), anon.owner("alice")
    with app.extensions["referee"].engine.begin() as conn:
        conn.execute(update(Owner).where(Owner.name == "root").values(is_admin=True))
    return app, anon, admin, owner


def ladder_of(app, n=8):
    """``n`` rated matches between three built-in bots, played; their ids and the bots."""
    svc = app.extensions["referee"]
    with svc.engine.connect() as conn:
        a = conn.execute(select(Bot.id).where(Bot.name == "random")).scalar_one()
    b, c = fast_bot(svc.engine, "random-b"), fast_bot(svc.engine, "random-c")
    pairs = [(a, b), (b, c), (c, a)]
    ids = schedule(svc.engine, GAME, [(list(pairs[i % 3]), 40 + i, None) for i in range(n)],
                   rated=True)
    assert [run_match(svc.engine, pk, svc.policy, lease_s=30) for pk in ids] == \
        ["finished"] * n
    return ids, (a, b, c)


def stored(engine):
    """Every rating and history row of the game, as plain tuples."""
    with engine.connect() as conn:
        ratings = sorted(tuple(r) for r in conn.execute(
            select(Rating.bot_id, Rating.elo, Rating.mu, Rating.sigma, Rating.games,
                   Rating.wins, Rating.draws, Rating.losses, Rating.last_match_pk)
            .where(Rating.game == GAME)))
        history = sorted(tuple(r) for r in conn.execute(
            select(RatingHistory.match_pk, RatingHistory.bot_id, RatingHistory.elo_before,
                   RatingHistory.elo_after, RatingHistory.mu, RatingHistory.sigma)
            .where(RatingHistory.game == GAME)))
    return ratings, history


@pytest.mark.parametrize("path", ADMIN_WRITES)
def test_admin_needs_a_token_and_an_admin(site, path):
    app, anon, _, owner = site
    assert anon.post(path).status_code == 401
    refused = owner.post(path)
    assert refused.status_code == 403 and "admin" in refused.json["message"]


def test_pause_and_resume_a_ladder(site):
    app, anon, admin, _ = site
    engine = app.extensions["referee"].engine
    paused = admin.post(f"/api/v1/admin/ladders/{GAME}/pause", json={"reason": "maintenance"})
    assert paused.status_code == 200
    assert paused.json["paused"] and paused.json["reason"] == "maintenance"
    assert paused.json["game"] == GAME and paused.json["paused_at"]
    with engine.connect() as conn:
        assert ladder_paused(conn, GAME) and not ladder_paused(conn, "tokaido-duo")
    again = admin.post(f"/api/v1/admin/ladders/{GAME}/pause")  # no body: the first pause stays
    assert again.json["reason"] == "maintenance"
    board = anon.get(f"/api/v1/leaderboards/{GAME}").json
    assert board["ladder"]["paused"] and board["ladder"]["reason"] == "maintenance"
    resumed = admin.post(f"/api/v1/admin/ladders/{GAME}/resume")
    assert resumed.status_code == 200 and not resumed.json["paused"]
    assert resumed.json["reason"] is None
    with engine.connect() as conn:
        assert not ladder_paused(conn, GAME)
    assert not anon.get(f"/api/v1/leaderboards/{GAME}").json["ladder"]["paused"]
    assert admin.post(f"/api/v1/admin/ladders/{GAME}/resume").status_code == 200


@pytest.mark.parametrize("path, body, status", [
    ("/api/v1/admin/ladders/chess/pause", None, 404),
    ("/api/v1/admin/ladders/chess/recompute", None, 404),
    (f"/api/v1/admin/ladders/{GAME}/pause", {"reason": ""}, 422),
    (f"/api/v1/admin/ladders/{GAME}/pause", {"why": "x"}, 422),
    ("/api/v1/admin/matches/999999/void", None, 404),
    ("/api/v1/admin/matches/1/void", {"reason": "x" * 201}, 422),
])
def test_admin_refuses_bad_requests(site, path, body, status):
    _, _, admin, _ = site
    answer = admin.post(path, json=body)
    assert answer.status_code == status and answer.json["message"]


def test_voiding_a_finished_match_leaves_ratings_equal_to_a_recompute(site):
    app, anon, admin, _ = site
    engine = app.extensions["referee"].engine
    ids, bots = ladder_of(app)
    before = stored(engine)
    middle = ids[3]
    answer = admin.post(f"/api/v1/admin/matches/{middle}/void", json={"reason": "cheating"})
    assert answer.status_code == 200, answer.json
    assert answer.json == {"id": middle, "game": GAME, "was": "finished", "state": "voided",
                           "reason": "cheating", "ratings_recomputed": True,
                           "matches_refolded": len(ids) - 1}
    after = stored(engine)
    assert after != before  # the later matches' steps changed
    assert middle not in {h[0] for h in after[1]}
    recompute(engine, GAME)
    assert stored(engine) == after  # exactly what a recompute gives
    detail = anon.get(f"/api/v1/matches/{middle}").json
    assert detail["state"] == "voided" and detail["void_reason"] == "cheating"
    series = anon.get(f"/api/v1/bots/{bots[0]}/ratings?game={GAME}").json
    assert middle not in [p["match_id"] for p in series["items"]]
    games = {r["bot"]["id"]: r["games"] for r in
             anon.get(f"/api/v1/leaderboards/{GAME}").json["provisional"]}
    assert sum(games.values()) == 2 * (len(ids) - 1)
    assert admin.post(f"/api/v1/admin/matches/{middle}/void").status_code == 409
    exported = anon.get("/api/v1/export/matches").json["items"]
    assert middle not in [m["id"] for m in exported]


def test_voiding_a_scheduled_match_touches_no_rating(site):
    app, _, admin, _ = site
    engine = app.extensions["referee"].engine
    ids, (a, b, _) = ladder_of(app, 3)
    before = stored(engine)
    [waiting] = schedule(engine, GAME, [([a, b], 99, None)], rated=True)
    answer = admin.post(f"/api/v1/admin/matches/{waiting}/void")
    assert answer.status_code == 200
    assert answer.json["was"] == "scheduled" and not answer.json["ratings_recomputed"]
    assert answer.json["reason"] == "voided by an admin"
    assert stored(engine) == before
    svc = app.extensions["referee"]
    assert run_match(engine, waiting, svc.policy, lease_s=30) == "nothing"
    with engine.connect() as conn:
        assert conn.execute(select(Match.state).where(Match.id == waiting)).scalar_one() == \
            "voided"


def test_recompute_a_ladder(site):
    app, _, admin, _ = site
    engine = app.extensions["referee"].engine
    ids, _ = ladder_of(app, 4)
    before = stored(engine)
    with engine.begin() as conn:  # spoil the stored ratings: the recompute restores them
        conn.execute(update(Rating).where(Rating.game == GAME).values(elo=0.0))
    answer = admin.post(f"/api/v1/admin/ladders/{GAME}/recompute")
    assert answer.status_code == 200 and answer.json == {"game": GAME, "matches": len(ids)}
    assert stored(engine) == before
    empty = admin.post("/api/v1/admin/ladders/tokaido-duo/recompute")
    assert empty.json == {"game": "tokaido-duo", "matches": 0}


def test_the_leaderboard_page_says_the_ladder_is_paused(site):
    app, anon, admin, _ = site
    page = anon.http.get(f"/leaderboards/{GAME}").get_data(as_text=True)
    assert "This ladder is paused" not in page
    admin.post(f"/api/v1/admin/ladders/{GAME}/pause", json={"reason": "new season"})
    page = anon.http.get(f"/leaderboards/{GAME}").get_data(as_text=True)
    assert "This ladder is paused" in page and "new season" in page
