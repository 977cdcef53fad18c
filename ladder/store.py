"""The ladder's front door: open a database, record matches exactly once, read the leaderboard.

Ratings are a fold over a game's rated, finished matches in ``matches.rating_seq`` order
(:class:`RatingFold`).  :func:`record_match` applies one step of that fold in the same
transaction that inserts the match, and only if the insert created the row (``INSERT … ON
CONFLICT DO NOTHING``), while holding the game's ladder lock so that concurrent writers cannot
interleave their read-modify-write of the same ratings; the step's ``rating_seq`` is drawn
under that lock (:func:`apply_rating`, shared with the service's workers), so it is the order
the steps were applied in, and :func:`recompute` (the whole fold from scratch) reproduces the
incremental ratings exactly.

A bot's name stands for one bot: :func:`claim_names` records what (its spec or URL) and
refuses a different bot under a name already in the ladder unless asked for a new version.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import groupby
from operator import itemgetter
from typing import Any

from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import (
    Connection, Engine, Row, and_, bindparam, case, delete, func, insert, select, update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased

from ladder import LadderError
from ladder.db import ensure_schema, lock_ladder, make_engine, reader, translate_errors
from ladder.models import FINISHED, Bot, Ladder, Match, MatchSeat, Rating, RatingHistory
from ladder.models import GAME_LEN, MATCH_ID_LEN, NAME_LEN, SPEC_LEN
from ladder.ratings import (
    INITIAL_SKILL, BTEstimate, EloConfig, SkillRating, bradley_terry, elo_two, elo_update,
    outcomes, plackett_luce, plackett_luce_two, standings,
)

MAX_SEATS = 16
CHUNK = 5_000
"""Matches read (and history rows written) per batch when rewriting a ladder."""


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


# -- reading a match log ----------------------------------------------------------------------

@dataclass(frozen=True)
class SeatFact:
    seat: int
    bot: str
    rank: int
    standing: int
    score: float | None
    forfeited: bool
    strikes: int


@dataclass(frozen=True)
class MatchFacts:
    """What the ladder needs from a match log, validated."""

    match_id: str
    game: str
    rules_version: str
    end_reason: str
    rounds: int
    seats: tuple[SeatFact, ...]


def match_facts(log: Mapping[str, Any], bots: Mapping[int, str] | None = None) -> MatchFacts:
    """Validate a Runner log (``referee.match.Runner._log``); LadderError names the problem."""
    try:
        return _match_facts(log, bots or {})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, LadderError):
            raise
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise LadderError(f"bad match log {_log_id(log)}: {what}") from None


def _log_id(log: Any) -> str:
    return repr(log.get("match_id")) if isinstance(log, Mapping) else "(not a mapping)"


def _match_facts(log: Mapping[str, Any], bots: Mapping[int, str]) -> MatchFacts:
    match_id = _text(log["match_id"], "match_id", MATCH_ID_LEN)
    try:  # stored as JSON for replays: refuse here, not half-way through a transaction
        json.dumps(log, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise LadderError(f"bad match log {match_id!r}: not JSON: {exc}") from None
    game = _text(log["game"], "game", GAME_LEN)
    result, players = log["result"], log["players"]
    seats = sorted(result["seats"], key=lambda s: int(s["seat"]))
    if not 2 <= len(seats) <= MAX_SEATS or [int(s["seat"]) for s in seats] != list(range(len(seats))):
        raise LadderError(f"bad match log {match_id!r}: seats must be 0..n-1 with 2 <= n <= {MAX_SEATS}")
    if len(players) != len(seats):
        raise LadderError(f"bad match log {match_id!r}: {len(players)} players for {len(seats)} seats")
    forfeits = {int(i) for i in log.get("forfeited", [])} | {
        i for i, p in enumerate(players) if p.get("forfeited")
    }
    names = [_text(bots.get(i, players[i]["name"]), f"bot name of seat {i}", NAME_LEN)
             for i in range(len(seats))]
    if len(set(names)) != len(names):
        raise LadderError(f"match {match_id!r}: the same bot sits in two seats ({', '.join(names)});"
                          " enter it twice under different names")
    ranks = [int(s["rank"]) for s in seats]
    forfeited = [i in forfeits for i in range(len(seats))]
    places = standings(ranks, forfeited)
    facts = tuple(
        SeatFact(i, names[i], ranks[i], places[i], _score(s.get("score")), forfeited[i],
                 int(players[i].get("strikes", 0)))
        for i, s in enumerate(seats)
    )
    return MatchFacts(match_id, game, str(log.get("rules_version", "")), str(result["end"]),
                      int(result["rounds"]), facts)


def _text(value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str) or not value or len(value) > limit:
        raise LadderError(f"{what} must be a non-empty string of at most {limit} characters")
    return value


def _score(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


# -- the fold ---------------------------------------------------------------------------------

HistoryValues = tuple[float, float, float, float]
"""A seat's rating history entry for one match: elo_before, elo_after, mu, sigma."""


