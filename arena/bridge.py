"""A local bot behind a pull connection: the bot's side of pull mode (``referee bot connect``).

:class:`LocalBot` answers the requests a pull connection hands over, with any seat the command
line plays: an HTTP bot on this machine (its documents forwarded as they are, its answers
returned as they are, byte for byte), a ``cmd:`` program (started once, then the same), or a
built-in bot or a ``py:`` file, played in-process (a player per match, made by
:func:`arena.seats.make_player`). :class:`Bridge` keeps the connection: it polls through a
:class:`Link` (the service's HTTP API, or a test's client), answers each request on a thread
of its own (matches in progress at once do not wait on each other), reconnects with backoff
when the service cannot be reached, and says one line per match and per fault of the local bot.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, Protocol

from arena.description import Seat
from arena.seats import make_player, seated
from referee import protocol
from referee.errors import RefereeError
from referee.faults import Fault
from referee.players import Player

if TYPE_CHECKING:
    from arena.launch import Launched
    from referee.transport import Transport

log = logging.getLogger("referee.bridge")

BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
"""Pauses between tries to reach the service again, the last one repeated."""
POLL_WAIT_S = 25
MAX_MATCHES = 64
"""Matches a bridge keeps a connection to its local bot, or an in-process player, for: one
whose ``/end`` never came (lost with a connection past its deadline, or a match the service
played again under a new id) is forgotten, and closed, past it."""
OVER_CHECK_S = 10.0
"""While finishing at a stop, how often the bridge asks the service which of its matches in
progress are over: a match whose ``/end`` never reached it (lost past its deadline, or played
again under a new id) would otherwise keep it waiting for ever."""
MAX_UNSENT = 64
"""Answers kept whose post was lost (the service unreachable), to post again when their
request is handed again after the reconnect."""


class LinkDown(Exception):
    """The service cannot be reached now (no connection, a 5xx): try again later."""


class LinkRefused(RefereeError):
    """The service refuses this connection for good (a bad token, not your bot, a push bot,
    replaced by another connection): the message says why."""


class LocalBotGone(RefereeError):
    """The local bot can answer nothing more (the ``cmd:`` program the bridge started has
    ended): the bridge stops polling, so that the service sees the bot away."""


class Link(Protocol):
    """The bot's connection to the service."""

    def poll(self, wait_s: int, resume: bool = False) -> list[dict[str, Any]]:
        """The requests handed over (envelopes); ``resume``: first those handed before and
        not answered, again (the connection's first poll). :class:`LinkDown`,
        :class:`LinkRefused`."""

    def answer(self, request_id: str, body: bytes) -> int:
        """Post an answer; the service's status code (200 taken, or a duplicate: the first
        answer stands; 404 unknown, 409 late)."""

    def over(self, match_ids: Sequence[str]) -> set[str]:
        """Those of ``match_ids`` (as ``/start`` named them) that the service says are over
        for this bot: finished, voided, or played again under another id. :class:`LinkDown`."""


