"""``referee worker`` / ``referee beat`` for the service tests, in a subprocess.

Registers what the test process has and a real installation has not: the toy game, and
``sleepy``, a built-in bot that takes a few milliseconds a decision so a match lasts long
enough to be killed in the middle.  Run as ``python -m support.service_worker worker …``.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Mapping
from typing import Any

import bots
from referee import games
from referee.core import Decision
from referee.players import Bot

DELAY_S = 0.02

games.register_game("toy-race", "support.toy")
bots.register_bot("sleepy", "support.service_worker:SleepyBot")


class SleepyBot(Bot):
    name = "sleepy"

    def __init__(self, game: str, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str:
        time.sleep(DELAY_S)
        return self.rng.choice(decision.options).id


if __name__ == "__main__":
    from cli import main

    main(sys.argv[1:])