@dataclass(slots=True)
class BotRating:
    """A bot's running ratings and counts in one ladder."""

    elo: float
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_match_pk: int = 0
    last_played: datetime | None = None


def _count(state: BotRating, result: str, match_pk: int, played_at: datetime | None) -> None:
    """A match's result in a bot's counts."""
    if result == "win":
        state.wins += 1
    elif result == "draw":
        state.draws += 1
    else:
        state.losses += 1
    state.games += 1
    state.last_match_pk, state.last_played = match_pk, played_at


class RatingFold:
    """The rating fold's state for one game; ``step`` (or ``add``) is one match."""

    def __init__(self, game: str, config: EloConfig,
                 states: dict[int, BotRating] | None = None) -> None:
        self.game, self.config = game, config
        self.states: dict[int, BotRating] = states if states is not None else {}

    def state(self, bot_id: int) -> BotRating:
        state = self.states.get(bot_id)
        if state is None:
            state = self.states[bot_id] = BotRating(self.config.start, INITIAL_SKILL.mu,
                                                    INITIAL_SKILL.sigma)
        return state

    def step(self, match_pk: int, played_at: datetime | None,
             seats: Sequence[Sequence[Any]]) -> list[HistoryValues]:
        """Apply one match; return each seat's ``(elo_before, elo_after, mu, sigma)``.

        Each seat starts with ``(bot_id, standing, forfeited)``; anything after that is
        ignored, so that a recompute can pass the rows it read as they are.
        """
        if len(seats) == 2:
            return self._step_two(match_pk, played_at, seats[0], seats[1])
        return self._step_many(match_pk, played_at, seats)

    def _step_many(self, match_pk: int, played_at: datetime | None,
                   seats: Sequence[Sequence[Any]]) -> list[HistoryValues]:
        """:meth:`step` for any number of seats."""
        states, places, forfeited, elos, games, skills = [], [], [], [], [], []
        known = self.states
        for seat in seats:  # one pass, not six list comprehensions: this runs a million times
            state = known.get(seat[0]) or self.state(seat[0])
            states.append(state)
            places.append(seat[1])
            forfeited.append(seat[2])
            elos.append(state.elo)
            games.append(state.games)
            skills.append((state.mu, state.sigma))
        elo = elo_update(elos, games, places, self.config)
        skill = plackett_luce(skills, places)
        results = outcomes(places, forfeited)
        values = []
        for state, new_elo, (mu, sigma), result in zip(states, elo, skill, results):
            values.append((state.elo, new_elo, mu, sigma))
            state.elo, state.mu, state.sigma = new_elo, mu, sigma
            _count(state, result, match_pk, played_at)
        return values

    def _step_two(self, match_pk: int, played_at: datetime | None, seat_a: Sequence[Any],
                  seat_b: Sequence[Any]) -> list[HistoryValues]:
        """:meth:`step` for two seats (most ladders; a recompute runs it a million times):
        the same functions' two-seat forms, without the per-seat lists."""
        known = self.states
        a = known.get(seat_a[0]) or self.state(seat_a[0])
        b = known.get(seat_b[0]) or self.state(seat_b[0])
        place_a, place_b = seat_a[1], seat_b[1]
        elo_a, elo_b = elo_two(a.elo, b.elo, a.games, b.games, place_a, place_b, self.config)
        (mu_a, sigma_a), (mu_b, sigma_b) = plackett_luce_two(
            (a.mu, a.sigma), (b.mu, b.sigma), place_a, place_b)
        result_a, result_b = outcomes((place_a, place_b), (seat_a[2], seat_b[2]))
        values = [(a.elo, elo_a, mu_a, sigma_a), (b.elo, elo_b, mu_b, sigma_b)]
        a.elo, a.mu, a.sigma = elo_a, mu_a, sigma_a
        b.elo, b.mu, b.sigma = elo_b, mu_b, sigma_b
        _count(a, result_a, match_pk, played_at)
        _count(b, result_b, match_pk, played_at)
        return values

    def add(self, match_pk: int, played_at: datetime,
            seats: Sequence[tuple[int, int, bool]]) -> list[dict[str, Any]]:
        """``step``, returning the match's rating history rows."""
        return [
            {"match_pk": match_pk, "game": self.game, "bot_id": bot_id, "elo_before": before,
             "elo_after": after, "mu": mu, "sigma": sigma}
            for (bot_id, _, _), (before, after, mu, sigma)
            in zip(seats, self.step(match_pk, played_at, seats))
        ]


