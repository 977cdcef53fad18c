"""What the service shows: matches, their logs, challenges and leaderboards (reads only).

Hidden information: a match's seed and log are public only once it is finished *and* every
match sharing its seed (``pair_key``: a Tokaido Duo pair, a rotation block) is over, or a bot
could read the dice of the game it is still playing.  Bots' own ``log`` lines are served only
to their owners (:func:`seat_log`).
"""

from __future__ import annotations

import copy
import functools
import gzip
import hashlib
import json
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, String, and_, bindparam, case, func, or_, select
from sqlalchemy.orm import aliased

from ladder import ConflictError, ForbiddenError, NotFoundError
from ladder.accounts import utc
from ladder.db import reader, translate_errors
from ladder.fold import folded
from ladder.leaderboard import leaderboard
from ladder.matchmaking import placement_left
from ladder.models import (
    FINISHED, RETIRED, RUNNING, SCHEDULED, VOIDED, Bot, Challenge, LadderEntry, LadderPause, Match,
    MatchLog, MatchSeat, Owner, RatingHistory,
)
from ladder.pages_reads import paused_bots
from ladder.ratings import outcomes, standings
from ladder.solo_ladder import challenge_outcome

# -- matches ----------------------------------------------------------------------------------

BRIEF = (Match.id, Match.game, Match.state, Match.rated, Match.challenge_id, Match.round_id,
         Match.attempt, Match.recorded_at, Match.started_at, Match.finished_at,
         Match.end_reason, Match.void_reason, Match.seed, Match.pair_key)
"""The columns a listed match shows (:func:`_match_dict`, ``brief``) and its log's fate
needs: not its settings, result and inline log, JSON decoded for nothing on each row."""


def list_matches(engine: Engine, *, game: str | None = None, bot: int | None = None,
                 state: str | None = None, rated: bool | None = None,
                 challenge: int | None = None, opponent: int | None = None,
                 result: str | None = None, since: datetime | None = None,
                 round: int | None = None, page: int = 1, per_page: int = 20
                 ) -> tuple[list[dict[str, Any]], int]:
    """A page of matches, newest first, and the total.

    With ``bot``, each match also says how that bot did (``outcome``: win, draw or loss as
    the leaderboard counts them, once finished) and may be filtered by ``opponent`` (a bot it
    met there) and ``result`` (its outcome; finished matches only).  ``since``: finished (or,
    not yet over, created) at or after that moment; ``round``: matches of that round."""
    where: list[Any] = []
    if game is not None:
        where.append(Match.game == game)
    if state is not None:
        where.append(Match.state == state)
    if rated is not None:
        where.append(Match.rated.is_(rated))
    if challenge is not None:
        where.append(Match.challenge_id == challenge)
    if round is not None:
        where.append(Match.round_id == round)
    if since is not None:
        where.append(func.coalesce(Match.finished_at, Match.recorded_at) >= since)
    if opponent is not None:
        where.append(Match.id.in_(select(MatchSeat.match_pk).where(MatchSeat.bot_id == opponent)))
    if bot is not None:
        where.append(Match.id.in_(_seats_of(bot, result)))
    with translate_errors(engine), reader(engine) as conn:
        total = conn.execute(select(func.count()).select_from(Match).where(*where)).scalar_one()
        rows = conn.execute(select(*BRIEF).where(*where).order_by(Match.id.desc())
                            .offset((page - 1) * per_page).limit(per_page)).all()
        seats = _seats(conn, [m.id for m in rows])
        public = _logs_public(conn, rows)
    items = [_match_dict(m, seats.get(m.id, []), m.id in public, brief=True) for m in rows]
    if bot is not None:
        for item in items:
            item["outcome"] = _outcome(item, bot)
    return items, total


