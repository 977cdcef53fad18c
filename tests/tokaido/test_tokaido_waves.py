"""Rule scenarios: the six wave sides, each optional and offered beside the plain choice in the
same question (rules page: Wave tiles; Decisions 2).
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from tokaido_position import BOARD, act, build, decision, events, ids, pick

TILES = ["bamboo", "moon", "waterfall", "mountain", "moon", "waterfall", "bamboo", "moon",
         "waterfall", "mountain"]
S = Any

CASES: list[tuple[str, dict[str, Any], str, int, str, str, Callable[[S], bool],
                  Callable[[S], bool]]] = [
    ("hasty", dict(pilgrims=(10, None), waves={"pilgrim": ("hasty", 0)}), "pilgrim", 2,
     "move:12:effect", "move:13:effect",
     lambda s: (s.pilgrims[0], s.garden[0]) == (12, 2), lambda s: (s.pilgrims[0], s.temple[0]) == (13, 2)),
    ("tranquil", dict(pilgrims=(11, None), waves={"pilgrim": ("tranquil", 0)}), "pilgrim", 2,
     "move:13:effect", "move:12:effect",
     lambda s: (s.pilgrims[0], s.temple[0]) == (13, 2), lambda s: (s.pilgrims[0], s.garden[0]) == (12, 2)),
    ("proficient", dict(artists=("Z3", "Z4"), pilgrims=(15, None),
                        waves={"artist": ("proficient", 0)}), "artist", 1,
     "move:Z4:paint", "move:Z4:paint+1",
     lambda s: s.revealed[0] == 2, lambda s: s.revealed[0] == 3),
    ("inspired", dict(artists=("Z2", None), tiles=(TILES, None), revealed=(1, None),
                      waves={"artist": ("inspired", 0)}), "artist", 2,
     "move:Z4:nothing", "move:Z4:gift",
     lambda s: s.gifts[0] == 0, lambda s: s.gifts[0] == 1),
    ("crafty", dict(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("doll", 3)},
                    wares=({"doll": 2}, None), waves={"merchant": ("crafty", 0)}), "merchant", 1,
     "move:C3:sell:2", "move:C3:sell:2:crafty",
     lambda s: s.coins[0] == 6, lambda s: s.coins[0] == 8),
    ("robust", dict(merchants=("C6", None), waves={"merchant": ("robust", 0)}), "merchant", 1,
     "move:M3:draw", "move:M3:draw+1",
     lambda s: sum(s.wares[0]) == 3, lambda s: sum(s.wares[0]) == 4),
]


@pytest.mark.parametrize("side,fields,die,value,plain,modified,plain_ok,modified_ok", CASES,
                         ids=[c[0] for c in CASES])
@pytest.mark.parametrize("use", [False, True], ids=["declined", "used"])
def test_every_wave_side_is_offered_beside_the_plain_choice(
        side: str, fields: dict[str, Any], die: str, value: int, plain: str, modified: str,
        plain_ok: Callable[[S], bool], modified_ok: Callable[[S], bool], use: bool) -> None:
    """"Every wave effect is optional (rulebook) ... The engine offers the plain and the
    modified choice side by side (see Decisions), never a separate yes/no round trip." Both
    are options of the one move question; either one is applied at once, and the next
    question is the other seat's die."""
    s = act(build(**fields), 0, die, value)
    assert decision(s).kind == "move" and {plain, modified} <= set(ids(s))
    pick(s, modified if use else plain)
    assert (modified_ok if use else plain_ok)(s)
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")


def test_hasty_moves_one_more_and_tranquil_one_fewer_but_at_least_one() -> None:
    """"hasty: may move one more step; tranquil: may move one fewer step (at least 1)"."""
    s = act(build(pilgrims=(10, None), waves={"pilgrim": ("hasty", 0)}), 0, "pilgrim", 2)
    assert ids(s) == ["move:12:effect", "move:12:decline", "move:13:effect", "move:13:decline"]
    s = act(build(pilgrims=(10, None), waves={"pilgrim": ("tranquil", 0)}), 0, "pilgrim", 2)
    assert ids(s) == ["move:12:effect", "move:12:decline", "move:11:effect", "move:11:decline"]
    s = act(build(pilgrims=(10, None), waves={"pilgrim": ("tranquil", 0)}), 0, "pilgrim", 1)
    assert ids(s) == ["move:11:effect", "move:11:decline"]


def test_wave_effects_belong_to_the_holder_only() -> None:
    """"put it on your matching character": the opponent's Hasty gives this seat nothing."""
    s = act(build(pilgrims=(10, None), waves={"pilgrim": ("hasty", 1)}), 0, "pilgrim", 2)
    assert ids(s) == ["move:12:effect", "move:12:decline"]


def test_a_wave_taken_on_the_seashore_works_from_the_next_move() -> None:
    """"take any wave tile ... and put it on your matching character": taken at once, it
    serves the seat's very next pilgrim move (here the hot spring's repeat)."""
    s = build(pilgrims=(8, None), spring=0,
              waves={"pilgrim": ("hasty", None), "artist": ("inspired", 1),
                     "merchant": ("crafty", 1)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert s.wave_holder[0] == 0 and events(s, "wave") == [("wave", 0, "pilgrim", "hasty", -1)]
    pick(s, "spring:use")
    assert ids(s) == ["move:14:effect", "move:14:decline", "move:15:effect", "move:15:decline"]
    assert BOARD.ring[15] == "G"