# -- recording --------------------------------------------------------------------------------

def record_match(engine: Engine, log: Mapping[str, Any], *,
                 bots: Mapping[int, str] | None = None,
                 specs: Mapping[int, str] | None = None) -> bool:
    """Store a finished match and update its game's ratings, exactly once.

    Returns False, changing nothing, when ``log["match_id"]`` is already recorded (also when
    another writer recorded it a moment earlier).  ``bots`` maps seats to the names they are
    rated under (default: the log's player names); one bot may not sit in two seats.
    ``specs`` maps seats to what their bots are (built-in spec or URL): a name already in the
    ladder for another bot is refused (LadderError; :func:`claim_names` starts new versions).
    """
    facts = match_facts(log, bots)
    now = datetime.now(timezone.utc)
    identities = {facts.seats[i].bot: identity_spec(spec) for i, spec in (specs or {}).items()}
    with translate_errors(engine), engine.begin() as conn:
        lock_ladder(conn, facts.game)
        match_pk = _insert_match(conn, facts, dict(log), now)
        if match_pk is None:
            return False
        bot_ids = _ensure_bots(conn, [s.bot for s in facts.seats], now)
        versions = _claim(conn, identities, new_version=False, now=now) if identities else {}
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


def apply_rating(conn: Connection, game: str, match_pk: int, now: datetime,
                 seats: Sequence[tuple[int, int, bool]]) -> list[dict[str, Any]]:
    """One step of ``game``'s rating fold for the finished match ``match_pk`` (seats as
    ``(bot_id, standing, forfeited)``), inside the caller's transaction, which must hold the
    ladder lock.  Numbers the match in the fold's order; returns the history rows written."""
    config = _ensure_ladder(conn, game, now)
    seq = conn.execute(select(func.coalesce(func.max(Match.rating_seq), 0) + 1)
                       .where(Match.game == game)).scalar_one()
    conn.execute(update(Match).where(Match.id == match_pk).values(rating_seq=seq))
    bot_ids = [bot_id for bot_id, _, _ in seats]
    known = _load_ratings(conn, game, bot_ids)
    fold = RatingFold(game, config, dict(known))
    history = fold.add(match_pk, now, seats)
    _save_ratings(conn, game, fold.states, set(known))
    conn.execute(insert(RatingHistory), history)
    return history


