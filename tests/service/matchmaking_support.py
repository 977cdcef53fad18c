"""Helpers for the matchmaker tests: bots and owners straight into the database, matches
finished with synthetic results (the matchmaker never looks at how a game went)."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import Engine, insert, select

from ladder.accounts import now_utc
from ladder.models import ACTIVE, Bot, Match, MatchSeat, Owner
from ladder.work import claim, finish


def add_owner(engine: Engine, name: str) -> int:
    with engine.begin() as conn:
        return int(conn.execute(insert(Owner).values(
            name=name, is_admin=False, created_at=now_utc()).returning(Owner.id)).scalar_one())


def add_bot(engine: Engine, name: str, owner: int | None, cap: int = 1) -> int:
    with engine.begin() as conn:
        return int(conn.execute(insert(Bot).values(
            name=name, spec="random", version=1, owner_id=owner, status=ACTIVE,
            created_at=now_utc(), max_concurrency=cap, games=["tokaido-duo", "doubletrack"],
        ).returning(Bot.id)).scalar_one())


def fake_log(seats: int, rng: random.Random) -> dict[str, Any]:
    """A finished match's log as :func:`ladder.work.finish` reads it: random places."""
    places = list(range(1, seats + 1))
    rng.shuffle(places)
    return {
        "result": {"seats": [{"seat": i, "rank": places[i], "score": float(seats - places[i])}
                             for i in range(seats)],
                   "end": "normal", "rounds": 1, "winners": [places.index(1)], "reason": ""},
        "players": [{"strikes": 0} for _ in range(seats)],
        "decisions": [], "faults": [], "forfeited": [],
    }


def finish_match(engine: Engine, match_pk: int, rng: random.Random) -> bool:
    held = claim(engine, match_pk, "test-worker", lease_s=60)
    if held is None:
        return False
    return finish(engine, held, fake_log(len(held.seats), rng))


def seats_of(engine: Engine) -> dict[int, list[int]]:
    """Every match's bots in seat order."""
    out: dict[int, list[int]] = {}
    with engine.connect() as conn:
        for pk, bot in conn.execute(select(MatchSeat.match_pk, MatchSeat.bot_id)
                                    .order_by(MatchSeat.match_pk, MatchSeat.seat)):
            out.setdefault(pk, []).append(bot)
    return out


def match_rows(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(Match.id, Match.state, Match.round_id, Match.pair_key,
                                        Match.fixture_id, Match.held, Match.enqueued_at,
                                        Match.rated, Match.void_reason)))
