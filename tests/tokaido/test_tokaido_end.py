"""Scenario tests: end triggers, the round played out, scoring and ties (rules page: End and
scoring)."""

from __future__ import annotations

import pytest

from tokaido_position import act, build, decision, ids, pick

from referee.core import GameOverError, IllegalChoiceError
from referee.games.tokaido_duo import scoring


def _finish(s):
    s.over, s.triggers = True, ["test"]
    return s.result()


def test_the_round_is_played_out_after_a_trigger() -> None:
    """"The round is played to its end (all three dice), then the game ends." """
    s = build(pilgrims=(10, None), temple=(8, None))
    pick(act(s, 0, "pilgrim", 3), "move:13:effect")
    assert s.triggers and not s.is_over and decision(s).seat == 1
    pick(s, "merchant")
    while s.pending():
        assert s.used.count(-1) <= 1
        pick(s, ids(s)[0])
    res = s.result()
    assert res is not None and res.reason.startswith("temple 9 reached by seat 0")
    assert res.reason.endswith("round played out") and all(u >= 0 for u in s.used)
    with pytest.raises(GameOverError):
        s.apply({0: "pilgrim"})


def test_rulebook_example_scores_95() -> None:
    """"temple 7, garden 6, 5 slabs, 6 gifts = 42 + 35 + 18 = 95." """
    s = build(temple=(7, 1), garden=(6, 1), slabs=(5, 0), gifts=(6, 0), revealed=(6, 0))
    assert scoring.breakdown(s, 0) == {"pilgrim": 42, "merchant": 35, "artist": 18}
    res = _finish(s)
    assert res.seats[0].score == 95 and sum(res.seats[0].breakdown.values()) == 95
    assert res.winners == (0,)


def test_tie_goes_to_more_coins() -> None:
    """"Highest total wins; tie: more coins left wins" """
    res = _finish(build(temple=(3, 3), garden=(2, 2), coins=(4, 7)))
    assert res.seats[0].score == res.seats[1].score == 6
    assert res.winners == (1,) and [x.rank for x in res.seats] == [2, 1]


def test_still_tied_both_win() -> None:
    """"still tied: both win (a draw)." """
    res = _finish(build(temple=(3, 3), garden=(2, 2), coins=(4, 4)))
    assert res.winners == (0, 1) and [x.rank for x in res.seats] == [1, 1]


def test_leftovers_score_nothing() -> None:
    """"Wares, coins and paintings left score nothing." """
    s = build(coins=(9, 0), wares=({"fan": 5}, None), revealed=(7, 0))
    assert scoring.breakdown(s, 0) == {"pilgrim": 1, "merchant": 0, "artist": 0}


def test_illegal_answers_are_refused() -> None:
    s = build()
    with pytest.raises(IllegalChoiceError, match="'teleport' is not an option"):
        s.apply({0: "teleport"})
    with pytest.raises(IllegalChoiceError):
        s.apply({1: "pilgrim"})
    with pytest.raises(IllegalChoiceError):
        s.apply({0: "pilgrim", 1: "pilgrim"})
