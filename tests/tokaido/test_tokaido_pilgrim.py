"""Rule scenarios: the pilgrim (rules page: Pilgrim; Decisions 2 and 4).

Wave holders are listed in the engine's character order (pilgrim, merchant, artist). Ring of the
packaged board (index: space): 0 C1, 1 T, 2 G, 3 S, 4 T, 5 C2, 6 H, 7 T, 8 G, 9 C3,
10 T, 11 S, 12 G, 13 T, 14 C4, 15 G, 16 H, 17 T, 18 C5, ..., 33 C8, 34 G, 35 H, 36 S.
"""

from __future__ import annotations

from tokaido_position import act, build, decision, events, ids, pick


def test_pilgrim_passes_occupied_spaces_counting_them() -> None:
    """"Passes occupied spaces (each counts as a step)." """
    s = act(build(pilgrims=(10, 11)), 0, "pilgrim", 2)
    assert ids(s) == ["move:12:effect", "move:12:decline"]


def test_pilgrim_on_occupied_space_goes_on_to_next_free_one() -> None:
    """"If it would end on an occupied space (another pilgrim, or a merchant on a coastal
    town) it goes on to the next free space; only that space's effect applies." With 13 and 14
    taken (the other pilgrim, a merchant on C4, of either seat) a 3 from 10 ends on 15, and
    only the garden there applies. The seat's own merchant on C4 blocks too: from 12 a 2 ends
    on the garden at 15, no coins."""
    for merchants in [(None, "C4"), ("C4", None)]:
        s = act(build(pilgrims=(10, 13), merchants=merchants), 0, "pilgrim", 3)
        assert ids(s) == ["move:15:effect", "move:15:decline"]
        pick(s, "move:15:effect")
        assert (s.garden[0], s.temple[0], s.coins[0]) == (2, 1, 0)
        assert events(s, "move") == [("move", 0, "pilgrim", 10, 15)]
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


def test_same_destination_by_two_ways_is_one_outcome() -> None:
    """One option per distinct outcome: 12 is occupied, so 2 steps and Hasty's 3 both end
    on 13."""
    s = act(build(pilgrims=(10, 12), waves={"pilgrim": ("hasty", 0)}), 0, "pilgrim", 2)
    assert ids(s) == ["move:13:effect", "move:13:decline"]


def test_coastal_town_pays_boutique_value_without_crafty() -> None:
    """"Coastal town: gain that town's boutique value in coins (Crafty does not apply)." """
    s = build(pilgrims=(11, None), boutiques={"C4": ("pottery", 3)},
              waves={"merchant": ("crafty", 0)})
    pick(act(s, 0, "pilgrim", 3), "move:14:effect")
    assert s.coins[0] == 3


def test_temple_and_garden_move_their_own_marker_by_one() -> None:
    """"Temple / garden: that marker +1." """
    s = build(pilgrims=(10, None), temple=(3, 4), garden=(2, 2))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    assert (s.temple, s.garden) == ([4, 4], [2, 2])
    s = build(pilgrims=(10, None), temple=(3, 4), garden=(2, 2))
    pick(act(s, 0, "pilgrim", 2), "move:12:effect")
    assert (s.temple, s.garden) == ([3, 4], [3, 2])


def test_temple_9_or_garden_6_triggers_and_past_the_end_nothing_happens() -> None:
    """"Reaching temple 9 or garden 6 triggers the end. Past the end of a track nothing
    happens." Past the end there is no question (one outcome) and no trigger."""
    s = build(pilgrims=(10, None), temple=(8, None))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    assert s.temple[0] == 9 and s.triggers == ["temple 9 reached by seat 0"]
    s = build(pilgrims=(10, None), garden=(5, None))
    pick(act(s, 0, "pilgrim", 2), "move:12:effect")
    assert s.garden[0] == 6 and s.triggers == ["garden 6 reached by seat 0"]
    s = build(pilgrims=(10, None), temple=(9, None))
    act(s, 0, "pilgrim", 3)  # only one outcome: no question, the move is made
    assert s.pilgrims[0] == 13 and s.temple[0] == 9 and decision(s).kind == "choose_die"
    s = act(build(pilgrims=(10, None), garden=(6, None)), 0, "pilgrim", 2)
    assert s.pilgrims[0] == 12 and s.garden[0] == 6 and not s.triggers
    assert decision(s).kind == "choose_die" and decision(s).seat == 1


