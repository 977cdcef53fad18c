"""Reads that cost little: public answers kept per data version, validated by ETag.

Leaderboards, bot pages, match lists and records are read far more often than they change,
and they change only when the database does: a match is scheduled, starts, finishes or is
voided, a rating moves, a bot, a ladder entry, a round or a pause changes.  One query
(:func:`data_version`, index look-ups and aggregates over small tables) fingerprints what a
read depends on (its scope, :data:`SCOPES`: one match, one bot, the ladder, the results, or
every match's state); an anonymous answer of a public read is kept in this process under its
URL and that fingerprint, and served again, unrendered, until the fingerprint moves.  Its
``ETag`` is the fingerprint and the URL hashed, the same in every process, so a client that
sends it back (``If-None-Match``) gets a 304 before anything is read but the fingerprint.

Only anonymous requests (no ``Authorization`` header, no session cookie) are kept or served
from here: an owner sees fields others do not (a bot's URL and nonce, their own bots' logs),
so their answers are rendered each time and say ``Cache-Control: private, no-cache``.  The
anonymous ones say ``public, max-age`` (:data:`MAX_AGE_S`), ``Vary: Authorization, Cookie``,
so a shared cache never hands them to a logged-in reader.  A view whose answer depends on
more than the database (a running match's live frames come from Redis) calls
:func:`not_stored`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from typing import Any

from flask import Flask, Response, current_app, g, request, session
from sqlalchemy import Engine, Integer, bindparam, case, create_engine, func, select
from sqlalchemy.exc import DBAPIError

from api.config import ANSWER_FRESH_S, ANSWER_MAX_AGE_S
from api.context import service
from ladder.db import reader, translate_errors
from ladder.models import (
    RUNNING, SCHEDULED, VOIDED, Bot, Challenge, Fixture, HealthCheck, Ladder, LadderEntry,
    LadderPause, Match, MatchSeat, Owner, Rating, Round, SoloEntry, SoloGame, SoloRound,
)

SCOPES = {
    "leaderboards.get_leaderboard": "ladder",
    "bots.list_bots": "ladder", "bots.get_bot": "bot", "bots.bot_ratings": "bot",
    "bots.bot_matches": "bot", "bots.bot_head_to_head": "bot", "pages.bot": "bot",
    "matches.get_match": "match", "pages.match": "match", "matches.list_matches": "all",
    "rounds.get_rounds": "all",
    "rounds.get_round": "all", "challenges.get": "all", "export.export_matches": "results",
    "pages.home": "all", "pages.leaderboard": "results", "pages.matches": "all",
    "pages.round": "all", "pages.challenge": "all", "matches.get_log": "match",
    "frames.get_frames": "match",
}
"""The public reads (endpoint names: the same answer for every anonymous reader), each with
what its answer depends on: one match, one bot, the ladder, the ladder and the matches'
results (not when a match starts), or all of the matches' states too.  A
match's log and frames are kept too, under their match (otherwise three queries and the
log's blob from the database on every read, the frames' too), with their own content hashes
as ETags and an immutable ``Cache-Control``; not the games and the docs, which read nothing
that changes (asking the fingerprint would cost more than they do)."""
SAME_FOR_ALL = frozenset({"matches.get_log", "frames.get_frames"})
"""Reads whose answer is the same for an owner as for anyone (a public log): kept and served
whoever asks, with the view's own headers."""
OWN_LIMITS = frozenset({"export.export_matches", "matches.get_log", "frames.get_frames"})
"""Reads with a rate limit of their own, checked when the view is called: their views ask for
the kept answer themselves (:func:`kept`), after the limit."""
MAX_AGE_S = ANSWER_MAX_AGE_S
"""How long a browser or a shared cache may reuse an anonymous answer without asking."""
FRESH_S = ANSWER_FRESH_S
"""How long a web process takes a fingerprint it read as current (``REFEREE_ANSWER_FRESH_S``
from the environment; 0 in a config built in code): within it, every thread's anonymous read
of that scope is answered without a round trip, so a read of a kept answer costs no database
work at all.  Its staleness is within what ``max-age`` already grants every browser."""
LIST_SCOPES = frozenset({"all", "results"})
"""Scopes that move with every match that starts or ends, several times a second on a busy
site: their window is ``REFEREE_LIST_FRESH_S`` (default 5 s), else each read of a match
list, the home page or a challenge would build its answer again."""
MAX_KEPT_S = 300
"""A kept answer is rendered again at least this often, whatever the fingerprint says."""
MAX_BYTES = 64 * 1024 * 1024
"""Bodies kept per process, at most (the least recently read go first)."""
KEPT_HEADERS = ("Content-Type", "Content-Encoding", "ETag", "Cache-Control", "Vary",
                "Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
                "X-Frame-Options")