# -- what a name stands for -------------------------------------------------------------------

def identity_spec(bot: str) -> str:
    """What a name is recorded as standing for: a built-in spec as given, a URL without its
    credentials (never stored) or trailing slash, scheme and host in lower case."""
    if "://" not in bot:
        return bot[:SPEC_LEN]
    try:
        parts = urlsplit(bot)
        host = (parts.hostname or "").lower()
        if ":" in host:
            host = f"[{host}]"
        netloc = host + (f":{parts.port}" if parts.port is not None else "")
    except ValueError:
        return bot[:SPEC_LEN]
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), parts.query,
                       ""))[:SPEC_LEN]


def claim_names(engine: Engine, bots: Mapping[str, str], *,
                new_version: bool = False) -> dict[str, int]:
    """Check (and record) that each name in ``bots`` (name -> spec or URL) stands for that bot.

    A new name is created with its spec; a name recorded before specs were kept adopts it.  A
    name standing for another bot raises LadderError, or with ``new_version`` starts version
    n+1 under the name (its rating carries on, its matches record the version).  Returns each
    name's version.
    """
    now = datetime.now(timezone.utc)
    identities = {name: identity_spec(spec) for name, spec in bots.items()}
    with translate_errors(engine), engine.begin() as conn:
        _ensure_bots(conn, list(identities), now)
        return _claim(conn, identities, new_version=new_version, now=now)


def _claim(conn: Connection, identities: Mapping[str, str], *, new_version: bool,
           now: datetime) -> dict[str, int]:
    rows = conn.execute(select(Bot.id, Bot.name, Bot.spec, Bot.version, Bot.owner_id)
                        .where(Bot.name.in_(list(identities)))).all()
    versions: dict[str, int] = {}
    for row in rows:
        wanted = identities[row.name]
        if row.spec is None:
            conn.execute(update(Bot).where(Bot.id == row.id).values(spec=wanted))
        elif row.spec != wanted:
            if not new_version or row.owner_id is not None:
                hint = ("it is a service bot; choose another name" if row.owner_id is not None
                        else "use another name (NAME=BOT), or --new-version to replace it")
                raise LadderError(
                    f"the ladder's bot {row.name!r} is {row.spec!r} (version {row.version}), "
                    f"not {wanted!r}: {hint}")
            conn.execute(update(Bot).where(Bot.id == row.id)
                         .values(spec=wanted, version=row.version + 1, updated_at=now))
            versions[row.name] = row.version + 1
            continue
        versions[row.name] = row.version
    return versions


