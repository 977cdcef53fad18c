"""Rating maths against hand-computed values: Elo, the pairwise rule, forfeits, openskill, BT."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings, strategies as st
from openskill.models import PlackettLuce

from ladder.ratings import (
    ELO_SCALE, INITIAL_SKILL, Z95, EloConfig, SkillRating, bradley_terry, elo_update,
    expected_score, outcome, pair_score, plackett_luce, standings,
)

FLAT = EloConfig(k=24, k_provisional=24, provisional_games=0)


# -- Elo, two seats ---------------------------------------------------------------------------

def test_equal_ratings_win_moves_k_over_two():
    # E = 1/2, so the winner gains 24 * (1 - 1/2) = 12 and the loser loses 12.
    assert elo_update([1500, 1500], [50, 50], [1, 2], FLAT) == [1512.0, 1488.0]


def test_draw_between_equals_changes_nothing():
    assert elo_update([1500, 1500], [50, 50], [1, 1], FLAT) == [1500.0, 1500.0]


def test_favourite_win_gains_little():
    # E(1600 vs 1400) = 1 / (1 + 10^(-200/400)) = 0.759747...; 24 * 0.240253 = 5.766
    assert expected_score(1600, 1400) == pytest.approx(0.7597469, abs=1e-7)
    new = elo_update([1600, 1400], [50, 50], [1, 2], FLAT)
    assert new == pytest.approx([1605.76607, 1394.23393], abs=1e-5)


def test_upset_draw_moves_toward_the_underdog():
    new = elo_update([1600, 1400], [50, 50], [1, 1], FLAT)
    assert new == pytest.approx([1600 - 24 * 0.2597469, 1400 + 24 * 0.2597469], abs=1e-5)


def test_provisional_bot_uses_the_higher_k():
    config = EloConfig(k=24, k_provisional=40, provisional_games=10)
    # seat 0 has played 9 games (still provisional), seat 1 has played 10 (settled)
    assert elo_update([1500, 1500], [9, 10], [1, 2], config) == [1520.0, 1488.0]
    assert config.k_for(0) == 40 and config.k_for(10) == 24


def test_bad_elo_settings_are_refused():
    with pytest.raises(ValueError):
        EloConfig(k=0)
    with pytest.raises(ValueError):
        EloConfig(provisional_games=-1)


# -- Elo, three and four seats: every pair by rank, K/(seats-1) --------------------------------

def test_three_seats_pairwise_scaled():
    # seat 0 beats both (+2 * 1/2), seat 1 beats one loses one (0), seat 2 loses both (-1);
    # each times K/(3-1) = 12.
    assert elo_update([1500] * 3, [50] * 3, [1, 2, 3], FLAT) == [1512.0, 1500.0, 1488.0]


def test_four_seats_with_a_shared_second_place():
    # ranks 1, 2, 2, 4; K/3 = 8; all expected scores 1/2. seat 0: three wins, 3 * 1/2 -> +12;
    # seats 1 and 2: a loss (-1/2), a draw (0) and a win (+1/2) -> 0; seat 3: -3/2 -> -12.
    assert elo_update([1500] * 4, [50] * 4, [1, 2, 2, 4], FLAT) == [1512.0, 1500.0, 1500.0, 1488.0]


def test_four_seats_unequal_ratings_by_hand():
    ratings = [1700.0, 1500.0, 1500.0, 1300.0]
    new = elo_update(ratings, [50] * 4, [4, 3, 2, 1], FLAT)
    e = expected_score
    last_to_first = 8 * ((0 - e(1700, 1500)) + (0 - e(1700, 1500)) + (0 - e(1700, 1300)))
    assert new[0] == pytest.approx(1700 + last_to_first)
    first = 8 * ((1 - e(1300, 1700)) + (1 - e(1300, 1500)) + (1 - e(1300, 1500)))
    assert new[3] == pytest.approx(1300 + first)


@given(st.lists(st.integers(1, 4), min_size=2, max_size=4),
       st.lists(st.floats(1000, 2000), min_size=4, max_size=4))
def test_equal_k_elo_is_zero_sum(places, ratings):
    new = elo_update(ratings[: len(places)], [50] * len(places), places, FLAT)
    assert sum(new) == pytest.approx(sum(ratings[: len(places)]), abs=1e-6)


# -- forfeits and outcomes --------------------------------------------------------------------

def test_forfeit_is_a_loss_to_every_other_seat():
    # the game had seat 1 winning, but seat 1 forfeited: it placed below everyone
    places = standings([2, 1, 3], [False, True, False])
    assert places == [2, 4, 3]
    assert pair_score(places[1], places[0]) == 0.0 and pair_score(places[1], places[2]) == 0.0
    assert outcome(places, [False, True, False], 1) == "loss"
    assert outcome(places, [False, True, False], 0) == "win"


def test_two_forfeiters_tie_between_themselves():
    places = standings([3, 3, 1, 2], [True, True, False, False])
    assert places[0] == places[1] and pair_score(places[0], places[1]) == 0.5
    new = elo_update([1500] * 4, [50] * 4, places, FLAT)
    assert new[0] == new[1] < 1500 < new[3] < new[2]


def test_outcomes_win_draw_loss():
    assert [outcome([1, 1, 3], [False] * 3, s) for s in range(3)] == ["draw", "draw", "loss"]
    assert outcome([3, 3], [True, True], 0) == "loss"  # nobody wins when all forfeit


def elo_by_the_pairs(ratings, games, places, config):
    """The pairwise rule as first written (a sum over the other seats): the reference."""
    n = len(ratings)
    return [ratings[i] + config.k_for(games[i]) / (n - 1) * sum(
        pair_score(places[i], places[j]) - expected_score(ratings[i], ratings[j])
        for j in range(n) if j != i) for i in range(n)]


@settings(max_examples=1000)
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.lists(st.floats(500.0, 2500.0), min_size=n, max_size=n),
    st.lists(st.integers(0, 15), min_size=n, max_size=n),
    st.lists(st.integers(1, n + 1), min_size=n, max_size=n),
)))
def test_elo_update_equals_the_pairwise_sum_to_the_last_bit(match):
    # the 2-seat shortcut and the loop must give what recorded ladders hold, exactly
    ratings, games, places = match
    config = EloConfig()
    assert elo_update(ratings, games, places, config) == elo_by_the_pairs(ratings, games, places, config)


# -- openskill --------------------------------------------------------------------------------

def plackett_luce_two_equal_players() -> tuple[SkillRating, SkillRating]:
    """Weng & Lin (2011) Algorithm 4 by hand for a 1-0 between two fresh players.

    sigma^2 gains tau^2 first; c^2 = sum(sigma^2 + beta^2); both win probabilities are 1/2;
    the winner moves up sigma^2 / (2c), the loser down as much; both sigma^2 shrink by
    (1 - gamma sigma^2 / (4 c^2)) with gamma = sigma / c.
    """
    mu, sigma, beta, tau = 25.0, 25.0 / 3, 25.0 / 6, 25.0 / 300
    var = sigma ** 2 + tau ** 2
    c = math.sqrt(2 * (var + beta ** 2))
    shift = var / (2 * c)
    new_sigma = math.sqrt(var * (1 - (math.sqrt(var) / c) * var / (4 * c * c)))
    return SkillRating(mu + shift, new_sigma), SkillRating(mu - shift, new_sigma)


def test_openskill_matches_the_plackett_luce_formulas():
    winner, loser = map(SkillRating._make, plackett_luce([INITIAL_SKILL, INITIAL_SKILL], [1, 2]))
    want_winner, want_loser = plackett_luce_two_equal_players()
    assert winner.mu == pytest.approx(want_winner.mu, abs=1e-9)
    assert loser.mu == pytest.approx(want_loser.mu, abs=1e-9)
    assert winner.sigma == pytest.approx(want_winner.sigma, abs=1e-9)
    assert (winner.mu, winner.sigma) == pytest.approx((27.635389, 8.065901), abs=1e-6)
    assert winner.conservative == pytest.approx(winner.mu - 3 * winner.sigma)


def test_openskill_multiplayer_orders_by_place_and_ties_equal():
    rated = [SkillRating(*r) for r in plackett_luce([INITIAL_SKILL] * 4, [1, 2, 2, 4])]
    assert rated[0].mu > rated[1].mu == rated[2].mu > rated[3].mu


def test_tied_seats_are_not_averaged_as_in_openskill_6():
    # openskill 6.2 means to give tied seats the average mu change, but subtracts each updated
    # rating from itself; the direct update follows what it does, not what it means
    strong, weak = SkillRating(30.0, 2.0), SkillRating(20.0, 8.0)
    new_strong, new_weak = map(SkillRating._make, plackett_luce([strong, weak], [1, 1]))
    assert new_strong.mu - strong.mu < 0 < new_weak.mu - weak.mu
    assert new_strong.mu - strong.mu != -(new_weak.mu - weak.mu)


def openskill_rate(ratings: list[SkillRating], places: list[int]) -> list[SkillRating]:
    """What the ladder computed before issue 15: openskill's own PlackettLuce, default model."""
    model = PlackettLuce()
    teams = [[model.create_rating([r.mu, r.sigma])] for r in ratings]
    rated = model.rate(teams, ranks=[float(p) for p in places])
    return [SkillRating(team[0].mu, team[0].sigma) for team in rated]