def test_hot_spring_taken_from_board_or_opponent() -> None:
    """"Hot spring: take the hot spring token from the board or from the opponent (already
    yours: nothing)." """
    s = build(pilgrims=(13, None), spring=None)
    pick(act(s, 0, "pilgrim", 3), "move:16:effect")
    assert s.spring_holder == 0
    s = build(pilgrims=(13, None), spring=1)
    pick(act(s, 0, "pilgrim", 3), "move:16:effect")
    assert s.spring_holder == 0
    s = act(build(pilgrims=(13, None), spring=0), 0, "pilgrim", 3)
    assert s.pilgrims[0] == 16 and s.spring_holder == 0


def test_every_space_effect_may_be_declined() -> None:
    """"Every wave effect is optional; so is every space effect." Declining a coastal town
    gains nothing, declining the seashore takes no tile, declining the hot spring leaves the
    token with the opponent."""
    s = build(pilgrims=(11, None))
    pick(act(s, 0, "pilgrim", 3), "move:14:decline")
    assert (s.pilgrims[0], s.coins[0]) == (14, 0)
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", None), "artist": ("inspired", 1),
                                         "merchant": ("crafty", None)})
    pick(act(s, 0, "pilgrim", 3), "move:11:decline")
    assert s.wave_holder == [-1, -1, 1] and not events(s, "wave")
    s = build(pilgrims=(13, None), spring=1)
    pick(act(s, 0, "pilgrim", 3), "move:16:decline")
    assert s.spring_holder == 1


def test_seashore_takes_a_board_tile_of_the_seats_choice() -> None:
    """"Seashore: take any wave tile still on the board and put it on your matching
    character." Several on the board: the seat chooses; one: taken without asking, and the
    opponent's tiles are out of reach while any is on the board."""
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", None), "artist": ("inspired", None),
                                         "merchant": ("robust", 1)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert decision(s).kind == "wave_tile" and ids(s) == ["wave:pilgrim", "wave:artist"]
    pick(s, "wave:artist")
    assert s.wave_holder == [-1, 1, 0]
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", 1), "artist": ("inspired", 1),
                                         "merchant": ("crafty", None)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert s.wave_holder == [1, 0, 1]
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")


def test_seashore_steals_from_the_opponent_when_the_board_has_none() -> None:
    """"If the board has none, take one from the opponent (your choice). Holding all three:
    nothing." One to take: no question."""
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", 1), "artist": ("inspired", 1),
                                         "merchant": ("crafty", 0)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert ids(s) == ["wave:pilgrim", "wave:artist"]
    pick(s, "wave:pilgrim")
    assert s.wave_holder == [0, 0, 1]
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", 0), "artist": ("inspired", 0),
                                         "merchant": ("crafty", 1)})
    act(s, 0, "pilgrim", 3)
    assert ids(s) == ["move:11:effect", "move:11:decline", "move:12:effect", "move:12:decline"]
    pick(s, "move:11:effect")
    assert s.wave_holder == [0, 0, 0] and events(s, "wave") == [
        ("wave", 0, "merchant", "crafty", 1)]
    s = build(pilgrims=(8, None), waves={c: ("hasty" if c == "pilgrim" else
                                             "inspired" if c == "artist" else "crafty", 0)
                                         for c in ("pilgrim", "artist", "merchant")})
    act(s, 0, "pilgrim", 3)
    assert ids(s) == ["move:11", "move:12:effect", "move:12:decline"]  # hasty: 12 too
