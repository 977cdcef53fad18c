"""The ladder's front door: open a database, record matches exactly once, read their logs back.

:func:`record_match` inserts a match (``INSERT … ON CONFLICT DO NOTHING`` on its match id) and,
only if that created the row, applies its step of the rating fold (:func:`ladder.fold.apply_rating`)
in the same transaction, while holding the game's ladder lock so that concurrent writers cannot
interleave their read-modify-write of the same ratings.  A tournament records each match as it
ends and, resuming, reads back the logs it recorded (:func:`stored_logs`).

The other rooms: :mod:`ladder.logfacts` (what is read from a log), :mod:`ladder.fold` (the
ratings), :mod:`ladder.identity` (what a name stands for), :mod:`ladder.leaderboard` (reading a
ladder), :mod:`ladder.recompute` (the fold from scratch).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Connection, Engine, insert, select

from ladder.db import (
    ensure_schema, insert_ignoring, lock_ladder, make_engine, reader, translate_errors,
)
from ladder.fold import apply_rating
from ladder.identity import claim, ensure_bots, identity_spec
from ladder.logfacts import MatchFacts, match_facts
from ladder.models import CODE_LEN, FINISHED, Match, MatchSeat

LOGS_PER_READ = 500
"""Match ids per query when reading logs back (a statement's parameters are limited)."""


def open_db(url: str | None = None) -> Engine:
    """An engine for ``url`` (None: ``REFEREE_DB`` or the user's SQLite file), schema checked.

    An SQLite database is migrated to the current schema on first use; a PostgreSQL one must
    be migrated with ``referee db upgrade`` (LadderError says so).
    """
    engine = make_engine(url)
    try:
        ensure_schema(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def record_match(engine: Engine, log: Mapping[str, Any], *,
                 bots: Mapping[int, str] | None = None,
                 specs: Mapping[int, str] | None = None) -> bool:
    """Store a finished match and update its game's ratings, exactly once.

    Returns False, changing nothing, when ``log["match_id"]`` is already recorded (also when
    another writer recorded it a moment earlier).  ``bots`` maps seats to the names they are
    rated under (default: the log's player names); one bot may not sit in two seats.
    ``specs`` maps seats to what their bots are (built-in spec or URL): a name already in the
    ladder for another bot is refused (LadderError; :func:`ladder.identity.claim_names` starts
    new versions).
    """
    facts = match_facts(log, bots)
    now = datetime.now(timezone.utc)
    identities = {facts.seats[i].bot: identity_spec(spec) for i, spec in (specs or {}).items()}
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, facts.game)
        match_pk = _insert_match(conn, facts, dict(log), now)
        if match_pk is None:
            return False
        bot_ids = ensure_bots(conn, [s.bot for s in facts.seats], now)
        versions = claim(conn, identities, new_version=False, now=now) if identities else {}
        conn.execute(insert(MatchSeat), [
            {"match_pk": match_pk, "seat": s.seat, "bot_id": bot_ids[s.bot],
             "bot_version": versions.get(s.bot, 1), "rank": s.rank,
             "standing": s.standing, "score": s.score, "forfeited": s.forfeited,
             "strikes": s.strikes}
            for s in facts.seats
        ])
        apply_rating(conn, facts.game, match_pk, now,
                     [(bot_ids[s.bot], s.standing, s.forfeited) for s in facts.seats])
    return True


def _insert_match(conn: Connection, facts: MatchFacts, log: dict[str, Any],
                  now: datetime) -> int | None:
    stmt = insert_ignoring(conn, Match).values(
        match_id=facts.match_id, game=facts.game, rules_version=facts.rules_version[:CODE_LEN],
        num_seats=len(facts.seats), end_reason=facts.end_reason[:CODE_LEN], rounds=facts.rounds,
        recorded_at=now, log=log, state=FINISHED, rated=True, finished_at=now,
    ).on_conflict_do_nothing(index_elements=["match_id"]).returning(Match.id)
    return conn.execute(stmt).scalar_one_or_none()


def stored_logs(engine: Engine, match_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The logs of those of ``match_ids`` that are recorded, by match id (for a resume)."""
    found: dict[str, dict[str, Any]] = {}
    with translate_errors(engine), reader(engine) as conn:
        for start in range(0, len(match_ids), LOGS_PER_READ):
            chunk = list(match_ids[start:start + LOGS_PER_READ])
            rows = conn.execute(select(Match.match_id, Match.log)
                                .where(Match.match_id.in_(chunk)))
            found.update({match_id: dict(log) for match_id, log in rows})
    return found
