"""Scenario tests: the merchant (rules page: Merchant; wave tiles Crafty and Robust)."""

from __future__ import annotations

import copy
from itertools import combinations

from tokaido_position import BOARD, act, build, decision, events, ids, pick, script_draws

from referee.games.tokaido_duo.board import Board


def _dests(s) -> set[str]:
    return {i.split(":")[1] for i in ids(s)} if decision(s).kind == "move" else set()


def test_exact_number_of_routes_no_town_twice() -> None:
    """"Moves along exactly N routes to a town, no town twice." (C6-M3 then M2, M4 or C3.)"""
    s = act(build(merchants=("C6", "C1"), pilgrims=(1, 2)), 0, "merchant", 2)
    assert _dests(s) == {"M2", "M4", "C3"}


def test_cannot_end_on_an_occupied_coastal_town() -> None:
    """"Cannot end on an occupied coastal town." (a pilgrim on C3, a merchant on C4)"""
    s = act(build(merchants=("M3", "C4"), pilgrims=(9, 2)), 0, "merchant", 2)
    assert _dests(s) == {"C5", "M1", "C2", "C7"}


def test_merchants_share_a_mountain_town() -> None:
    """"Both merchants may share a mountain town." """
    s = act(build(merchants=("C6", "M3"), pilgrims=(1, 2)), 0, "merchant", 1)
    assert ids(s) == ["move:M3:nothing", "move:M3:draw"]


def test_merchant_unable_to_move_spends_the_die() -> None:
    """"If a character cannot move exactly the value, the die is spent with no move and no
    effect." (a board whose merchant die shows 6: no path is that long)"""
    data = copy.deepcopy(BOARD.data)
    data["dice"]["merchant"] = [6]
    s = act(build(board=Board(data)), 0, "merchant", 6)
    assert events(s, "no_move") == [("no_move", 0, "merchant", 6)]
    assert s.merchants[0] == BOARD.town_index("C6") and s.used[1] == 0
    assert decision(s).kind == "choose_die" and decision(s).seat == 1


def test_draw_then_keep_up_to_five_one_option_per_multiset() -> None:
    """"Mountain town: draw as many wares as its value, then keep at most 5, any mix of old
    and new; the rest return to the bag." """
    s = build(merchants=("C6", None), wares=({"fan": 2, "doll": 2}, None))
    act(s, 0, "merchant", 1)
    script_draws(s, ["kimono", "kimono", "fan"])
    pick(s, "move:M3:draw")
    pool = ["kimono"] * 2 + ["doll"] * 2 + ["fan"] * 3
    expected = {tuple(sorted(c)) for c in combinations(pool, 5)}
    assert decision(s).kind == "keep_wares" and len(ids(s)) == len(expected) == 6
    bag_before = sum(s.bag)
    pick(s, "keep:kimono,kimono,fan,fan,fan")
    assert s.wares[0] == [2, 0, 0, 3] and sum(s.bag) == bag_before + 2


def test_no_keep_question_when_the_draw_fits() -> None:
    s = build(merchants=("C6", None), wares=({"fan": 1}, None))
    act(s, 0, "merchant", 1)
    script_draws(s, ["doll", "doll", "fan"])
    pick(s, "move:M3:draw")
    assert s.wares[0] == [0, 0, 2, 2] and decision(s).kind == "choose_die"


def test_robust_draws_one_more_and_keeps_six() -> None:
    """"robust: may draw 1 more ware; keeps up to 6." """
    s = build(merchants=("C6", None), wares=({"fan": 2}, None),
              waves={"merchant": ("robust", 0)})
    act(s, 0, "merchant", 1)
    assert ids(s) == ["move:M3:nothing", "move:M3:draw", "move:M3:draw+1"]
    script_draws(s, ["doll"] * 4)
    pick(s, "move:M3:draw+1")
    assert sum(s.wares[0]) == 6 and decision(s).kind == "choose_die"


def test_sell_any_number_with_and_without_crafty() -> None:
    """"Coastal town: sell any number of wares of that boutique's type for its value each
    (Crafty +1 each)." Then "the moment a seat holds 10 or more, 10 become one gold slab"."""
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("doll", 3)},
              wares=({"doll": 3, "fan": 1}, None), waves={"merchant": ("crafty", 0)})
    act(s, 0, "merchant", 1)
    assert [i for i in ids(s) if i.startswith("move:C3")] == [
        "move:C3:nothing", "move:C3:sell:1", "move:C3:sell:1:crafty", "move:C3:sell:2",
        "move:C3:sell:2:crafty", "move:C3:sell:3", "move:C3:sell:3:crafty"]
    pick(s, "move:C3:sell:3:crafty")
    assert (s.coins[0], s.slabs[0], s.wares[0]) == (2, 1, [0, 0, 0, 1])


def test_no_sale_no_coins() -> None:
    """"No sale, no coins." (holding no ware of the boutique's type: nothing to decide)"""
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("doll", 3)},
              wares=({"fan": 1}, None))
    act(s, 0, "merchant", 1)
    assert "move:C3" in ids(s)
    pick(s, "move:C3")
    assert s.coins[0] == 0


def test_pilgrim_coins_count_towards_gold() -> None:
    """"Coins (from the pilgrim too): the moment a seat holds 10 or more, 10 become one gold
    slab." """
    s = build(pilgrims=(11, None), coins=(8, None), boutiques={"C4": ("kimono", 4)})
    pick(act(s, 0, "pilgrim", 3), "move:14:effect")
    assert (s.coins[0], s.slabs[0]) == (2, 1)


def test_sixth_slab_triggers_the_end() -> None:
    """"The 6th slab triggers the end. Slabs never turn back into coins." """
    s = build(pilgrims=(11, None), coins=(9, None), slabs=(5, None),
              boutiques={"C4": ("pottery", 3)})
    pick(act(s, 0, "pilgrim", 3), "move:14:effect")
    assert (s.coins[0], s.slabs[0]) == (2, 6)
    assert s.triggers == ["gold slab 6 gained by seat 0"]


def test_losing_robust_with_six_wares_the_owner_returns_one() -> None:
    """"Losing the tile with 6 wares: return one at once (owner's choice)." """
    s = build(pilgrims=(8, None), wares=(None, {"fan": 3, "doll": 2, "kimono": 1}),
              waves={"pilgrim": ("hasty", 0), "artist": ("inspired", 0),
                     "merchant": ("robust", 1)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")  # the only tile left is seat 1's
    d = decision(s)
    assert (d.seat, d.kind, ids(s)) == (1, "return_ware",
                                        ["return:kimono", "return:doll", "return:fan"])
    bag = sum(s.bag)
    pick(s, "return:fan")
    assert s.wares[1] == [1, 0, 2, 2] and sum(s.bag) == bag + 1
    assert decision(s).kind == "choose_die" and decision(s).seat == 1


def test_losing_robust_with_five_wares_returns_nothing() -> None:
    s = build(pilgrims=(8, None), wares=(None, {"fan": 5}),
              waves={"pilgrim": ("hasty", 0), "artist": ("inspired", 0),
                     "merchant": ("robust", 1)})
    act(s, 0, "pilgrim", 3)
    pick(s, "move:11:effect")
    assert s.wares[1] == [0, 0, 0, 5] and decision(s).kind == "choose_die"
