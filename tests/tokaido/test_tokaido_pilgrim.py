"""Scenario tests: the draft and the pilgrim (rules page: A round; Pilgrim)."""

from __future__ import annotations

from tokaido_position import act, build, decision, events, ids, pick, until_choose_die


def test_draft_is_1_2_1_and_first_player_alternates() -> None:
    """"A chooses one die and uses it; then B chooses one of the two left; then A uses the
    last. Next round B is first." """
    s = build(first=0)
    assert (decision(s).seat, ids(s)) == (0, ["pilgrim", "merchant", "artist"])
    pick(s, "artist")
    until_choose_die(s)
    assert (decision(s).seat, ids(s)) == (1, ["pilgrim", "merchant"])
    rnd = s.round
    pick(s, "merchant")
    until_choose_die(s)  # seat 0's last die needs no choice of die
    assert s.round == rnd + 1 and s.used == [-1, -1, -1]
    assert (decision(s).seat, len(ids(s))) == (1, 3)
    assert [e[1] for e in events(s, "die")] == [0, 1, 0]


def test_pilgrim_passes_occupied_spaces_counting_them() -> None:
    """"Passes occupied spaces (each counts as a step)." """
    s = act(build(pilgrims=(10, 11)), 0, "pilgrim", 2)
    assert ids(s) == ["move:12:effect", "move:12:decline"]


def test_pilgrim_on_occupied_space_goes_on_to_next_free_one() -> None:
    """"If it would end on an occupied space (another pilgrim, or a merchant on a coastal
    town) it goes on to the next free space; only that space's effect applies." """
    s = act(build(pilgrims=(10, 13), merchants=(None, "C4")), 0, "pilgrim", 3)
    assert ids(s) == ["move:15:effect", "move:15:decline"]  # 13 pilgrim, 14 = C4 merchant
    pick(s, "move:15:effect")
    assert (s.garden[0], s.temple[0]) == (2, 1)


def test_coastal_town_pays_boutique_value_without_crafty() -> None:
    """"Coastal town: gain that town's boutique value in coins (Crafty does not apply)." """
    s = build(pilgrims=(11, None), boutiques={"C4": ("pottery", 3)},
              waves={"merchant": ("crafty", 0)})
    pick(act(s, 0, "pilgrim", 3), "move:14:effect")
    assert s.coins[0] == 3


def test_declining_a_space_effect() -> None:
    """"Every wave effect is optional; so is every space effect." """
    s = build(pilgrims=(11, None))
    pick(act(s, 0, "pilgrim", 3), "move:14:decline")
    assert (s.pilgrims[0], s.coins[0]) == (14, 0)


def test_temple_9_triggers_and_past_the_end_nothing_happens() -> None:
    """"Reaching temple 9 or garden 6 triggers the end. Past the end of a track nothing
    happens." """
    s = build(pilgrims=(10, None), temple=(8, None))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    assert s.temple[0] == 9 and s.triggers == ["temple 9 reached by seat 0"]
    s = build(pilgrims=(10, None), temple=(9, None))
    act(s, 0, "pilgrim", 3)  # only one outcome: no question, the move is made
    assert s.pilgrims[0] == 13 and s.temple[0] == 9 and decision(s).kind == "choose_die"


def test_garden_6_triggers() -> None:
    s = build(pilgrims=(10, None), garden=(5, None))
    pick(act(s, 0, "pilgrim", 2), "move:12:effect")
    assert s.garden[0] == 6 and s.triggers == ["garden 6 reached by seat 0"]


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


def test_seashore_takes_a_board_tile_of_the_seats_choice() -> None:
    """"Seashore: take any wave tile still on the board and put it on your matching
    character." """
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", None), "artist": ("inspired", None),
                                         "merchant": ("robust", 1)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert decision(s).kind == "wave_tile" and ids(s) == ["wave:pilgrim", "wave:artist"]
    pick(s, "wave:artist")
    assert s.wave_holder == [-1, 1, 0]


def test_seashore_steals_from_the_opponent_when_the_board_has_none() -> None:
    """"If the board has none, take one from the opponent (your choice). Holding all three:
    nothing." """
    s = build(pilgrims=(8, None), waves={"pilgrim": ("hasty", 1), "artist": ("inspired", 1),
                                         "merchant": ("crafty", 0)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert ids(s) == ["wave:pilgrim", "wave:artist"]
    pick(s, "wave:pilgrim")
    assert s.wave_holder == [0, 0, 1]
    s = build(pilgrims=(8, None), waves={c: ("hasty" if c == "pilgrim" else
                                             "inspired" if c == "artist" else "crafty", 0)
                                         for c in ("pilgrim", "artist", "merchant")})
    act(s, 0, "pilgrim", 3)
    assert ids(s) == ["move:11", "move:12:effect", "move:12:decline"]  # hasty: 12 too


def test_hasty_and_tranquil_are_offered_beside_the_plain_move() -> None:
    """"hasty: may move one more step; tranquil: may move one fewer step (at least 1)"."""
    s = act(build(pilgrims=(10, None), waves={"pilgrim": ("hasty", 0)}), 0, "pilgrim", 2)
    assert ids(s) == ["move:12:effect", "move:12:decline", "move:13:effect", "move:13:decline"]
    s = act(build(pilgrims=(10, None), waves={"pilgrim": ("tranquil", 0)}), 0, "pilgrim", 2)
    assert ids(s) == ["move:12:effect", "move:12:decline", "move:11:effect", "move:11:decline"]
    s = act(build(pilgrims=(10, None), waves={"pilgrim": ("tranquil", 0)}), 0, "pilgrim", 1)
    assert ids(s) == ["move:11:effect", "move:11:decline"]


def test_same_destination_by_two_ways_is_one_outcome() -> None:
    """One option per distinct outcome: 12 is occupied, so 2 steps and Hasty's 3 both end
    on 13."""
    s = act(build(pilgrims=(10, 12), waves={"pilgrim": ("hasty", 0)}), 0, "pilgrim", 2)
    assert ids(s) == ["move:13:effect", "move:13:decline"]
