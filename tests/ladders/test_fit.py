"""The public rating fit (ladder.fit) against closed forms, the dense Bradley-Terry reference, a
hand-written Plackett-Luce posterior, and the forfeit rule of issue 27."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ladder.fit import BotFit, Fit, FitConfig, fit, fit_indexed, tables_from_seats
from ladder.ratings import ELO_SCALE, Z95, bradley_terry

FLAT = FitConfig(prior_games=1e-9)
"""A prior so weak that the fit is the maximum-likelihood one."""


def game(a: str, b: str, result: str) -> list[tuple[str, int, bool]]:
    """A two-seat result: 'win' (a won), 'loss', 'draw', or 'forfeit' (b forfeited)."""
    places = {"win": (1, 2), "loss": (2, 1), "draw": (1, 1), "forfeit": (1, 3)}[result]
    return [(a, places[0], False), (b, places[1], result == "forfeit")]


Table = list[tuple[str, int, bool]]


def games(a: str, b: str, wins: int, losses: int, draws: int = 0) -> list[Table]:
    return [game(a, b, "win")] * wins + [game(a, b, "loss")] * losses + [game(a, b, "draw")] * draws


def random_games(seed: int, bots: int, count: int, draws: float = 0.1) -> list[Table]:
    rng = random.Random(seed)
    names = [f"b{i}" for i in range(bots)]
    strength = {n: rng.gauss(0, 1) for n in names}
    out = []
    for _ in range(count):
        a, b = rng.sample(names, 2)
        if rng.random() < draws:
            out.append(game(a, b, "draw"))
        else:
            win = rng.random() < 1 / (1 + math.exp(strength[b] - strength[a]))
            out.append(game(a, b, "win" if win else "loss"))
    return out


def as_records(results: list[list[tuple[str, int, bool]]]) -> list[tuple[str, str, float, float]]:
    """Two-seat results as bradley_terry's ``(a, b, score_a, games)`` records."""
    out = []
    for (a, pa, _), (b, pb, _) in results:
        out.append((a, b, 1.0 if pa < pb else 0.5 if pa == pb else 0.0, 1.0))
    return out


# -- closed forms and the dense reference ---------------------------------------------------

def test_transitive_odds_give_the_log_odds_gaps_exactly():
    # a-b 3:1, b-c 3:1, a-c 9:1: every pair's record equals the model's probability at gaps of
    # log 3, so the (flat-prior) MLE is exactly there: 400 log10(3) Elo per step.
    results = games("a", "b", 3, 1) + games("b", "c", 3, 1) + games("a", "c", 9, 1)
    f = fit(results, config=FLAT)
    step = 400 * math.log10(3)
    assert f.bots["a"].rating - f.bots["b"].rating == pytest.approx(step, abs=1e-6)
    assert f.bots["b"].rating - f.bots["c"].rating == pytest.approx(step, abs=1e-6)


def test_a_balanced_cycle_rates_everyone_equal():
    results = games("a", "b", 2, 1) + games("b", "c", 2, 1) + games("c", "a", 2, 1)
    f = fit(results)
    assert [f.bots[b].rating for b in "abc"] == pytest.approx([1500.0] * 3, abs=1e-9)
    assert f.bots["a"].margin == pytest.approx(f.bots["c"].margin, rel=1e-9)


def test_two_bots_with_a_prior_solve_the_closed_form():
    # By symmetry theta_a = -theta_b = t, and t solves s - g sigmoid(2t) - ridge t = 0.
    f = fit(games("a", "b", 7, 3), config=FitConfig(prior_games=2.0))
    t = (f.bots["a"].rating - 1500) / ELO_SCALE
    assert 7 - 10 / (1 + math.exp(-2 * t)) - 0.5 * t == pytest.approx(0, abs=1e-9)
    assert f.bots["b"].rating - 1500 == pytest.approx(-(f.bots["a"].rating - 1500), abs=1e-9)


@pytest.mark.parametrize("seed,bots,count", [(1, 3, 20), (2, 6, 60), (3, 12, 400), (4, 25, 300)])
def test_two_seat_fit_equals_the_dense_bradley_terry_fit(seed, bots, count):
    results = random_games(seed, bots, count)
    ours, ref = fit(results), bradley_terry(as_records(results))
    assert ours.exact_intervals
    for bot, estimate in ref.items():
        assert ours.bots[bot].rating == pytest.approx(estimate.rating, abs=1e-6)
        assert ours.bots[bot].margin == pytest.approx(estimate.margin, abs=1e-6)


# -- Plackett-Luce ------------------------------------------------------------------------------

def pl_log_posterior(theta: dict[str, float], tables: list[list[tuple[str, int, bool]]],
                     ridge: float) -> float:
    """Plackett-Luce with Breslow ties, written out seat by seat: a seat's factor is its
    strength over the strengths of every seat placed at or below it, to the power 1/(ties)."""
    total = -0.5 * ridge * sum(t * t for t in theta.values())
    for seats in tables:
        for bot, place, _ in seats:
            below = [theta[b] for b, p, _ in seats if p >= place]
            tied = sum(1 for _, p, _ in seats if p == place)
            total += (theta[bot] - math.log(sum(math.exp(x) for x in below))) / tied
    return total