"""What a kept answer's headers carry over (never a cookie, a request id or a rate limit)."""
PUBLIC_VARY = "Authorization, Cookie"
OPEN = (SCHEDULED, RUNNING)


@dataclass(frozen=True)
class Kept:
    version: str
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]
    at: float


class AnswerCache:
    """The kept answers of one process, least recently read dropped first past a size."""

    def __init__(self, max_bytes: int = MAX_BYTES, fresh_s: float = 0.0,
                 list_fresh_s: float = 0.0) -> None:
        self._items: OrderedDict[str, Kept] = OrderedDict()
        self._bytes = 0
        self._max = max_bytes
        self._lock = threading.Lock()
        self.fresh_s, self.list_fresh_s = fresh_s, list_fresh_s
        self._seen: dict[tuple[str, int | None], tuple[str, float]] = {}
        self._asking: dict[tuple[str, int | None], threading.Lock] = {}
        self._writes = 0  # writes seen by this process: a fingerprint read before one is old
        self._probe: Engine | None = None
        self._probe_of: Engine | None = None

    def get(self, key: str, version: str) -> Kept | None:
        with self._lock:
            kept = self._items.get(key)
            if kept is None or kept.version != version or \
                    time.monotonic() - kept.at > MAX_KEPT_S:
                return None
            self._items.move_to_end(key)
            return kept

    def put(self, key: str, kept: Kept) -> None:
        cost = _cost(key, kept)
        if cost > self._max // 8:
            return
        with self._lock:
            old = self._items.pop(key, None)
            self._bytes += cost - (_cost(key, old) if old else 0)
            self._items[key] = kept
            while self._bytes > self._max:
                dropped_key, dropped = self._items.popitem(last=False)
                self._bytes -= _cost(dropped_key, dropped)

    def probe(self, engine: Engine) -> Engine:
        """The engine the fingerprint is read with (see :func:`fingerprint`)."""
        if engine.dialect.name != "postgresql":
            return engine
        with self._lock:
            if self._probe is None or self._probe_of is not engine:
                self._probe = create_engine(engine.url, isolation_level="AUTOCOMMIT",
                                            pool_size=4, pool_reset_on_return=None)
                self._probe_of = engine
            return self._probe

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
            self._seen.clear()

    def version(self, engine: Engine, scope: str, ident: int | None) -> str:
        """The fingerprint of ``scope``: the one read less than its window ago (:attr:`fresh_s`,
        :attr:`list_fresh_s` for :data:`LIST_SCOPES`), else read now, by one thread per scope
        while the others wait for it (16 threads finding it stale ask once, not 16 times)."""
        window = self.list_fresh_s if scope in LIST_SCOPES else self.fresh_s
        if window <= 0:
            return data_version(engine, scope, ident)
        key = (scope, ident)
        found = self._fresh(key, window)
        if found is not None:
            return found
        with self._lock:
            asking = self._asking.setdefault(key, threading.Lock())
        with asking:
            found = self._fresh(key, window)
            if found is None:
                writes = self._writes
                found = data_version(engine, scope, ident)
                with self._lock:
                    if len(self._seen) > 4096:  # one per bot and match read: bounded
                        self._seen.clear()
                        self._asking.clear()
                    if writes == self._writes:  # else a write ended meanwhile: not kept
                        self._seen[key] = (found, time.monotonic())
            return found

    def _fresh(self, key: tuple[str, int | None], window: float) -> str | None:
        seen = self._seen.get(key)
        if seen is None or time.monotonic() - seen[1] >= window:
            return None
        return seen[0]

    def forget_versions(self) -> None:
        """A write went through this process: its own next reads ask the database again
        (and a fingerprint being read meanwhile, perhaps from before the write, is not kept)."""
        with self._lock:
            self._seen.clear()
            self._writes += 1


