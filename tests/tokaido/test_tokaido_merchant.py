"""Rule scenarios: the merchant (rules page: Merchant; Robust and Crafty; Decisions 2 and 3).

Trade routes of the packaged board: C1, C8 - M1; C2, C7 - M2; C3, C6 - M3; C4, C5 - M4 and
M1 - M2 - M3 - M4. Coastal towns on the ring: C3 = 9, C4 = 14, C5 = 18.
"""

from __future__ import annotations

import copy
from itertools import combinations

import pytest

from referee.games.tokaido_duo.board import Board
from referee.games.tokaido_duo.state import TokaidoState

from tokaido_position import BOARD, act, build, decision, events, ids, pick, script_draws

HAND_CHECKED = {("C6", 2): ["C3", "M2", "M4"]}
"""Destinations worked out by hand on the map (C6-M3 then M2, M4 or C3)."""


def _dests(s: TokaidoState) -> list[str]:
    assert decision(s).kind == "move"
    return sorted({i.split(":")[1] for i in ids(s)})


def _routes_away(start: str, n: int) -> list[str]:
    """Towns exactly ``n`` routes from ``start`` by a path visiting no town twice, computed
    from the raw route list (independently of the engine's tables)."""
    adj: dict[str, set[str]] = {}
    for a, b in BOARD.data["routes"]:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    paths = [[start]]
    for _ in range(n):
        paths = [p + [t] for p in paths for t in adj[p[-1]] if t not in p]
    return sorted({p[-1] for p in paths})


@pytest.mark.parametrize("town", ["C1", "C4", "C6", "C7", "M1", "M2", "M3", "M4"])
def test_exactly_n_routes_and_no_town_twice(town: str) -> None:
    """"Moves along exactly N routes to a town, no town twice." Every die value from several
    towns, with nothing blocking (pilgrims on temples, the other merchant on a mountain town);
    "Several destinations: the seat chooses" (each is offered)."""
    for n in (1, 2, 3):
        s = act(build(merchants=(town, "M1"), pilgrims=(1, 4)), 0, "merchant", n)
        dests = _dests(s)
        assert dests == _routes_away(town, n) == HAND_CHECKED.get((town, n), dests), (town, n)


def test_cannot_end_on_an_occupied_coastal_town() -> None:
    """"Cannot end on an occupied coastal town." From M3 a 2 reaches C2, C4, C5, C7 and M1 (a
    pilgrim on C3, a merchant on C4 take C4 away). From M2 a 2 reaches C1, C3, C6, C8 and M4;
    the seat's own pilgrim on C3 (9) and the other merchant on C8 take two of them away."""
    s = act(build(merchants=("M3", "C4"), pilgrims=(9, 2)), 0, "merchant", 2)
    assert _dests(s) == ["C2", "C5", "C7", "M1"]
    s = act(build(merchants=("M2", "C8"), pilgrims=(9, 4)), 0, "merchant", 2)
    assert _dests(s) == ["C1", "C6", "M4"]


def test_both_merchants_may_share_a_mountain_town() -> None:
    """"Both merchants may share a mountain town.": seat 0 joins seat 1 on M3 and draws there;
    an artist arriving in Z3 (bordered by M3) then counts both merchants."""
    s = build(merchants=("C6", "M3"), pilgrims=(1, 2), artists=("Z4", "Z7"))
    act(s, 0, "merchant", 1)
    assert ids(s) == ["move:M3:nothing", "move:M3:draw"]
    pick(s, "move:M3:draw")
    assert s.merchants == [BOARD.town_index("M3")] * 2 and sum(s.wares[0]) == 3
    act(s, 0, "artist", 1)
    assert next(o.data for o in decision(s).options if o.id == "move:Z3:paint")["reveal"] == 2


def test_merchant_unable_to_move_spends_the_die_without_a_question() -> None:
    """"If a character cannot move exactly the value, the die is spent with no move and no
    effect." From M2 a 3 reaches only C4 and C5: the other pilgrim sits on C4, the other
    merchant on C5. No move question, no hot spring question (a repeat could not move either),
    the other seat chooses next. Likewise on a board whose merchant die shows 6 (no path is
    that long)."""
    s = build(merchants=("M2", "C5"), pilgrims=(1, 14), spring=0, wares=({"kimono": 2}, None))
    act(s, 0, "merchant", 3)
    assert events(s, "no_move") == [("no_move", 0, "merchant", 3)]
    assert not events(s, "move") and s.merchants[0] == BOARD.town_index("M2")
    assert (s.coins[0], s.wares[0], s.spring_holder, s.used[1]) == (0, [2, 0, 0, 0], 0, 0)
    d = decision(s)
    assert (d.seat, d.kind, ids(s)) == (1, "choose_die", ["pilgrim", "artist"])
    data = copy.deepcopy(BOARD.data)
    data["dice"]["merchant"] = [6]
    s = act(build(board=Board(data)), 0, "merchant", 6)
    assert events(s, "no_move") == [("no_move", 0, "merchant", 6)]
    assert s.merchants[0] == BOARD.town_index("C6") and s.used[1] == 0
    assert decision(s).kind == "choose_die" and decision(s).seat == 1


