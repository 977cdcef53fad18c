"""Test bots for the toy game, of known relative strength, and a toy variant without two seats.

Registered by :func:`registered` (an autouse fixture in each test module) under names the
tournament tests use; the registration reaches worker processes through the registry snapshot
the pool hands them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bots import register_bot, unregister_bot
from referee.core import Decision
from referee.games import register_game, unregister_game
from referee.players import Bot

from support.toy import ToyGame


class Strong(Bot):
    """Always the longest step and the highest bid: wins the race nearly always."""

    def __init__(self, game: str, seed: int) -> None:
        pass

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        return decision.options[-1].id


class Weak(Bot):
    """Always the shortest step and the lowest bid."""

    def __init__(self, game: str, seed: int) -> None:
        pass

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        return decision.options[0].id


class Noisy(Bot):
    """Uniformly random, from a generator salted by the class: two subclasses are equally
    strong but do not mirror each other's choices."""

    salt = "noisy"

    def __init__(self, game: str, seed: int) -> None:
        self.rng = random.Random(f"{self.salt}:{seed}")

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        return self.rng.choice(decision.options).id


class OtherNoisy(Noisy):
    salt = "other"


class Slow(Noisy):
    """Random, but takes a few milliseconds per decision (to interrupt a tournament mid-way)."""

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        time.sleep(0.005)
        return super().decide(decision, view)


class Counting(Noisy):
    """Random, counting its decisions in :data:`DECISIONS` (matches played in this process)."""

    salt = "counting"

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        DECISIONS.append(decision.kind)
        return super().decide(decision, view)


DECISIONS: list[str] = []


class ThreeOrFour(ToyGame):
    name = "toy-race-34"
    player_counts = (3, 4)


GAME = ThreeOrFour()

BOTS = {"strong": Strong, "weak": Weak, "noisy": Noisy, "other-noisy": OtherNoisy, "slow": Slow,
        "counting": Counting}


def register() -> None:
    """Add the test bots and the toy variant to the registries (for the launcher process)."""
    for name, cls in BOTS.items():
        register_bot(name, f"{__name__}:{cls.__name__}")
    register_game("toy-race-34", __name__)


@contextmanager
def registered() -> Iterator[None]:
    """The test bots registered for the duration, so other tests see the real registries."""
    register()
    try:
        yield
    finally:
        for name in BOTS:
            unregister_bot(name)
        unregister_game("toy-race-34")
