"""Games, leaderboards, health, the document and the docs page, the HTTP edges."""

from __future__ import annotations

import time

from service.conftest import Client, drain, fast_bot


def test_games(anon):
    games = {g["name"]: g for g in anon.get("/api/v1/games").json["items"]}
    assert games["tokaido-duo"]["seats"] == [1, 2] and games["doubletrack"]["seats"] == [3, 4]
    assert games["doubletrack"]["leaderboard"] == "/api/v1/leaderboards/doubletrack"
    assert games["tokaido-duo"]["solo_levels"] == [1, 2, 3, 4, 5, 6]
    assert games["doubletrack"]["solo_levels"] == []


def test_leaderboard_ranks_rated_matches_and_keeps_provisional_bots_apart(app, anon):
    from ladder.work import rotations, schedule

    engine = app.extensions["referee"].engine
    other = fast_bot(engine)
    ids = schedule(engine, "toy-race", rotations([1, other], 12, "t"), rated=True)
    app.extensions["referee"].dispatcher.sent = ids
    assert drain(app) == ["finished"] * 12
    board = anon.get("/api/v1/leaderboards/toy-race").json
    assert sorted(r["bot"]["name"] for r in board["items"]) == ["random", "random-b"]
    assert [r["rank"] for r in board["items"]] == [1, 2] and board["provisional"] == []
    row = board["items"][0]
    assert row["games"] == 12 and row["wins"] + row["draws"] + row["losses"] == 12
    assert row["interval"] is not None and row["mean_place"] is not None
    assert row["strikes_per_game"] == 0 and row["owner"] is None
    detail = anon.get(f"/api/v1/matches/{ids[0]}").json
    assert detail["rated"] and detail["seats"][0]["rating_change"] is not None
    more = schedule(engine, "toy-race", [([2, 1], 5, None)], rated=True)  # greedy: no toy-race
    app.extensions["referee"].dispatcher.sent = more
    assert drain(app) == ["voided"]  # greedy has no toy-race version: the referee's failure
    from ladder.work import MAX_ATTEMPTS, REFEREE_FAILURE, incidents
    failures, total = incidents(engine)
    assert total == MAX_ATTEMPTS and [f["outcome"] for f in failures] == [
        "voided", *["retried"] * (MAX_ATTEMPTS - 1)]
    assert all(f["match_id"] == more[0] and "Traceback" in f["detail"] for f in failures)
    detail = anon.get(f"/api/v1/matches/{more[0]}").json
    assert detail["void_reason"] == REFEREE_FAILURE  # what failed is the operator's to read
    assert anon.get("/api/v1/leaderboards/chess").status_code == 404


def test_a_provisional_bot_is_listed_apart(app, anon):
    from ladder.work import rotations, schedule

    engine = app.extensions["referee"].engine
    app.extensions["referee"].dispatcher.sent = schedule(
        engine, "toy-race", rotations([1, fast_bot(engine)], 2, "p"), rated=True)
    drain(app)
    board = anon.get("/api/v1/leaderboards/toy-race").json
    assert board["items"] == [] and len(board["provisional"]) == 2


def test_healthz_shows_the_queue(app, anon, bot_url):
    alice = anon.owner("alice")
    mine = alice.post("/api/v1/bots", json={"name": "m", "url": bot_url,
                                            "games": ["toy-race"]}).json["id"]
    alice.post("/api/v1/challenges", json={"game": "toy-race", "bots": [mine, 1]})
    time.sleep(0.05)
    health = anon.get("/healthz").json
    assert health["ok"] and health["mode"] == "embedded"
    assert health["checks"] == {"database": "ok", "ratelimit": "off"}
    assert health["queue"]["scheduled"] == 2 and health["queue"]["oldest_scheduled_s"] > 0
    assert anon.get("/api/v1/healthz").json["queue"]["scheduled"] == 2


