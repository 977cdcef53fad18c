"""The same seeds give the same games: digests of whole games, checked against golden files.

For fixed seeds and seeded bots, every game's match log (less the match id and the timings:
the bots' and the referee's own stalls) and every view a seat was shown are hashed. A refactor
or a speed-up of an engine must leave them all unchanged; a change of the rules changes them on purpose, and then the golden file is
regenerated with ``REFEREE_REGEN_GOLDEN=1 pytest tests/test_golden_games.py`` and the diff
reviewed (and the game's ``rules_version`` raised).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bots import find_bot
from referee.core import Decision
from referee.games import find_game
from referee.match import Runner, TimeControl
from referee.players import Bot, InProcessPlayer

GOLDEN = Path(__file__).parent / "golden" / "games.json"
SEEDS = range(10)
CONFIGS = {
    "tokaido-duo/2/random": ("tokaido-duo", ["random", "random"], {}),
    "tokaido-duo/2/greedy": ("tokaido-duo", ["greedy", "random"], {}),
    "tokaido-duo/solo/greedy": ("tokaido-duo", ["greedy"], {"automa": 3}),
    "doubletrack/3/random": ("doubletrack", ["random"] * 3, {}),
    "doubletrack/4/greedy": ("doubletrack", ["greedy", "random", "greedy", "random"], {}),
}


class Recording(Bot):
    """Wraps a bot and hashes every view it is shown, in order."""

    def __init__(self, inner: Bot, digest: Any) -> None:
        self.inner, self.digest = inner, digest

    def decide(self, decision: Decision, view: Mapping[str, Any]) -> str | tuple[str, str]:
        self.digest.update(json.dumps(dict(view), sort_keys=True).encode())
        self.digest.update(json.dumps(decision.option_ids()).encode())
        return self.inner.decide(decision, view)


def game_digest(game_name: str, bots: list[str], options: dict[str, Any], seed: int) -> str:
    game = find_game(game_name)
    views = hashlib.sha256()
    players = [InProcessPlayer(name=b, bot=Recording(find_bot(b, game_name, seed * 7 + i), views))
               for i, b in enumerate(bots)]
    log = Runner(game, players, seed, options=options, time_control=TimeControl(600_000),
                 match_id="golden").run().log
    for d in log["decisions"]:
        d.pop("ms")
        d.pop("stall_ms", None)  # the referee's own stalls: a timing too
    return hashlib.sha256(json.dumps(log, sort_keys=True).encode() + views.digest()).hexdigest()


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_same_seeds_give_the_same_games_as_the_golden_file(config: str) -> None:
    game, bots, options = CONFIGS[config]
    got = [game_digest(game, bots, options, seed) for seed in SEEDS]
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if os.environ.get("REFEREE_REGEN_GOLDEN"):
        golden[config] = got
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    differing = [seed for seed, (a, b) in enumerate(zip(got, golden[config])) if a != b]
    assert not differing, f"{config}: seeds {differing} play differently from the golden file"
