"""The solo ladder's maths (``ladder.solo``): the strength fit against a direct solution of
its normal equations, the Wilson interval against known values, what one game counts as."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ladder import InvalidError, solo
from ladder.solo import SoloResult, fit, read_result, tally, wilson


def result(bot, seed, margin, pk=[0]):
    pk[0] += 1
    return SoloResult(pk[0], bot, 50.0 + margin, 50.0, "win" if margin > 0 else "loss",
                      False, seed)


def reference(results, prior):
    """Minimise sum (m - s_bot - d_seed)^2 + prior * sum d_seed^2 by its normal equations
    (flat prior on the strengths)."""
    bots = sorted({r.bot_id for r in results})
    seeds = sorted({r.seed for r in results})
    x = np.zeros((len(results), len(bots) + len(seeds)))
    for i, r in enumerate(results):
        x[i, bots.index(r.bot_id)] = 1
        x[i, len(bots) + seeds.index(r.seed)] = 1
    y = np.array([r.margin for r in results])
    penalty = np.diag([0.0] * len(bots) + [prior] * len(seeds))
    beta = np.linalg.solve(x.T @ x + penalty, x.T @ y)
    return dict(zip(bots, beta[:len(bots)]))


TRUTH = {1: -5.0, 2: -20.0, 3: 4.0, 4: -12.0}
PLAYED = {1: range(24), 2: range(0, 12), 3: range(12, 24), 4: range(6, 18)}
"""Bots that joined and left at different times: each met different seeds."""


def ladder(luck_sd, noise_sd, seed=3):
    rng = random.Random(seed)
    luck = {f"s{k}": rng.gauss(0, luck_sd) for k in range(24)}
    return [result(b, f"s{k}", TRUTH[b] + luck[f"s{k}"] + rng.gauss(0, noise_sd))
            for b, ks in PLAYED.items() for k in ks]


@pytest.mark.parametrize("prior", [0.25, 1.0, 30.0])
def test_the_fit_solves_the_penalised_least_squares(prior):
    results = ladder(10, 3)
    fitted = fit(results, prior=prior)
    for bot, value in reference(results, prior).items():
        assert fitted[bot].value == pytest.approx(value, abs=2e-3)
        assert fitted[bot].games == len(PLAYED[bot])


def error(strengths):
    """Squared error to the truth, the common level aside (only the order is the fit's)."""
    shift = sum(TRUTH[b] - s for b, s in strengths.items()) / len(strengths)
    return sum((TRUTH[b] - s - shift) ** 2 for b, s in strengths.items())


def test_where_seeds_decide_much_shared_seeds_cancel_their_luck():
    results = ladder(15, 3)
    by_seed = {}
    for r in results:
        by_seed.setdefault(r.seed, []).append(r)
    means = {b: sum(r.margin for r in results if r.bot_id == b) / len(PLAYED[b]) for b in TRUTH}
    assert solo.seed_prior(by_seed, means) < 1  # the seeds' luck outweighs the noise
    fitted = {b: s.value for b, s in fit(results).items()}
    assert error(fitted) < error(means) / 4
    assert sorted(fitted, key=lambda b: -fitted[b]) == [3, 1, 4, 2]


def test_where_seeds_decide_nothing_the_fit_is_the_plain_mean():
    results = ladder(0, 10)
    by_seed = {}
    for r in results:
        by_seed.setdefault(r.seed, []).append(r)
    means = {b: sum(r.margin for r in results if r.bot_id == b) / len(PLAYED[b]) for b in TRUTH}
    assert solo.seed_prior(by_seed, means) >= 30
    for bot, s in fit(results).items():
        assert s.value == pytest.approx(means[bot], abs=1.0)


def test_interval_is_the_spread_of_the_margins():
    results = [result(1, f"s{k}", m) for k, m in enumerate([-10, -6, -2, 2])]
    sd = np.std([-10, -6, -2, 2], ddof=1)
    assert fit(results)[1].interval == pytest.approx(1.959964 * sd / 2, abs=1e-3)
    assert fit(results[:1])[1].interval is None


@pytest.mark.parametrize("wins, n, low, high", [
    (0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (1, 4, 0.0456, 0.6994),
])
def test_wilson_interval_matches_known_values(wins, n, low, high):
    assert wilson(wins, n) == pytest.approx((low, high), abs=1e-4)
    assert wilson(0, 0) is None


def test_one_game_read_from_its_result():
    seats = [{"seat": 0, "score": 40, "rank": 1}, {"seat": 1, "score": 35, "rank": 2}]
    won = read_result(7, 3, {"seats": seats}, False)
    assert (won.outcome, won.margin) == ("win", 5)
    drawn = read_result(7, 3, {"seats": [dict(seats[0]), {**seats[1], "rank": 1}]}, False)
    assert drawn.outcome == "draw"
    lost = read_result(7, 3, {"seats": [{**seats[0], "rank": 2}, {**seats[1], "rank": 1}]},
                       False)
    assert lost.outcome == "loss"
    forfeited = read_result(7, 3, {"seats": [{**seats[0], "rank": 2}, seats[1]]}, True)
    assert (forfeited.outcome, forfeited.score, forfeited.margin) == ("loss", 0.0, -35.0)
    assert read_result(7, 3, {"seats": seats[:1]}, False) is None  # not a solo result
    counts = tally([won, drawn, lost, forfeited])
    assert (counts["wins"], counts["draws"], counts["losses"], counts["forfeits"]) == (1, 1, 2, 1)
    assert counts["win_rate"] == 0.375 and counts["mean_margin"] == pytest.approx(-5.0)


def test_levels_and_games_checked():
    assert solo.settings("tokaido-duo", 3).options == {"automa": 3}
    with pytest.raises(InvalidError, match="levels 1-6, not 7"):
        solo.settings("tokaido-duo", 7)
    with pytest.raises(InvalidError, match="doubletrack has no solo mode"):
        solo.check_level("doubletrack", 1)
    assert solo.challenge_settings("tokaido-duo", 2, None) is None
    with pytest.raises(InvalidError, match="one bot, not 2"):
        solo.challenge_settings("tokaido-duo", 2, 1)