skills = st.builds(SkillRating, st.floats(-40.0, 90.0), st.floats(0.01, 20.0))
matches = st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.lists(skills, min_size=n, max_size=n),
    st.lists(st.integers(1, n), min_size=n, max_size=n),  # ranks, ties included
    st.lists(st.booleans(), min_size=n, max_size=n),  # forfeits
))


@settings(max_examples=2000)
@given(matches)
def test_plackett_luce_equals_openskill_to_the_last_bit(match):
    ratings, ranks, forfeited = match
    places = standings(ranks, forfeited)
    assert plackett_luce(ratings, places) == openskill_rate(ratings, places)


def test_plackett_luce_refuses_a_lone_seat_and_mismatched_standings():
    with pytest.raises(ValueError, match="two or more seats"):
        plackett_luce([INITIAL_SKILL], [1])
    with pytest.raises(ValueError, match="two or more seats"):
        plackett_luce([INITIAL_SKILL] * 3, [1, 2])


# -- Bradley-Terry ----------------------------------------------------------------------------

def test_bt_two_bots_is_the_log_odds_with_the_textbook_interval():
    # 30 of 40: the MLE Elo gap is 400 log10(3); var(gap) = 1 / (n p (1-p)) in natural units,
    # and each bot sits half the gap from the mean, so its margin is half the gap's margin.
    fit = bradley_terry([("a", "b", 30.0, 40.0)], prior_games=1e-9)
    assert fit["a"].rating - fit["b"].rating == pytest.approx(400 * math.log10(3), abs=1e-4)
    assert (fit["a"].rating + fit["b"].rating) / 2 == pytest.approx(1500)
    margin = Z95 * ELO_SCALE * math.sqrt(1 / (40 * 0.75 * 0.25)) / 2
    assert fit["a"].margin == pytest.approx(margin, rel=1e-5)
    assert fit["a"].low == pytest.approx(fit["a"].rating - margin, rel=1e-5)


