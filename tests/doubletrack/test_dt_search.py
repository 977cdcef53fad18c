"""``mcts`` on Doubletrack: the fitted leaf value and the determinized search over candidates.

Strength figures (hundreds of games at 100 ms a decision) come from ``bench/bot_strength.py``;
here fixed playout budgets keep every check exact.
"""

from __future__ import annotations

from typing import Any

import pytest

from bots import UnknownBotError, find_bot
from bots.doubletrack_greedy import DoubletrackGreedyBot
from bots.doubletrack_search import MIN_SAMPLES
from bots.doubletrack_value import FEATURES, features, win_chances
from referee.match import TimeControl

from dt_support import GAME, answer, hands_with, make_state, random_positions, square_at
from support.matches import play_bots


def views_of(st: Any) -> list[dict[str, Any]]:
    return [st.view(s) for s in range(st.num_players)]


# -- the leaf value ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 4])
def test_win_chances_are_a_distribution_favouring_the_pawn_near_home(n):
    st = make_state(n, small=[52, 20, 30, 10][:n], at="square")
    chances = win_chances(views_of(st))
    assert sum(chances) == pytest.approx(1.0)
    assert max(chances) == chances[0]


def test_a_number_card_in_hand_is_worth_more_than_a_worthless_one():
    good, poor = ["number-8", "number-7", "number-6"], ["worthless", "worthless", "number-1"]
    rest = [["back_10", "back_10", "number-2"], ["number-2", "back_10", "number-3"]]
    strong = make_state(4, hands=[good, poor, *rest], at="square")
    weak = make_state(4, hands=[poor, good, *rest], at="square")
    assert win_chances(views_of(strong))[0] > win_chances(views_of(weak))[0]


def test_money_counts_as_a_share_of_the_table_so_any_board_sum_reads_alike():
    small = make_state(4, small=[20, 30, 10, 40], money=[250, 125, 75, 50], at="square")
    large = make_state(4, small=[20, 30, 10, 40], money=[2000, 1000, 600, 400], at="square")
    for seat in range(4):
        assert len(features(small.view(seat))) == len(FEATURES)
        assert features(small.view(seat)) == features(large.view(seat))
    rich = make_state(4, small=[20, 30, 10, 40], money=[300, 125, 75, 0], at="square")
    assert features(rich.view(0)) != features(small.view(0))


# -- the search -------------------------------------------------------------------------------

def lead_auction() -> Any:
    """SELL THE LEAD on seat 0's turn: seat 1 leads at 57 and would bid its $30, seats 2 and 3
    would bid their $20; seat 0 at 50 holds $200."""
    return make_state(4, active=0, small=[50, 57, 10, 12], money=[200, 30, 20, 20],
                      big=[square_at("SELL_THE_LEAD"), 14, 28, 42], at="square")


def test_the_search_matches_the_top_bid_since_the_active_seat_wins_ties():
    """Greedy pays $80 for eight circles; the active seat takes a tie, so $30 buys the same."""
    st = lead_auction()
    mine = next(d for d in st.pending() if d.seat == 0)
    assert DoubletrackGreedyBot("doubletrack", 1).decide(mine, st.view(0)) == "bid:80"
    choice, note = find_bot("mcts:playouts=10", "doubletrack", 3).decide(mine, st.view(0))
    assert choice == "bid:30"
    assert "10 iterations" in note and "over greedy's bid:80" in note


def test_the_search_plays_out_decline_with_the_targets_and_keeps_a_leader_in_front():
    """A leader at 40 must play Trade Places (its other cards are Back 10s): every opponent and
    `decline` are played out from the same samples; swapping back never pays."""
    st = make_state(4, small=[40, 3, 10, 20], big=[square_at("PLAY_A_CARD"), 14, 28, 42],
                    hands=hands_with("trade_places", "back_10", "back_10"), at="square")
    answer(st, s0="card:trade_places")
    d = st.pending()[0]
    assert d.option_ids()[-1] == "decline"
    choice, note = find_bot("mcts:playouts=10", "doubletrack", 3).decide(d, st.view(0))
    assert choice == "decline" and "10 iterations x 4 candidates" in note


def departures_from_greedy(spec: str, decisions: int = 25) -> int:
    state = GAME.new_state(3, 11)
    greedy = DoubletrackGreedyBot("doubletrack", 2)
    search = find_bot(spec, "doubletrack", 2)
    checked = departed = 0
    while not state.is_over and checked < decisions:
        picks: dict[int, str] = {}
        for d in state.pending():
            view = state.view(d.seat)
            picks[d.seat] = greedy.decide(d, view)
            departed += search.decide(d, view)[0] != picks[d.seat]
            checked += 1
        state.apply(picks)
    return departed


def test_a_search_that_must_be_sure_plays_the_greedy_pick():
    """A departure from greedy must clear ``margin`` standard errors of its measured gain."""
    assert departures_from_greedy("mcts:playouts=12,margin=0") > 0
    assert departures_from_greedy("mcts:playouts=12,margin=1000") == 0


@pytest.mark.parametrize("n", [3, 4])
def test_the_search_answers_with_an_offered_option_whatever_the_question(n):
    search = find_bot("mcts:playouts=2", "doubletrack", 4)
    kinds = set()
    for seed in range(3):
        for st in random_positions(n, seed, every=2):
            for d in st.pending():
                assert search.decide(d, st.view(d.seat))[0] in d.option_ids()
                kinds.add(d.kind)
    assert {"bid", "gate_offer", "play_card", "sell_card_choice"} <= kinds


def test_too_few_iterations_leave_the_greedy_pick_standing():
    """One or two sampled games cannot show a gain, however large it looks."""
    assert departures_from_greedy(f"mcts:playouts={MIN_SAMPLES - 1},margin=0") == 0


def test_a_view_of_another_board_than_the_one_started_on_gets_the_greedy_pick():
    st = lead_auction()
    mine = next(d for d in st.pending() if d.seat == 0)
    view = {**st.view(0), "board_version": "someone-elses-board"}
    choice, note = find_bot("mcts:playouts=10", "doubletrack", 3).decide(mine, view)
    assert choice == "bid:80" and "another board" in note


def play(seed: int, seats: int) -> tuple[int, ...]:
    bots = ["mcts:playouts=3" if s == seed % seats else "greedy" for s in range(seats)]
    record = play_bots("doubletrack", bots, seed, time_control=TimeControl(60_000))
    return tuple(record.result.winners)


@pytest.mark.parametrize("seats", [3, 4])
def test_fixed_playouts_play_whole_games_reproducibly(seats):
    assert play(7, seats) == play(7, seats)


@pytest.mark.parametrize("spec", ["mcts:horizon=0", "mcts:margin=-1", "mcts:playouts=2.5",
                                  "mcts:spread=1", "mcts:ms=0", "mcts:trust=1"])
def test_bad_search_parameters_are_refused_by_name(spec):
    name = spec.split(":")[1].split("=")[0]
    with pytest.raises(UnknownBotError, match=name):
        find_bot(spec, "doubletrack", 1)
