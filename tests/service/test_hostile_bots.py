"""A bot cannot throw a match: whatever it answers, its matches finish and count.

Every kind of broken or hostile ``/decide`` answer of the transport's matrix, played by a
registered bot in a rated ladder fixture and in a challenge against the house ``random``: each
match finishes (none voided), the hostile seat is struck for the right reason (and forfeits
after three strikes), and its rated results are folded into the ratings. Nested JSON sent late
in a match, after good answers (what a bot that is losing would do), too. The referee's own
failures are the other side: retried, booked as incidents for the operator, never charged.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from ladder import matchmaking as mm, work
from ladder.models import Bot, MatchSeat, Owner
from ladder.newmatches import MatchSettings

from service.conftest import Client, drain, fast_bot
from support.http_bots import HOSTILE_MATRIX, HostileServer

GAME = "tokaido-duo"
INFO = {"name": "hostile", "games": [GAME], "protocol": 1}
FAST = MatchSettings(time_ms=250)
ONE_ROUND = mm.MatchmakerConfig(settings=FAST, max_open_rounds=1)
CASES = [(mode, delay, reason, 0) for mode, delay, reason in HOSTILE_MATRIX] + [
    ("deep_json", 0.0, "bad_json", 2),  # after two good answers: a bot that sees it is losing
]


@pytest.fixture
def site(make_service, monkeypatch):
    monkeypatch.setattr(work, "STANDARD", FAST)  # the challenges
    app = make_service(house_ladders=("random",))
    return app, Client(app)


def drain_at_once(app) -> list[str]:
    """:func:`drain`, every match on its own thread (a struck seat costs its deadlines)."""
    from concurrent.futures import ThreadPoolExecutor

    from api.runner import run_match

    svc = app.extensions["referee"]
    sent, svc.dispatcher.sent = list(svc.dispatcher.sent), []
    with ThreadPoolExecutor(len(sent) or 1) as pool:
        return list(pool.map(lambda pk: run_match(svc.engine, pk, svc.policy, lease_s=30),
                             sent))


@pytest.mark.parametrize("mode,delay,reason,good_first", CASES,
                         ids=[f"{c[0]}-after-{c[3]}" for c in CASES])
def test_a_hostile_bot_is_struck_and_its_matches_count(site, mode, delay, reason, good_first):
    app, anon = site
    engine = app.extensions["referee"].engine
    alice = anon.owner("alice")
    with HostileServer(mode, delay, info=INFO, good_first=good_first) as bot:
        answer = alice.post("/api/v1/bots", json={"name": "hostile", "url": bot.url,
                                                  "games": [GAME]})
        assert answer.status_code == 201, answer.json
        hostile = answer.json["id"]
        with engine.begin() as conn:  # the ladder's pair released at once, beside the challenge
            conn.execute(update(Bot).values(max_concurrency=4))
        sent = app.extensions["referee"].dispatcher.sent
        sent += mm.tick(engine, config=ONE_ROUND).enqueue
        challenge = alice.post("/api/v1/challenges", json={"game": GAME, "bots": [hostile, 1],
                                                           "games": 2})
        assert challenge.status_code == 202, challenge.json
        assert drain_at_once(app) == ["finished"] * 4  # the ladder's pair, the challenge
    with engine.connect() as conn:
        seats = conn.execute(select(MatchSeat.match_pk, MatchSeat.strikes, MatchSeat.forfeited,
                                    MatchSeat.strike_reasons)
                             .where(MatchSeat.bot_id == hostile)).all()
    assert len(seats) == 4
    for seat in seats:
        assert seat.strikes >= 1 and set(seat.strike_reasons) == {reason}, seat
        assert seat.forfeited == (seat.strikes >= 3)
    if good_first == 0:
        assert all(seat.forfeited for seat in seats)
    ratings = anon.get(f"/api/v1/bots/{hostile}/ratings?game={GAME}").json
    assert ratings["total"] == 2  # the ladder's pair is rated; the challenge is not
    assert work.incidents(engine)[1] == 0  # nothing of it was the referee's fault


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_what_a_bot_writes_in_its_log_is_stored_as_it_is(make_service, request, db):
    """Control characters and NUL in a bot's ``log`` (PostgreSQL's text refuses NUL): the
    match finishes and the owner reads the lines back."""
    url = None if db == "sqlite" else request.getfixturevalue("pg_head_url")
    app = make_service(url, house_ladders=("random",))
    alice = Client(app).owner("alice")
    note = "nul\u0000 esc\u001b[2J bell\u0007 \u202e rtl"
    with HostileServer("ok", info=INFO, note=note) as bot:
        hostile = alice.post("/api/v1/bots", json={"name": "noisy", "url": bot.url,
                                                   "games": [GAME]}).json["id"]
        challenge = alice.post("/api/v1/challenges", json={"game": GAME, "bots": [hostile, 1],
                                                           "games": 2})
        assert challenge.status_code == 202, challenge.json
        assert drain(app) == ["finished"] * 2
    match_id = challenge.json["match_ids"][0]
    seat = next(s["seat"] for s in alice.get(f"/api/v1/matches/{match_id}").json["seats"]
                if s["bot"]["id"] == hostile)
    lines = alice.get(f"/api/v1/matches/{match_id}/seats/{seat}/log").json
    assert lines["lines"] and all(line["log"] == note for line in lines["lines"])


def test_the_referees_failure_is_retried_then_voided_and_never_struck(site):
    """An engine that raises mid-match (a referee bug) costs no bot a strike: the match is
    played again, and after its last attempt voided, each failure an incident."""
    app, anon = site
    engine = app.extensions["referee"].engine
    calls = []

    def broken(held, policy):
        calls.append(held.attempt)
        raise KeyError("a bug of the referee")

    from api.runner import run_match

    [pk] = work.schedule(engine, GAME, [([1, fast_bot(engine)], 5, None)], rated=True)
    outcomes = [run_match(engine, pk, app.extensions["referee"].policy, lease_s=30,
                          play=broken) for _ in range(work.MAX_ATTEMPTS + 1)]
    assert outcomes == ["retry"] * (work.MAX_ATTEMPTS - 1) + ["voided", "nothing"]
    assert calls == list(range(1, work.MAX_ATTEMPTS + 1))
    items, total = work.incidents(engine)
    assert total == work.MAX_ATTEMPTS and "KeyError" in items[0]["error"]
    with engine.connect() as conn:
        struck = conn.execute(select(MatchSeat.strikes).where(MatchSeat.match_pk == pk)).all()
    assert all(not s.strikes for s in struck)
    assert anon.get("/healthz").json["queue"]["incidents_1h"] == work.MAX_ATTEMPTS
    root, alice = anon.owner("root"), anon.owner("alice")
    with engine.begin() as conn:
        conn.execute(update(Owner).where(Owner.name == "root").values(is_admin=True))
    assert alice.get("/api/v1/admin/incidents").status_code == 403
    listed = root.get("/api/v1/admin/incidents?per_page=2").json
    assert listed["total"] == work.MAX_ATTEMPTS and len(listed["items"]) == 2
    assert [i["attempt"] for i in listed["items"]] == [3, 2] and listed["items"][0]["match_id"] == pk


def test_storage_lost_while_finishing_is_tried_again_before_a_replay(site, monkeypatch):
    import api.runner as runner
    from api.runner import run_match
    from ladder import LadderError

    app, _ = site
    engine = app.extensions["referee"].engine
    real, failures = runner.finish, []

    def flaky(*args):
        if len(failures) < 2:
            failures.append(1)
            raise LadderError("database: connection lost")
        return real(*args)

    monkeypatch.setattr(runner, "finish", flaky)
    monkeypatch.setattr(runner, "FINISH_TRIES", (0.0, 0.0, 0.0))
    [pk] = work.schedule(engine, "toy-race", [([1, fast_bot(engine)], 6, None)], rated=False)
    assert run_match(engine, pk, app.extensions["referee"].policy, lease_s=30) == "finished"
    assert len(failures) == 2 and work.incidents(engine)[1] == 0

    def buggy(*args):
        raise KeyError("a bug in finishing")

    monkeypatch.setattr(runner, "finish", buggy)
    [pk] = work.schedule(engine, "toy-race", [([1, fast_bot(engine, "random-c")], 7, None)],
                         rated=False)
    assert run_match(engine, pk, app.extensions["referee"].policy, lease_s=30) == "retry"
    assert work.incidents(engine)[0][0]["error"] == "KeyError: 'a bug in finishing'"
