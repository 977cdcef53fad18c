"""Any in-process :class:`~referee.players.Bot` served over HTTP (protocol v1), with waitress.

Used by ``referee bot serve`` (play against a built-in bot from your own code), by
``referee match --over-http`` (exercise the whole HTTP path without writing a bot), by the
tests and by the overhead bench. Waitress is a real multi-threaded WSGI server with HTTP/1.1
keep-alive, so the referee's connection pool behaves here as it does against anyone's bot.

A bot instance is made per (match, seat) at ``/start`` (or at the first ``/decide`` of a match
that was never started, for people driving the server by hand) and dropped at ``/end``.
"""

from __future__ import annotations

import json
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from waitress.server import create_server

from bots import BotSpecError, UnknownBotError, bot_games, find_bot, parse_bot_spec
from referee import __version__
from referee.core import Decision, Option, RulesError
from referee.display import redact
from referee.players import Bot, MatchInfo, Player
from referee.protocol import PROTOCOL_VERSION

MAX_REQUEST = 8 * 1024 * 1024
MAX_MATCHES = 256
"""Matches kept in memory at once; the oldest is dropped when a referee never sent /end."""

StartResponse = Callable[..., Any]


class BadRequest(Exception):
    """A request this server cannot act on; answered 400 with the message."""


BOT_READ_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)
"""What a bot raises when a well-formed request carries a view or board it cannot read (one
written by hand, or for another game): the request's fault, answered 400, not 500."""