def test_draw_then_keep_at_most_five_robust_six_one_option_per_multiset() -> None:
    """"Mountain town: draw as many wares as its value, then keep at most 5 (Robust 6), any mix
    of old and new; the rest return to the bag." Decisions 3: one option per distinct multiset
    kept. A draw of 3 (M3) onto 4 wares leaves 7 to choose from: 6 ways to keep 5, 3 to keep 6
    (holding Robust, a plain draw too)."""
    pool = ["kimono"] * 2 + ["doll"] * 2 + ["fan"] * 3
    cases = [({}, 5, 6, "keep:kimono,kimono,fan,fan,fan", [2, 0, 0, 3]),
             ({"merchant": ("robust", 0)}, 6, 3, "keep:kimono,kimono,doll,fan,fan,fan",
              [2, 0, 1, 3])]
    for waves, cap, ways, keep, kept in cases:
        s = build(merchants=("C6", None), wares=({"fan": 2, "doll": 2}, None), waves=waves)
        act(s, 0, "merchant", 1)
        script_draws(s, ["kimono", "kimono", "fan"])
        pick(s, "move:M3:draw")
        expected = {tuple(sorted(c)) for c in combinations(pool, cap)}
        assert decision(s).kind == "keep_wares" and len(ids(s)) == len(expected) == ways
        bag_before = sum(s.bag)
        pick(s, keep)
        assert s.wares[0] == kept and sum(s.bag) == bag_before + 7 - cap
        assert sum(s.bag) + cap == 26


def test_no_keep_question_when_the_draw_fits() -> None:
    """Decisions 3: asked only "after a draw that exceeds the cap"."""
    s = build(merchants=("C6", None), wares=({"fan": 1}, None))
    act(s, 0, "merchant", 1)
    script_draws(s, ["doll", "doll", "fan"])
    pick(s, "move:M3:draw")
    assert s.wares[0] == [0, 0, 2, 2] and decision(s).kind == "choose_die"


def test_robust_draws_one_more_and_keeps_six() -> None:
    """"robust: may draw 1 more ware; keeps up to 6." 2 held + 4 drawn fit; 4 held + 4 drawn:
    keep 6 of old and new (dropping old ones is allowed), the rest return to the bag."""
    s = build(merchants=("C6", None), wares=({"fan": 2}, None),
              waves={"merchant": ("robust", 0)})
    act(s, 0, "merchant", 1)
    assert ids(s) == ["move:M3:nothing", "move:M3:draw", "move:M3:draw+1"]
    script_draws(s, ["doll"] * 4)
    pick(s, "move:M3:draw+1")
    assert sum(s.wares[0]) == 6 and decision(s).kind == "choose_die"
    s = build(merchants=("C6", None), wares=({"kimono": 2, "pottery": 2}, None),
              waves={"merchant": ("robust", 0)})
    act(s, 0, "merchant", 1)
    script_draws(s, ["fan", "fan", "fan", "fan"])
    pick(s, "move:M3:draw+1")
    assert events(s, "draw") == [("draw", 0, ("fan",) * 4)]
    pool = ["kimono"] * 2 + ["pottery"] * 2 + ["fan"] * 4
    assert len(ids(s)) == len({tuple(sorted(c)) for c in combinations(pool, 6)})
    pick(s, "keep:kimono,kimono,fan,fan,fan,fan")
    assert s.wares[0] == [2, 0, 0, 4]
    assert s.bag == [3, 6, 7, 4] and events(s, "returned") == [("returned", 0,
                                                                ("pottery", "pottery"))]


def test_draw_declined_at_a_mountain_town() -> None:
    """"then, if the seat wants, the effect of the arrival space": "move:M3:nothing" draws
    nothing."""
    s = build(merchants=("C6", None))
    pick(act(s, 0, "merchant", 1), "move:M3:nothing")
    assert s.merchants[0] == BOARD.town_index("M3") and not events(s, "draw") and sum(s.bag) == 26


def test_sell_any_number_for_the_boutique_value_crafty_one_more() -> None:
    """"Coastal town: sell any number of wares of that boutique's type for its value each
    (Crafty +1 each) ... sold wares return to the bag." Without Crafty only the plain prices
    are offered; with it, the plain sale is still offered and pays the plain price."""
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("kimono", 4)},
              wares=({"kimono": 3, "fan": 2}, None))
    act(s, 0, "merchant", 1)
    assert [i for i in ids(s) if i.startswith("move:C3")] == [
        "move:C3:nothing", "move:C3:sell:1", "move:C3:sell:2", "move:C3:sell:3"]
    pick(s, "move:C3:sell:2")
    assert (s.coins[0], s.wares[0], s.bag[0]) == (8, [1, 0, 0, 2], 4)
    assert events(s, "sell") == [("sell", 0, "kimono", 2, 8)]
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("doll", 3)},
              wares=({"doll": 3, "fan": 1}, None), waves={"merchant": ("crafty", 0)})
    act(s, 0, "merchant", 1)
    assert [i for i in ids(s) if i.startswith("move:C3")] == [
        "move:C3:nothing", "move:C3:sell:1", "move:C3:sell:1:crafty", "move:C3:sell:2",
        "move:C3:sell:2:crafty", "move:C3:sell:3", "move:C3:sell:3:crafty"]
    pick(s, "move:C3:sell:3:crafty")
    assert (s.coins[0], s.slabs[0], s.wares[0]) == (2, 1, [0, 0, 0, 1])
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("doll", 2)},
              wares=({"doll": 2}, None), waves={"merchant": ("crafty", 0)})
    pick(act(s, 0, "merchant", 1), "move:C3:sell:2")
    assert s.coins[0] == 4


