"""Rule scenarios: the artist (rules page: Artist; Proficient and Inspired; Decisions 2).

Zones of the packaged board (icon; ring spaces; mountain towns; neighbours):
Z1 mountain 0-5 M1 M2 (Z2 Z7 Z8); Z2 waterfall 5-9 M2 M3 (Z1 Z3 Z6); Z3 bamboo 9-14 M3 M4
(Z2 Z4 Z5); Z4 moon 14-18 M4 (Z3 Z5); Z5 mountain 18-23 M3 M4 (Z3 Z4 Z6); Z6 bamboo 23-28
M2 M3 (Z2 Z5 Z7); Z7 moon 28-33 M1 M2 (Z1 Z6 Z8); Z8 waterfall 33-36, 0 M1 (Z1 Z7).
Coastal towns: C3 = 9 (borders Z2 and Z3), C4 = 14 (Z3 and Z4).
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import BOARD, act, build, decision, events, ids, pick

TILES = ["moon", "bamboo", "waterfall", "mountain", "moon", "waterfall", "bamboo", "moon",
         "waterfall", "mountain"]
TILES0 = ["moon", "bamboo", "moon", "moon", "waterfall", "waterfall", "waterfall", "mountain",
          "mountain", "bamboo"]
HAND_CHECKED = {("Z4", 2): ["Z2", "Z3", "Z5", "Z6"]}
"""Destinations worked out by hand on the map (from Z4, next to Z3 and Z5)."""


def _data(s: TokaidoState, option_id: str) -> dict[str, Any]:
    return dict(next(o.data for o in decision(s).options if o.id == option_id))


def _dests(s: TokaidoState) -> list[str]:
    return sorted({i.split(":")[1] for i in ids(s)})


def _zones_away(start: str, n: int) -> list[str]:
    """Zones exactly ``n`` crossings away by a path with no zone twice (start included),
    from the raw zone data, independently of the engine's tables."""
    zones = BOARD.data["zones"]
    paths = [[start]]
    for _ in range(n):
        paths = [p + [z] for p in paths for z in zones[p[-1]]["adj"] if z not in p]
    return sorted({p[-1] for p in paths})


@pytest.mark.parametrize("start", ["Z1", "Z3", "Z4", "Z8"])
def test_exactly_n_zones_never_revisiting(start: str) -> None:
    """"Moves through exactly N zones, crossing one route per step ... never into a zone
    already visited this move (the start zone included)." """
    for n in (1, 2, 3):
        s = act(build(artists=(start, "Z5"), pilgrims=(1, 4)), 0, "artist", n)
        dests = _dests(s)
        assert dests == _zones_away(start, n) == HAND_CHECKED.get((start, n), dests), (start, n)
        assert start not in dests


def test_never_through_a_mountain_town() -> None:
    """"never through a mountain town": Z1 and Z6 both touch M2, but no route separates them,
    so one step from Z1 reaches Z2, Z7 and Z8 only."""
    assert BOARD.town_index("M2") in BOARD.zone_towns[BOARD.zone_index("Z6")]
    s = act(build(artists=("Z1", "Z5"), pilgrims=(1, 4)), 0, "artist", 1)
    assert _dests(s) == ["Z2", "Z7", "Z8"]


def test_artists_may_share_a_zone() -> None:
    """"Artists may share a zone." (and the other artist there counts for painting)"""
    s = act(build(artists=("Z3", "Z4"), pilgrims=(1, 4), merchants=("M1", "M1")),
            0, "artist", 1)
    assert "Z4" in _dests(s) and _data(s, "move:Z4:paint")["reveal"] == 1
    pick(s, "move:Z4:paint")
    assert s.artists == [BOARD.zone_index("Z4")] * 2


def _crowded_z4(**kw: Any) -> TokaidoState:
    """Z4 borders ring 14-18 and M4: both pilgrims, both merchants and seat 1's artist."""
    base: dict[str, Any] = dict(artists=("Z3", "Z4"), pilgrims=(15, 17), merchants=("C5", "M4"))
    base.update(kw)
    return build(**base)


def _around_z3(**kw: Any) -> TokaidoState:
    """Seat 1's pilgrim on C3 (Z2 and Z3), seat 0's pilgrim on 12 (Z3), seat 0's merchant on
    M3 (Z2, Z3, Z5, Z6), seat 1's merchant on M2 (not Z3), seat 1's artist in Z3."""
    base: dict[str, Any] = dict(pilgrims=(12, 9), merchants=("M3", "M2"),
                                artists=("Z4", "Z3"), tiles=(TILES, None))
    base.update(kw)
    return build(**base)