def insert_ignoring(conn: Connection, model: Any) -> Any:
    """The dialect's INSERT, which offers ``on_conflict_do_nothing``."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(model)


def _insert_match(conn: Connection, facts: MatchFacts, log: dict[str, Any],
                  now: datetime) -> int | None:
    stmt = insert_ignoring(conn, Match).values(
        match_id=facts.match_id, game=facts.game, rules_version=facts.rules_version[:32],
        num_seats=len(facts.seats), end_reason=facts.end_reason[:32], rounds=facts.rounds,
        recorded_at=now, log=log, state=FINISHED, rated=True, finished_at=now,
    ).on_conflict_do_nothing(index_elements=["match_id"]).returning(Match.id)
    return conn.execute(stmt).scalar_one_or_none()


def _ensure_ladder(conn: Connection, game: str, now: datetime) -> EloConfig:
    default = EloConfig()
    conn.execute(insert_ignoring(conn, Ladder).values(
        game=game, elo_k=default.k, elo_k_provisional=default.k_provisional,
        elo_provisional_games=default.provisional_games, created_at=now,
    ).on_conflict_do_nothing(index_elements=["game"]))
    config = _ladder_config(conn, game)
    if config is None:  # pragma: no cover - inserted just above, under the ladder lock
        raise RuntimeError(f"ladder row for {game!r} vanished")
    return config


def _ladder_config(conn: Connection, game: str) -> EloConfig | None:
    row = conn.execute(
        select(Ladder.elo_k, Ladder.elo_k_provisional, Ladder.elo_provisional_games)
        .where(Ladder.game == game)
    ).one_or_none()
    if row is None:
        return None
    return EloConfig(row.elo_k, row.elo_k_provisional, row.elo_provisional_games)


def _ensure_bots(conn: Connection, names: Sequence[str], now: datetime) -> dict[str, int]:
    """Ids of the named bots, created if new.

    Bots are shared by every game's ladder, so writers of two games (holding different ladder
    locks) may insert the same new names at once; inserting in sorted order makes them wait
    for each other in the same order, never in a deadlock.
    """
    conn.execute(
        insert_ignoring(conn, Bot).on_conflict_do_nothing(index_elements=["name"]),
        [{"name": n, "created_at": now} for n in sorted(names)],
    )
    rows = conn.execute(select(Bot.name, Bot.id).where(Bot.name.in_(names))).all()
    return {name: bot_id for name, bot_id in rows}


def _load_ratings(conn: Connection, game: str, bot_ids: Sequence[int]) -> dict[int, BotRating]:
    rows = conn.execute(
        select(Rating.__table__).where(Rating.game == game, Rating.bot_id.in_(bot_ids))
    )
    return {
        r.bot_id: BotRating(r.elo, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses,
                            r.last_match_pk, r.last_played)
        for r in rows
    }


def _rating_row(game: str, bot_id: int, s: BotRating) -> dict[str, Any]:
    return {"game": game, "bot_id": bot_id, "elo": s.elo, "mu": s.mu, "sigma": s.sigma,
            "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses,
            "last_match_pk": s.last_match_pk, "last_played": s.last_played}


def _save_ratings(conn: Connection, game: str, states: Mapping[int, BotRating],
                  existing: set[int]) -> None:
    new = [_rating_row(game, b, s) for b, s in states.items() if b not in existing]
    if new:
        conn.execute(insert(Rating), new)
    for bot_id in existing:
        row = _rating_row(game, bot_id, states[bot_id])
        conn.execute(update(Rating).where(Rating.game == game, Rating.bot_id == bot_id)
                     .values({k: v for k, v in row.items() if k not in ("game", "bot_id")}))


# -- recompute --------------------------------------------------------------------------------

def recompute(engine: Engine, game: str | None = None, *,
              elo: EloConfig | None = None) -> int:
    """Rebuild ratings and history as the fold over matches in order; return matches folded.

    ``game`` None rebuilds every game's ladder.  ``elo`` first replaces the ladder's Elo
    settings (the only way to change them, so ratings always match their settings).
    """
    with translate_errors(engine):
        names = [game] if game is not None else games(engine)
        return sum(_recompute_game(engine, g, elo) for g in names)


def _recompute_game(engine: Engine, game: str, elo: EloConfig | None) -> int:
    with engine.begin() as conn:
        lock_ladder(conn, game)
        return refold(conn, game, elo)


def refold(conn: Connection, game: str, elo: EloConfig | None = None) -> int:
    """:func:`recompute` of one game inside the caller's transaction, which must hold the
    ladder lock (so a change and the recompute it calls for commit together)."""
    if elo is not None:
        _ensure_ladder(conn, game, datetime.now(timezone.utc))
        conn.execute(update(Ladder).where(Ladder.game == game).values(
            elo_k=elo.k, elo_k_provisional=elo.k_provisional,
            elo_provisional_games=elo.provisional_games))
    config = _ladder_config(conn, game)
    if config is None:
        return 0
    fold = RatingFold(game, config)
    matches, seats = _refold_history(conn, fold)
    _drop_stale_history(conn, game, seats)
    _fill_last_played(conn, fold.states)
    conn.execute(delete(Rating).where(Rating.game == game))
    _insert_chunked(conn, Rating, [_rating_row(game, b, s) for b, s in fold.states.items()])
    return matches


def folded(game: Any) -> tuple[Any, ...]:
    """The matches the rating fold runs over: ``game``'s rated, finished ones."""
    return (Match.game == game, Match.state == FINISHED, Match.rated.is_(True),
            Match.rating_seq.is_not(None))


