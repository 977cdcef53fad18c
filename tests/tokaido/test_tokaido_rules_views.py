"""Rule scenarios: what a seat sees (rules page: Views), from an explicit position."""

from __future__ import annotations

import json
import random

from tokaido_position import act, build, pick

from referee.games.tokaido_duo.state import TokaidoState

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


def test_face_down_paintings_bag_order_and_seed_are_never_seen() -> None:
    """"It never sees a face-down painting (its own included), the bag's order, or the random
    seed." Reshuffling both seats' face-down tiles and replacing the generator changes no view;
    a paint then shows exactly the tiles it turned over."""
    s = _position()
    other = s.clone()
    rng = random.Random(4)
    for owner in (0, 1):
        face_down = other.tiles[owner][other.revealed[owner]:]
        rng.shuffle(face_down)
        other.tiles[owner][other.revealed[owner]:] = face_down
    other.rng = random.Random(99)
    for seat in (0, 1, None):
        assert other.view(seat) == s.view(seat)
        hidden = [sl for sl in s.view(seat)["players"][0]["paintings"] if sl["state"] == "hidden"]
        assert len(hidden) == 8 and all(set(sl) == {"slot", "state"} for sl in hidden)
    s = act(build(tiles=(TILES, None), artists=("Z3", None), pilgrims=(15, 17)), 0, "artist", 1)
    pick(s, "move:Z4:paint")
    seen = [sl.get("icon") for sl in s.view(0)["players"][0]["paintings"]]
    assert seen == TILES[:2] + [None] * 8
