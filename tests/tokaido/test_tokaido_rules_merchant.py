"""Rule scenarios: the merchant (rules page: Merchant; Robust and Crafty; Decisions 2 and 3).

Trade routes of the packaged board: C1, C8 - M1; C2, C7 - M2; C3, C6 - M3; C4, C5 - M4 and
M1 - M2 - M3 - M4. Coastal towns on the ring: C3 = 9, C4 = 14, C5 = 18.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from tokaido_position import BOARD, act, build, decision, events, ids, pick, script_draws

from referee.games.tokaido_duo.state import TokaidoState


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


@pytest.mark.parametrize("town", ["C1", "C4", "C7", "M1", "M2", "M3", "M4"])
def test_exactly_n_routes_and_no_town_twice(town: str) -> None:
    """"Moves along exactly N routes to a town, no town twice." Every die value from several
    towns, with nothing blocking (pilgrims on temples, the other merchant on a mountain town);
    "Several destinations: the seat chooses" (each is offered)."""
    for n in (1, 2, 3):
        s = act(build(merchants=(town, "M1"), pilgrims=(1, 4)), 0, "merchant", n)
        assert _dests(s) == _routes_away(town, n), (town, n)


def test_blocked_coastal_towns_own_pilgrim_included() -> None:
    """"Cannot end on an occupied coastal town": from M2 a 2 reaches C1, C3, C6, C8 and M4;
    the seat's own pilgrim on C3 (9) and the other merchant on C8 take two of them away."""
    s = act(build(merchants=("M2", "C8"), pilgrims=(9, 4)), 0, "merchant", 2)
    assert _dests(s) == ["C1", "C6", "M4"]


def test_both_merchants_stand_on_one_mountain_town() -> None:
    """"Both merchants may share a mountain town.": seat 0 joins seat 1 on M3 and draws there;
    an artist arriving in Z3 (bordered by M3) then counts both merchants."""
    s = build(merchants=("C6", "M3"), pilgrims=(1, 2), artists=("Z4", "Z7"))
    pick(act(s, 0, "merchant", 1), "move:M3:draw")
    assert s.merchants == [BOARD.town_index("M3")] * 2 and sum(s.wares[0]) == 3
    act(s, 0, "artist", 1)
    assert next(o.data for o in decision(s).options if o.id == "move:Z3:paint")["reveal"] == 2


def test_merchant_unable_to_move_spends_the_die_without_a_question() -> None:
    """"If a character cannot move exactly the value, the die is spent with no move and no
    effect." From M2 a 3 reaches only C4 and C5: the other pilgrim sits on C4, the other
    merchant on C5. No move question, no hot spring question (a repeat could not move either),
    the other seat chooses next."""
    s = build(merchants=("M2", "C5"), pilgrims=(1, 14), spring=0, wares=({"kimono": 2}, None))
    act(s, 0, "merchant", 3)
    assert events(s, "no_move") == [("no_move", 0, "merchant", 3)]
    assert not events(s, "move") and s.merchants[0] == BOARD.town_index("M2")
    assert (s.coins[0], s.wares[0], s.spring_holder, s.used[1]) == (0, [2, 0, 0, 0], 0, 0)
    d = decision(s)
    assert (d.seat, d.kind, ids(s)) == (1, "choose_die", ["pilgrim", "artist"])


def test_robust_cap_six_applies_to_a_plain_draw_too() -> None:
    """"keep at most 5 (Robust 6), any mix of old and new": holding Robust, a plain draw of 3
    (M3) onto 4 wares leaves 7 to choose from; one option per distinct multiset of 6."""
    s = build(merchants=("C6", None), wares=({"fan": 2, "doll": 2}, None),
              waves={"merchant": ("robust", 0)})
    act(s, 0, "merchant", 1)
    script_draws(s, ["kimono", "kimono", "fan"])
    pick(s, "move:M3:draw")
    pool = ["kimono"] * 2 + ["doll"] * 2 + ["fan"] * 3
    expected = sorted({tuple(sorted(c)) for c in combinations(pool, 6)})
    assert decision(s).kind == "keep_wares" and len(ids(s)) == len(expected) == 3
    pick(s, "keep:kimono,kimono,doll,fan,fan,fan")
    assert s.wares[0] == [2, 0, 1, 3] and sum(s.bag) + 6 == 26