def test_paint_counts_every_other_meeple_around_the_zone() -> None:
    """"Paint: reveal as many face-down tiles as there are other meeples (either seat's) in the
    arrival zone: on the ring spaces and mountain towns on its border, plus the other artist if
    in the zone. The artist itself does not count ... Reveal in slot order". Z4 crowded: 5; the
    other artist next door instead: 4. Z3: 2 pilgrims, 1 merchant, the other artist = 4, the
    first four tiles shown to both seats. A coastal and a mountain town count for each zone
    they border: seen from Z2, the pilgrim on C3 and the merchant on M3 count again, the
    merchant on M2 now too; seat 0's pilgrim (12) and the artist in Z3 do not."""
    s = act(_crowded_z4(), 0, "artist", 1)
    assert _data(s, "move:Z4:paint")["reveal"] == 5
    pick(s, "move:Z4:paint")
    assert s.revealed[0] == 5 and len(events(s, "paint")[0][2]) == 5
    s = act(_crowded_z4(artists=("Z3", "Z5")), 0, "artist", 1)
    assert _data(s, "move:Z4:paint")["reveal"] == 4
    s = act(_around_z3(), 0, "artist", 1)
    assert _data(s, "move:Z3:paint")["reveal"] == 4
    pick(s, "move:Z3:paint")
    assert s.revealed[0] == 4 and events(s, "paint") == [("paint", 0, tuple(TILES[:4]))]
    p = s.view(1)["players"][0]["paintings"]
    assert [sl.get("icon") for sl in p[:5]] == TILES[:4] + [None]
    s = act(_around_z3(artists=("Z1", "Z3")), 0, "artist", 1)
    assert _data(s, "move:Z2:paint")["reveal"] == 3


def test_proficient_reveals_one_more_and_is_optional() -> None:
    """"Proficient: +1" ("may reveal one more tile when painting"): paint and paint+1 side by
    side; with nobody around, no paint option, and "paint +1" reveals one."""
    s = act(_crowded_z4(waves={"artist": ("proficient", 0)}), 0, "artist", 1)
    assert _data(s, "move:Z4:paint+1")["reveal"] == 6
    s = act(_around_z3(waves={"artist": ("proficient", 0)}), 0, "artist", 1)
    assert [i for i in ids(s) if i.startswith("move:Z3")] == [
        "move:Z3:nothing", "move:Z3:paint", "move:Z3:paint+1"]
    assert _data(s, "move:Z3:paint+1")["reveal"] == 5
    pick(s, "move:Z3:paint+1")
    assert s.revealed[0] == 5
    far: dict[str, Any] = dict(pilgrims=(10, 20), merchants=("M3", "M4"), artists=("Z1", "Z4"))
    s = act(build(**far), 0, "artist", 1)
    assert [i for i in ids(s) if i.startswith("move:Z8")] == ["move:Z8"]
    s = act(build(waves={"artist": ("proficient", 0)}, **far), 0, "artist", 1)
    assert [i for i in ids(s) if i.startswith("move:Z8")] == ["move:Z8:nothing",
                                                               "move:Z8:paint+1"]
    assert _data(s, "move:Z8:paint+1")["reveal"] == 1


def test_fewer_tiles_left_than_meeples_reveals_them_all() -> None:
    """"Reveal in slot order; if fewer remain, reveal all" (Proficient too, so its +1 is not
    offered when it would change nothing). Z4 crowded, 2 tiles left; Z3: 4 meeples, 3 left."""
    s = act(_crowded_z4(waves={"artist": ("proficient", 0)}, revealed=(8, None)), 0, "artist", 1)
    z4 = [i for i in ids(s) if i.startswith("move:Z4")]
    assert z4 == ["move:Z4:nothing", "move:Z4:paint"]  # +1 would change nothing
    assert _data(s, "move:Z4:paint")["reveal"] == 2
    s = act(_around_z3(revealed=(7, None), waves={"artist": ("proficient", 0)}), 0, "artist", 1)
    z3 = [i for i in ids(s) if i.startswith("move:Z3")]
    assert z3 == ["move:Z3:nothing", "move:Z3:paint"] and _data(s, "move:Z3:paint")["reveal"] == 3
    pick(s, "move:Z3:paint")
    assert s.revealed[0] == 10 and events(s, "paint") == [("paint", 0, tuple(TILES[7:]))]


