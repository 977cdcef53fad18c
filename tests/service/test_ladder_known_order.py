"""A living ladder of built-in bots of known order finds that order (issue 27, item 4).

The service's own parts in this process, as the embedded server runs them: a SQLite ladder,
the matchmaker's ticks (the public fit pairs the bots) and the worker's runner playing real
Doubletrack games of ``random``, ``greedy`` and ``mcts:playouts=36`` (all three at one table
every round: about 11 s CPU in all).  The fixtures' seeds, random in the service, come from a
seeded generator here, so the games, and the rounds it takes, are the same on every run.  The
seed matters: greedy and the search are about 0.7 logits apart at Doubletrack, and with one
of five seeds tried greedy still led after 15 rounds (``bench/ladder_builtin.py`` measures
the games it takes: 7, 8 and 18 a bot over three unseeded runs).
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from api.runner import run_match
from ladder.identity import claim_names
from ladder.leaderboard import leaderboard
from ladder.matchmaking import MatchmakerConfig, join, ladder_state, tick
from ladder.models import Bot
from ladder.store import open_db
from referee.netpolicy import UrlPolicy

GAME = "doubletrack"
KNOWN = ["random", "greedy", "mcts:playouts=36"]
"""Weakest first (bench/bot_strength.py: greedy beats random, the search beats greedy)."""
ROUNDS = 12


def test_the_ladder_finds_the_known_order_and_keeps_it(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = random.Random(2027)
    monkeypatch.setattr(ladder_state, "secrets", SimpleNamespace(randbits=seeds.getrandbits))
    engine = open_db(f"sqlite:///{tmp_path / 'ladder.sqlite3'}")
    try:
        claim_names(engine, {b: b for b in KNOWN})
        with engine.connect() as conn:
            ids = dict(conn.execute(select(Bot.name, Bot.id)).all())
        for bot in KNOWN:
            join(engine, ids[bot], GAME)
        rng, config, closed, orders = random.Random(1), MatchmakerConfig(), 0, []
        while closed < ROUNDS:
            result = tick(engine, config=config, rng=rng)
            assert result.enqueue or result.closed or result.opened, "the ladder stalled"
            for pk in result.enqueue:
                assert run_match(engine, pk, UrlPolicy(), lease_s=600) == "finished"
            for _ in result.closed:
                closed += 1
                board = leaderboard(engine, GAME)
                orders.append([(r["bot"], r["rating"]) for r in board])
    finally:
        engine.dispose()
    # the last 3 rounds: strongest first, ratings strictly apart, every bot with its games
    for order in orders[-3:]:
        assert [bot for bot, _ in order] == KNOWN[::-1]
        assert order[0][1] > order[1][1] > order[2][1]
    assert len(orders) == ROUNDS