def test_openapi_and_the_docs_page(anon):
    doc = anon.get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.") and "/api/v1/challenges" in doc["paths"]
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    page = anon.get("/api/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.data.decode()
    assert "/api/openapi.json" in text and "<script" in text and "http" not in text.split(
        "<script")[0].replace("http-equiv", "")  # nothing fetched from elsewhere


def test_apps_share_the_openapi_document_of_their_games_only(make_service, monkeypatch):
    """The document is built once per process for each list of games, the only part of the
    configuration in it: an app with other settings shares it, one with other games does not,
    and a shared document is what a fresh build gives."""
    import referee.games
    from api.openapi import RefApi

    def document(**settings):
        app = make_service(**settings)
        api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
        return api.spec, Client(app).get("/api/openapi.json").json

    def fresh(**settings):
        monkeypatch.setattr(RefApi, "documents", {})  # as in a process that built none yet
        return document(**settings)

    def games(doc):
        return doc["components"]["schemas"]["ChallengeCreate"]["properties"]["game"]["enum"]

    spec, built = fresh()
    other_settings = {"ratelimit": True, "ownership_proof": True, "house_ladders": ("random",)}
    assert document(**other_settings) == (spec, built)
    assert fresh(**other_settings)[1] == built
    fewer = [game for game in referee.games.game_names() if game != "toy-race"]
    monkeypatch.setattr(referee.games, "game_names", lambda: fewer)
    other_spec, other = document()
    assert other_spec is not spec and games(other) == fewer and games(built) == [*fewer, "toy-race"]
    assert fresh()[1] == other


def test_a_shared_document_leaves_the_app_as_flask_smorest_would(make_service, monkeypatch):
    """An app that shares a document skips part of two methods of flask-smorest (what builds
    a document, see ``api.openapi``): it must be left in the state a fresh build leaves, and
    those methods must be the ones that copy was read from.  After an upgrade changes them,
    mirror the change in ``RefApi`` before recording their new digests here."""
    import hashlib
    import inspect
    from importlib.metadata import version

    import flask_smorest
    from flask_smorest.spec import APISpecMixin

    from api.openapi import RefApi

    def state(app):
        api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
        routing = app.extensions["flask-smorest"]["blp_name_to_api"]
        return {"rules": sorted((rule.rule, rule.endpoint, sorted(rule.methods or ()))
                                for rule in app.url_map.iter_rules()),
                "blueprints": sorted(app.blueprints), "commands": sorted(app.cli.commands),
                "routing": {name: owner is api for name, owner in routing.items()},
                "api": sorted(vars(api)), "plugins": [type(p) for p in api.spec.plugins],
                "has plugins": (api.flask_plugin, api.ma_plugin) == tuple(api.spec.plugins)}

    monkeypatch.setattr(RefApi, "documents", {})
    built, shared = make_service(), make_service()
    assert shared.extensions["flask-smorest"]["apis"][""]["ext_obj"].shared is not None
    assert state(shared) == state(built)
    assert all(state(built)["routing"].values()) and state(built)["has plugins"]
    digests = {method.__qualname__: hashlib.sha256(inspect.getsource(method).encode())
               .hexdigest()[:16]
               for method in (APISpecMixin._init_spec, flask_smorest.Api.register_blueprint)}
    assert digests == {"APISpecMixin._init_spec": "5f5d940520b7ffe7",
                       "Api.register_blueprint": "fed3261c1d875574"}, version("flask-smorest")


def test_http_edges_are_json(anon):
    missing = anon.get("/api/v1/nothing-here")
    assert missing.status_code == 404 and missing.json["message"]
    wrong = anon.http.put("/api/v1/bots")
    assert wrong.status_code == 405 and "GET" in wrong.headers["Allow"]
    assert wrong.json["code"] == 405
    form = anon.owner("alice").http.post(
        "/api/v1/owners", data="name=bob", content_type="application/x-www-form-urlencoded")
    assert form.status_code == 415 and "JSON" in form.json["message"]
    broken = anon.http.post("/api/v1/owners", data="{bad", content_type="application/json")
    assert broken.status_code == 400 and broken.json["code"] == 400
    assert anon.get("/api/v1/games?x=1").status_code == 422


def test_rate_limits_answer_429_with_retry_after(make_service):
    app = make_service(ratelimit=True)
    anon = Client(app)
    answers = [anon.http.post("/api/v1/owners", json={"name": f"o{i}"}) for i in range(6)]
    assert [a.status_code for a in answers] == [201] * 5 + [429]
    assert int(answers[-1].headers["Retry-After"]) > 0
    assert answers[-1].json["code"] == 429 and answers[-1].headers["X-RateLimit-Limit"] == "5"


def test_building_an_app_touches_nothing(tmp_path):
    """``create_app`` opens no database (the file is not even created; an unreachable
    PostgreSQL or broker is no error) and starts no thread.  A server's first step,
    ``prepare_database``, migrates the file and writes the house bots (the next test has the
    second, ``start``, play matches)."""
    import threading

    from sqlalchemy import select

    from api import create_app
    from api.config import ServiceConfig
    from api.startup import prepare_database
    from ladder.models import Bot

    path = tmp_path / "later.sqlite3"
    config = ServiceConfig(db_url=f"sqlite:///{path}")
    before = set(threading.enumerate())
    assert create_app(config).extensions["referee"].mode == "embedded"  # a pool, not started
    for unreachable in ("postgresql+psycopg://nobody@127.0.0.1:1/none", None):
        create_app(ServiceConfig(db_url=unreachable or f"sqlite:///{path}",
                                 broker_url=None if unreachable else "redis://127.0.0.1:1/0"))
    assert not path.exists() and set(threading.enumerate()) <= before
    engine = prepare_database(config)
    try:
        with engine.connect() as conn:
            house = conn.execute(select(Bot.id, Bot.name).where(Bot.house.is_(True))
                                 .order_by(Bot.id)).all()
        assert [tuple(row) for row in house] == [(1, "random"), (2, "greedy"), (3, "mcts")]
    finally:
        engine.dispose()


def test_the_embedded_pool_plays_challenges_by_itself(tmp_path, bot_url):
    """The app of an embedded server (``serving_app``: the database prepared, the pool
    started) plays what it is asked to by itself."""
    from api.config import ServiceConfig
    from api.startup import serving_app

    config = ServiceConfig(db_url=f"sqlite:///{tmp_path / 'e.sqlite3'}", ratelimit=False,
                           allow_networks="127.0.0.0/8", workers=2, sweep_s=0.2)
    app = serving_app(config)
    try:
        anon = Client(app)
        alice = anon.owner("alice")
        mine = alice.post("/api/v1/bots", json={"name": "m", "url": bot_url,
                                                "games": ["toy-race"]}).json["id"]
        challenge = alice.post("/api/v1/challenges", json={"game": "toy-race",
                                                           "bots": [mine, 1], "games": 4}).json
        give_up = time.monotonic() + 20
        while time.monotonic() < give_up:
            status = anon.get(f"/api/v1/challenges/{challenge['id']}").json
            if status["status"] == "finished":
                break
            time.sleep(0.05)
        assert status["progress"]["finished"] == 4, status
    finally:
        app.extensions["referee"].dispatcher.close()
        app.extensions["referee"].engine.dispose()
