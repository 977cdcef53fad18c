"""``referee bot serve`` under hostile input: real ``/start`` and ``/decide`` messages of both
games, fuzzed anywhere, never get a server error; bodies, fields and memory are bounded."""

from __future__ import annotations

import copy
import io
import json
import random
import socket
import time
import tracemalloc
from functools import cache
from typing import Any

import pytest
import requests
from hypothesis import given, settings, strategies as st

from bots.server import IDLE_TIMEOUT_S, MAX_BODY, BotApp, BotServer
from referee.games import find_game
from referee.players import DecisionRequest, MatchInfo
from referee.protocol import MAX_SEATS, decide_message, start_message

GAMES = {"tokaido-duo": 2, "doubletrack": 4}
SPECS = ["random", "greedy", "mcts:playouts=2"]


@cache
def real_messages(game: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A real ``/start`` (with the board) and 40 real ``/decide`` bodies of one random game."""
    g, seats = find_game(game), GAMES[game]
    state, rng, decides = g.new_state(seats, 5), random.Random(5), []
    while state.pending():
        for d in state.pending():
            request = DecisionRequest("m1", game, d.seat, "m1:0", d,
                                      lambda seat=d.seat: state.view(seat), 1000, 0)
            decides.append(json.loads(json.dumps(decide_message(request))))
        state.apply({d.seat: rng.choice(d.options).id for d in state.pending()})
    board = json.loads(json.dumps(g.load_board().data))
    start = start_message(MatchInfo("m1", game, 0, tuple((i, f"p{i}") for i in range(seats)),
                                    {"decision_ms": 1000, "bank_ms": 0}, board))
    return start, decides[:: max(1, len(decides) // 40)]


@cache
def app(spec: str, game: str) -> BotApp:
    return BotApp(spec, game, seed=1)


def call(bot: BotApp, path: str, body: bytes) -> tuple[int, Any]:
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "CONTENT_LENGTH": str(len(body)),
               "wsgi.input": io.BytesIO(body)}
    statuses: list[str] = []
    out = bot(environ, lambda status, headers: statuses.append(status))
    return int(statuses[0].split()[0]), json.loads(b"".join(out))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=6), lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)


def mutate(doc: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """``doc`` with one value somewhere inside replaced by random JSON, or deleted."""
    doc = copy.deepcopy(doc)
    parent: Any = doc
    while True:
        keys = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
        if not keys:
            return doc
        key = data.draw(st.sampled_from(keys))
        child = parent[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            parent = child
            continue
        if isinstance(parent, dict) and data.draw(st.integers(0, 4)) == 0:
            del parent[key]
        else:
            parent[key] = data.draw(JSON)
        return doc


@settings(max_examples=150)
@given(game=st.sampled_from(sorted(GAMES)), spec=st.sampled_from(SPECS), data=st.data())
def test_fuzzed_real_decide_bodies_never_get_a_server_error(game, spec, data):
    _, decides = real_messages(game)
    message = mutate(data.draw(st.sampled_from(decides)), data)
    status, answer = call(app(spec, game), "/decide", json.dumps(message).encode())
    assert status in (200, 400), answer


@settings(max_examples=60)
@given(game=st.sampled_from(sorted(GAMES)), spec=st.sampled_from(SPECS), data=st.data())
def test_fuzzed_real_start_bodies_never_get_a_server_error(game, spec, data):
    start, _ = real_messages(game)
    status, answer = call(app(spec, game), "/start", json.dumps(mutate(start, data)).encode())
    assert status in (200, 400), answer


def test_a_view_the_bot_cannot_read_is_a_400_naming_the_failure():
    """Tokaido Duo's determinization meets a boutique the board does not have: StopIteration
    inside the bot, which used to be a 500."""
    _, decides = real_messages("tokaido-duo")
    message = copy.deepcopy(decides[3])
    message["view"]["boutiques"]["C1"]["value"] = 99
    for spec in ("greedy", "mcts:playouts=2"):
        status, answer = call(app(spec, "tokaido-duo"), "/decide", json.dumps(message).encode())
        assert status == 400, answer
        assert "cannot read this decision or view (StopIteration" in answer["error"]


def test_huge_numbers_in_a_view_are_refused_before_a_bot_simulates_them():
    _, decides = real_messages("doubletrack")
    message = copy.deepcopy(decides[2])
    message["view"]["seats"][0]["hand_size"] = 10**12
    status, answer = call(app("mcts:playouts=2", "doubletrack"), "/decide",
                          json.dumps(message).encode())
    assert status == 400 and "beyond ±1000000" in answer["error"]


def test_start_keeps_only_the_protocol_fields_and_not_the_packaged_board():
    start, _ = real_messages("tokaido-duo")
    bot = BotApp("mcts:playouts=2", "tokaido-duo", seed=1)
    junk = {**start, "extra": "x" * 100_000,
            "players": [{"seat": 0, "name": "n" * 1000, "more": "y" * 1000}]}
    tracemalloc.start()
    for i in range(20):
        assert call(bot, "/start", json.dumps({**junk, "match_id": f"m{i}"}).encode())[0] == 200
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert held < 20 * 64 * 1024  # measured 7 KiB a match; the body was over 100 KiB
    many = {**start, "players": [{"seat": i, "name": "p"} for i in range(MAX_SEATS + 1)]}
    status, answer = call(bot, "/start", json.dumps(many).encode())
    assert status == 400 and f"at most {MAX_SEATS}" in answer["error"]
    status, answer = call(bot, "/start", json.dumps({**start, "match_id": "m" * 5000}).encode())
    assert status == 400 and "match_id is 5000 characters" in answer["error"]


def test_bodies_over_the_route_cap_are_refused_unread():
    with BotServer(BotApp("random", "toy-race", seed=1)) as server:
        big = b'{"x": "' + b"a" * (MAX_BODY["/decide"] + 10) + b'"}'
        response = requests.post(server.url + "/decide", data=big, timeout=10,
                                 headers={"Content-Type": "application/json"})
        assert response.status_code in (400, 413)
        small = json.dumps({"match_id": "m", "result": {}, "pad": "a" * MAX_BODY["/end"]})
        response = requests.post(server.url + "/end", data=small, timeout=10)
        assert response.status_code == 400 and "bytes here" in response.json()["error"]


def test_get_announces_the_connection_limit_and_many_connections_are_served():
    """Waitress's default of 100 connections struck the seats of the 51st two-seat match;
    the server takes more, says how many, and answers on every one of 300."""
    with BotServer(BotApp("random", "toy-race", seed=1), connections=400) as server:
        assert requests.get(server.url, timeout=5).json()["max_connections"] == 400
        sockets = []
        try:
            for _ in range(300):
                sockets.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            for sock in sockets[-5:] + sockets[:5]:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                assert sock.recv(64).startswith(b"HTTP/1.1 200")
        finally:
            for sock in sockets:
                sock.close()


def test_idle_connections_are_closed_within_the_idle_timeout():
    assert IDLE_TIMEOUT_S <= 60
    server = BotServer(BotApp("random", "toy-race", seed=1))
    assert server._server.adj.channel_timeout == IDLE_TIMEOUT_S
    assert server._server.adj.connection_limit >= 1024
    server.stop()


@pytest.mark.parametrize("body", [b'{"match_id": "m", "game": "toy-race", "seat": 0, '
                                  b'"players": [], "time_control": {"decision_ms": true}}'])
def test_odd_time_controls_are_dropped_not_kept(body):
    assert call(BotApp("random", "toy-race", seed=1), "/start", body)[0] == 200
