"""Any in-process :class:`~referee.players.Bot` served over HTTP (protocol v1), with waitress.

Used by ``referee bot serve`` (play against a built-in bot from your own code), by
``referee match --over-http`` (exercise the whole HTTP path without writing a bot), by the
tests and by the overhead bench. Waitress is a real multi-threaded WSGI server with HTTP/1.1
keep-alive, so the referee's connection pool behaves here as it does against anyone's bot.

A bot instance is made per (match, seat) at ``/start`` (or at the first ``/decide`` of a match
that was never started, for people driving the server by hand) and dropped at ``/end``.

Anyone who can reach the port can send anything, so the server holds only what it needs and
never answers 500 for a request it cannot use: bodies are capped per route (waitress refuses
larger ones before reading them), ``/start`` keeps only the fields of the protocol (parsed and
bounded by :mod:`referee.protocol`), a board equal to the packaged one is not
kept per match at all, the matches held are bounded in number and in board bytes, numbers in a
view are bounded before a bot reads it, whatever a bot raises on a request is that request's
400, idle connections are closed after :data:`IDLE_TIMEOUT_S`, and the connection limit is
sized for many concurrent matches (``--connections``).
"""

from __future__ import annotations

import functools
import json
import os
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, NamedTuple

from waitress.server import create_server

from bots import BotSpecError, UnknownBotError, bot_games, find_bot, parse_bot_spec
from referee import __version__
from referee.core import MAX_BOARD_JSON, RulesError
from referee.games import find_game, game_names
from referee.players import Bot
from referee.protocol import (
    PROTOCOL_VERSION, MessageError, decode_message, parse_decide, parse_end, parse_start,
)

MAX_BODY = {"/start": MAX_BOARD_JSON + 64 * 1024, "/decide": 1024 * 1024, "/end": 64 * 1024}
"""Request bodies per route: a ``/start`` carries the board (capped on load, see
:data:`~referee.core.MAX_BOARD_JSON`); a real ``/decide`` is under 16 KiB."""
MAX_REQUEST = max(MAX_BODY.values())
MAX_MATCHES = 256
"""Matches kept in memory at once; the oldest is dropped when a referee never sent /end."""
MAX_HELD_BYTES = 32 * 1024 * 1024
"""Board bytes (as sent) the matches held may carry together; the oldest go first past it."""
IDLE_TIMEOUT_S = 30
"""An idle connection is closed after this (waitress's default, 300 s, lets a hundred
half-open connections hold the server for five minutes). The referee keeps one connection per
seat alive through a match and reconnects, unnoticed, when one was closed between decisions."""


def default_connections() -> int:
    """Well above what a busy referee needs: a match holds one connection per seat, and
    ``--concurrency`` is typically up to twice the cores, with up to 4 seats."""
    return max(1024, 32 * (os.cpu_count() or 1))

StartResponse = Callable[..., Any]


