"""Does what a real game says beyond its winner rank built-in bots faster?  (issue 27, item 3)

A pool of real games between built-in bots of different strength (``random``, ``greedy`` and
``mcts`` at several playout budgets) is played once, with fixed seeds, and cached to a file
(one JSON line a game, so an interrupted run resumes): Tokaido Duo in pairs, Doubletrack at
tables of 4 drawn from the bots (each table's seats in random order).  The *full-data order*
is the results-only fit (:mod:`ladder.fit`, the public rating) on the whole pool.  Then, for
growing subsamples of the pool (random, ``--draws`` times each), two fits are compared by how
often their order equals the full-data order (and by Spearman rho with it):

- ``results``: the public rating, placings only (Bradley-Terry / Plackett-Luce);
- ``margin``: the same placings, plus what the score says: a normal (Thurstone) model of each
  pair's score difference, ``s_a - s_b ~ N(c (theta_a - theta_b), sigma^2)``, ``c`` and
  ``sigma`` fitted on the subsample by least squares, its information added to the placings'
  in one joint MAP (Tokaido Duo: the final scores; Doubletrack: the final money, its tie-break
  after placing being the score, a seat's money difference to every other seat of the table).

The margin model changes who is stronger only where the scores disagree with the placings;
the study reports that too (``margin`` on the full pool against the full-data order).

Usage: python bench/ladder_real.py [--cache FILE] [--duo 240] [--doubletrack 160] [--draws 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from arena import MatchDescription, Seat, TimeControl, play_match  # noqa: E402

BOTS = ("random", "greedy", "mcts:playouts=4", "mcts:playouts=12", "mcts:playouts=36")
"""Built-in bots of (expected) increasing strength; the study's order is the fit's, not this."""
GAMES = (("tokaido-duo", 2), ("doubletrack", 4))


def play_one(game: str, bots: list[str], seed: int) -> dict[str, object]:
    """One game of ``bots`` (seat order); each seat's bot, standing, score (and money)."""
    description = MatchDescription(game, tuple(Seat(b) for b in bots), seed,
                                   time_control=TimeControl(decision_ms=60_000))
    result = play_match(description).result
    money = (result.extra or {}).get("money")
    return {"game": game, "seed": seed,
            "seats": [{"bot": bots[s.seat], "rank": s.rank, "score": s.score,
                       "money": None if money is None else money[s.seat]}
                      for s in result.seats]}


def pool(path: Path, counts: dict[str, int]) -> list[dict[str, object]]:
    """The cached games, playing the missing ones (fixed seeds: the same pool every time)."""
    games: list[dict[str, object]] = []
    if path.exists():
        games = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    have = {(g["game"], g["seed"]) for g in games}
    with path.open("a") as out:
        for game, seats in GAMES:
            rng = random.Random(f"{game}-tables")
            for seed in range(counts[game]):
                bots = rng.sample(BOTS, seats)  # drawn even when cached: same tables
                if (game, seed) in have:
                    continue
                row = play_one(game, bots, seed)
                out.write(json.dumps(row) + "\n")
                out.flush()
                games.append(row)
    return games
