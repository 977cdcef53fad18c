"""A service database the size of a living ladder, quickly: many bots, many finished matches.

A handful of matches are played by the real runner (house ``random`` against ``random-b``);
their stored rows (seats' statistics, the gzipped log and its hash, the summary) are then
copied, in bulk inserts, onto ``--matches`` finished rated matches between the registered
bots, each with its own id, seed and pair key, at increasing times.  The ratings and their
history come from the ladder's own recompute, so every read sees what a ladder that played
those matches would hold.  Playing 10,000 matches would take an hour; copying them takes
seconds, and no read depends on which moves a log holds.
"""

from __future__ import annotations

import random
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import insert, select

GAME = "tokaido-duo"
CHUNK = 1_000


def play_templates(engine: Any, count: int) -> list[int]:
    """``count`` finished matches played by the real runner: the templates copied."""
    from api.execution import play
    from ladder.identity import claim_names
    from ladder.registry import ensure_house_bots
    from ladder.work import claim, finish, rotations, schedule
    from referee.netpolicy import UrlPolicy

    ensure_house_bots(engine)
    claim_names(engine, {"random-b": "random"})
    with engine.connect() as conn:
        from ladder.models import Bot
        ids = dict(conn.execute(select(Bot.name, Bot.id)).all())
    played = schedule(engine, GAME, rotations([ids["random"], ids["random-b"]], count, "tpl"),
                      rated=False)
    for pk in played:
        held = claim(engine, pk, "bench", 60)
        assert held is not None
        finish(engine, held, play(held, UrlPolicy()))
    return played


def add_bots(engine: Any, count: int) -> list[int]:
    """``count`` active HTTP bots of one owner, in one insert (no probe: nothing plays them)."""
    from ladder.accounts import create_owner
    from ladder.models import Bot

    owner, _ = create_owner(engine, f"bench{secrets.token_hex(3)}")
    now = datetime.now(timezone.utc)
    rows = [{"name": f"bot-{i:03d}", "spec": f"http://bot{i}.example/", "version": 1,
             "owner_id": owner["id"], "url": f"http://bot{i}.example",
             "url_normalized": f"http://bot{i}.example/", "description": f"bench bot {i}",
             "games": [GAME], "status": "active", "house": False, "verify_nonce": "x",
             "created_at": now, "updated_at": now, "max_concurrency": 1, "mode": "push"}
            for i in range(count)]
    with engine.begin() as conn:
        conn.execute(insert(Bot), rows)
        return list(conn.execute(select(Bot.id).where(Bot.owner_id == owner["id"])
                                 .order_by(Bot.id)).scalars())


def copy_matches(engine: Any, templates: list[int], bots: list[int], count: int) -> list[int]:
    """``count`` finished rated matches between ``bots``, copied from the ``templates``."""
    from ladder.models import Match, MatchLog, MatchSeat

    with engine.connect() as conn:
        tpl = {m.id: m for m in conn.execute(select(Match.__table__)
                                             .where(Match.id.in_(templates))).all()}
        seats: dict[int, list[Any]] = {}
        for s in conn.execute(select(MatchSeat.__table__).where(
                MatchSeat.match_pk.in_(templates)).order_by(MatchSeat.seat)).all():
            seats.setdefault(s.match_pk, []).append(s)
        logs = {g.match_pk: g for g in conn.execute(select(MatchLog.__table__).where(
            MatchLog.match_pk.in_(templates))).all()}
        first = (conn.execute(select(Match.id).order_by(Match.id.desc()).limit(1))
                 .scalar() or 0) + 1
    rng = random.Random(26)
    began = datetime.now(timezone.utc) - timedelta(days=30)
    made: list[int] = []
    for start in range(0, count, CHUNK):
        matches, seat_rows, log_rows = [], [], []
        for n in range(start, min(count, start + CHUNK)):
            pk, src = first + n, tpl[templates[n % len(templates)]]
            at = began + timedelta(minutes=4 * n)
            matches.append({**{k: v for k, v in src._mapping.items() if k != "id"},
                            "id": pk, "match_id": f"bench-{pk}", "seed": rng.getrandbits(62),
                            "pair_key": f"bench.{pk}", "rated": True, "rating_seq": n + 1,
                            "recorded_at": at, "started_at": at,
                            "finished_at": at + timedelta(seconds=90)})
            pair = rng.sample(bots, 2)
            seat_rows += [{**s._mapping, "match_pk": pk, "bot_id": pair[i]}
                          for i, s in enumerate(seats[src.id])]
            log_rows.append({**logs[src.id]._mapping, "match_pk": pk})
            made.append(pk)
        with engine.begin() as conn:
            conn.execute(insert(Match), matches)
            conn.execute(insert(MatchSeat), seat_rows)
            conn.execute(insert(MatchLog), log_rows)
    return made


def seed(engine: Any, bots: int, matches: int, templates: int = 4) -> dict[str, Any]:
    """The whole database: templates, bots, copied matches, ratings; what the reads need."""
    from sqlalchemy import text

    from ladder.fold import ensure_ladder
    from ladder.recompute import recompute

    played = play_templates(engine, templates)
    bot_ids = add_bots(engine, bots)
    made = copy_matches(engine, played, bot_ids, matches)
    if engine.dialect.name == "postgresql":  # the ids were given: move the sequence past them
        with engine.begin() as conn:
            conn.execute(text("SELECT setval(pg_get_serial_sequence('matches', 'id'), "
                              "(SELECT max(id) FROM matches))"))
            conn.execute(text("ANALYZE"))
    with engine.begin() as conn:
        ensure_ladder(conn, GAME, datetime.now(timezone.utc))
    recompute(engine, GAME)
    return {"bots": bot_ids, "matches": made, "templates": played}
