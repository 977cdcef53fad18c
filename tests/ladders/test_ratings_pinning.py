"""The rating maths' guarantees at their edges: standings for forfeits, a singular matrix
refused with a clear error (never a division by zero), and the logistic helpers finite for any
strength gap (a Bradley-Terry fit of a lopsided field reaches large ones)."""

from __future__ import annotations

import math

import pytest

from ladder.ratings import _log_sigmoid, _sigmoid, cholesky, cholesky_solve, outcomes, standings


def test_a_forfeit_stands_one_place_below_every_seat():
    assert standings([1, 2, 3], [False, True, False]) == [1, 4, 3]
    assert standings([2, 1], [True, True]) == [3, 3]
    with pytest.raises(ValueError, match="differ in length"):
        standings([1, 2], [False])


def test_when_every_seat_forfeits_every_seat_loses():
    assert outcomes([3, 3], [True, True]) == ["loss", "loss"]
    assert outcomes([1, 3, 2], [False, True, False]) == ["win", "loss", "loss"]
    assert outcomes([1, 1, 3], [False, False, True]) == ["draw", "draw", "loss"]


@pytest.mark.parametrize("singular", [[[1.0, 1.0], [1.0, 1.0]], [[0.0]], [[-4.0]]])
def test_a_matrix_that_is_not_positive_definite_is_refused_by_name(singular):
    with pytest.raises(ValueError, match="not positive definite"):
        cholesky(singular)


def test_cholesky_solves_a_small_system_exactly():
    low = cholesky([[4.0, 2.0], [2.0, 5.0]])
    assert low == [[2.0, 0.0], [1.0, 2.0]]
    assert cholesky_solve(low, [8.0, 9.0]) == [1.375, 1.25]  # 4x + 2y = 8, 2x + 5y = 9


@pytest.mark.parametrize("x", [-1000.0, -40.0, 0.0, 40.0, 1000.0])
def test_the_logistic_helpers_are_finite_for_any_gap(x):
    p = _sigmoid(x)
    assert 0.0 <= p <= 1.0 and p == pytest.approx(1 / (1 + math.exp(-max(min(x, 700), -700))))
    assert _log_sigmoid(x) <= 0.0 and math.isfinite(_log_sigmoid(x))
    assert _sigmoid(x) + _sigmoid(-x) == pytest.approx(1.0)