def _refold_history(conn: Connection, fold: RatingFold) -> tuple[int, int]:
    """Run ``fold`` over its game's matches in order, streaming the history it produces into
    the database; return the numbers of matches and seats folded.

    ``CHUNK`` matches at a time: a chunk's seats are read whole, with their stored history
    rows, then only the rows that differ are written (rewritten in place, or inserted where a
    seat has none), so memory stays flat however many results the ladder holds, no write
    lands in a table while it is being read, and a recompute that changes nothing writes
    nothing.  Rows travel as plain tuples (:class:`_DriverStatement`).
    """
    read = _DriverStatement(conn, _seats_with_history(), ("game", "after"))
    rewrite = _DriverStatement(conn, _UPDATE_HISTORY, _UPDATE_HISTORY_FIELDS)
    add = _DriverStatement(conn, _INSERT_HISTORY, _INSERT_HISTORY_FIELDS)
    matches = seats = 0
    after = 0
    while chunk := read.fetchall((fold.game, after)):
        changed: list[tuple[Any, ...]] = []
        missing: list[tuple[Any, ...]] = []
        for match_pk, rows in groupby(chunk, key=itemgetter(3)):
            seat_rows = list(rows)
            for row, new in zip(seat_rows, fold.step(match_pk, None, seat_rows)):
                if row[4] is None:
                    missing.append((match_pk, fold.game, row[0], *new))
                elif new != row[5:9]:
                    changed.append((*new, row[4]))
            matches += 1
            seats += len(seat_rows)
        rewrite.executemany(changed)
        add.executemany(missing)
        after = chunk[-1][9]
    return matches, seats


def _seats_with_history() -> Any:
    """The seats of the next ``CHUNK`` folded matches of a game after ``rating_seq`` ``after``,
    in fold order: ``(bot_id, standing, forfeited, match_pk, history id, elo_before,
    elo_after, mu, sigma, rating_seq)`` (a :meth:`RatingFold.step` seat first), the history
    columns None where the seat has no history row.

    The chunk's matches come from the fold's index alone (``ix_matches_fold``), never from
    their rows: a CLI match's row holds its whole log, and SQLite reaches a column stored
    after it by walking the log's overflow pages.
    """
    h = RatingHistory
    chunk = (select(Match.id, Match.rating_seq)
             .where(*folded(bindparam("game")), Match.rating_seq > bindparam("after"))
             .order_by(Match.rating_seq).limit(CHUNK).subquery("chunk"))
    return (
        select(MatchSeat.bot_id, MatchSeat.standing, MatchSeat.forfeited, MatchSeat.match_pk,
               h.id, h.elo_before, h.elo_after, h.mu, h.sigma, chunk.c.rating_seq)
        .select_from(chunk)
        .join(MatchSeat, MatchSeat.match_pk == chunk.c.id)
        .outerjoin(h, and_(h.match_pk == MatchSeat.match_pk, h.bot_id == MatchSeat.bot_id))
        .order_by(chunk.c.rating_seq, MatchSeat.seat)
    )


_HISTORY_VALUES = ("elo_before", "elo_after", "mu", "sigma")
_UPDATE_HISTORY_FIELDS = (*(f"new_{name}" for name in _HISTORY_VALUES), "history_id")
_UPDATE_HISTORY = update(RatingHistory).where(RatingHistory.id == bindparam("history_id")).values(
    {name: bindparam(f"new_{name}") for name in _HISTORY_VALUES})
