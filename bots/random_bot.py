"""``random``: picks uniformly among the offered options, from its own seeded generator."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from referee.core import Decision
from referee.players import Bot


class RandomBot(Bot):
    name = "random"

    def __init__(self, game: str, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        return self.rng.choice(decision.options).id