def _cost(key: str, kept: Kept) -> int:
    """What an answer holds in memory, near enough: its key (a URL may carry any query
    string: the pages ignore parameters they do not take, so each new one is a new key), its
    body and its headers, plus a fixed share for the objects around them."""
    return (len(key) + len(kept.body) + sum(len(k) + len(v) for k, v in kept.headers)
            + ENTRY_OVERHEAD)


ENTRY_OVERHEAD = 512
"""Bytes an entry costs beyond its strings (the dataclass, the tuples, the dict's slot)."""

EXTENSION = "referee_answers"


def register(app: Flask, fresh_s: float = 0.0, list_fresh_s: float = 0.0) -> None:
    """Each app keeps its own answers (two apps may read two databases); the hooks run after
    the guards and the rate limiter, which still see every request."""
    app.extensions[EXTENSION] = AnswerCache(fresh_s=fresh_s, list_fresh_s=list_fresh_s)
    app.before_request(serve_kept)
    app.after_request(keep)


def answers() -> AnswerCache:
    kept: AnswerCache = current_app.extensions[EXTENSION]
    return kept


def data_version(engine: Engine, scope: str = "all", ident: int | None = None) -> str:
    """A fingerprint of what a read of ``scope`` shows; it moves whenever any of that does.

    Every scope covers the names shown (bots, owners) and the rating settings.  ``match``: the
    match's own row and whether a match sharing its seed is still open (its log's fate).
    ``bot``: the ladder, and the bot's matches by state.  ``ladder``: rating steps (the
    largest ``rating_seq`` of each game), ladder entries, pauses, ratings, rounds and
    fixtures, probes, the solo ladders' entries and rounds (their games are matches).
    ``results``: the ladder, the largest match id and how many matches are not over.
    ``all``: the ladder and every match by state (a new one moves the largest id; each move
    between states moves the count and the sum of ids of the open or voided ones)."""
    query = statement(scope, tuple(service().games))
    row = fingerprint(engine, query, {"ident": ident or 0})
    return f"{scope}:{ident}:" + hashlib.sha1(repr(tuple(row)).encode()).hexdigest()[:20]


@cache
def statement(scope: str, games: tuple[str, ...]) -> Any:
    """The fingerprint's query of ``scope``, built once (building it costs more than the
    database takes to answer it); the bot's or match's id is its parameter ``ident``;
    ``games``, the server's (each game's rating steps are numbered apart)."""
    ident = bindparam("ident", type_=Integer)
    columns = names()
    if scope == "match":
        columns += one_match(ident)
    else:
        columns += ladder(games)
        columns += bot_matches(ident) if scope == "bot" else []
        columns += all_matches() if scope == "all" else []
        columns += results() if scope == "results" else []
    return select(*columns)


def fingerprint(engine: Engine, query: Any, params: dict[str, Any]) -> Any:
    """The fingerprint's row: on PostgreSQL one round trip on a connection of its own (no
    ping, no transaction: it is asked on every read and a read-only snapshot of one statement
    needs none); a connection found dead is replaced once, as the ping would have done."""
    probe = answers().probe(engine)
    with translate_errors(engine):
        if probe is engine:
            with reader(engine) as conn:
                return conn.execute(query, params).one()
        try:
            with probe.connect() as conn:
                return conn.execute(query, params).one()
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            with probe.connect() as conn:
                return conn.execute(query, params).one()


