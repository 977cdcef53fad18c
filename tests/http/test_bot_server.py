"""The built-in bot server answers every malformed request with a 400 naming the problem:
never a 500, which would read as the bot's own bug (and, by hand, as a crash)."""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import pytest
import requests
from hypothesis import given, strategies as st

from bots.server import BotApp, serve_bot
from referee.players import DecisionRequest, MatchInfo
from referee.protocol import decide_message, start_message

GOOD_DECIDE: dict[str, Any] = {
    "protocol": 1, "match_id": "m1", "game": "toy-race", "seat": 0, "request_id": "m1:0:0",
    "deadline_ms": 1000, "bank_ms": 0,
    "decision": {"kind": "move", "prompt": "step", "options": [
        {"id": "a", "label": "A", "data": {}}, {"id": "b", "label": "B", "data": {"n": 1}}]},
    "view": {},
}
GOOD_START = start_message(MatchInfo("m1", "toy-race", 0, ((0, "x"), (1, "y")),
                                     {"decision_ms": 1000, "bank_ms": 0}, None))


def call(app: BotApp, path: str, body: bytes | None, method: str = "POST") -> tuple[int, Any]:
    """One request straight through the WSGI application: status code and JSON answer."""
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path,
               "CONTENT_LENGTH": "" if body is None else str(len(body)),
               "wsgi.input": io.BytesIO(body or b"")}
    statuses: list[str] = []
    out = app(environ, lambda status, headers: statuses.append(status))
    return int(statuses[0].split()[0]), json.loads(b"".join(out))


@pytest.fixture
def app(toy_game) -> BotApp:
    return BotApp("random", toy_game.name, seed=1)


def test_the_good_bodies_are_answered(app):
    assert call(app, "/start", json.dumps(GOOD_START).encode()) == (200, {"ok": True})
    status, doc = call(app, "/decide", json.dumps(GOOD_DECIDE).encode())
    assert status == 200 and doc["choice"] in ("a", "b")


def without(path: tuple[Any, ...]) -> dict[str, Any]:
    doc = copy.deepcopy(GOOD_DECIDE)
    target = doc
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return doc


