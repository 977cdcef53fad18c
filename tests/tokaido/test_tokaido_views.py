"""Views: what a seat sees, what it never sees, events since its last decision; determinize
and clone."""

from __future__ import annotations

import json
import random

from tokaido_position import BOARD, act, build, decision, ids, pick

from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.state import TokaidoState

SEED = 987654321123


def _scramble_hidden(s: TokaidoState, seed: int) -> TokaidoState:
    """The same table with other face-down tiles and another future (dice, bag draws)."""
    c = s.clone()
    rng = random.Random(seed)
    for seat in (0, 1):
        hidden = c.tiles[seat][c.revealed[seat]:]
        rng.shuffle(hidden)
        c.tiles[seat][c.revealed[seat]:] = hidden
    c.rng = random.Random(seed)
    return c


def test_view_is_json_ready_and_names_no_seed() -> None:
    s = GAME.new_state(2, SEED, BOARD)
    for seat in (0, 1, None):
        v = s.view(seat)
        text = json.dumps(v)
        assert json.loads(text) == v
        assert str(SEED) not in text and "seed" not in text and "rng" not in text


def test_face_down_paintings_are_hidden_even_from_their_owner() -> None:
    s = build(revealed=(3, 0), gifts=(1, 0))
    p = s.view(0)["players"][0]
    states = [slot["state"] for slot in p["paintings"]]
    assert states == ["gifted"] + ["revealed"] * 2 + ["hidden"] * 7
    assert all(set(slot) == {"slot", "state"} for slot in p["paintings"][3:])
    assert p["face_down"] == 7 and p["next_gift"] == BOARD.icons[s.tiles[0][1]]


def test_changing_hidden_data_does_not_change_any_view() -> None:
    rng = random.Random(3)
    s = GAME.new_state(2, 11, BOARD)
    for _ in range(120):
        for seat in (0, 1, None):
            assert _scramble_hidden(s, rng.randrange(99)).view(seat) == s.view(seat)
        if not s.pending():
            break
        pick(s, rng.choice(ids(s)))


def test_events_since_the_seat_last_decided() -> None:
    s = build(pilgrims=(10, None))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    seen_by_1 = [e["type"] for e in s.view(1)["events"]]
    assert seen_by_1[:3] == ["die", "move", "track"]
    pick(s, "merchant")
    assert s.view(1)["events"][0]["type"] == "die" and s.view(1)["events"][0]["seat"] == 1
    assert s.view(0)["events"][0] == {"type": "move", "seat": 0, "character": "pilgrim",
                                      "from": 10, "to": 13}


def test_view_shows_dice_and_who_used_them() -> None:
    s = build(dice=(2, 3, 1))
    pick(s, "merchant")
    dice = s.view(1)["dice"]
    assert [d["value"] for d in dice] == [2, 3, 1]
    assert [d["used_by"] for d in dice] == [None, 0, None]


def test_determinize_agrees_with_the_view() -> None:
    rng = random.Random(5)
    for seed, solo in [(1, None), (2, 3)]:
        s = GAME.new_state(1 if solo else 2, seed, BOARD, {"automa": solo} if solo else None)
        while s.pending():
            d = decision(s)
            v = s.view(d.seat)
            t = GAME.determinize(v, rng.randrange(1000), BOARD)
            assert [o.id for o in decision(t).options] == [o.id for o in d.options]
            tv = t.view(d.seat)
            assert {**tv, "events": []} == {**v, "events": []}
            s.apply({d.seat: rng.choice(d.options).id})


def test_clone_is_independent() -> None:
    s = GAME.new_state(2, 4, BOARD)
    before = s.view(None)
    c = s.clone()
    rng = random.Random(1)
    for _ in range(40):
        pick(c, rng.choice(ids(c)))
    assert s.view(None) == before
    assert c.view(None) != before
