"""Elo, error bars, LOS and the SPRT against fastchess's published test values and hand maths."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, strategies as st

from tournaments import stats
from tournaments.stats import Pentanomial

# fastchess's unit tests (elo_test.cpp, sprt_test.cpp); counts as (LL, LD, WL, DD, WD, WW).
PENTA_ELO = [
    # counts, elo, error, nelo, nelo_error, los
    ((34, 54, 31, 32, 64, 75), 55.58, 27.65, 57.94, 28.28, 1.0000),
    ((332, 433, 457, 41, 333, 334), -8.64, 10.33, -9.17, 10.96, 0.0505),
    ((7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, -19.01, 2.65, None),
]
WDL_ELO = [
    # wins, draws, losses, elo, error, nelo, nelo_error, los
    (76, 123, 89, None, None, -20.76, 40.13, 0.1553),
    (136, 111, 96, 40.70, 30.43, 49.77, 36.77, 0.9960),
    (34, 0, 356, None, None, -508.44, 34.48, None),
]
PENTA_LLR = [
    ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
]
WDL_LLR = [
    # wins, draws, losses
    ((36433, 68692, 36027), 0, 2, "normalized", 0.92),
    ((10871, 20431, 10650), -1.75, 0.25, "normalized", 2.30),
    ((21404, 40708, 21184), 0.5, 2.5, "logistic", -1.57),
    ((57433, 106593, 57030), 0, 2, "logistic", -2.59),
]


def close(value: float, expected: float) -> bool:
    """fastchess's doctest ``Approx(x).epsilon(0.01)``: within 1% (of the larger magnitude)."""
    return abs(value - expected) <= 0.01 * max(abs(value), abs(expected)) + 1e-9


@pytest.mark.parametrize("counts, elo, error, nelo, nelo_error, los", PENTA_ELO)
def test_pentanomial_estimate_matches_fastchess(counts, elo, error, nelo, nelo_error, los):
    est = Pentanomial(*counts).estimate()
    assert close(est.elo, elo) and close(est.error, error)
    assert close(est.nelo, nelo) and close(est.nelo_error, nelo_error)
    if los is not None:
        assert round(est.los, 4) == pytest.approx(los, abs=1e-4)


@pytest.mark.parametrize("w, d, l, elo, error, nelo, nelo_error, los", WDL_ELO)
def test_wdl_estimate_matches_fastchess(w, d, l, elo, error, nelo, nelo_error, los):
    est = stats.wdl_estimate(w, d, l)
    assert close(est.nelo, nelo) and close(est.nelo_error, nelo_error)
    if elo is not None:
        assert close(est.elo, elo) and close(est.error, error)
    if los is not None:
        assert round(est.los, 4) == pytest.approx(los, abs=1e-4)


@pytest.mark.parametrize("counts, elo0, elo1, model, expected", PENTA_LLR)
def test_pentanomial_llr_matches_fastchess(counts, elo0, elo1, model, expected):
    assert close(stats.pentanomial_llr(Pentanomial(*counts), elo0, elo1, model), expected)


@pytest.mark.parametrize("wdl, elo0, elo1, model, expected", WDL_LLR)
def test_trinomial_llr_matches_fastchess(wdl, elo0, elo1, model, expected):
    w, d, l = wdl
    assert close(stats.llr(stats.WDL_SCORES, (l, d, w), elo0, elo1, model), expected)


def test_hand_computed_values():
    # 3 wins in 4 expected: 400 * log10(3) Elo.
    assert stats.score_to_elo(0.75) == pytest.approx(400 * math.log10(3))
    assert stats.elo_to_score(400 * math.log10(3)) == pytest.approx(0.75)
    assert stats.score_to_elo(1.0) == math.inf and stats.score_to_elo(0.0) == -math.inf
    # Wald's bounds for alpha = beta = 0.05: ln(0.05/0.95) and its negative.
    lo, hi = stats.sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(-2.944438979) and hi == pytest.approx(2.944438979)
    # 10 pairs: 5 WW and 5 LL. Mean 1/2, pair variance 1/4, so the score's standard error is
    # sqrt(0.25 / 10) = 0.1581; the interval 0.5 ± 1.96 * 0.1581 maps to ± 400 log10(0.81/0.19).
    est = Pentanomial(ll=5, ww=5).estimate()
    assert est.elo == pytest.approx(0.0) and est.los == pytest.approx(0.5)
    half = stats.Z95 * math.sqrt(0.25 / 10)
    assert est.error == pytest.approx(400 * math.log10((0.5 + half) / (0.5 - half)))
    # nElo per game: sigma of a game is sqrt(2 * 0.25); a score of 0.6 with that spread.
    est = Pentanomial(ll=4, ww=6).estimate()
    sigma = math.sqrt(2 * 0.24)
    assert est.nelo == pytest.approx(0.1 / sigma * 800 / math.log(10))


def test_one_block_has_no_error_bar():
    est = Pentanomial(ww=1).estimate()
    assert est.error == math.inf and math.isnan(est.los)
    assert est.to_dict()["elo_error"] is None and est.to_dict()["los"] is None


def test_pair_buckets():
    pairs = [(1, 1), (1, 0.5), (1, 0), (0.5, 0.5), (0, 0.5), (0, 0), (0, 1)]
    penta = Pentanomial.from_pairs(pairs)
    assert penta.to_dict() == {"ww": 1, "wd": 1, "wl": 2, "dd": 1, "ld": 1, "ll": 1}
    assert penta.buckets() == (1, 1, 3, 1, 1) and penta.pairs == 7