def test_gift_the_first_revealed_tile_not_yet_gifted_when_the_icon_matches() -> None:
    """"Gift: if the arrival zone's icon matches the first revealed (not yet gifted) tile in
    slot order, remove it." A moon first: Z4 (moon) may gift, Z2 not. Slot 0 gone, slot 1
    (bamboo) is next, not the moon in slot 2. None revealed: no gift anywhere."""
    s = build(artists=("Z3", None), tiles=(TILES0, None), revealed=(2, None))
    act(s, 0, "artist", 1)
    assert "move:Z4:gift" in ids(s) and "move:Z2:gift" not in ids(s)
    pick(s, "move:Z4:gift")
    assert (s.gifts[0], s.revealed[0]) == (1, 2)
    assert events(s, "gift") == [("gift", 0, "moon", 1)]
    s = build(artists=("Z4", None), tiles=(TILES0, None), revealed=(3, None), gifts=(1, None))
    act(s, 0, "artist", 1)
    assert "move:Z3:gift" in ids(s) and not any(i.endswith(":gift") for i in ids(s)
                                               if not i.startswith("move:Z3"))
    pick(s, "move:Z3:gift")
    assert (s.gifts[0], s.view(0)["players"][0]["next_gift"]) == (2, "moon")
    s = act(build(artists=("Z3", None), tiles=(TILES, None)), 0, "artist", 1)
    assert not any(i.endswith(":gift") for i in ids(s))


def test_gift_removes_one_tile_per_action() -> None:
    """"One tile per action." Two revealed moons, one gift."""
    s = build(artists=("Z3", None), tiles=(["moon", "moon"] + TILES[1:4] + TILES[5:], None),
              revealed=(2, None))
    pick(act(s, 0, "artist", 1), "move:Z4:gift")
    assert (s.gifts[0], s.revealed[0]) == (1, 2)
    assert s.view(0)["players"][0]["next_gift"] == "moon"


def test_inspired_matches_the_start_zone_or_a_passed_zone_only() -> None:
    """"Inspired: the icon of the start zone or of any zone passed also matches." Z2
    (waterfall) -> Z3 (bamboo) -> Z4 (moon): a bamboo (passed) or a waterfall (start) may be
    gifted in Z4 with Inspired, not without; a mountain, off the path, may not."""
    bamboo_first = ["bamboo"] + [t for t in TILES0 if t != "bamboo"] + ["bamboo"]
    plain = act(build(artists=("Z2", None), tiles=(bamboo_first, None), revealed=(1, None)),
                0, "artist", 2)
    assert "move:Z4:gift" not in ids(plain)
    s = build(artists=("Z2", None), tiles=(bamboo_first, None), revealed=(1, None),
              waves={"artist": ("inspired", 0)})
    act(s, 0, "artist", 2)
    assert "move:Z4:gift" in ids(s)
    assert _data(s, "move:Z4:gift")["via"] == ["Z2", "Z3", "Z4"]  # the matching path
    pick(s, "move:Z4:gift")
    assert s.gifts[0] == 1
    waterfall_first = ["waterfall"] + TILES0[:6] + TILES0[7:]
    s = build(artists=("Z2", None), tiles=(waterfall_first, None), revealed=(1, None),
              waves={"artist": ("inspired", 0)})
    act(s, 0, "artist", 2)
    assert "move:Z4:gift" in ids(s)  # the start zone's icon
    s = build(artists=("Z2", None), tiles=(["mountain"] + TILES[:3] + TILES[4:], None),
              revealed=(1, None), waves={"artist": ("inspired", 0)})
    act(s, 0, "artist", 2)
    assert "move:Z4:gift" not in ids(s) and "move:Z5:gift" in ids(s)


def test_inspired_names_the_path_that_matches_and_is_optional() -> None:
    """Decisions 2: "artist with Inspired: per path, as the path matters". Z1 to Z5 in three:
    Z1-Z2-Z3-Z5, Z1-Z2-Z6-Z5 and Z1-Z7-Z6-Z5; only the last passes a moon (Z7). The gift
    option names it; "nothing" (declining) is offered beside it."""
    s = build(artists=("Z1", "Z4"), pilgrims=(1, 4), tiles=(TILES, None), revealed=(1, None),
              waves={"artist": ("inspired", 0)})
    act(s, 0, "artist", 3)
    z5 = [i for i in ids(s) if i.startswith("move:Z5")]
    assert "move:Z5:gift" in z5 and "move:Z5:nothing" in z5
    assert _data(s, "move:Z5:gift")["via"] == ["Z1", "Z7", "Z6", "Z5"]
    pick(s, "move:Z5:nothing")
    assert s.gifts[0] == 0 and s.artists[0] == BOARD.zone_index("Z5")


def test_tenth_gift_triggers_the_end() -> None:
    """"Gifting the 10th tile triggers the end." """
    s = build(artists=("Z3", None), tiles=(TILES0[1:] + ["moon"], None), revealed=(10, None),
              gifts=(9, None))
    pick(act(s, 0, "artist", 1), "move:Z4:gift")
    assert s.gifts[0] == 10 and s.triggers == ["painting 10 gifted by seat 0"]
