"""Rule scenarios: the pilgrim (rules page: Pilgrim; Decisions 2 and 4).

Wave holders are listed in the engine's character order (pilgrim, merchant, artist). Ring of the
packaged board (index: space): 0 C1, 1 T, 2 G, 3 S, 4 T, 5 C2, 6 H, 7 T, 8 G, 9 C3,
10 T, 11 S, 12 G, 13 T, 14 C4, 15 G, 16 H, 17 T, 18 C5, ..., 33 C8, 34 G, 35 H, 36 S.
"""

from __future__ import annotations

from tokaido_position import act, build, decision, events, ids, pick


def test_landing_on_own_merchants_coastal_town_goes_on_and_only_that_effect() -> None:
    """"If it would end on an occupied space (another pilgrim, or a merchant on a coastal
    town) it goes on to the next free space; only that space's effect applies." The seat's
    own merchant on C4 (14) blocks too: the pilgrim ends on the garden at 15, no coins."""
    s = build(pilgrims=(12, None), merchants=("C4", None), boutiques={"C4": ("kimono", 4)})
    act(s, 0, "pilgrim", 2)
    assert ids(s) == ["move:15:effect", "move:15:decline"]
    pick(s, "move:15:effect")
    assert (s.pilgrims[0], s.coins[0], s.garden[0], s.temple[0]) == (15, 0, 2, 1)


def test_skipping_goes_round_the_end_of_the_ring() -> None:
    """"outer ring of 37 spaces, clockwise": 34 + 2 = 36 is taken by the other pilgrim, so the
    pilgrim goes on to space 0 (C1) and gains that town's coins."""
    s = build(pilgrims=(34, 36), boutiques={"C1": ("fan", 2)})
    pick(act(s, 0, "pilgrim", 2), "move:0:effect")
    assert (s.pilgrims[0], s.coins[0]) == (0, 2)


def test_several_occupied_spaces_in_a_row_are_all_skipped() -> None:
    """"it goes on to the next free space": with 13 and 14 taken (the other pilgrim, a
    merchant on C4) a 3 from 10 ends on 15, and only the garden there applies."""
    s = build(pilgrims=(10, 13), merchants=("C4", None))
    act(s, 0, "pilgrim", 3)
    pick(s, "move:15:effect")
    assert (s.garden[0], s.temple[0], s.coins[0]) == (2, 1, 0)
    assert events(s, "move") == [("move", 0, "pilgrim", 10, 15)]


def test_garden_past_the_end_nothing_happens() -> None:
    """"Past the end of a track nothing happens." Garden already 6: no question, no trigger."""
    s = act(build(pilgrims=(10, None), garden=(6, None)), 0, "pilgrim", 2)
    assert s.pilgrims[0] == 12 and s.garden[0] == 6 and not s.triggers
    assert decision(s).kind == "choose_die" and decision(s).seat == 1


def test_temple_and_garden_move_their_own_marker_by_one() -> None:
    """"Temple / garden: that marker +1." """
    s = build(pilgrims=(10, None), temple=(3, 4), garden=(2, 2))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    assert (s.temple, s.garden) == ([4, 4], [2, 2])
    s = build(pilgrims=(10, None), temple=(3, 4), garden=(2, 2))
    pick(act(s, 0, "pilgrim", 2), "move:12:effect")
    assert (s.temple, s.garden) == ([3, 4], [3, 2])


def test_seashore_takes_the_only_board_tile_without_asking_and_never_steals() -> None:
    """"take any wave tile still on the board ... If the board has none, take one from the
    opponent": with one tile on the board, the opponent's two are out of reach and there is
    nothing to choose (no wave_tile question)."""
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", 1), "artist": ("inspired", 1),
                                         "merchant": ("crafty", None)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert s.wave_holder == [1, 0, 1]
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")


def test_seashore_steals_the_opponents_last_tile_without_asking() -> None:
    """"If the board has none, take one from the opponent (your choice)": one to take, no
    question."""
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", 0), "artist": ("inspired", 0),
                                         "merchant": ("crafty", 1)})
    act(s, 0, "pilgrim", 3)
    assert ids(s) == ["move:11:effect", "move:11:decline", "move:12:effect", "move:12:decline"]
    pick(s, "move:11:effect")
    assert s.wave_holder == [0, 0, 0] and events(s, "wave") == [
        ("wave", 0, "merchant", "crafty", 1)]


def test_seashore_decline_leaves_the_tiles_where_they_are() -> None:
    """"so is every space effect" optional: declining the seashore takes nothing."""
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", None), "artist": ("inspired", 1),
                                         "merchant": ("crafty", None)})
    pick(act(s, 0, "pilgrim", 3), "move:11:decline")
    assert s.wave_holder == [-1, -1, 1] and not events(s, "wave")


def test_hot_spring_decline_leaves_the_token_with_the_opponent() -> None:
    """"Hot spring: take the hot spring token from the board or from the opponent", and the
    effect may be declined."""
    s = build(pilgrims=(13, None), spring=1)
    pick(act(s, 0, "pilgrim", 3), "move:16:decline")
    assert s.spring_holder == 1