def test_tables_of_three_and_four_maximise_the_plackett_luce_posterior():
    rng = random.Random(5)
    names = list("abcdef")
    tables = []
    for _ in range(40):
        seats = rng.sample(names, rng.choice([3, 4]))
        places = [rng.choice([1, 2, 2, 3, 4]) for _ in seats]
        tables.append([(b, p, False) for b, p in zip(seats, places)])
    tables.append([("a", 1, False), ("b", 5, True), ("c", 5, True), ("d", 2, False)])
    f = fit(tables)
    theta = {b: (f.bots[b].rating - 1500) / ELO_SCALE for b in names}
    best = pl_log_posterior(theta, tables, 0.5)
    for bot in names:  # the gradient is zero, and every nudge lowers the posterior
        h = 1e-5
        up = pl_log_posterior({**theta, bot: theta[bot] + h}, tables, 0.5)
        down = pl_log_posterior({**theta, bot: theta[bot] - h}, tables, 0.5)
        assert (up - down) / (2 * h) == pytest.approx(0, abs=1e-6)
        assert up < best and down < best


@pytest.mark.parametrize("result,score", [("win", 1.0), ("draw", 0.5), ("loss", 0.0)])
def test_plackett_luce_on_two_seats_is_bradley_terry(result, score):
    # The posterior the fit maximises, on one two-seat game, is Bradley-Terry's likelihood with
    # a draw as half a win: s log sigmoid(d) + (1 - s) log sigmoid(-d).
    for a, b in [(0.0, 0.0), (0.7, -0.2), (-1.5, 2.0)]:
        d = a - b
        bt = score * -math.log1p(math.exp(-d)) + (1 - score) * -math.log1p(math.exp(d))
        assert pl_log_posterior({"a": a, "b": b}, [game("a", "b", result)], 0.0) == \
            pytest.approx(bt, abs=1e-12)


def test_a_two_seat_draw_counts_half_a_win_each():
    drawn = fit([game("a", "b", "draw")] * 4 + games("a", "c", 3, 1))
    halves = fit(games("a", "b", 2, 2) + games("a", "c", 3, 1))
    for bot in "abc":
        assert drawn.bots[bot].rating == pytest.approx(halves.bots[bot].rating, abs=1e-9)


# -- warm start, order, bots without games ---------------------------------------------------

def test_a_warm_start_lands_on_the_cold_answer_in_fewer_steps():
    results = random_games(7, 30, 1500)
    first = fit(results[:1400])
    cold, warm = fit(results), fit(results, start=first.strengths)
    assert warm.iterations <= cold.iterations
    for bot in cold.bots:
        assert warm.bots[bot].rating == pytest.approx(cold.bots[bot].rating, abs=1e-9)
        assert warm.bots[bot].margin == pytest.approx(cold.bots[bot].margin, abs=1e-9)


def test_the_order_of_results_and_of_seats_does_not_matter():
    results = random_games(8, 10, 200)
    shuffled = [list(reversed(seats)) for seats in results]
    random.Random(1).shuffle(shuffled)
    a, b = fit(results), fit(shuffled)
    for bot in a.bots:
        assert a.bots[bot].rating == pytest.approx(b.bots[bot].rating, abs=1e-9)
        assert a.bots[bot].margin == pytest.approx(b.bots[bot].margin, abs=1e-9)


def test_a_bot_without_games_gets_the_prior():
    f = fit(random_games(9, 8, 300), bots=["idle"])
    idle = f.bots["idle"]
    assert idle.rating == 1500.0 and idle.games == 0 and idle.provisional
    prior_margin = Z95 * ELO_SCALE * math.sqrt(1 / 0.5)  # prior variance 4 / prior_games
    assert idle.margin == pytest.approx(prior_margin, rel=0.1)  # less the field-mean's share
    assert idle.margin > max(b.margin for k, b in f.bots.items() if k != "idle")


def test_an_empty_ladder_fits_nothing():
    f: Fit[str] = fit([])
    assert f.bots == {} and f.iterations == 0


def test_provisional_follows_the_information_of_a_bots_own_games():
    # 1.96 * ELO_SCALE / sqrt(g/4 + 1/2) < 200 from g = 10 even games on; lopsided ones count less
    field = games("a", "b", 30, 30) + games("b", "c", 30, 30) + games("a", "c", 30, 30)
    f = fit(field + games("nine", "a", 5, 4) + games("ten", "a", 5, 5)
            + games("lopsided", "c", 0, 10))
    assert [f.bots[b].provisional for b in ("a", "nine", "ten", "lopsided")] == [
        False, True, False, True]
    pair = fit(games("x", "y", 1, 1))  # a field of two: the centred margin is small, but
    assert pair.bots["x"].margin < FitConfig().provisional_margin  # two games are two games
    assert pair.bots["x"].provisional


# -- forfeits (issue 27, item 5) ----------------------------------------------------------------