class BadRequest(Exception):
    """A request this server cannot act on; answered 400 with the message."""


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
        self.max_connections: int | None = None
        """Announced in ``GET /`` once a server owns the app (its connection limit)."""
        self._bots: OrderedDict[tuple[str, int], _Held] = OrderedDict()
        self._held_bytes = 0
        self._lock = threading.Lock()
        self.games = [game] if game else _games_of(spec)  # fail now, not at the first request
        if game:
            find_bot(spec, game, 0)

    def info(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.spec,
            "author": "referee built-in bots",
            "version": __version__,
            "games": self.games,
            "protocol": PROTOCOL_VERSION,
        }
        if self.max_connections is not None:
            doc["max_connections"] = self.max_connections
        return doc

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
            return _json(start_response, "200 OK", handler(_read_json(environ, MAX_BODY[path])))
        except (BadRequest, MessageError) as exc:
            return _json(start_response, "400 Bad Request", {"error": str(exc)})
        except Exception as exc:  # the bot's own bug: a 500 the referee strikes, server lives on
            return _json(start_response, "500 Internal Server Error", {"error": repr(exc)[:500]})

    # -- routes -----------------------------------------------------------------------------

    def _start(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Keeps the protocol's fields only (:func:`~referee.protocol.parse_start`), and the
        board only if it is not the packaged one (which the bots share through the game's
        cache)."""
        info = parse_start(msg)
        if info.board is not None and _is_packaged(info.game, dict(info.board)):
            info = replace(info, board=None)
        kept = 0 if info.board is None else len(_canonical(info.board))
        bot, lock = self._bot(info.match_id, info.seat, info.game, fresh=True, board_bytes=kept)
        with lock:
            try:
                bot.start(info)
            except Exception as exc:  # whatever it is, this board is what the bot cannot use
                raise BadRequest(f"the bot cannot start from this message: "
                                 f"{type(exc).__name__}: {exc}"[:500]) from None
        return {"ok": True}

    def _decide(self, msg: dict[str, Any]) -> dict[str, Any]:
        request = parse_decide(msg)
        bot, lock = self._bot(request.match_id, request.seat, request.game)
        with lock:
            try:
                out = bot.decide(request.decision, request.view())
            except Exception as exc:  # a request the bot cannot read, however it fails on it
                raise BadRequest(
                    f"the bot cannot read this decision or view ({type(exc).__name__}: {exc}); "
                    f"send what the referee sends for {request.game!r}"[:500]
                ) from None
        if isinstance(out, tuple):
            return {"choice": out[0], "log": out[1]}
        return {"choice": out}

    def _end(self, msg: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._drop(parse_end(msg))
        return {"ok": True}

    def _bot(self, match_id: str, seat: int, game: str, fresh: bool = False,
             board_bytes: int = 0) -> tuple[Bot, threading.Lock]:
        """The bot of (match, seat), made (with its seed) if it is new or ``fresh``."""
        key = match_id, seat
        if self.game and game != self.game:
            raise BadRequest(f"this server plays {self.game!r}, not {game!r}")
        with self._lock:
            entry = None if fresh else self._bots.get(key)
            if entry is None:
                try:
                    bot = find_bot(self.spec, game, self._seed_for(*key))
                except LookupError as exc:  # an unknown game, or no version of the bot for it
                    raise BadRequest(str(exc)) from None
                self._drop(key)
                entry = self._bots[key] = _Held(bot, threading.Lock(), board_bytes)
                self._held_bytes += board_bytes
                while len(self._bots) > MAX_MATCHES or (
                        self._held_bytes > MAX_HELD_BYTES and len(self._bots) > 1):
                    self._drop(next(iter(self._bots)))
            return entry.bot, entry.lock

    def _drop(self, key: tuple[str, int]) -> None:
        held = self._bots.pop(key, None)
        if held is not None:
            self._held_bytes -= held.board_bytes

    def _seed_for(self, match_id: str, seat: int) -> int:
        if not self.per_match:
            return self.seed
        return random.Random(f"{self.seed}:{match_id}:{seat}").getrandbits(63)


class _Held(NamedTuple):
    """A match's bot, the lock its requests take turns on, and the board bytes it holds."""

    bot: Bot
    lock: threading.Lock
    board_bytes: int


@functools.lru_cache(maxsize=8)
def _packaged_board(game: str) -> str | None:
    """The packaged board of ``game`` as canonical JSON (``None`` for an unknown game)."""
    try:
        return _canonical(find_game(game).load_board().data)
    except (LookupError, RulesError, TypeError, ValueError):
        return None


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _is_packaged(game: str, board: dict[str, Any]) -> bool:
    try:
        return _canonical(board) == _packaged_board(game)
    except (TypeError, ValueError):
        return False


def _read_json(environ: dict[str, Any], limit: int = MAX_REQUEST) -> dict[str, Any]:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise BadRequest("bad Content-Length") from None
    if not 0 <= length <= limit:
        raise BadRequest(f"Content-Length must be 0 to {limit} bytes here")
    return decode_message(environ["wsgi.input"].read(length))


def _json(start_response: StartResponse, status: str, doc: Any) -> list[bytes]:
    body = json.dumps(doc, separators=(",", ":")).encode()
    start_response(status, [("Content-Type", "application/json"),
                            ("Content-Length", str(len(body)))])
    return [body]


def _games_of(spec: str) -> list[str]:
    """The registered games the built-in bot ``spec`` plays: those it has a version for that
    take its parameters (``mcts:horizon=2`` is a parameter of the Doubletrack search only).
    Raises the spec's own error where it plays none."""
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
    """A waitress server for one :class:`BotApp`, run in the foreground or on a thread.

    ``connections`` is waitress's connection limit (default :func:`default_connections`; its
    own default, 100, strikes the seats of the 51st two-seat match played at once); the
    process's open-file limit is raised to fit it where the hard limit allows."""

    def __init__(self, app: BotApp, host: str = "127.0.0.1", port: int = 0,
                 threads: int = 8, connections: int | None = None) -> None:
        self.app = app
        self.connections = connections or default_connections()
        _allow_open_files(self.connections + 64)
        self._server: Any = create_server(
            app, host=host, port=port, threads=threads, ident="referee-bot",
            expose_tracebacks=False, channel_timeout=IDLE_TIMEOUT_S,
            cleanup_interval=max(1, IDLE_TIMEOUT_S // 3), connection_limit=self.connections,
            backlog=min(self.connections, 4096), max_request_body_size=MAX_REQUEST,
        )
        app.max_connections = self.connections
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


def _allow_open_files(needed: int) -> None:
    """Raise the soft limit on open files to ``needed`` if it is lower and the hard limit
    allows (each connection is a file; 1024 is a common soft limit)."""
    try:
        import resource
    except ImportError:  # not on this platform
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass


def serve_bot(spec: str, game: str | None = None, seed: int | None = None,
              per_match: bool = True, host: str = "127.0.0.1", port: int = 0) -> BotServer:
    """Start a built-in bot on a background thread and return its running server."""
    return BotServer(BotApp(spec, game, seed, per_match), host, port).start()