def test_bt_draws_count_half_and_records_aggregate_both_ways():
    split = bradley_terry([("a", "b", 5.0, 10.0), ("b", "a", 5.0, 10.0)], prior_games=1e-9)
    assert split["a"].rating == pytest.approx(1500) == split["b"].rating
    assert bradley_terry([("a", "b", 3.0, 4.0)])["a"].rating == pytest.approx(
        bradley_terry([("b", "a", 1.0, 4.0)])["a"].rating)


def test_bt_perfect_record_stays_finite_thanks_to_the_prior():
    fit = bradley_terry([("a", "b", 10.0, 10.0)])
    assert 1500 < fit["a"].rating < 2500 and math.isfinite(fit["a"].margin)


def simulated(strengths: list[float], games: int, seed: int) -> list[tuple[int, int, float, float]]:
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        a, b = rng.sample(range(len(strengths)), 2)
        win = rng.random() < expected_score(strengths[a], strengths[b])
        out.append((a, b, 1.0 if win else 0.0, 1.0))
    return out


def test_bt_intervals_narrow_with_more_games_and_cover_the_truth():
    truth = [1300.0, 1400.0, 1500.0, 1600.0, 1700.0]
    few = bradley_terry(simulated(truth, 200, 1))
    many = bradley_terry(simulated(truth, 5000, 2))
    for bot in range(5):
        assert many[bot].margin < few[bot].margin / 3  # ~ sqrt(25) = 5x narrower
        assert many[bot].low - 15 < truth[bot] < many[bot].high + 15
    assert [round(many[b].rating) for b in range(5)] == sorted(round(many[b].rating) for b in range(5))


def test_bt_refuses_a_non_positive_prior():
    with pytest.raises(ValueError):
        bradley_terry([("a", "b", 1.0, 2.0)], prior_games=0)