def test_no_sale_no_coins() -> None:
    """"No sale, no coins." (holding no ware of the boutique's type: nothing to decide)"""
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("doll", 3)},
              wares=({"fan": 1}, None))
    act(s, 0, "merchant", 1)
    assert "move:C3" in ids(s)
    pick(s, "move:C3")
    assert s.coins[0] == 0


def test_every_ten_coins_become_a_gold_slab_at_once() -> None:
    """"Coins (from the pilgrim too): the moment a seat holds 10 or more, 10 become one gold
    slab", as often as 10 are held. 8 + 4 from a coastal town: a slab and 2 coins; 7 + 3 from a
    sale: a slab, no coin left; 5 kimonos at 4 + 1 (Crafty) = 25 coins: 2 slabs and 5 coins."""
    s = build(pilgrims=(11, None), coins=(8, None), boutiques={"C4": ("kimono", 4)})
    pick(act(s, 0, "pilgrim", 3), "move:14:effect")
    assert (s.coins[0], s.slabs[0]) == (2, 1)
    s = build(merchants=("M3", None), pilgrims=(1, 2), coins=(7, None),
              boutiques={"C3": ("pottery", 3)}, wares=({"pottery": 1}, None))
    pick(act(s, 0, "merchant", 1), "move:C3:sell:1")
    assert (s.coins[0], s.slabs[0]) == (0, 1)
    s = build(merchants=("M4", None), pilgrims=(1, 2), boutiques={"C4": ("kimono", 4)},
              wares=({"kimono": 5}, None), waves={"merchant": ("crafty", 0)})
    pick(act(s, 0, "merchant", 1), "move:C4:sell:5:crafty")
    assert (s.coins[0], s.slabs[0]) == (5, 2)
    assert [e[2] for e in events(s, "slab")] == [1, 2]


def test_sixth_slab_triggers_the_end() -> None:
    """"The 6th slab triggers the end. Slabs never turn back into coins." From the pilgrim's
    coins and from a sale; the game goes on to the end of the round."""
    s = build(pilgrims=(11, None), coins=(9, None), slabs=(5, None),
              boutiques={"C4": ("pottery", 3)})
    pick(act(s, 0, "pilgrim", 3), "move:14:effect")
    assert (s.coins[0], s.slabs[0]) == (2, 6)
    assert s.triggers == ["gold slab 6 gained by seat 0"]
    s = build(merchants=("M3", None), pilgrims=(1, 2), coins=(8, None), slabs=(5, None),
              boutiques={"C3": ("pottery", 3)}, wares=({"pottery": 1}, None))
    pick(act(s, 0, "merchant", 1), "move:C3:sell:1")
    assert (s.coins[0], s.slabs[0]) == (1, 6)
    assert s.triggers == ["gold slab 6 gained by seat 0"] and not s.is_over


ROBUST_LOST = {"pilgrim": ("hasty", 0), "artist": ("inspired", 0), "merchant": ("robust", 1)}
"""Seat 0 holds the other tiles: on a seashore it must take Robust from seat 1."""


def test_losing_robust_with_six_wares_the_owner_returns_one() -> None:
    """"Losing the tile with 6 wares: return one at once (owner's choice)." Several types: the
    owner is asked; six of one type: returned without asking; five wares: nothing returned."""
    s = build(pilgrims=(8, None), wares=(None, {"fan": 3, "doll": 2, "kimono": 1}),
              waves=ROBUST_LOST)
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")  # the only tile left is seat 1's
    d = decision(s)
    assert (d.seat, d.kind, ids(s)) == (1, "return_ware",
                                        ["return:kimono", "return:doll", "return:fan"])
    bag = sum(s.bag)
    pick(s, "return:fan")
    assert s.wares[1] == [1, 0, 2, 2] and sum(s.bag) == bag + 1
    assert decision(s).kind == "choose_die" and decision(s).seat == 1
    s = build(pilgrims=(8, None), wares=(None, {"fan": 6}), waves=ROBUST_LOST)
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert s.wares[1] == [0, 0, 0, 5] and s.bag[3] == 3
    assert events(s, "return") == [("return", 1, "fan")]
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")
    s = build(pilgrims=(8, None), wares=(None, {"fan": 5}), waves=ROBUST_LOST)
    act(s, 0, "pilgrim", 3)
    pick(s, "move:11:effect")
    assert s.wares[1] == [0, 0, 0, 5] and decision(s).kind == "choose_die"
