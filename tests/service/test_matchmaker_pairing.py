"""The matchmaker pairs on the public rating (issue 27): each round is planned from the fit's
number and interval as they stand when the round opens, not from the live Elo."""

from __future__ import annotations

import random
from typing import Any

from ladder import matchmaking as mm
from ladder.leaderboard import PUBLIC
from ladder.matchmaking import planning
from ladder.pairing import Entrant, Plan
from ladder.store import open_db

from service.matchmaking_support import add_bot, add_owner, finish_match

GAME = "tokaido-duo"


def test_a_round_is_planned_on_the_fit_read_when_it_opens(db_url, monkeypatch):
    engine = open_db(db_url)
    bots = [add_bot(engine, f"bot{i}", add_owner(engine, f"own{i}")) for i in range(6)]
    for b in bots:
        mm.join(engine, b, GAME)
    seen: list[tuple[list[Entrant], dict[int, Any]]] = []
    fits: list[dict[int, Any]] = []
    read_fit, plan_round = planning.public_fit, planning.plan_round

    def fit_spy(conn: Any, game: str) -> Any:
        fitted = read_fit(conn, game)
        fits.append(fitted.bots)
        return fitted

    def plan_spy(entrants: list[Entrant], *args: Any, **kwargs: Any) -> Plan:
        seen.append((list(entrants), fits[-1]))
        return plan_round(entrants, *args, **kwargs)

    monkeypatch.setattr(planning, "public_fit", fit_spy)
    monkeypatch.setattr(planning, "plan_round", plan_spy)
    rng = random.Random(5)
    try:
        for _ in range(40):
            released = mm.tick(engine).enqueue
            for pk in released:
                finish_match(engine, pk, rng)
            if len(seen) >= 3 or not released:
                break
    finally:
        engine.dispose()
    assert len(seen) >= 3
    first, fitted = seen[0]
    assert not fitted  # no rated result yet: everyone at the prior
    assert {e.rating for e in first} == {PUBLIC.center}
    assert all(e.margin == planning.UNRATED_MARGIN for e in first)
    entrants, fitted = seen[-1]
    assert fitted and len({e.rating for e in entrants}) > 1
    for e in entrants:
        assert (e.rating, e.margin) == (fitted[e.bot_id].rating, fitted[e.bot_id].margin)
        assert 0 < e.margin < planning.UNRATED_MARGIN