def _seats_of(bot: int, result: str | None) -> Any:
    """The matches ``bot`` sat in, with that ``result`` for it when given: a win is the best
    standing alone, a draw the best shared, anything else a loss (a forfeit always is; a
    forfeit's standing is below every seat that played on, so comparing standings is enough)."""
    if result is None:
        return select(MatchSeat.match_pk).where(MatchSeat.bot_id == bot)
    me = aliased(MatchSeat)
    query = select(me.match_pk).where(me.bot_id == bot)
    others = aliased(MatchSeat)
    best_other = (select(func.min(others.standing))
                  .where(others.match_pk == me.match_pk, others.bot_id != bot)
                  .scalar_subquery())
    played = and_(Match.state == FINISHED, me.forfeited.is_not(True))
    query = query.join(Match, Match.id == me.match_pk).where(Match.state == FINISHED)
    if result == "win":
        return query.where(played, me.standing < best_other)
    if result == "draw":
        return query.where(played, me.standing == best_other)
    return query.where(or_(me.forfeited.is_(True), me.standing > best_other))


def _outcome(match: dict[str, Any], bot: int) -> str | None:
    """The bot's win, draw or loss in a finished match it sat in (None otherwise)."""
    seats = match["seats"]
    if match["state"] != FINISHED or any(s["rank"] is None for s in seats):
        return None
    forfeited = [bool(s["forfeited"]) for s in seats]
    places = standings([s["rank"] for s in seats], forfeited)
    mine = next((i for i, s in enumerate(seats) if s["bot"]["id"] == bot), None)
    return None if mine is None else outcomes(places, forfeited)[mine]


def match_detail(engine: Engine, match_pk: int) -> dict[str, Any]:
    with translate_errors(engine), reader(engine) as conn:
        m = conn.execute(select(Match.__table__).where(Match.id == match_pk)).one_or_none()
        if m is None:
            raise NotFoundError(f"no match {match_pk}")
        seats = _seats(conn, [m.id]).get(m.id, [])
        public = _logs_public(conn, [m])
    return _match_dict(m, seats, m.id in public, brief=False)


