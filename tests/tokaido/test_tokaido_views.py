"""Rule scenarios: what a seat sees (rules page: Views), from explicit positions and a game.

The properties every game's views keep (JSON-ready, no seed, a state rebuilt from a view asks
the same question) are checked for all games in tests/test_games_properties.py; this file checks
what Tokaido Duo shows and hides.
"""

from __future__ import annotations

import json
import random

from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import BOARD, act, build, ids, pick, scramble_hidden

SEED = 987654321123
TILES = ["moon", "bamboo", "waterfall", "mountain", "moon", "waterfall", "bamboo", "moon",
         "waterfall", "mountain"]


def _position() -> TokaidoState:
    """Seat 0 has painted 2 tiles and gifted 1 of them; seat 1 has wares, coins, a slab,
    Robust and the hot spring; seat 0's merchant die is used."""
    s = build(tiles=(TILES, None), revealed=(2, 0), gifts=(1, 0), coins=(3, 7), slabs=(0, 1),
              temple=(2, 4), garden=(3, 1), wares=(None, {"fan": 2, "kimono": 1}), spring=1,
              waves={"merchant": ("robust", 1), "pilgrim": ("hasty", None)},
              merchants=("C6", None), dice=(2, 1, 3))
    pick(s, "merchant")
    pick(s, "move:M3:nothing")
    return s


def test_view_is_json_ready_and_names_no_seed() -> None:
    s = GAME.new_state(2, SEED, BOARD)
    for seat in (0, 1, None):
        v = s.view(seat)
        text = json.dumps(v)
        assert json.loads(text) == v
        assert str(SEED) not in text and "seed" not in text and "rng" not in text


def test_a_seat_sees_the_whole_public_board() -> None:
    """"A seat sees the whole public board: positions, tracks, coins, slabs, wares of both
    seats, wave tiles and their sides, the hot spring, boutique tokens, revealed and gifted
    paintings of both seats, the dice of this round and who used which, and the events since
    it last decided." (seat 1's view of seat 0 and of itself)"""
    s = _position()
    v = s.view(1)
    p0, p1 = v["players"]
    assert (p0["pilgrim"], p0["merchant"], p0["artist"]) == (s.pilgrims[0], "M3", "Z6")
    assert (p0["temple"], p0["garden"], p0["coins"], p0["slabs"]) == (2, 3, 3, 0)
    assert (p1["coins"], p1["slabs"], p1["wares"]) == (7, 1, {"kimono": 1, "pottery": 0,
                                                              "doll": 0, "fan": 2})
    assert v["waves"]["merchant"] == {"side": "robust", "holder": 1}
    assert v["waves"]["pilgrim"] == {"side": "hasty", "holder": None}
    assert v["hot_spring"] == 1 and len(v["boutiques"]) == 8
    assert p0["paintings"][:3] == [{"slot": 0, "state": "gifted", "icon": "moon"},
                                   {"slot": 1, "state": "revealed", "icon": "bamboo"},
                                   {"slot": 2, "state": "hidden"}]
    assert [(d["die"], d["value"], d["used_by"]) for d in v["dice"]] == [
        ("pilgrim", 2, None), ("merchant", 1, 0), ("artist", 3, None)]
    assert [e["type"] for e in v["events"]] == ["die", "move"]
    json.dumps(v)
    s = build(dice=(2, 3, 1))
    pick(s, "merchant")
    dice = s.view(1)["dice"]
    assert [d["value"] for d in dice] == [2, 3, 1]
    assert [d["used_by"] for d in dice] == [None, 0, None]


def test_face_down_paintings_bag_order_and_seed_are_never_seen() -> None:
    """"It never sees a face-down painting (its own included), the bag's order, or the random
    seed." Reshuffling both seats' face-down tiles and replacing the generator changes no view,
    in a position and all along a game; a face-down slot shows only its number; a paint then
    shows exactly the tiles it turned over."""
    s = _position()
    other = scramble_hidden(s, random.Random(4))
    for seat in (0, 1, None):
        assert other.view(seat) == s.view(seat)
        hidden = [sl for sl in s.view(seat)["players"][0]["paintings"] if sl["state"] == "hidden"]
        assert len(hidden) == 8 and all(set(sl) == {"slot", "state"} for sl in hidden)
    s = build(revealed=(3, 0), gifts=(1, 0))
    p = s.view(0)["players"][0]
    assert [slot["state"] for slot in p["paintings"]] == ["gifted"] + ["revealed"] * 2 + [
        "hidden"] * 7
    assert all(set(slot) == {"slot", "state"} for slot in p["paintings"][3:])
    assert p["face_down"] == 7 and p["next_gift"] == BOARD.icons[s.tiles[0][1]]
    s = act(build(tiles=(TILES, None), artists=("Z3", None), pilgrims=(15, 17)), 0, "artist", 1)
    pick(s, "move:Z4:paint")
    seen = [sl.get("icon") for sl in s.view(0)["players"][0]["paintings"]]
    assert seen == TILES[:2] + [None] * 8
    rng = random.Random(3)
    s = GAME.new_state(2, 11, BOARD)
    for _ in range(120):
        for seat in (0, 1, None):
            assert scramble_hidden(s, random.Random(rng.randrange(99))).view(seat) == s.view(seat)
        if not s.pending():
            break
        pick(s, rng.choice(ids(s)))


def test_events_since_the_seat_last_decided() -> None:
    """"... and the events since it last decided"."""
    s = build(pilgrims=(10, None))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    seen_by_1 = [e["type"] for e in s.view(1)["events"]]
    assert seen_by_1[:3] == ["die", "move", "track"]
    pick(s, "merchant")
    assert s.view(1)["events"][0]["type"] == "die" and s.view(1)["events"][0]["seat"] == 1
    assert s.view(0)["events"][0] == {"type": "move", "seat": 0, "character": "pilgrim",
                                      "from": 10, "to": 13}