def test_a_bot_that_only_forfeits_ranks_below_every_bot_that_plays():
    rng = random.Random(10)
    results = random_games(10, 6, 300)
    results += [game(f"b{rng.randrange(6)}", "quitter", "forfeit") for _ in range(10)]
    f = fit(results)
    ranked = [bot for bot, _ in f.ranked()]
    assert ranked[-1] == "quitter"
    quitter = f.bots["quitter"]
    assert quitter.games == 10 and quitter.played == 0
    assert quitter.rating < min(b.rating for k, b in f.bots.items() if k != "quitter")


def test_a_forfeit_only_bot_is_listed_last_even_above_a_bot_that_lost_more():
    # 'random' lost 100 games to 'greedy'; 'quitter' forfeited 3 to it.  On the evidence alone
    # the quitter is better known to be bad less surely, so its number may be higher; the
    # listing still puts a bot that never played below every bot that did.
    f = fit([game("greedy", "random", "win")] * 100
            + [game("greedy", "quitter", "forfeit")] * 3)
    assert f.bots["quitter"].rating > f.bots["random"].rating
    assert [bot for bot, _ in f.ranked()] == ["greedy", "random", "quitter"]


def test_a_forfeit_is_a_loss_to_the_seats_that_played_and_a_draw_among_forfeiters():
    four = [("a", 2, False), ("b", 1, False), ("c", 5, True), ("d", 5, True)]
    as_places = [("a", 2, False), ("b", 1, False), ("c", 3, False), ("d", 3, False)]
    one, other = fit([four] * 3), fit([as_places] * 3)
    for bot in "abcd":
        assert one.bots[bot].rating == pytest.approx(other.bots[bot].rating, abs=1e-9)
    assert one.bots["c"].rating == pytest.approx(one.bots["d"].rating, abs=1e-9)
    assert one.bots["c"].played == 0 and one.bots["a"].played == 3


# -- monotonicity ------------------------------------------------------------------------------

RESULT = st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from(["win", "loss", "draw"]))


@settings(max_examples=40, deadline=None)
@given(st.lists(RESULT, max_size=25), st.integers(0, 4), st.integers(0, 4))
def test_adding_a_win_never_lowers_the_winner(records, a, b):
    if a == b:
        b = (a + 1) % 5
    results = [game(f"b{x}", f"b{y}", r) for x, y, r in records if x != y]
    names = [f"b{i}" for i in range(5)]
    before = fit(results, bots=names).bots[f"b{a}"].rating
    after = fit(results + [game(f"b{a}", f"b{b}", "win")], bots=names).bots[f"b{a}"].rating
    assert after >= before - 1e-9


# -- bad input ---------------------------------------------------------------------------------

def test_bad_input_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="two or more seats"):
        fit([[("a", 1, False)]])
    with pytest.raises(ValueError, match="twice"):
        fit([[("a", 1, False), ("a", 2, False)]])
    with pytest.raises(ValueError, match="warm start"):
        fit(games("a", "b", 1, 1), start={"a": math.nan})
    with pytest.raises(ValueError, match="prior_games"):
        FitConfig(prior_games=0)


def test_large_fields_use_the_documented_approximation_close_to_the_exact_margins():
    results = random_games(11, 40, 2000)
    exact, approx = fit(results), fit(results, config=FitConfig(dense_limit=10))
    assert exact.exact_intervals and not approx.exact_intervals
    for bot, b in exact.bots.items():
        assert approx.bots[bot].rating == pytest.approx(b.rating, abs=1e-9)
        assert approx.bots[bot].margin == pytest.approx(b.margin, rel=0.05)


def test_botfit_bounds_are_the_margin_either_side():
    b = BotFit(1600.0, 50.0, False, 10, 10)
    assert (b.low, b.high) == (1550.0, 1650.0)


def test_seat_rows_index_into_the_same_fit_as_records():
    results = random_games(12, 6, 120) + [[("b0", 2, False), ("b1", 1, False), ("b2", 4, True)]]
    ids = {f"b{i}": 10 + i for i in range(6)}
    rows = [(m, ids[b], p, f) for m, seats in enumerate(results) for b, p, f in seats]
    tables, keys = tables_from_seats(*(np.array(col) for col in zip(*rows)))
    by_rows, by_records = fit_indexed(tables, keys.tolist()), fit(results)
    for name, i in ids.items():
        mine, theirs = by_rows.bots[i], by_records.bots[name]
        assert (mine.games, mine.played) == (theirs.games, theirs.played)
        assert mine.rating == pytest.approx(theirs.rating, abs=1e-9)
        assert mine.margin == pytest.approx(theirs.margin, abs=1e-9)


def test_seat_rows_must_come_together_and_seat_a_bot_once():
    def index(*rows: tuple[int, int, int, bool]) -> object:
        return tables_from_seats(*(np.array(col) for col in zip(*rows)))
    with pytest.raises(ValueError, match="together"):
        index((1, 1, 1, False), (2, 2, 1, False), (1, 3, 2, False), (2, 1, 2, False))
    with pytest.raises(ValueError, match="twice"):
        index((1, 1, 1, False), (1, 1, 2, False))
    with pytest.raises(ValueError, match="two or more"):
        index((1, 1, 1, False), (2, 1, 1, False), (2, 2, 2, False))
