"""Scenario tests: solo play against the Automa (rules page: Solo play; seed 002)."""

from __future__ import annotations

import random

import pytest

from tokaido_position import (BOARD, act, build, decision, events, pick, play_random,
                              reset_round)

from referee.core import GameOptionsError
from referee.games.tokaido_duo import GAME
from referee.games.tokaido_duo.automa import AutomaTracks


def test_options_are_validated() -> None:
    assert GAME.validate_options({"automa": 3}) == {"automa": 3}
    for bad, msg in [({"automa": 7}, "level 1-6"), ({"automa": "2"}, "level 1-6"),
                     ({"automa": True}, "level 1-6"), ({"colour": 1}, "unknown option")]:
        with pytest.raises(GameOptionsError, match=msg):
            GAME.validate_options(bad)
    with pytest.raises(GameOptionsError, match="needs the option automa"):
        GAME.new_state(1, 1)
    with pytest.raises(GameOptionsError, match="1 player only"):
        GAME.new_state(2, 1, options={"automa": 2})
    with pytest.raises(GameOptionsError, match="or 2 players"):
        GAME.new_state(3, 1)


def test_starting_player_is_drawn() -> None:
    """Seed 002: "スタートプレイヤーはランダムで決定します" (the starting player is random)."""
    firsts = {GAME.new_state(1, seed, BOARD, {"automa": 2}).events[0][2] for seed in range(20)}
    assert firsts == {0, 1}


def test_rule_1_pilgrim_to_a_seashore_for_a_wave() -> None:
    """"(1) pilgrim to a seashore if it holds fewer than 3 waves"; it takes the tile of its
    highest-ranked character (ties pilgrim > merchant > artist), placed on the first wave
    space ahead of that rank token."""
    s = build(automa=2, pilgrims=(None, 8))
    reset_round(s, first=1, dice=(3, 3, 3))
    assert events(s, "die")[0] == ("die", 1, "pilgrim", 3)
    assert s.pilgrims[1] == 11 and s.wave_holder[0] == 1 and s.automa.wave_at[0] == 3
    assert s.automa.rank(0) == 2 and decision(s).seat == 0


def _quiet(**kw):
    """Automa pilgrim 3 steps to a hot spring; merchant 2 steps to the painting town C4."""
    base = dict(automa=2, pilgrims=(None, 3), merchants=(None, "C2"), artists=(None, "Z2"))
    base.update(kw)
    return build(**base)


def test_rule_2_highest_rank_that_rises() -> None:
    """"(2) the die of highest rank whose move raises a rank": the artist (Z3 has no coin)."""
    s = _quiet()
    reset_round(s, first=1, dice=(3, 2, 1))
    assert events(s, "die")[0] == ("die", 1, "artist", 1)
    assert s.automa.pos[2] == 1 and s.automa.rank(2) == 4


def test_rule_2_prefers_the_higher_rank() -> None:
    s = _quiet()
    s.automa.pos[1] = 3  # merchant rank 10 beats the artist's 2
    reset_round(s, first=1, dice=(3, 1, 1))
    assert events(s, "die")[0] == ("die", 1, "merchant", 1)  # C2 -> C3, no painting there


def test_rule_3_highest_value_and_blocked_merchant_stays() -> None:
    """"(3) the highest value"; "if the destination coastal town is occupied the merchant
    doesn't move" (seed 002)."""
    s = _quiet(pilgrims=(18, 5), artists=(None, "Z1"))
    reset_round(s, first=1, dice=(1, 3, 1))  # pilgrim 5->6 hot spring, artist Z1->Z2 coin
    assert events(s, "die")[0] == ("die", 1, "merchant", 3)
    assert events(s, "no_move") == [("no_move", 1, "merchant", 3)]
    assert s.merchants[1] == BOARD.town_index("C2")


@pytest.mark.parametrize("order,expected", [([1, 0, 2], "merchant"), ([0, 1, 2], "pilgrim")])
def test_ties_follow_the_column_order(order: list[int], expected: str) -> None:
    """"ties by a fixed die order (random per roll here)": nothing rises (pilgrim to a hot
    spring, merchant C1 -> C4 the painting town, artist to a coin zone), two dice show 3."""
    s = _quiet(artists=(None, "Z1"), merchants=(None, "C1"))
    s.die_order = order
    reset_round(s, first=1, dice=(3, 3, 1))
    assert events(s, "die")[0] == ("die", 1, expected, 3)


def test_rank_track_with_wave_tiles() -> None:
    """"rank = the first number ahead of the token, skipping a wave tile's space"; reaching a
    wave tile: one more space, then the tile is placed again (seed 002)."""
    t = AutomaTracks(BOARD, 2)
    assert t.rank(0) == 2
    t.place_wave(0)
    assert t.wave_at[0] == 3
    t.advance(0)
    t.advance(0)
    assert t.pos[0] == 2 and t.rank(0) == 10  # space 3 is covered: space 4 shows
    t.advance(0)
    assert t.pos[0] == 4 and t.wave_at[0] == 6 and t.rank(0) == 13
    assert AutomaTracks(BOARD, 6).rank(0) == 3  # 2 x 1.6 = 3.2 -> 3 (placeholder numbers)