class LocalBot:
    """Answers envelopes with a local seat (``spec`` as the command line takes it)."""

    def __init__(self, spec: str, game: str | None, seed: int) -> None:
        self.seat, self.game, self.seed = Seat.parse(spec), game, seed
        self._stack = ExitStack()
        self._players: dict[str, Player] = {}
        self._transports: dict[str, Transport] = {}
        self._lock = threading.Lock()
        self.url: str | None = None
        self.program: Launched | None = None
        """The ``cmd:`` bot's program, started here (see :meth:`gone`)."""
        if self.seat.launched:
            if game is None:
                raise RefereeError("a cmd: bot is started for one game: name it (--game)")
            [player] = self._stack.enter_context(seated([self.seat], game, seed))
            self.url, self.program = getattr(player, "url"), getattr(player, "bot")
        elif self.seat.remote:
            self.url = self.seat.bot

    def close(self) -> None:
        for player in self._players.values():
            player.close()
        for transport in self._transports.values():
            transport.close()
        self._stack.close()

    def gone(self) -> str | None:
        """Why the local bot can answer nothing more (``None``: it can): the ``cmd:`` program
        started here has ended (a bot at a URL may come back, and an in-process one cannot
        end)."""
        if self.program is None or self.program.exit_status() is None:
            return None
        return f"your bot's program ended ({self.program.death()})"

    def answer(self, env: Mapping[str, Any]) -> tuple[bytes | None, Fault | None]:
        """The body to post for ``env`` (``None``: nothing to post, the local bot did not
        answer in time), and the local bot's fault if it had one."""
        if self.url is not None:
            return self._forward(env)
        return self._in_process(env)

    def _forward(self, env: Mapping[str, Any]) -> tuple[bytes | None, Fault | None]:
        """The document sent to the local HTTP bot as it is, on one kept-alive connection
        per match (a match asks one thing at a time), closed after its ``/end``."""
        from referee.transport import Transport

        assert self.url is not None
        match_id, path = str(env["body"].get("match_id")), env["path"]
        with self._lock:
            transport = self._transports.pop(match_id, None) if path == "/end" else (
                self._transports.get(match_id))
            if transport is None:
                transport = Transport(self.url, label="local-bot")
                if path != "/end":
                    self._transports[match_id] = transport
                    _forget_oldest(self._transports)
        try:
            ex = transport.call("POST", path, protocol.encode(env["body"]), env["deadline_ms"])
        finally:
            if path == "/end":
                transport.close()
        return ex.body, ex.fault

    def _in_process(self, env: Mapping[str, Any]) -> tuple[bytes | None, Fault | None]:
        path, body = env["path"], env["body"]
        if path == "/start":
            info = protocol.parse_start(body)
            made = make_player(self.seat, info.game, self.seed, info.seat)
            with self._lock:
                self._players[info.match_id] = made
                _forget_oldest(self._players)
            fault = made.start(info)
            return (None, fault) if fault else (b"{}", None)
        match_id = str(body.get("match_id"))
        with self._lock:
            player = (self._players.pop(match_id, None) if path == "/end"
                      else self._players.get(match_id))
        if player is None:
            return b"{}", None  # a match this bridge did not see start: nothing to play with
        if path == "/end":
            player.end(match_id, body.get("result", {}))
            player.close()
            return b"{}", None
        got = player.decide(protocol.parse_decide(body))
        if got.choice is None:
            return None, got.fault
        out: dict[str, Any] = {"choice": got.choice}
        if got.log:
            out["log"] = got.log
        return protocol.encode(out), got.fault