def names() -> list[Any]:
    return [*aggregates(func.count(Bot.id), func.sum(Bot.version), func.max(Bot.updated_at),
                        func.max(Bot.verified_at)),
            *aggregates(func.count(Owner.id), func.max(Owner.suspended_at)),
            *aggregates(func.sum(Ladder.elo_k), func.sum(Ladder.elo_k_provisional),
                        func.sum(Ladder.elo_provisional_games)),
            *aggregates(func.count(), func.coalesce(func.sum(Match.id), 0),
                        where=Match.state == VOIDED)]  # a void refolds the ratings


def one_match(pk: Any) -> list[Any]:
    here = Match.id == pk
    pair = select(Match.pair_key).where(here).scalar_subquery()
    return [*(select(c).where(here).scalar_subquery() for c in (
                Match.state, Match.attempt, Match.rating_seq, Match.finished_at,
                Match.void_reason, Match.challenge_id, Match.round_id)),
            *aggregates(func.count(), where=(Match.pair_key == pair) & Match.state.in_(OPEN))]


def ladder(games: tuple[str, ...]) -> list[Any]:
    """The largest rating step of each game, from the fold's index (of every game at once
    it would read every match)."""
    return [
        *(c for game in games for c in aggregates(func.max(Match.rating_seq),
                                                  where=Match.game == game)),
        *aggregates(func.count(LadderEntry.bot_id), func.sum(LadderEntry.placement_remaining),
                    func.sum(case((LadderEntry.active.is_(True), 1), else_=0)),
                    func.sum(LadderEntry.byes), func.max(LadderEntry.paused_at)),
        *aggregates(func.count(LadderPause.game), func.max(LadderPause.paused_at)),
        *aggregates(func.count(Rating.bot_id), func.sum(Rating.elo), func.sum(Rating.games)),
        *aggregates(func.max(Round.id), func.count(Round.closed_at), func.max(Fixture.id)),
        *aggregates(func.count(Fixture.id), func.sum(Fixture.id), func.sum(Fixture.made),
                    where=Fixture.state.in_(("planned", "dispatched"))),
        *aggregates(func.max(HealthCheck.id)),
        *aggregates(func.count(SoloEntry.bot_id),
                    func.sum(case((SoloEntry.active.is_(True), 1), else_=0))),
        *aggregates(func.max(SoloRound.id), func.count(SoloRound.closed_at))]


def bot_matches(bot_id: Any) -> list[Any]:
    """The bot's matches by state, and every solo game's: its solo standing ranks it among
    the other bots of the level, whose games move it too."""
    mine = select(MatchSeat.match_pk).where(MatchSeat.bot_id == bot_id)
    solo = select(SoloGame.match_pk)
    return [*aggregates(func.max(MatchSeat.match_pk), where=MatchSeat.bot_id == bot_id),
            *aggregates(func.count(), func.coalesce(func.sum(Match.id), 0),
                        where=Match.id.in_(mine) & Match.state.in_(OPEN)),
            *aggregates(func.max(SoloGame.match_pk)),
            *aggregates(func.count(), func.coalesce(func.sum(Match.id), 0),
                        where=Match.id.in_(solo) & Match.state.in_(OPEN))]


def results() -> list[Any]:
    """Moves when a match is created or ends, not when one starts: a start moves one from
    scheduled to running, the count of both together stays."""
    return [*aggregates(func.max(Match.id), func.max(Challenge.id)),
            *aggregates(func.count(), where=Match.state.in_(OPEN))]


def all_matches() -> list[Any]:
    return [*aggregates(func.max(Match.id), func.max(Challenge.id)),
            *(c for state in OPEN for c in aggregates(
                func.count(), func.coalesce(func.sum(Match.id), 0), where=Match.state == state))]


def aggregates(*columns: Any, where: Any = None) -> list[Any]:
    """Each aggregate as a scalar subquery (the database answers each from one index or one
    small table; together, one round trip)."""
    return [(select(c) if where is None else select(c).where(where)).scalar_subquery()
            for c in columns]