def test_automa_token_at_the_end_triggers() -> None:
    """"the extra end trigger (a rank token reaching the end)" """
    s = _quiet()
    s.automa.pos[2] = 9
    reset_round(s, first=1, dice=(3, 2, 1))
    assert s.automa.pos[2] == 10 and s.automa.rank(2) == 38
    assert s.triggers == ["the Automa's artist rank token reached the end of its track"]


def _result(s, coins):
    s.coins[0] = coins
    s.over, s.triggers = True, ["test"]
    return s.result()


def test_solo_score_and_tie_rule() -> None:
    """The Automa scores the sum of its ranks; "the human wins a tie if holding any coin"."""
    s = build(automa=2, temple=(2, None), garden=(3, None))
    res = _result(s, 1)
    assert [x.score for x in res.seats] == [6, 6]
    assert res.seats[1].breakdown == {"pilgrim": 2, "merchant": 2, "artist": 2}
    assert res.winners == (0,) and res.extra["automa_numbers"] == "placeholder"
    assert _result(s, 0).winners == (0, 1)


def test_automa_never_decides_and_games_end() -> None:
    rng = random.Random(7)
    for seed in range(30):
        s = GAME.new_state(1, seed, BOARD, {"automa": 1 + seed % 6})
        while s.pending():
            assert decision(s).seat == 0
            s.apply({0: rng.choice(decision(s).options).id})
        res = s.result()
        assert res is not None and len(res.seats) == 2
    play_random(build(automa=4), rng)


def test_automa_takes_robust_and_the_player_returns_a_ware() -> None:
    """The Automa's seashore with the board empty takes from the player ("from the player's
    tiles"), and "losing Robust with 6 wares: return one at once" applies to the player."""
    s = build(automa=2, pilgrims=(None, 8), wares=({"fan": 4, "doll": 2}, None),
              waves={"pilgrim": ("hasty", 1), "artist": ("inspired", 1),
                     "merchant": ("robust", 0)})
    reset_round(s, first=1, dice=(3, 3, 3))
    assert s.wave_holder[1] == 1 and s.automa.wave_at[1] == 3
    d = decision(s)
    assert (d.seat, d.kind) == (0, "return_ware")
    s.apply({0: "return:doll"})
    assert s.wares[0] == [0, 0, 1, 4] and (decision(s).seat, decision(s).kind) == (0, "choose_die")


def test_player_steals_a_wave_from_the_automa() -> None:
    """The player's seashore with the board empty takes an Automa tile off its card."""
    s = build(automa=2, pilgrims=(8, None), waves={"pilgrim": ("hasty", 1),
                                                   "artist": ("inspired", 1),
                                                   "merchant": ("robust", 1)})
    assert s.automa.rank(2) == 2 and s.automa.wave_at[2] == 3
    s.automa.pos[2] = 2
    assert s.automa.rank(2) == 10  # space 3 covered by the wave tile
    pick(act(s, 0, "pilgrim", 3), "move:11:effect")
    pick(s, "wave:artist")
    t = s.automa
    assert s.wave_holder[2] == 0 and t.wave_at[2] is None
    assert t.rank(2) == t.scaled(t.ranks[t.pos[2]])  # nothing covered any more


@pytest.mark.parametrize("holder", [-1, 0])
def test_automa_pilgrim_never_takes_the_hot_spring(holder: int) -> None:
    """Seed 002: 「オートマが受け取るのは、ここに書かれたものだけ」: the Automa receives only what its
    procedure lists, and the hot spring token is not listed: on a hot spring it takes nothing,
    neither from the board nor from the human."""
    s = _quiet(spring=holder, artists=(None, "Z1"))
    reset_round(s, first=1, dice=(3, 2, 1))  # nothing rises; pilgrim 3 -> 6 is the highest
    assert events(s, "die")[0] == ("die", 1, "pilgrim", 3)
    assert BOARD.ring[s.pilgrims[1]] == "H" and s.spring_holder == holder
    assert events(s, "spring") == []


def test_the_automa_is_purple_so_the_human_plays_green_with_greens_paintings() -> None:
    """Seed 002: 「オートマは紫を担当し」: the Automa takes purple; the human plays green and gets
    green's painting set (2 moon, 2 waterfall, 3 mountain, 3 bamboo)."""
    s = GAME.new_state(1, 7, BOARD, {"automa": 2})
    view = s.view(0)
    assert [p["colour"] for p in view["players"]] == ["green", "purple"]
    icons = sorted(BOARD.icons[t] for t in s.tiles[0])
    assert icons == sorted(["moon"] * 2 + ["waterfall"] * 2 + ["mountain"] * 3 + ["bamboo"] * 3)
    duo = GAME.new_state(2, 7, BOARD)
    assert [p["colour"] for p in duo.view(0)["players"]] == ["purple", "green"]
    assert sorted(BOARD.icons[t] for t in duo.tiles[0]) == sorted(
        ["moon"] * 3 + ["waterfall"] * 3 + ["mountain"] * 2 + ["bamboo"] * 2)