def _seats(conn: Connection, ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    rows = conn.execute(_seats_statement(), {"ids": list(ids)}).all()
    out: dict[int, list[dict[str, Any]]] = {}
    for s in rows:
        before, after = s.elo_before, s.elo_after
        out.setdefault(s.match_pk, []).append({
            "seat": s.seat, "bot": {"id": s.bot_id, "name": s.bot_name,
                                    "version": s.bot_version},
            "owner": None if s.owner_id is None else {"id": s.owner_id, "name": s.owner_name},
            "rank": s.rank, "score": s.score, "forfeited": s.forfeited, "strikes": s.strikes,
            "strike_reasons": s.strike_reasons or {}, "mean_ms": s.mean_ms, "p95_ms": s.p95_ms,
            "rating_before": None if before is None else round(before, 2),
            "rating_after": None if after is None else round(after, 2),
            "rating_change": None if before is None else round(after - before, 2),
        })
    return out


@functools.cache
def _seats_statement() -> Any:
    """The seats of the matches ``ids`` (an expanding parameter), built once: every list of
    matches reads it, and building it cost more than running it."""
    return (select(MatchSeat.__table__, Bot.name.label("bot_name"), Bot.owner_id,
                   Owner.name.label("owner_name"), RatingHistory.elo_before,
                   RatingHistory.elo_after)
            .join(Bot, Bot.id == MatchSeat.bot_id).outerjoin(Owner, Owner.id == Bot.owner_id)
            .outerjoin(RatingHistory, (RatingHistory.match_pk == MatchSeat.match_pk)
                       & (RatingHistory.bot_id == MatchSeat.bot_id))
            .where(MatchSeat.match_pk.in_(bindparam("ids", expanding=True)))
            .order_by(MatchSeat.match_pk, MatchSeat.seat))


def _logs_public(conn: Connection, matches: Sequence[Any]) -> set[int]:
    """The finished matches whose seed-sharing siblings are all over too."""
    keys = {m.pair_key for m in matches if m.state == FINISHED and m.pair_key}
    open_keys = set(conn.execute(_open_pairs(), {"keys": sorted(keys)}).scalars()) if keys \
        else set()
    return {m.id for m in matches if m.state == FINISHED and m.pair_key not in open_keys}


@functools.cache
def _open_pairs() -> Any:
    """Which of the seed-sharing ``keys`` (an expanding parameter) have a match not over."""
    return select(Match.pair_key).where(Match.pair_key.in_(bindparam("keys", expanding=True)),
                                        Match.state.in_((SCHEDULED, RUNNING)))


def _match_dict(m: Any, seats: list[dict[str, Any]], public: bool,
                brief: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": m.id, "game": m.game, "state": m.state, "rated": m.rated,
        "challenge_id": m.challenge_id, "round_id": m.round_id, "attempt": m.attempt,
        "created_at": utc(m.recorded_at), "started_at": utc(m.started_at),
        "finished_at": utc(m.finished_at), "end_reason": m.end_reason,
        "void_reason": m.void_reason, "seats": seats, "log_available": public,
        "seed": m.seed if public else None,
    }
    if not brief:
        result = dict(m.result) if m.result else None
        if result is None and m.log is not None:  # a match recorded by the CLI
            from ladder.work import summary
            result = summary(m.log)
        doc["result"] = result
        doc["settings"] = m.settings
        doc["rules_version"] = m.rules_version
    return doc


def export_matches(engine: Engine, *, game: str | None = None, after_id: int = 0,
                   limit: int = 100) -> dict[str, Any]:
    """Finished matches after ``after_id``, in id order, with where their logs are: a
    cursor that never skips one.  Matches finish out of id order, so the page stops before
    the first match after the cursor that is not over yet (or whose log is still withheld:
    a match sharing its seed is not over) and says which (``waiting_on``); voided matches
    are passed over, they never get a log."""
    cond = [Match.id > after_id, Match.state != VOIDED]
    if game is not None:
        cond.append(Match.game == game)
    with translate_errors(engine), reader(engine) as conn:
        rows = conn.execute(
            select(Match.id, Match.game, Match.rules_version, Match.rated, Match.round_id,
                   Match.challenge_id, Match.finished_at, Match.end_reason, Match.state,
                   Match.pair_key, MatchLog.sha256, MatchLog.size)
            .outerjoin(MatchLog, MatchLog.match_pk == Match.id)
            .where(*cond).order_by(Match.id).limit(limit + 1)).all()
        public = _logs_public(conn, rows)
        ready = []
        waiting = None
        for m in rows[:limit]:
            if m.id not in public:
                waiting = m.id
                break
            ready.append(m)
        seats = _seats(conn, [m.id for m in ready])
    items = [{"id": m.id, "game": m.game, "rules_version": m.rules_version, "rated": m.rated,
              "round_id": m.round_id, "challenge_id": m.challenge_id,
              "finished_at": utc(m.finished_at), "end_reason": m.end_reason,
              "seats": seats.get(m.id, []), "log_url": f"/api/v1/matches/{m.id}/log",
              "log_sha256": m.sha256, "log_bytes": m.size} for m in ready]
    more = waiting is None and len(rows) > limit and rows[limit].id in public
    return {"items": items, "next_after_id": ready[-1].id if ready else after_id,
            "more": more, "waiting_on": waiting}


def match_log(engine: Engine, match_pk: int) -> tuple[bytes, str]:
    """The public log, gzipped, and the SHA-256 of its JSON (the strong ETag).

    ConflictError while the match (or one sharing its seed) is not over."""
    with translate_errors(engine), reader(engine) as conn:
        m = conn.execute(select(Match.__table__).where(Match.id == match_pk)).one_or_none()
        if m is None:
            raise NotFoundError(f"no match {match_pk}")
        if m.state == VOIDED:
            raise NotFoundError(f"match {match_pk} was voided ({m.void_reason}): it has no log")
        if m.id not in _logs_public(conn, [m]):
            why = ("it is not finished" if m.state != FINISHED else
                   "a match sharing its seed is not finished")
            raise ConflictError(f"match {match_pk} has no public log yet: {why}")
        stored = conn.execute(select(MatchLog.gz, MatchLog.sha256)
                              .where(MatchLog.match_pk == match_pk)).one_or_none()
    if stored is not None:
        return stored.gz, stored.sha256
    from ladder.work import split_log  # a CLI match: its log is stored inline

    public, _ = split_log(m.log or {})
    # Keys keep their order: a board's mappings are ordered data (Tokaido Duo's wares and
    # painting sets), and a log whose keys were sorted no longer replays.
    raw = json.dumps(public, separators=(",", ":")).encode()
    return gzip.compress(raw, mtime=0), hashlib.sha256(raw).hexdigest()


def seat_log(engine: Engine, match_pk: int, seat: int, owner_id: int) -> dict[str, Any]:
    """A seat's own ``log`` lines and timings, for the owner of the bot in it."""
    with translate_errors(engine), reader(engine) as conn:
        row = conn.execute(select(MatchSeat.bot_id, Bot.owner_id, Match.state)
                           .join(Bot, Bot.id == MatchSeat.bot_id)
                           .join(Match, Match.id == MatchSeat.match_pk)
                           .where(MatchSeat.match_pk == match_pk, MatchSeat.seat == seat)
                           ).one_or_none()
        if row is None:
            raise NotFoundError(f"match {match_pk} has no seat {seat}")
        if row.owner_id != owner_id:
            raise ForbiddenError(f"the bot in seat {seat} is not yours")
        if row.state != FINISHED:
            raise ConflictError(f"match {match_pk} is {row.state}: its logs come at the end")
        logs = conn.execute(select(MatchLog.seat_logs)
                            .where(MatchLog.match_pk == match_pk)).scalar_one_or_none()
    return {"match_id": match_pk, "seat": seat, "bot_id": row.bot_id,
            "lines": (logs or {}).get(str(seat), [])}


# -- challenges -------------------------------------------------------------------------------

def challenge_detail(engine: Engine, challenge_id: int) -> dict[str, Any]:
    """Progress and the aggregate result: per bot, games, points (a shared first place splits
    the point), first places and mean rank over the finished matches."""
    with translate_errors(engine), reader(engine) as conn:
        c = conn.execute(select(Challenge.__table__).where(Challenge.id == challenge_id)
                         ).one_or_none()
        if c is None:
            raise NotFoundError(f"no challenge {challenge_id}")
        matches = conn.execute(select(Match.id, Match.state).where(
            Match.challenge_id == challenge_id).order_by(Match.id)).all()
        seats = conn.execute(select(MatchSeat.match_pk, MatchSeat.bot_id, MatchSeat.rank,
                                    MatchSeat.forfeited, MatchSeat.strikes, Bot.name)
                             .join(Bot, Bot.id == MatchSeat.bot_id)
                             .join(Match, Match.id == MatchSeat.match_pk)
                             .where(Match.challenge_id == challenge_id,
                                    Match.state == FINISHED)).all()
        solo = challenge_outcome(conn, c.id, c.game) if len(c.bot_ids) == 1 else None
    states = {s: sum(1 for m in matches if m.state == s)
              for s in (SCHEDULED, RUNNING, FINISHED, VOIDED)}
    tallies = _tally(seats, c.bot_ids)
    if solo is not None:  # its first places are against the Automa, whose seat is not a bot's
        tallies[0].update(firsts=solo["wins"] + solo["draws"],
                          points=solo["wins"] + solo["draws"] / 2)
    done = states[SCHEDULED] == states[RUNNING] == 0
    return {"id": c.id, "game": c.game, "owner_id": c.owner_id, "bot_ids": c.bot_ids,
            "games": c.games, "created_at": utc(c.created_at),
            "status": "finished" if done else ("running" if states[RUNNING] or
                                               states[FINISHED] or states[VOIDED] else
                                               "scheduled"),
            "progress": states, "match_ids": [m.id for m in matches], "results": tallies,
            "solo": solo}


def _tally(seats: Sequence[Any], bot_ids: Sequence[int]) -> list[dict[str, Any]]:
    by_match: dict[int, list[Any]] = {}
    for s in seats:
        by_match.setdefault(s.match_pk, []).append(s)
    out: dict[int, dict[str, Any]] = {b: {"bot_id": b, "name": None, "games": 0, "points": 0.0, "firsts": 0,
               "rank_sum": 0, "strikes": 0, "forfeits": 0} for b in bot_ids}
    for rows in by_match.values():
        best = min(r.rank for r in rows)
        sharing = sum(1 for r in rows if r.rank == best and not r.forfeited) or 1
        for r in rows:
            t = out.setdefault(r.bot_id, {"bot_id": r.bot_id, "games": 0, "points": 0.0,
                                          "firsts": 0, "rank_sum": 0, "strikes": 0,
                                          "forfeits": 0})
            t["name"] = r.name
            t["games"] += 1
            t["rank_sum"] += r.rank
            t["strikes"] += r.strikes or 0
            t["forfeits"] += bool(r.forfeited)
            if r.rank == best and not r.forfeited:
                t["firsts"] += 1
                t["points"] += 1.0 / sharing
    return [{**{k: v for k, v in t.items() if k != "rank_sum"},
             "mean_rank": round(t["rank_sum"] / t["games"], 3) if t["games"] else None}
            for t in out.values()]


# -- leaderboards -----------------------------------------------------------------------------

_BOARDS: dict[tuple[str, str], tuple[Any, dict[str, Any]]] = {}
_BOARDS_LOCK = threading.Lock()


def leaderboard_page(engine: Engine, game: str) -> dict[str, Any]:
    """The ranked table of ``game`` and, apart, the provisional bots (retired ones left out).

    Computing it (the public rating's fit, several queries) costs tens of milliseconds, and it
    changes only when a rated match finishes or a bot changes: each process keeps the last
    table per game and database, keyed by a cheap query of what it depends on."""
    with translate_errors(engine), reader(engine) as conn:
        version = _board_version(conn, game)
        ladder = _ladder_state(conn, game)
    return {**copy.deepcopy(_kept_board(engine, game, version)), "ladder": ladder}


def board_standing(engine: Engine, game: str, bot_id: int) -> dict[str, Any] | None:
    """Where the bot stands on the game's board (:func:`leaderboard_page`, its paused bots
    apart): its row, the section (``items``: ranked, ``provisional`` or ``paused``) and the
    section's size; None if it has no row.  A bot's page shows one row: copying the whole
    board for it, as :func:`leaderboard_page` does, cost more than the rest of the lookup."""
    with translate_errors(engine), reader(engine) as conn:
        version = _board_version(conn, game)
    board = _kept_board(engine, game, version)
    for section in ("items", "provisional"):
        for row in board[section]:
            if row["bot"]["id"] == bot_id:
                return {"row": copy.deepcopy(row), "section": section,
                        "of": len(board[section])}
    for entry in board["paused"]:
        if entry["bot"]["id"] == bot_id and entry["row"] is not None:
            return {"row": copy.deepcopy(entry["row"]), "section": "paused",
                    "of": len(board["paused"])}
    return None


def _board_version(conn: Connection, game: str) -> tuple[Any, ...]:
    """What the kept board of ``game`` depends on, in one query."""
    return tuple(conn.execute(_board_version_statement(), {"game": game}).one())


@functools.cache
def _board_version_statement() -> Any:
    """Built once, the game a parameter: building it cost more than running it."""
    game = bindparam("game", type_=String)
    return select(
        select(func.max(Match.rating_seq)).where(Match.game == game).scalar_subquery(),
        select(func.count()).select_from(Match).where(*folded(game)).scalar_subquery(),
        select(func.max(Bot.updated_at)).scalar_subquery(),
        select(func.count()).select_from(Bot).scalar_subquery(),
        # placement counts down when a tick settles a fixture, after the match finished
        select(func.count()).select_from(LadderEntry).where(LadderEntry.game == game)
        .scalar_subquery(),
        select(func.sum(LadderEntry.placement_remaining)).where(LadderEntry.game == game)
        .scalar_subquery())


def _kept_board(engine: Engine, game: str, version: tuple[Any, ...]) -> dict[str, Any]:
    """The board of ``game`` at ``version``: the one this process keeps, else computed now
    and kept.  Shared by every caller: what one hands on, it copies."""
    key = (str(engine.url), game)
    with _BOARDS_LOCK:
        cached = _BOARDS.get(key)
    if cached is not None and cached[0] == version:
        return cached[1]
    page = _leaderboard_page(engine, game)
    with _BOARDS_LOCK:
        _BOARDS[key] = (version, page)
    return page


def _ladder_state(conn: Connection, game: str) -> dict[str, Any]:
    """Whether an admin paused the ladder, why and since when."""
    row = conn.execute(select(LadderPause.reason, LadderPause.paused_at)
                       .where(LadderPause.game == game)).one_or_none()
    return {"paused": row is not None, "reason": None if row is None else row.reason,
            "paused_at": None if row is None else utc(row.paused_at)}


def _leaderboard_page(engine: Engine, game: str) -> dict[str, Any]:
    rows = leaderboard(engine, game)
    placement = placement_left(engine, game)
    with translate_errors(engine), reader(engine) as conn:
        info = {r.name: r for r in conn.execute(
            select(Bot.id, Bot.name, Bot.status, Bot.house, Bot.owner_id,
                   Owner.name.label("owner_name"))
            .outerjoin(Owner, Owner.id == Bot.owner_id)
            .where(Bot.name.in_([r["bot"] for r in rows]))).all()}
        extra = {r.bot_id: r for r in conn.execute(
            select(MatchSeat.bot_id, func.avg(MatchSeat.rank).label("mean_rank"),
                   func.sum(MatchSeat.strikes).label("strikes"),
                   func.sum(case((MatchSeat.forfeited.is_(True), 1), else_=0)).label("forfeits"),
                   func.count().label("games"))
            .join(Match, Match.id == MatchSeat.match_pk).where(*folded(game))
            .group_by(MatchSeat.bot_id)).all()}
    ranked: list[dict[str, Any]] = []
    provisional: list[dict[str, Any]] = []
    for r in rows:
        bot = info.get(r["bot"])
        if bot is None or bot.status == RETIRED:
            continue
        x = extra.get(bot.id)
        games = x.games if x is not None else r["games"]
        entry = {
            "bot": {"id": bot.id, "name": bot.name, "house": bot.house},
            "owner": None if bot.owner_id is None else {"id": bot.owner_id,
                                                         "name": bot.owner_name},
            "rating": round(r["rating"], 1),
            "interval": None if r["interval"] is None else round(r["interval"], 1),
            "elo": round(r["elo"], 1),
            "openskill": round(r["openskill"], 3), "games": r["games"], "wins": r["wins"],
            "draws": r["draws"], "losses": r["losses"],
            "mean_place": None if x is None else round(float(x.mean_rank), 3),
            "strikes_per_game": None if not games or x is None else
            round(float(x.strikes or 0) / games, 3),
            "forfeit_rate": None if not games or x is None else
            round(float(x.forfeits or 0) / games, 3),
            "last_played": r["last_played"],
            "placement_left": placement.get(bot.id),
        }
        (provisional if is_provisional(r, placement.get(bot.id)) else ranked).append(entry)
    return split_paused({"game": game, "items": ranked, "provisional": provisional},
                        paused_bots(engine, game))


def is_provisional(row: dict[str, Any], placement_left: int | None) -> bool:
    """A bot on the game's living ladder is provisional while it has placement games left
    (10 for a newcomer, 5 for a new version); one without an entry (a tournament-only
    ladder) while its public rating's interval is wider than the fit's provisional margin."""
    if placement_left is None:
        return bool(row["provisional"])
    return placement_left > 0


def split_paused(board: dict[str, Any], paused: list[dict[str, Any]]) -> dict[str, Any]:
    """The board with the paused bots (each ``{bot, owner, reason}``) in their own section,
    each with its leaderboard row if it has one (``row``) and whether that row is provisional
    (``provisional``), and the others ranked without them."""
    ids = {p["bot"]["id"] for p in paused}
    rows = {r["bot"]["id"]: r for r in board["items"] + board["provisional"]}
    pending = {r["bot"]["id"] for r in board["provisional"]}
    items = [dict(r) for r in board["items"] if r["bot"]["id"] not in ids]
    for rank, row in enumerate(items, start=1):
        row["rank"] = rank
    return {**board, "items": items,
            "provisional": [r for r in board["provisional"] if r["bot"]["id"] not in ids],
            "paused": [{**p, "row": rows.get(p["bot"]["id"]),
                        "provisional": p["bot"]["id"] in pending} for p in paused]}