_INSERT_HISTORY_FIELDS = ("match_pk", "game", "bot_id", *_HISTORY_VALUES)
_INSERT_HISTORY = insert(RatingHistory).values(
    {name: bindparam(name) for name in _INSERT_HISTORY_FIELDS})


class _DriverStatement:
    """A statement compiled once for the connection's driver, run with plain tuples.

    SQLAlchemy converts every row's parameters and results in Python: about 3 us a row written
    and 1 us a row read, more than the database's own work in a recompute.  The statements
    run here take and give only ints, floats, strings and None, which both drivers (sqlite3,
    psycopg) handle as they are; SQLite hands booleans back as 0 and 1.
    """

    def __init__(self, conn: Connection, stmt: Any, fields: Sequence[str]) -> None:
        compiled = stmt.compile(dialect=conn.dialect)
        self.conn, self.sql, self.fields = conn, str(compiled), tuple(fields)
        self.defaults = dict(compiled.params)  # values SQLAlchemy bound itself (a LIMIT)
        self.positions: list[str] | None = (
            list(compiled.positiontup or ()) if compiled.positional else None)
        self.as_is = self.positions == list(self.fields)

    def params(self, row: tuple[Any, ...]) -> Any:
        """``row`` (in ``fields`` order) as the driver wants it: a tuple or a dict."""
        if self.as_is:
            return row
        named = {**self.defaults, **dict(zip(self.fields, row))}
        return named if self.positions is None else tuple(named[n] for n in self.positions)

    def fetchall(self, row: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        cursor = self.conn.connection.cursor()
        try:
            cursor.execute(self.sql, self.params(row))
            return list(cursor.fetchall())
        finally:
            cursor.close()

    def executemany(self, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self.conn.exec_driver_sql(self.sql, [self.params(row) for row in rows])


def _drop_stale_history(conn: Connection, game: str, seats: int) -> None:
    """Delete history rows of ``game`` that belong to no seat (if the fold did not write them
    all, there are more than ``seats``)."""
    h = RatingHistory
    stored = conn.execute(select(func.count()).select_from(h).where(h.game == game)).scalar_one()
    if stored > seats:
        seat = select(MatchSeat.match_pk).where(MatchSeat.match_pk == h.match_pk,
                                                MatchSeat.bot_id == h.bot_id)
        conn.execute(delete(h).where(h.game == game, ~seat.exists()))


def _fill_last_played(conn: Connection, states: Mapping[int, BotRating]) -> None:
    """Set each bot's ``last_played`` from its last match (the fold ran without the times:
    reading one per seat was a fifth of a recompute)."""
    last = sorted({s.last_match_pk for s in states.values()})
    played: dict[int, datetime] = {}
    for start in range(0, len(last), CHUNK):
        rows = conn.execute(select(Match.id, Match.finished_at)
                            .where(Match.id.in_(last[start:start + CHUNK])))
        played.update((pk, at) for pk, at in rows if at is not None)
    for state in states.values():
        state.last_played = played[state.last_match_pk]


def _insert_chunked(conn: Connection, model: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        conn.execute(insert(model), rows[start:start + CHUNK])


# -- reading ----------------------------------------------------------------------------------

def ladder_settings(engine: Engine, game: str) -> EloConfig | None:
    """The Elo settings of ``game``'s ladder (None if nothing was recorded for it)."""
    with translate_errors(engine), reader(engine) as conn:
        return _ladder_config(conn, game)


def stored_logs(engine: Engine, match_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The logs of those of ``match_ids`` that are recorded, by match id (for a resume)."""
    found: dict[str, dict[str, Any]] = {}
    with translate_errors(engine), reader(engine) as conn:
        for start in range(0, len(match_ids), 500):
            chunk = list(match_ids[start:start + 500])
            rows = conn.execute(select(Match.match_id, Match.log)
                                .where(Match.match_id.in_(chunk)))
            found.update({match_id: dict(log) for match_id, log in rows})
    return found


def games(engine: Engine) -> list[str]:
    """The games that have a ladder in this database."""
    with translate_errors(engine), reader(engine) as conn:
        return list(conn.execute(select(Ladder.game).order_by(Ladder.game)).scalars())


def leaderboard(engine: Engine, game: str) -> list[dict[str, Any]]:
    """The ladder of ``game``, best Elo first (empty if nothing was recorded for it).

    Each row: rank, bot, rating (Elo), provisional, bt (Bradley-Terry rating), interval (its
    95% half-width), bt_low/bt_high, openskill (mu - 3 sigma), mu, sigma, games, wins, draws,
    losses, last_played (ISO 8601, UTC).
    """
    with translate_errors(engine), reader(engine) as conn:
        config = _ladder_config(conn, game) or EloConfig()
        rated = conn.execute(
            select(Bot.name, Rating.__table__).join(Rating, Rating.bot_id == Bot.id)
            .where(Rating.game == game)
        ).all()
        bt = _bradley_terry(conn, game)
    rows = sorted(rated, key=lambda r: (-r.elo, r.name))
    return [_leaderboard_row(i, r, bt.get(r.bot_id), config) for i, r in enumerate(rows, start=1)]


def history(engine: Engine, game: str, bot: str) -> list[dict[str, Any]]:
    """``bot``'s ratings after each of its matches in ``game``, oldest first (chart data)."""
    query = (
        select(Match.match_id, Match.finished_at, RatingHistory.elo_before,
               RatingHistory.elo_after, RatingHistory.mu, RatingHistory.sigma)
        .join(RatingHistory, RatingHistory.match_pk == Match.id)
        .join(Bot, Bot.id == RatingHistory.bot_id)
        .where(RatingHistory.game == game, Bot.name == bot)
        .order_by(Match.rating_seq)
    )
    with translate_errors(engine), reader(engine) as conn:
        return [
            {"match_id": r.match_id, "played": _utc(r.finished_at).isoformat(timespec="seconds"),
             "elo_before": r.elo_before, "elo": r.elo_after, "mu": r.mu, "sigma": r.sigma,
             "openskill": SkillRating(r.mu, r.sigma).conservative}
            for r in conn.execute(query)
        ]


def _bradley_terry(conn: Connection, game: str) -> dict[int, BTEstimate]:
    """Fit over pair counts aggregated in SQL; a 3-4 seat table's pairs weigh 1/(seats-1)."""
    a, b = aliased(MatchSeat), aliased(MatchSeat)
    score = func.sum(case((a.standing < b.standing, 1.0), (a.standing == b.standing, 0.5),
                          else_=0.0))
    query = (
        select(a.bot_id, b.bot_id, Match.num_seats, score, func.count())
        .select_from(Match)
        .join(a, a.match_pk == Match.id)
        .join(b, and_(b.match_pk == Match.id, a.seat < b.seat))
        .where(*folded(game))
        .group_by(a.bot_id, b.bot_id, Match.num_seats)
    )
    records: Iterable[tuple[int, int, float, float]] = (
        (x, y, float(s) / (n - 1), float(g) / (n - 1)) for x, y, n, s, g in conn.execute(query)
    )
    return bradley_terry(records)


def _leaderboard_row(rank: int, r: Row[Any], bt: BTEstimate | None,
                     config: EloConfig) -> dict[str, Any]:
    skill = SkillRating(r.mu, r.sigma)
    return {
        "rank": rank, "bot": r.name, "rating": r.elo,
        "provisional": r.games < config.provisional_games,
        "bt": bt.rating if bt else None, "interval": bt.margin if bt else None,
        "bt_low": bt.low if bt else None, "bt_high": bt.high if bt else None,
        "openskill": skill.conservative, "mu": r.mu, "sigma": r.sigma,
        "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "last_played": _utc(r.last_played).isoformat(timespec="seconds"),
    }


def _utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
