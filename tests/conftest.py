"""Shared test set-up: hypothesis profiles and the toy game registered for runner tests."""

from __future__ import annotations

import os
import signal

import pytest
from hypothesis import HealthCheck, settings

from referee import games
from referee.games import register_game

from support.browser import browser, page  # noqa: F401 (one browser for the whole run)

# A run started in the background (a CI job, nohup, `&`) inherits SIGINT ignored, and so would
# every command a test starts: the tests that stop one with Ctrl-C's signal need it as on a
# terminal (a handler here is reset to the default in each child, which Python then handles).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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