class BotApp:
    """The WSGI application: ``GET /``, ``POST /start``, ``/decide``, ``/end``.

    ``seed`` fixed (``per_match=False``) gives every match's bot that exact seed, which is how
    ``--over-http`` plays the very same match as in-process; otherwise each (match, seat) gets a
    seed derived from ``seed`` and the match id.
    """

    def __init__(self, spec: str, game: str | None = None, seed: int | None = None,
                 per_match: bool = True) -> None:
        self.spec, self.game = spec, game
        self.seed = random.getrandbits(63) if seed is None else seed
        self.per_match = per_match
        self._bots: OrderedDict[tuple[str, int], tuple[Bot, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()
        self.games = [game] if game else _games_of(spec)  # fail now, not at the first request
        if game:
            find_bot(spec, game, 0)

    def info(self) -> dict[str, Any]:
        return {
            "name": self.spec,
            "author": "referee built-in bots",
            "version": __version__,
            "games": self.games,
            "protocol": PROTOCOL_VERSION,
        }

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", "/")
        try:
            if path == "/" and method in ("GET", "HEAD"):
                return _json(start_response, "200 OK", self.info())
            handler = {"/start": self._start, "/decide": self._decide, "/end": self._end}.get(path)
            if handler is None:
                return _json(start_response, "404 Not Found", {"error": f"no route {path}"})
            if method != "POST":
                return _json(start_response, "405 Method Not Allowed", {"error": "use POST"})
            return _json(start_response, "200 OK", handler(_read_json(environ)))
        except BadRequest as exc:
            return _json(start_response, "400 Bad Request", {"error": str(exc)})
        except Exception as exc:  # the bot's own bug: a 500 the referee strikes, server lives on
            return _json(start_response, "500 Internal Server Error", {"error": repr(exc)[:500]})

    # -- routes -----------------------------------------------------------------------------

    def _start(self, msg: dict[str, Any]) -> dict[str, Any]:
        match_id, game, seat = _field(msg, "match_id", str), _field(msg, "game", str), _seat(msg)
        players = []
        for i, p in enumerate(_field(msg, "players", list, [])):
            where = f"players[{i}]."
            players.append((_seat(_object(p, where), where), _field(p, "name", str, "", where)))
        info = MatchInfo(
            match_id=match_id, game=game, seat=seat, players=tuple(players),
            time_control=dict(_field(msg, "time_control", dict, {})),
            board=_field(msg, "board", (dict, type(None)), None),
        )
        bot, lock = self._bot(msg, create=True, fresh=True)
        with lock:
            try:
                bot.start(info)
            except (RulesError, *BOT_READ_ERRORS) as exc:
                raise BadRequest(f"the bot cannot start from this message: {exc}"[:500]) from None
        return {"ok": True}

    def _decide(self, msg: dict[str, Any]) -> dict[str, Any]:
        decision, view = _decision(msg), _field(msg, "view", dict)
        bot, lock = self._bot(msg, create=True)
        with lock:
            try:
                out = bot.decide(decision, view)
            except BOT_READ_ERRORS as exc:
                raise BadRequest(
                    f"the bot cannot read this decision or view ({exc!r}); send what the "
                    f"referee sends for {msg['game']!r}"[:500]
                ) from None
        if isinstance(out, tuple):
            return {"choice": out[0], "log": out[1]}
        return {"choice": out}

    def _end(self, msg: dict[str, Any]) -> dict[str, Any]:
        key = _field(msg, "match_id", str), _seat(msg, default=0)  # the end schema has no seat
        with self._lock:
            self._bots.pop(key, None)
        return {"ok": True}

    def _bot(self, msg: dict[str, Any], create: bool, fresh: bool = False) -> tuple[Bot, threading.Lock]:
        key = _key(msg)
        game = _field(msg, "game", str)
        if self.game and game != self.game:
            raise BadRequest(f"this server plays {self.game!r}, not {game!r}")
        with self._lock:
            entry = None if fresh else self._bots.get(key)
            if entry is None:
                try:
                    bot = find_bot(self.spec, game, self._seed_for(*key))
                except LookupError as exc:  # an unknown game, or no version of the bot for it
                    raise BadRequest(str(exc)) from None
                entry = self._bots[key] = (bot, threading.Lock())
                while len(self._bots) > MAX_MATCHES:
                    self._bots.popitem(last=False)
            return entry

    def _seed_for(self, match_id: str, seat: int) -> int:
        if not self.per_match:
            return self.seed
        return random.Random(f"{self.seed}:{match_id}:{seat}").getrandbits(63)


def _key(msg: dict[str, Any]) -> tuple[str, int]:
    return _field(msg, "match_id", str), _seat(msg)


# -- checking a request's fields: each mistake is a 400 naming the field --------------------

_MISSING = object()
_KIND_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "an array"}


def _field(doc: dict[str, Any], name: str, kind: type | tuple[type, ...],
           default: Any = _MISSING, where: str = "") -> Any:
    """``doc[name]`` if it is a ``kind`` (a boolean is no integer); ``default`` if absent and
    one is given; otherwise :class:`BadRequest` naming the field as ``where + name``."""
    value = doc.get(name, _MISSING)
    if value is _MISSING and default is not _MISSING:
        return default
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
        return value
    expected = " or ".join(_KIND_NAMES.get(k, "null") for k in kinds)
    raise BadRequest(f"field {where}{name} is " + (
        "missing" if value is _MISSING else f"not {expected}"))


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadRequest(f"field {where.rstrip('.')} is not an object")
    return value


def _seat(doc: dict[str, Any], where: str = "", default: Any = _MISSING) -> int:
    seat: int = _field(doc, "seat", int, default, where)
    if seat < 0:
        raise BadRequest(f"field {where}seat is negative")
    return seat


def _decision(msg: dict[str, Any]) -> Decision:
    """The ``decision`` of a ``/decide`` body. ``label``, ``prompt`` and ``data`` may be left
    out (for people driving the server by hand), but not given with the wrong type."""
    d = _field(msg, "decision", dict)
    raw = _field(d, "options", list, _MISSING, "decision.")
    if not raw:
        raise BadRequest("field decision.options is empty")
    options = []
    for i, o in enumerate(raw):
        where = f"decision.options[{i}]."
        _object(o, where)
        options.append(Option(_field(o, "id", str, _MISSING, where),
                              _field(o, "label", str, "", where),
                              _field(o, "data", dict, {}, where)))
    return Decision(_seat(msg), _field(d, "kind", str, _MISSING, "decision."),
                    _field(d, "prompt", str, "", "decision."), tuple(options))


def _read_json(environ: dict[str, Any]) -> dict[str, Any]:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise BadRequest("bad Content-Length") from None
    if not 0 <= length <= MAX_REQUEST:
        raise BadRequest(f"Content-Length must be 0 to {MAX_REQUEST} bytes")
    try:
        doc = json.loads(environ["wsgi.input"].read(length) or b"null")
    except ValueError as exc:  # also bad UTF-8 (UnicodeDecodeError is a ValueError)
        raise BadRequest(f"body is not JSON: {exc}") from None
    except RecursionError:
        raise BadRequest("body is not JSON this server reads: nested too deep") from None
    if not isinstance(doc, dict):
        raise BadRequest("body must be a JSON object")
    return doc


def _json(start_response: StartResponse, status: str, doc: Any) -> list[bytes]:
    body = json.dumps(doc, separators=(",", ":")).encode()
    start_response(status, [("Content-Type", "application/json"),
                            ("Content-Length", str(len(body)))])
    return [body]


def _games_of(spec: str) -> list[str]:
    """The registered games the built-in bot ``spec`` plays: those it has a version for that
    take its parameters (``mcts:horizon=2`` is a parameter of the Doubletrack search only).
    Raises the spec's own error where it plays none."""
    from referee.games import game_names

    by_game = bot_games(parse_bot_spec(spec)[0])
    if by_game is None:
        find_bot(spec, "", 0)  # raises the unknown-bot error that lists the names
        raise AssertionError("find_bot accepted an unknown bot")
    games: list[str] = []
    refused: BotSpecError | None = None
    for game in game_names():
        if game in by_game or "*" in by_game:
            try:
                find_bot(spec, game, 0)
            except BotSpecError as exc:
                refused = refused or exc
                continue
            games.append(game)
    if not games:
        raise refused or UnknownBotError(f"bot {spec!r} plays no registered game")
    return games


class BotServer:
    """A waitress server for one :class:`BotApp`, run in the foreground or on a thread."""

    def __init__(self, app: BotApp, host: str = "127.0.0.1", port: int = 0,
                 threads: int = 8) -> None:
        self.app = app
        self._server: Any = create_server(
            app, host=host, port=port, threads=threads, ident="referee-bot",
            expose_tracebacks=False, channel_timeout=300,
        )
        self.host, self.port = host, int(self._server.effective_port)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def serve_forever(self) -> None:
        """Serve until :meth:`stop` (or Ctrl-C); the loop polls so that stop is prompt."""
        from waitress import wasyncore

        try:
            while not self._stop.is_set():
                wasyncore.loop(timeout=0.2, map=self._server._map, count=1)
        finally:
            for channel in list(self._server._map.values()):
                channel.close()
            self._server.task_dispatcher.shutdown(timeout=1)

    def start(self) -> BotServer:
        """Serve on a daemon thread; returns self (so ``BotServer(app).start().url`` reads well)."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True,
                                        name=f"bot-server:{self.port}")
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        try:
            self._server.pull_trigger()  # wake the poll at once
        except OSError:
            pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_bot(spec: str, game: str | None = None, seed: int | None = None,
              per_match: bool = True, host: str = "127.0.0.1", port: int = 0) -> BotServer:
    """Start a built-in bot on a background thread and return its running server."""
    return BotServer(BotApp(spec, game, seed, per_match), host, port).start()


def serve_seats(specs: list[str], game: str, seed: int, names: list[str] | None = None
                ) -> tuple[list[Player], list[BotServer]]:
    """``--over-http``: every built-in bot in ``specs`` behind its own loopback server, seeded
    exactly as in-process (so the match is the same one), and the URLs among them as they are;
    seat ``i`` is called ``names[i]`` (default: its spec, a URL's credentials hidden).
    Returns the players and the servers to stop afterwards."""
    from referee.lineup import bot_seed, is_url, make_player

    players: list[Player] = []
    servers: list[BotServer] = []
    try:
        for seat, spec in enumerate(specs):
            url = spec
            if not is_url(spec):
                servers.append(serve_bot(spec, game, bot_seed(seed, seat), per_match=False))
                url = servers[-1].url
            name = names[seat] if names else redact(spec)
            players.append(make_player(url, game, seed, seat, name=name))
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return players, servers