def not_stored() -> None:
    """This answer depends on more than the database: serve it, keep it nowhere."""
    g.answer_not_stored = True


def anonymous() -> bool:
    return "Authorization" not in request.headers and \
        not request.cookies.get(current_app.config["SESSION_COOKIE_NAME"])


def accepts_gzip() -> bool:
    """Whether the client takes a gzipped body (``gzip;q=0`` refuses it; ``*`` takes it)."""
    return request.accept_encodings.quality("gzip") > 0


def answer_key() -> str:
    return f"{request.host}|{request.full_path}|{int(accepts_gzip())}"


def tag_for(version: str, key: str) -> str:
    return 'W/"' + hashlib.sha1(f"{version}|{key}".encode()).hexdigest()[:24] + '"'


def matches_tag(etag: str | None, *, exists: bool) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak comparison, as GET allows); ``*`` only
    where an answer is known to exist (``exists``): a fingerprint alone does not say that the
    match or bot asked for is there."""
    asked = request.headers.get("If-None-Match")
    if not asked or not etag:
        return False
    bare = etag.removeprefix("W/")
    return any((exists and t.strip() == "*") or t.strip().removeprefix("W/") == bare
               for t in asked.split(","))


def serve_kept() -> Response | None:
    """A 304 or a kept answer for a public read whose data has not moved; None otherwise."""
    scope = SCOPES.get(request.endpoint or "")
    if request.method not in ("GET", "HEAD") or scope is None:
        return None
    if not anonymous() and request.endpoint not in SAME_FOR_ALL:
        g.answer_private = True
        return None
    args = request.view_args or {}
    ident = args.get("match_id") if scope == "match" else args.get("bot_id")
    version, key = answers().version(service().engine, scope, ident), answer_key()
    g.answer_slot = (key, version, tag_for(version, key))
    return None if request.endpoint in OWN_LIMITS else kept()


def kept() -> Response | None:
    """A 304 or the kept answer of this request's slot; None where it must be built."""
    slot = g.get("answer_slot")
    if slot is None:
        return None
    key, version, etag = slot
    if matches_tag(etag, exists=False):
        return Response(status=304, headers=public_headers(etag))
    found = answers().get(key, version)
    if found is None:
        return None
    g.answer_kept = True
    headers = dict(found.headers)
    if matches_tag(headers.get("ETag"), exists=True):  # the view's own tag (a log's hash)
        return Response(status=304, headers={k: v for k, v in headers.items() if k in (
            "ETag", "Cache-Control", "Vary")})
    return Response(found.body, status=found.status, headers=headers)


def public_headers(etag: str) -> dict[str, str]:
    return {"ETag": etag, "Cache-Control": f"public, max-age={MAX_AGE_S}",
            "Vary": PUBLIC_VARY}


def keep(response: Response) -> Response:
    """Headers saying who may reuse the answer; a fresh public 200 kept for the next reader."""
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        answers().forget_versions()  # whoever wrote reads it back at once, here at least
    if g.get("answer_private"):
        response.headers["Cache-Control"] = "private, no-cache"
        response.vary.update(("Authorization", "Cookie"))
        return response
    slot = g.get("answer_slot")
    if slot is None or g.get("answer_kept") or response.status_code not in (200, 304):
        return response
    key, version, etag = slot
    if g.get("answer_not_stored") or session.modified or "Set-Cookie" in response.headers:
        response.headers["Cache-Control"] = "no-cache"
        return response
    response.headers.setdefault("ETag", etag)  # unless the view gave its own
    response.headers.setdefault("Cache-Control", f"public, max-age={MAX_AGE_S}")
    response.vary.update(("Authorization", "Cookie"))
    if response.status_code == 200 and request.method == "GET" and \
            not response.direct_passthrough:
        answers().put(key, Kept(version, 200, response.get_data(), tuple(
            (k, v) for k, v in response.headers.items() if k in KEPT_HEADERS),
            time.monotonic()))
    return response