def replaced(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(GOOD_DECIDE)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


BAD_DECIDE = [
    (without(("decision", "options")), "decision.options is missing"),
    (without(("decision",)), "decision is missing"),
    (without(("view",)), "view is missing"),
    (without(("match_id",)), "match_id is missing"),
    (without(("game",)), "game is missing"),
    (without(("seat",)), "seat is missing"),
    (without(("decision", "options", 0, "id")), "decision.options[0].id is missing"),
    (without(("decision", "kind")), "decision.kind is missing"),
    (replaced(("decision", "options"), []), "empty"),
    (replaced(("decision", "options"), "ab"), "not an array"),
    (replaced(("decision", "options"), ["a", "b"]), "decision.options[0] is not an object"),
    (replaced(("decision", "options", 1, "id"), 7), "decision.options[1].id is not a string"),
    (replaced(("decision", "options", 1, "data"), [1]), "data is not an object"),
    (replaced(("decision",), [1, 2]), "decision is not an object"),
    (replaced(("view",), "x"), "view is not an object"),
    (replaced(("seat",), "0"), "seat is not an integer"),
    (replaced(("seat",), True), "seat is not an integer"),
    (replaced(("seat",), -1), "seat is negative"),
    (replaced(("game",), None), "game is not a string"),
    (replaced(("game",), "chess"), "not 'chess'"),
]


@pytest.mark.parametrize("doc,needle", BAD_DECIDE, ids=[b[1] for b in BAD_DECIDE])
def test_a_malformed_decide_body_is_a_400_naming_the_field(app, doc, needle):
    status, answer = call(app, "/decide", json.dumps(doc).encode())
    assert status == 400 and needle in answer["error"], answer


@pytest.mark.parametrize("body", [None, b"", b"null", b"[]", b"7", b"{", b"\xff\xfe",
                                  b"[" * 100_000, b'{"match_id": NaN}'])
@pytest.mark.parametrize("path", ["/start", "/decide", "/end"])
def test_empty_non_json_and_non_object_bodies_are_a_400(app, path, body):
    status, answer = call(app, path, body)
    assert status == 400 and answer["error"], answer


def test_end_needs_only_what_the_end_schema_requires(app):
    assert call(app, "/end", b'{"match_id": "m1", "result": {}}') == (200, {"ok": True})
    status, answer = call(app, "/end", b'{"result": {}}')
    assert status == 400 and "match_id is missing" in answer["error"]


def test_a_malformed_start_is_a_400(app):
    for doc in ({**GOOD_START, "seat": "0"}, {**GOOD_START, "players": [1]},
                {**GOOD_START, "players": [{"seat": 0, "name": 3}]},
                {**GOOD_START, "time_control": 5}, {**GOOD_START, "board": []},
                {k: v for k, v in GOOD_START.items() if k != "game"}):
        status, answer = call(app, "/start", json.dumps(doc).encode())
        assert status == 400 and "field" in answer["error"], (doc, answer)


def test_a_board_the_bot_cannot_read_is_a_400():
    app = BotApp("mcts:playouts=2", "tokaido-duo", seed=1)
    doc = {**GOOD_START, "game": "tokaido-duo", "board": {"nonsense": True}}
    status, answer = call(app, "/start", json.dumps(doc).encode())
    assert status == 400 and answer["error"]


def test_a_view_the_bot_cannot_read_is_a_400():
    app = BotApp("mcts:playouts=2", "doubletrack", seed=1)
    status, answer = call(app, "/decide", json.dumps({**GOOD_DECIDE, "game": "doubletrack"}).encode())
    assert status == 400 and "cannot read" in answer["error"], answer


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
PATHS = [("match_id",), ("game",), ("seat",), ("decision",), ("decision", "kind"),
         ("decision", "prompt"), ("decision", "options"), ("decision", "options", 0),
         ("decision", "options", 1, "id"), ("decision", "options", 0, "label"),
         ("decision", "options", 0, "data"), ("view",)]


@given(path=st.sampled_from(PATHS), value=JSON)
def test_fuzzed_decide_bodies_never_get_a_500(path, value):
    app = BotApp("random", "toy-race", seed=1)  # conftest registered the toy game
    status, answer = call(app, "/decide", json.dumps(replaced(path, value)).encode())
    assert status in (200, 400), answer


def test_over_real_http_a_missing_field_is_a_400(toy_game):
    server = serve_bot("random", toy_game.name)
    try:
        doc = without(("decision", "options"))
        response = requests.post(server.url + "/decide", json=doc, timeout=5)
        assert response.status_code == 400
        assert "decision.options is missing" in response.json()["error"]
    finally:
        server.stop()


def test_the_server_body_matches_what_the_referee_sends(app, toy_game):
    """A real ``/decide`` message passes the server's checks (they are no stricter than v1)."""
    state = toy_game.new_state(2, 3)
    decision = state.pending()[0]
    request = DecisionRequest("m2", toy_game.name, decision.seat, "m2:0", decision,
                              lambda: state.view(decision.seat), 1000, 0)
    status, doc = call(app, "/decide", json.dumps(decide_message(request)).encode())
    assert status == 200 and doc["choice"] in decision.option_ids()


def test_a_served_spec_lists_only_the_games_that_take_its_parameters():
    """``mcts`` is a different search per game, with parameters of its own."""
    assert BotApp("mcts:horizon=2").info()["games"] == ["doubletrack"]
    assert "doubletrack" not in BotApp("mcts:rollout=3").info()["games"]
    assert {"doubletrack", "tokaido-duo"} <= set(BotApp("mcts:ms=50").info()["games"])
    with pytest.raises(LookupError, match="no parameter nope"):
        BotApp("mcts:nope=1")


@pytest.mark.parametrize("game, seats", [("tokaido-duo", 2), ("doubletrack", 4), ("toy-race", 3)])
def test_parsing_is_the_inverse_of_building_for_real_messages(game, seats):
    """One wire module both ways: every body the referee builds parses back to what it was
    built from (through JSON, as it travels)."""
    import random as rnd

    from referee.games import find_game
    from referee.protocol import end_message, parse_decide, parse_end, parse_start

    g = find_game(game)
    board = g.load_board()
    info = MatchInfo("m9", game, 1, tuple((i, f"p{i}") for i in range(seats)),
                     {"decision_ms": 700, "bank_ms": 30}, json.loads(json.dumps(board.data)))
    assert parse_start(json.loads(json.dumps(start_message(info)))) == info
    state, rng, checked = g.new_state(seats, 4, board), rnd.Random(4), 0
    while state.pending():
        for d in state.pending():
            request = DecisionRequest("m9", game, d.seat, f"m9:{checked}:{d.seat}", d,
                                      lambda seat=d.seat: state.view(seat), 900, 200)
            back = parse_decide(json.loads(json.dumps(decide_message(request))))
            assert (back.match_id, back.game, back.seat, back.request_id, back.deadline_ms,
                    back.bank_ms) == ("m9", game, d.seat, request.request_id, 900, 200)
            assert back.decision.option_ids() == d.option_ids() and back.decision.kind == d.kind
            assert back.view() == json.loads(json.dumps(state.view(d.seat)))
            checked += 1
        state.apply({d.seat: rng.choice(d.options).id for d in state.pending()})
    result = json.loads(json.dumps(end_message("m9", game, 2, state.result().to_dict())))
    assert parse_end(result) == ("m9", 2) and checked > 10