def test_robust_draw_plus_one_then_keep_six_of_old_and_new() -> None:
    """"Robust +1" on the draw, then "keep at most 5 (Robust 6), any mix of old and new; the
    rest return to the bag": 4 held + 4 drawn at M3, keep 6 (dropping old ones is allowed)."""
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


def test_sell_any_number_without_crafty() -> None:
    """"sell any number of wares of that boutique's type for its value each ... sold wares
    return to the bag": without Crafty only the plain prices are offered."""
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("kimono", 4)},
              wares=({"kimono": 3, "fan": 2}, None))
    act(s, 0, "merchant", 1)
    assert [i for i in ids(s) if i.startswith("move:C3")] == [
        "move:C3:nothing", "move:C3:sell:1", "move:C3:sell:2", "move:C3:sell:3"]
    pick(s, "move:C3:sell:2")
    assert (s.coins[0], s.wares[0], s.bag[0]) == (8, [1, 0, 0, 2], 4)
    assert events(s, "sell") == [("sell", 0, "kimono", 2, 8)]


def test_crafty_plain_sale_is_still_offered_and_pays_the_plain_price() -> None:
    """"crafty: may gain 1 more coin per ware sold" (optional: the plain sale is offered)."""
    s = build(merchants=("M3", None), pilgrims=(1, 2), boutiques={"C3": ("doll", 2)},
              wares=({"doll": 2}, None), waves={"merchant": ("crafty", 0)})
    pick(act(s, 0, "merchant", 1), "move:C3:sell:2")
    assert s.coins[0] == 4


def test_exactly_ten_coins_become_a_slab() -> None:
    """"the moment a seat holds 10 or more, 10 become one gold slab." 7 + 3 = 10: a slab,
    no coin left."""
    s = build(merchants=("M3", None), pilgrims=(1, 2), coins=(7, None),
              boutiques={"C3": ("pottery", 3)}, wares=({"pottery": 1}, None))
    pick(act(s, 0, "merchant", 1), "move:C3:sell:1")
    assert (s.coins[0], s.slabs[0]) == (0, 1)


def test_a_big_sale_makes_two_slabs_at_once() -> None:
    """"10 become one gold slab", as often as 10 are held: 5 kimonos at 4 + 1 (Crafty) = 25
    coins are 2 slabs and 5 coins."""
    s = build(merchants=("M4", None), pilgrims=(1, 2), boutiques={"C4": ("kimono", 4)},
              wares=({"kimono": 5}, None), waves={"merchant": ("crafty", 0)})
    pick(act(s, 0, "merchant", 1), "move:C4:sell:5:crafty")
    assert (s.coins[0], s.slabs[0]) == (5, 2)
    assert [e[2] for e in events(s, "slab")] == [1, 2]


def test_sixth_slab_from_a_sale_triggers_the_end() -> None:
    """"The 6th slab triggers the end." (from a sale; the pilgrim case is in
    test_tokaido_merchant.py)"""
    s = build(merchants=("M3", None), pilgrims=(1, 2), coins=(8, None), slabs=(5, None),
              boutiques={"C3": ("pottery", 3)}, wares=({"pottery": 1}, None))
    pick(act(s, 0, "merchant", 1), "move:C3:sell:1")
    assert (s.coins[0], s.slabs[0]) == (1, 6)
    assert s.triggers == ["gold slab 6 gained by seat 0"] and not s.is_over


def test_losing_robust_with_six_wares_the_single_type_is_returned_without_asking() -> None:
    """"Losing the tile with 6 wares: return one at once (owner's choice)": six fans leave
    no choice, so no question."""
    s = build(pilgrims=(8, None), wares=(None, {"fan": 6}),
              waves={"pilgrim": ("hasty", 0), "artist": ("inspired", 0),
                     "merchant": ("robust", 1)})
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    assert s.wares[1] == [0, 0, 0, 5] and s.bag[3] == 3
    assert events(s, "return") == [("return", 1, "fan")]
    assert (decision(s).seat, decision(s).kind) == (1, "choose_die")
