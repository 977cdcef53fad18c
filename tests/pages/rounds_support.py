"""A living ladder for the round, challenge and phone-layout pages: rounds opened by the real
matchmaker (the Duo ladder's first round played out: two pairs and a bye; its second waiting;
a Doubletrack table released, not played), a challenge half played, and a bot with ten probes
whose details are long.

Rounds of two ladders interleave, so a round's id (counting every ladder's rounds) and its
number (counting its own ladder's) differ: the pages must show the number.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from api.config import ServiceConfig
from ladder import matchmaking as mm, registry
from ladder.models import SCHEDULED, Match, Round
from ladder.work import claim, create_challenge, finish
from referee.games import find_game
from referee.match import play

from pages_support import players_for
from service.matchmaking_support import add_bot, add_owner
from support.apps import NoDispatcher, prepared_app

DUO, TABLE = "tokaido-duo", "doubletrack"
LONG_DETAIL = ("POST /decide answered 500 Internal Server Error after 812 ms; body: "
               "Traceback (most recent call last): File \"bot.py\", line 88, in decide "
               "choice = plan[view['round']] KeyError: 'round' " * 3)


@dataclass
class RoundsLadder:
    app: Any
    bots: dict[str, int] = field(default_factory=dict)
    owners: dict[str, int] = field(default_factory=dict)
    challenge: int = 0
    challenge_played: list[int] = field(default_factory=list)
    prober: int = 0
    duo_round: int = 0

    @property
    def engine(self) -> Any:
        return self.app.extensions["referee"].engine

    def client(self) -> Any:
        return self.app.test_client()


def play_out(engine: Any, match_pk: int, names: dict[int, str]) -> bool:
    """Claim and play ``match_pk`` as a worker would (random and greedy players)."""
    held = claim(engine, match_pk, "test-worker", 60)
    if held is None:
        return False
    seated = [names[s.bot_id] for s in held.seats]
    log = play(find_game(held.game), players_for(seated, held.game, held.seed % 10_000, {}),
               held.seed, match_id=held.attempt_id).log
    return finish(engine, held, log)


def scheduled(engine: Any, **where: Any) -> list[int]:
    with engine.connect() as conn:
        query = select(Match.id).where(Match.state == SCHEDULED, Match.held.is_(False))
        for key, value in where.items():
            query = query.where(getattr(Match, key) == value)
        return list(conn.execute(query.order_by(Match.id)).scalars())


def build(url: str) -> RoundsLadder:
    app = prepared_app(ServiceConfig(db_url=url, ratelimit=False), dispatcher=NoDispatcher())
    out = RoundsLadder(app)
    engine = out.engine
    for n in range(5):
        owner = out.owners[f"owner{n}"] = add_owner(engine, f"owner{n}")
        name = f"bot{n}-{'greedy' if n % 2 else 'random'}"
        out.bots[name] = add_bot(engine, name, owner, cap=2)
        mm.join(engine, out.bots[name], DUO)
        if n < 4:
            mm.join(engine, out.bots[name], TABLE)
    names = {v: k for k, v in out.bots.items()}
    mm.tick(engine, rng=random.Random(5))
    with engine.connect() as conn:
        first = conn.execute(select(Round.id).where(Round.game == DUO, Round.number == 1)
                             ).scalar_one()
    for step in range(2):  # the Duo ladder's first round played out (a pair's second game
        for pk in scheduled(engine, round_id=first):  # is released by the tick after its first)
            assert play_out(engine, pk, names)
        mm.tick(engine, rng=random.Random(6 + step))
    out.duo_round = first
    first = out.bots["bot0-random"]
    out.challenge, ids = create_challenge(engine, out.owners["owner0"], DUO,
                                          [first, out.bots["bot1-greedy"]], 4)
    out.challenge_played = ids[:2]
    for pk in out.challenge_played:  # one pair over, the other not started
        assert play_out(engine, pk, names)
    out.prober = out.bots["bot4-random"]
    for n in range(10):
        registry.record_health(engine, out.prober, n % 3 != 0, None if n % 3 == 0 else 40.0 + n,
                               "ok" if n % 3 else "http_status", LONG_DETAIL)
    return out