@given(st.lists(st.integers(0, 40), min_size=6, max_size=6).filter(lambda c: sum(c) > 1))
def test_swapping_sides_negates_elo(counts):
    """B's view of the same pairs (buckets mirrored) has the opposite Elo and 1 - LOS."""
    a = Pentanomial(*counts)
    b = Pentanomial(ll=a.ww, ld=a.wd, wl=a.wl, dd=a.dd, wd=a.ld, ww=a.ll)
    ea, eb = a.estimate(), b.estimate()
    if math.isfinite(ea.elo):
        assert ea.elo == pytest.approx(-eb.elo, abs=1e-9)
    assert ea.los == pytest.approx(1 - eb.los, abs=1e-9)


def synthetic_pairs(rng: random.Random, p_win: float, p_draw: float):
    """Endless pairs of A's game scores; each game independent with the given chances."""
    def game() -> float:
        x = rng.random()
        return 1.0 if x < p_win else 0.5 if x < p_win + p_draw else 0.0
    while True:
        yield game(), game()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sprt_accepts_h1_for_a_clearly_stronger_side(seed):
    # About +70 Elo (score 0.6) against bounds [0, 10]: decided for H1 in a few hundred pairs.
    trace = stats.sprt_trace(synthetic_pairs(random.Random(seed), 0.5, 0.2), 0, 10, 0.05, 0.05)
    assert trace[-1].verdict == "H1" and trace[-1].llr >= 2.944
    assert all(step.verdict is None for step in trace[:-1])
    assert len(trace) < 2000


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sprt_accepts_h0_for_an_equal_pair(seed):
    trace = stats.sprt_trace(synthetic_pairs(random.Random(seed), 0.4, 0.2), 0, 25, 0.05, 0.05)
    assert trace[-1].verdict == "H0" and trace[-1].llr <= -2.944


def test_sprt_rejects_bad_parameters():
    with pytest.raises(ValueError, match="elo0"):
        stats.validate_sprt(5, 5, 0.05, 0.05, "normalized")
    with pytest.raises(ValueError, match="alpha"):
        stats.validate_sprt(0, 5, 1.5, 0.05, "normalized")
    with pytest.raises(ValueError, match="model"):
        stats.validate_sprt(0, 5, 0.05, 0.05, "bayesian")


def pair_distribution(t: float) -> list[float]:
    """Pentanomial probabilities (LL, LD, WL+DD, WD, WW) with per-pair ``(mean - 1/2) / sd``
    equal to ``t``: mass on LD, WL+DD and WD only, LD and WD summing to one half."""
    lo, hi = 0.0, 0.5
    for _ in range(100):
        wd = (lo + hi) / 2
        probs = [0.0, 0.5 - wd, 0.5, wd, 0.0]
        mu, var = stats.mean_variance(stats.PAIR_SCORES, probs)
        lo, hi = (wd, hi) if (mu - 0.5) / math.sqrt(var) < t else (lo, wd)
    return probs


@pytest.mark.parametrize("truth", ["elo0", "elo1"])
def test_expected_sprt_length_matches_simulated_tests(truth):
    """Wald's approximation against 30 simulated tests at each hypothesis (bounds wide enough
    to end in about 90 pairs): the mean length agrees within 30% (measured: -3% at elo0,
    +12% at elo1, where the last pair overshoots the bound)."""
    elo0, elo1 = 0.0, 60.0
    expected = stats.expected_pairs(elo0, elo1, 0.05, 0.05)
    assert expected is not None and expected.at_h1 == pytest.approx(expected.at_h0)
    nelo = elo1 if truth == "elo1" else elo0
    probs = pair_distribution(math.sqrt(2.0) * nelo / stats.NELO_SCALE)
    rng, lengths = random.Random(7), []
    for _ in range(30):
        scores = (rng.choices([0.25, 0.5, 0.75], probs[1:4])[0] for _ in range(100_000))
        lengths.append(len(stats.sprt_trace((_games(p) for p in scores), elo0, elo1, 0.05, 0.05)))
    mean = sum(lengths) / len(lengths)
    want = expected.at_h1 if truth == "elo1" else expected.at_h0
    assert 0.7 * want < mean < 1.3 * want, (mean, want)


def _games(pair_score: float) -> tuple[float, float]:
    """Two game scores giving a pair score (LD: 1/4, DD: 1/2, WD: 3/4)."""
    return {0.25: (0.0, 0.5), 0.5: (0.5, 0.5), 0.75: (1.0, 0.5)}[pair_score]


def test_expected_sprt_length_defaults_and_logistic_needs_the_spread():
    default = stats.expected_pairs(0.0, 10.0, 0.05, 0.05)
    assert default is not None and 3100 < default.at_h1 < 3300 and default.worst > default.at_h1
    assert stats.expected_pairs(0.0, 5.0, 0.05, 0.05, "logistic") is None
    assert stats.expected_pairs(0.0, 5.0, 0.05, 0.05, "logistic", 0.25) is not None


def test_an_even_score_is_plus_zero_and_no_spread_has_no_error_bar():
    assert math.copysign(1.0, stats.score_to_elo(0.5)) == 1.0
    even = Pentanomial(dd=5).estimate().to_dict()
    text = stats.format_elo(even)
    assert text.startswith("Elo +0.0, no spread: all 5 blocks scored 50.0%") and "±" not in text
