"""Shared test set-up: hypothesis profiles and the toy game registered for runner tests."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings
from support.browser import browser, page  # noqa: F401 (one browser for the whole run)

from referee import games
from referee.games import register_game

# CI machines have two slow cores: no per-example deadline, sizes chosen for the CI budget.
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

register_game("toy-race", "support.toy")


@pytest.fixture
def toy_game():
    return games.find_game("toy-race")
