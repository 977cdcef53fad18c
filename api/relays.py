"""The relay of this process: how a service's matches reach its pull bots.

The embedded server plays its matches on threads of the process that holds the bots'
connections: one :class:`~referee.relay.MemoryRelay` per process joins them. A layout with a
Redis broker (Celery workers apart from the web processes) shares one
:class:`~ladder.relay_redis.RedisRelay` among all its processes, keyed under its queue's name.
Another broker carries no pull bots (:func:`available`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import datetime

from sqlalchemy import Engine

from ladder import presence
from referee.relay import MemoryRelay, Relay

log = logging.getLogger("referee.relay")
_lock = threading.Lock()
_relay: Relay | None = None
_settings: tuple[str | None, str] | None = None
"""The broker's URL and the queue's name this process's relay follows (``None``: read from
the environment on first use, as a Celery worker's settings are)."""


def configure(broker_url: str | None, queue: str) -> None:
    """The relay follows this service's broker (an app's factory says so)."""
    global _relay, _settings
    with _lock:
        if _settings != (broker_url, queue):
            _settings, _relay = (broker_url, queue), None


def _follows() -> tuple[str | None, str]:
    if _settings is None:
        from api.config import ServiceConfig

        config = ServiceConfig.from_env()
        return config.broker_url, config.queue
    return _settings


def process_relay() -> Relay:
    """This process's relay (made on first use): through Redis when the broker is Redis,
    else in memory."""
    global _relay
    with _lock:
        if _relay is None:
            broker, queue = redis_broker()
            if broker:
                from ladder.relay_redis import RedisRelay

                _relay = RedisRelay(broker, prefix=f"referee:{queue}:pull")
            else:
                _relay = MemoryRelay()
        return _relay


def redis_broker() -> tuple[str | None, str]:
    """The broker's URL when it is Redis (else ``None``), and the queue's name: what every
    process of one service shares (the pull relay, live spectators' progress)."""
    broker, queue = _follows()
    return (broker if broker and broker.startswith(("redis://", "rediss://", "unix://"))
            else None), queue


def use(relay: Relay | None) -> None:
    """Make ``relay`` this process's (``None``: a fresh one on next use), for tests."""
    global _relay
    with _lock:
        _relay = relay


def available(mode: str) -> str | None:
    """Why the service's layout cannot carry pull bots (``None`` when it can): ``mode`` is
    ``embedded`` or ``celery`` (:class:`api.context.Service`)."""
    if mode == "embedded" or redis_broker()[0]:
        return None
    return ("pull bots need Redis as the broker: the workers reach a bot's connection "
            "through it")


def sweep_presence(engine: Engine, now: datetime | None = None) -> dict[int, str]:
    """Pull bots' ladder entries paused while they are away (not connected to this
    process's relay) and resumed when they are back (:func:`ladder.presence.sweep`)."""
    relay = process_relay()
    return presence.sweep(engine, lambda bot_id: relay.connected(str(bot_id)), now)


def arrived(engine: Engine, bot_id: int) -> None:
    """A poll of ``bot_id`` is in: if the bot was not connected, its away pause lifts now
    (not at the next sweep)."""
    if not process_relay().connected(str(bot_id)):
        presence.back(engine, bot_id)


def pull_check_refusal(bot_id: int, mode: str = "embedded") -> str | None:
    """Why the pull bot ``bot_id`` cannot be checked now (``None``: it can): a check plays
    its matches through the bot's connection, so the bot must be connected when it is asked
    for and when it starts (else every request would be a ``connection_error`` strike).
    ``mode``: the service's layout (:func:`available`). :class:`RelayError` when the relay
    cannot be reached."""
    refused = available(mode)
    if refused is not None:
        return refused
    if process_relay().connected(str(bot_id)):
        return None
    return (f"pull bot {bot_id} is not connected: connect it first (referee bot connect "
            "SERVICE_URL --token T BOT), then ask for its check")


_booked: dict[tuple[int, int], float] = {}
"""When this process last booked each (engine, bot): the engine too, since each database has
its own bots (an app per test, here)."""


def relay_down(engine: Engine, bot_id: int, exc: Exception) -> None:
    """This web process could not reach the relay for ``bot_id``'s poll or answer: book it
    (at most every :data:`~ladder.relay_incidents.BOOK_EVERY_S` per bot), so that a match
    that struck the bot meanwhile is played again rather than charged to it
    (:mod:`ladder.relay_incidents`). A database failure here is logged: the 503 goes out
    all the same."""
    from ladder import relay_incidents

    now = time.monotonic()
    with _lock:
        key = (id(engine), bot_id)
        if now - _booked.get(key, -1e9) < relay_incidents.BOOK_EVERY_S:
            return
        _booked[key] = now
        if len(_booked) > 4096:
            _booked.clear()
    try:
        relay_incidents.book(engine, bot_id, f"{type(exc).__name__}: {exc}",
                             f"web:{socket.gethostname()}:{os.getpid()}")
    except Exception:
        log.exception("booking the relay's failure for bot %s", bot_id)
