"""``referee bot connect``: a local bot bridged to a pull registration of a real local
service (waitress on loopback), its matches played by the real runner."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from waitress import create_server, wasyncore

import api.relays
import arena.bridge
from api.runner import run_match
from arena.bridge import Bridge, LinkDown, LinkRefused, LocalBot
from bots.server import BotApp, BotServer
from cli import main
from cli.connect import HttpLink
from ladder.newmatches import MatchSettings
from ladder.work import claim, schedule

GAME = "toy-race"


@pytest.fixture(autouse=True)
def fresh_relay() -> Iterator[None]:
    api.relays.use(None)
    yield
    api.relays.use(None)


@pytest.fixture
def served(app: Any) -> Iterator[str]:
    """The app behind a real HTTP server on loopback; its URL."""
    with serving(app) as url:
        yield url


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` behind a real HTTP server on loopback (waitress) while the block runs."""
    server: Any = create_server(app, host="127.0.0.1", port=0, threads=8)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            wasyncore.loop(timeout=0.1, map=server._map, count=1)
        for channel in list(server._map.values()):
            channel.close()
        server.task_dispatcher.shutdown(timeout=1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    stop.set()
    with suppress(OSError):  # the loop may have seen ``stop`` and closed the trigger already
        server.pull_trigger()  # (it only wakes the loop, which wakes every 0.1 s anyway)
    thread.join(5)
    assert not thread.is_alive()


@pytest.fixture(scope="module")
def local_http_bot() -> Iterator[str]:
    server = BotServer(BotApp("random", GAME, 3, per_match=False)).start()
    yield server.url
    server.stop()


STARTER = Path(__file__).resolve().parents[2] / "bots" / "starter" / "bot.py"
LOCAL = {"random": "random", "cmd": f"cmd:{sys.executable} {STARTER} --port {{port}}"}


@pytest.mark.parametrize("local", ["random", "http", "cmd"])
def test_a_bridged_local_bot_plays_the_services_matches(app, anon, served, local,
                                                        local_http_bot):
    game = "tokaido-duo" if local == "cmd" else GAME  # the starter bot plays the real games
    alice = anon.owner("alice")
    link = HttpLink(served, alice.token)
    bot_id, name = link.find_bot("laptop", game)  # registered: it did not exist
    assert name == "laptop" and link.find_bot("laptop", game) == (bot_id, "laptop")
    link.bot_id = bot_id
    assert link.games() == [game]
    lines: list[str] = []
    bot = LocalBot(local_http_bot if local == "http" else LOCAL[local], game, 1)
    bridge = Bridge(link, bot, lines.append)
    stop = threading.Event()
    runner = threading.Thread(target=bridge.run, args=(stop, 1), daemon=True)
    runner.start()
    try:
        svc = app.extensions["referee"]
        [pk] = schedule(svc.engine, game, [([bot_id, 1], 9, None)], rated=False,
                        settings=MatchSettings(time_ms=10_000))  # a busy machine strikes no one
        assert run_match(svc.engine, pk, svc.policy, lease_s=30) == "finished"
    finally:
        stop.set()
        runner.join(10)
        bridge.close()
        bot.close()
    assert not runner.is_alive()
    match = anon.get(f"/api/v1/matches/{pk}").json
    assert match["state"] == "finished"
    played = anon.get(f"/api/v1/matches/{pk}/log").json
    assert {d["status"] for d in played["decisions"] if d["seat"] == 0} == {"ok"}
    assert lines[0].startswith(f"match m{pk}.1: {game}, seat 0, against random")
    assert lines[-1].startswith(f"match m{pk}.1 over: rank ")


def test_the_bridge_reconnects_with_backoff(monkeypatch):
    monkeypatch.setattr(arena.bridge, "BACKOFF_S", (0.01, 0.02))
    stop = threading.Event()

    class Flaky:
        polls = 0

        def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
            self.polls += 1
            if self.polls <= 3:
                raise LinkDown("ConnectionError")
            stop.set()
            return []

        def answer(self, request_id: str, body: bytes) -> int:
            raise AssertionError("nothing to answer")

    lines: list[str] = []
    Bridge(Flaky(), LocalBot("random", None, 1), lines.append).run(stop, 1)
    assert lines == [
        "cannot reach the service (ConnectionError): trying again in 0.01 s",
        "cannot reach the service (ConnectionError): trying again in 0.02 s",
        "cannot reach the service (ConnectionError): trying again in 0.02 s",
        "connected again",
    ]



def test_the_bridge_stops_when_its_bots_program_has_ended(monkeypatch):
    """A ``cmd:`` bot the bridge started has crashed: polling on would keep the pull bot
    connected (so scheduled) while every request it takes is a strike. The bridge stops,
    saying why, and the service sees the bot away."""
    stop = threading.Event()
    polls: list[bool] = []

    class Idle:
        def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
            polls.append(resume)
            if len(polls) >= 3:
                stop.set()
            return []

        def answer(self, request_id: str, body: bytes) -> int:
            raise AssertionError("nothing to answer")

    local = LocalBot(LOCAL["cmd"], "tokaido-duo", 1)
    try:
        program = local.program
        assert program is not None
        program.process.kill()
        program.process.wait(10)
        with pytest.raises(arena.bridge.LocalBotGone, match="your bot's program ended"):
            Bridge(Idle(), local, lambda line: None).run(stop, 1)
    finally:
        local.close()
    assert polls == []


def test_a_refused_token_or_a_push_bot_is_one_line(anon, served, bot_url):
    result = CliRunner().invoke(main, ["bot", "connect", served, "random", "--token", "nope"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith(
        "Error: the service refused the token (401)")
    alice = anon.owner("alice")
    made = alice.post("/api/v1/bots", json={"name": "web", "url": bot_url, "games": [GAME]})
    assert made.status_code == 201, made.json
    with pytest.raises(LinkRefused, match="push mode"):
        HttpLink(served, alice.token).find_bot("web", None)
    with pytest.raises(LinkRefused, match="register one"):
        HttpLink(served, alice.token).find_bot(None, None)
    usage = CliRunner().invoke(main, ["bot", "connect", served, "random", "--token", "x",
                                      "--register", "a"])
    assert usage.exit_code == 2 and "--register needs --game" in usage.output



def test_an_in_process_bot_keeps_a_bounded_number_of_matches_whose_end_never_came(
        monkeypatch):
    """A match whose ``/end`` never reached the bridge (lost with a connection, or a match
    the service played again) keeps its player, and what that player holds (a search tree),
    only until :data:`~arena.bridge.MAX_MATCHES` newer ones started: then it is closed."""
    monkeypatch.setattr(arena.bridge, "MAX_MATCHES", 3)
    local = LocalBot("random", None, 1)
    closed: list[str] = []
    for n in range(5):
        start = {"request_id": f"m{n}:start:0", "path": "/start", "deadline_ms": 2000,
                 "body": {"protocol": 1, "match_id": f"m{n}", "game": GAME, "seat": 0,
                          "players": [{"seat": 0, "name": "me"}, {"seat": 1, "name": "you"}],
                          "time_control": {"decision_ms": 1000}}}
        assert local.answer(start) == (b"{}", None)
        player = local._players[f"m{n}"]
        monkeypatch.setattr(player, "close", lambda n=n: closed.append(f"m{n}"))
    assert sorted(local._players) == ["m2", "m3", "m4"] and closed == ["m0", "m1"]
    local.close()


def test_finishing_on_stop_plays_the_matches_in_progress_to_their_end():
    """What ``--on-stop finish`` runs after a Ctrl-C: polls until no match is in progress
    (the last /end answered), then returns."""
    end = {"request_id": "m1:end:0", "path": "/end", "deadline_ms": 2000,
           "body": {"protocol": 1, "match_id": "m1", "game": GAME, "seat": 0,
                    "result": {"seats": [{"seat": 0, "rank": 1}], "reason": "won"}}}
    answered: list[str] = []

    class Ending:
        def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
            return [end] if not answered else []

        def answer(self, request_id: str, body: bytes) -> int:
            answered.append(request_id)
            return 200

    lines: list[str] = []
    bridge = Bridge(Ending(), LocalBot("random", None, 1), lines.append)
    bridge.matches.add("m1")
    runner = threading.Thread(target=bridge.run, args=(threading.Event(), 1, True))
    runner.start()
    runner.join(10)
    bridge.close(wait=True)
    assert not runner.is_alive() and answered[0] == "m1:end:0" and not bridge.matches
    assert lines[0] == "match m1 over: rank 1 (won)"


def test_finishing_forgets_a_match_whose_end_never_came(monkeypatch):
    """A match whose /end was lost would keep ``--on-stop finish`` waiting for ever: the
    bridge asks the service which of its matches are over, and stops waiting for those."""
    monkeypatch.setattr(arena.bridge, "OVER_CHECK_S", 0.05)
    asked: list[list[str]] = []

    class Silent:
        def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
            time.sleep(0.01)
            return []

        def answer(self, request_id: str, body: bytes) -> int:
            raise AssertionError("nothing to answer")

        def over(self, match_ids: list[str]) -> set[str]:
            asked.append(list(match_ids))
            if len(asked) == 1:
                raise LinkDown("ConnectionError")  # asked again later
            return {"m7.1"} if len(asked) == 2 else {"m8.2"}

    lines: list[str] = []
    bridge = Bridge(Silent(), LocalBot("random", None, 1), lines.append)
    bridge.matches.update({"m7.1", "m8.2"})
    runner = threading.Thread(target=bridge.run, args=(threading.Event(), 1, True))
    runner.start()
    runner.join(10)
    bridge.close()
    assert not runner.is_alive() and not bridge.matches
    assert asked == [["m7.1", "m8.2"], ["m7.1", "m8.2"], ["m8.2"]]
    assert lines == ["match m7.1 is over (its end never reached this bridge)",
                     "match m8.2 is over (its end never reached this bridge)"]


def test_the_link_asks_the_service_which_matches_are_over(app, anon, served):
    alice = anon.owner("alice")
    link = HttpLink(served, alice.token)
    bot_id, _ = link.find_bot("laptop", GAME)
    from service.conftest import fast_bot

    svc = app.extensions["referee"]
    other = fast_bot(svc.engine)
    done, waiting = schedule(svc.engine, GAME, [([other, 1], 9, None), ([bot_id, 1], 10, None)],
                             rated=False)
    assert run_match(svc.engine, done, svc.policy, lease_s=30) == "finished"
    assert claim(svc.engine, waiting, "w1", lease_s=30) is not None  # its attempt 1 runs
    asked = [f"m{done}.1", f"m{waiting}.1", f"m{waiting}.2", "m999999.1", "local-7"]
    assert link.over(asked) == {f"m{done}.1", f"m{waiting}.2", "m999999.1"}


def test_the_bridge_says_which_answers_of_its_bot_the_referee_will_strike():
    decide = {"request_id": "m1:3:0", "path": "/decide", "deadline_ms": 2000,
              "body": {"match_id": "m1", "decision": {"options": [{"id": "a"}, {"id": "b"}]}}}
    posted: list[bytes] = []

    class Once:
        def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
            return []

        def answer(self, request_id: str, body: bytes) -> int:
            posted.append(body)
            return 200

    class Wrong(LocalBot):
        def answer(self, env: Any) -> tuple[bytes | None, Any]:
            return b'{"choice": "c"}', None

    lines: list[str] = []
    bridge = Bridge(Once(), Wrong("random", None, 1), lines.append)
    bridge._handle(decide)
    bridge.close()
    assert posted == [b'{"choice": "c"}']  # the referee strikes it: the bot's own answer goes
    assert lines == ["match m1: your bot's /decide failed: unknown_option: 'c' is not one of: "
                     "a, b"]


def test_a_reconnected_bridge_resumes_without_answering_twice(monkeypatch):
    """After a lost connection the bridge's next poll says ``resume``; a request handed again
    while its bot still computes it is not asked twice, and an answer whose post was lost is
    posted again when its request comes back."""
    monkeypatch.setattr(arena.bridge, "BACKOFF_S", (0.01,))
    decide = {"request_id": "m1:3:0", "path": "/decide", "deadline_ms": 5000,
              "body": {"match_id": "m1", "deadline_ms": 5000,
                       "decision": {"options": [{"id": "a"}]}}}
    again = {**decide, "deadline_ms": 4000, "resent": True}
    release, stop = threading.Event(), threading.Event()
    asked: list[int] = []
    resumes: list[bool] = []
    posts: list[bytes] = []

    class Slow(LocalBot):
        def answer(self, env: Any) -> tuple[bytes | None, Any]:
            asked.append(env["body"]["deadline_ms"])
            release.wait(10)
            return b'{"choice": "a"}', None

    class Dropping:
        script = iter([[decide], LinkDown("reset"), [again], "release", LinkDown("reset"),
                       [again]])

        def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
            resumes.append(resume)
            step = next(self.script, None)
            if step is None:
                stop.set()
                return []
            if step == "release":  # the bot answers now; its post is lost (see answer)
                release.set()
                time.sleep(0.3)
                return []
            if isinstance(step, Exception):
                raise step
            return step

        def answer(self, request_id: str, body: bytes) -> int:
            posts.append(body)
            if len(posts) == 1:
                raise LinkDown("reset")
            return 200

    lines: list[str] = []
    bridge = Bridge(Dropping(), Slow("random", None, 1), lines.append)
    bridge.run(stop, 1)
    bridge.close(wait=True)
    assert resumes[:6] == [True, False, True, False, True, True]  # the lost post: resume
    assert asked == [5000]  # asked once: the copy handed again while it computed is dropped
    assert posts == [b'{"choice": "a"}'] * 2  # the lost post went again, unchanged
    assert any("an answer was lost" in line for line in lines)


class Resuming:
    """A service as the bridge sees it: hands ``decide`` at the first poll, and again (marked
    resent) at a ``resume`` poll until an answer is taken; ``fail`` says whether a post fails
    (its number given), after ``on_post``. Stops the bridge once answered (or after 200 polls).
    """

    def __init__(self, stop: threading.Event, fail: Callable[[int], bool],
                 on_post: Callable[[int], None] = lambda n: None) -> None:
        self.stop, self.fail, self.on_post = stop, fail, on_post
        self.decide = {"request_id": "m1:3:0", "path": "/decide", "deadline_ms": 5000,
                       "body": {"match_id": "m1", "deadline_ms": 5000,
                                "decision": {"options": [{"id": "a"}]}}}
        self.resumes: list[bool] = []
        self.posts: list[bytes] = []
        self.answered = False

    def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
        self.resumes.append(resume)
        if len(self.resumes) == 1:
            return [self.decide]
        if len(self.resumes) > 200:
            self.stop.set()
        if resume and not self.answered:
            return [{**self.decide, "deadline_ms": 4000, "resent": True}]
        self.stop.wait(0.01)
        return []

    def answer(self, request_id: str, body: bytes) -> int:
        self.posts.append(body)
        self.on_post(len(self.posts))
        if self.fail(len(self.posts)):
            raise LinkDown("connection reset")
        self.answered = True
        self.stop.set()
        return 200


class Quick(LocalBot):
    def answer(self, env: Any) -> tuple[bytes | None, Any]:
        return b'{"choice": "a"}', None


def test_a_lost_answer_post_makes_the_next_poll_resume():
    """Only the answer's post failed (the polls work): the next poll says ``resume``, so the
    request comes back and the kept answer goes again, unchanged, with no strike."""
    stop = threading.Event()
    link = Resuming(stop, fail=lambda n: n == 1)
    lines: list[str] = []
    bridge = Bridge(link, Quick("random", None, 1), lines.append)
    bridge.run(stop, 1)
    bridge.close(wait=True)
    assert link.answered and link.posts == [b'{"choice": "a"}'] * 2
    assert link.resumes[0] and sum(link.resumes) == 2  # the first poll, one after the loss
    assert not any("strike" in line for line in lines)


def test_an_answer_lost_while_its_request_was_handed_again_is_posted_again(monkeypatch):
    """A resumed poll hands the request again while its answer's post is under way (so the
    copy is skipped), then that post fails: the answer is still posted again."""
    monkeypatch.setattr(arena.bridge, "BACKOFF_S", (0.01,))
    stop, rehanded = threading.Event(), threading.Event()
    flight = threading.Event()

    def on_post(n: int) -> None:
        if n == 1:  # under way: a poll fails, the next resumes and is handed it again
            flight.set()
            rehanded.wait(5)

    link = Resuming(stop, fail=lambda n: n == 1, on_post=on_post)
    poll = link.poll

    def flaky(wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
        if flight.is_set() and not rehanded.is_set():
            if not resume:
                raise LinkDown("connection reset")
            got = poll(wait_s, resume)
            rehanded.set()
            return got
        return poll(wait_s, resume)

    link.poll = flaky  # type: ignore[method-assign]
    bridge = Bridge(link, Quick("random", None, 1), lambda line: None)
    bridge.run(stop, 1)
    bridge.close(wait=True)
    assert link.answered and link.posts == [b'{"choice": "a"}'] * 2


def test_a_bot_author_behind_nat_plays_a_challenge_with_bot_connect(make_service):
    """The issue's trial: a service that refuses loopback URLs (no allowed networks), the
    author's bot on their loopback, ``referee bot connect --register`` (its own process), a
    challenge against the house greedy: both matches finish, both logs download, Ctrl-C
    stops the bridge cleanly."""
    game = "tokaido-duo"  # a game of the command line's own (toy-race is the tests')
    app = make_service(allow_networks="")
    laptop = BotServer(BotApp("random", game, 3, per_match=False)).start()
    try:
        challenge_through_a_bridge(app, laptop.url, game)
    finally:
        laptop.stop()


def challenge_through_a_bridge(app: Any, local_http_bot: str, game: str) -> None:
    """The trial's steps against ``app`` (served on loopback while they run)."""
    from service.conftest import Client, drain

    anon = Client(app)
    alice = anon.owner("alice")
    refused = alice.post("/api/v1/bots", json={"name": "web", "url": local_http_bot,
                                               "games": [game]})
    assert refused.status_code == 422, refused.json  # a loopback URL: this service refuses it
    greedy = next(b["id"] for b in anon.get("/api/v1/bots").json["items"]
                  if b["name"] == "greedy")
    with serving(app) as url:
        bridge = subprocess.Popen(
            [sys.executable, "-c", "from cli import main; main()", "bot", "connect", url,
             "--register", "laptop", "--game", game, local_http_bot],
            env={**os.environ, "REFEREE_TOKEN": alice.token}, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        try:
            bot_id = wait_connected(alice, bridge)
            made = alice.post("/api/v1/challenges", json={"game": game, "games": 2,
                                                          "bots": [bot_id, greedy]})
            assert made.status_code == 202, made.json
            assert drain(app) == ["finished", "finished"]
        finally:
            bridge.send_signal(signal.SIGINT)
            out, _ = bridge.communicate(timeout=30)
    assert bridge.returncode == 0, out
    for match_id in made.json["match_ids"]:
        log = anon.get(f"/api/v1/matches/{match_id}/log")
        assert log.status_code == 200 and log.json["result"]["end"] == "normal"
        seat = next(p["seat"] for p in log.json["players"] if p["name"] == "laptop")
        assert {d["status"] for d in log.json["decisions"] if d["seat"] == seat} == {"ok"}
    assert out.count(" over: rank ") == 2 and "connected as laptop" in out, out


def wait_connected(owner: Any, bridge: subprocess.Popen[str]) -> int:
    """The id of ``owner``'s pull bot ``laptop`` once the bridge polls for it."""
    give_up = time.monotonic() + 60
    while True:
        assert bridge.poll() is None, bridge.communicate()[0]
        assert time.monotonic() < give_up, "the bridge never connected"
        bots = [b for b in owner.get("/api/v1/me").json["bots"] if b["name"] == "laptop"]
        if bots and api.relays.process_relay().connected(str(bots[0]["id"])):
            return int(bots[0]["id"])
        time.sleep(0.1)