class Bridge:
    """Keeps ``link`` polled and every request answered by ``local``; ``say`` prints a line."""

    def __init__(self, link: Link, local: LocalBot, say: Callable[[str], None],
                 workers: int = 8) -> None:
        self.link, self.local, self.say = link, local, say
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="bridge")
        self.matches: set[str] = set()
        self._lock = threading.Lock()
        self._busy: set[str] = set()
        """Requests being answered: one handed again meanwhile is not answered twice."""
        self._unsent: dict[str, bytes] = {}
        """Answers whose post was lost, by request id, to post again when handed again."""
        self._lost = False
        """An answer's post was lost: the next poll says ``resume`` to be handed it again."""

    def run(self, stop: threading.Event, wait_s: int = POLL_WAIT_S,
            until_idle: bool = False) -> None:
        """Poll until ``stop`` is set (``until_idle``: or no match is in progress);
        :class:`LinkRefused` when the service refuses, :class:`LocalBotGone` when the local
        bot's program has ended: polling on would keep the pull bot connected, so scheduled,
        while every request it takes is a strike (stopped, it is away: its entries pause).
        :meth:`close` when done."""
        failures, resume = 0, True  # a first poll: what a previous run was handed, again
        checked = time.monotonic()
        while not stop.is_set() and not (until_idle and not self.matches):
            if until_idle and time.monotonic() - checked >= OVER_CHECK_S:
                checked = time.monotonic()
                self._forget_over()
                continue
            gone = self.local.gone()
            if gone is not None:
                raise LocalBotGone(f"{gone}: stopping, so that the service sees your bot "
                                   "away (start it again to play)")
            with self._lock:
                resume, self._lost = resume or self._lost, False
            try:
                envs = self.link.poll(wait_s, resume)
            except LinkDown as exc:
                resume = True  # what was handed meanwhile may have been lost
                pause = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
                failures += 1
                self.say(f"cannot reach the service ({exc}): trying again in {pause:g} s")
                stop.wait(pause)
                continue
            if failures:
                self.say("connected again")
            failures, resume = 0, False
            for env in envs:
                with self._lock:
                    if str(env.get("request_id")) in self._busy:
                        continue  # handed again while this bridge still answers it
                    self._busy.add(str(env.get("request_id")))
                if env.get("path") == "/start":  # in progress from now (not when answered)
                    self.matches.add(env["body"].get("match_id"))
                self._pool.submit(self._handle, env)

    def _forget_over(self) -> None:
        """Forget the matches in progress the service says are over (their ``/end`` never
        came); if it cannot be reached, ask again later."""
        try:
            over = self.link.over(sorted(m for m in self.matches if m))
        except LinkDown:
            return
        for match in sorted(over):
            self.matches.discard(match)
            self.say(f"match {match} is over (its end never reached this bridge)")

    def close(self, wait: bool = False) -> None:
        """Stop answering (``wait``: after the answers under way)."""
        self._pool.shutdown(wait=wait, cancel_futures=not wait)

    def _handle(self, env: Mapping[str, Any]) -> None:
        """Answer ``env``; then, if its answer's post was lost, the next poll resumes: it is
        handed again (within its deadline) and the kept answer posted. Only once it is no
        longer busy: a copy handed meanwhile (the post still under way) was skipped."""
        rid = str(env.get("request_id"))
        try:
            self._answer(env)
        finally:
            with self._lock:
                self._busy.discard(rid)
                self._lost = self._lost or rid in self._unsent

    def _answer(self, env: Mapping[str, Any]) -> None:
        """Answer ``env`` with the local bot (or post again an answer whose post was lost)."""
        rid = str(env.get("request_id"))
        with self._lock:
            kept = self._unsent.pop(rid, None) if env.get("resent") else None
        if kept is not None:
            self._post(env, kept)
            return
        if env.get("resent") and isinstance(env.get("body"), dict) and "deadline_ms" in env[
                "body"]:  # handed again: the local bot has the time left, not the first deadline
            env = {**env, "body": {**env["body"], "deadline_ms": env["deadline_ms"]}}
        try:
            self._announce(env)
            body, fault = self.local.answer(env)
            match = env["body"].get("match_id", "?")
            if fault is None and body is not None and env["path"] == "/decide":
                fault = _answer_fault(env, body)
            if fault is not None:
                self.say(f"match {match}: your bot's {env['path']} failed: {fault}")
            if body is None:
                return
            self._post(env, body)
        except Exception:  # a bug here must not stop the other matches
            log.exception("answering %s", env.get("request_id"))
            self.say(f"could not answer {env.get('request_id')!r}: see the log")

    def _post(self, env: Mapping[str, Any], body: bytes) -> None:
        """Post the answer; one whose post is lost is kept, to post again when the request
        is handed again after the reconnect (within its deadline)."""
        match = env["body"].get("match_id", "?")
        try:
            status = self.link.answer(env["request_id"], body)
        except LinkDown as exc:
            with self._lock:
                self._unsent[env["request_id"]] = body
                while len(self._unsent) > MAX_UNSENT:
                    self._unsent.pop(next(iter(self._unsent)))
            self.say(f"match {match}: an answer was lost ({exc}): it goes again if the "
                     "service is back within its deadline")
            return
        if status == 409:
            self.say(f"match {match}: {env['path']} answered too late (a strike)")
        elif status >= 300:
            self.say(f"match {match}: the service refused the answer ({status})")

    def _announce(self, env: Mapping[str, Any]) -> None:
        body = env["body"]
        if env["path"] == "/start":
            others = ", ".join(p.get("name", "?") for p in body.get("players", [])
                               if p.get("seat") != body.get("seat"))
            self.say(f"match {body.get('match_id')}: {body.get('game')}, seat "
                     f"{body.get('seat')}, against {others}")
        elif env["path"] == "/end":
            self.matches.discard(body.get("match_id"))
            result, seat = body.get("result") or {}, body.get("seat")
            rank = next((s.get("rank") for s in result.get("seats", [])
                         if s.get("seat") == seat), "?")
            self.say(f"match {body.get('match_id')} over: rank {rank} ({result.get('reason')})")


def _forget_oldest(kept: dict[str, Any]) -> None:
    """Close and forget the oldest of ``kept`` (by match, oldest first) past
    :data:`MAX_MATCHES`: a match whose ``/end`` never came."""
    while len(kept) > MAX_MATCHES:
        kept.pop(next(iter(kept))).close()


def _answer_fault(env: Mapping[str, Any], body: bytes) -> Fault | None:
    """The strike the referee will give the answer ``body`` to the ``/decide`` in ``env``
    (read as the referee reads it), to say it here too; ``None`` when it is a good one."""
    decision = env["body"].get("decision") or {}
    ids = tuple(str(o.get("id")) for o in decision.get("options", []) if isinstance(o, dict))
    return protocol.parse_answer(body, ids).fault
