"""The relay of this process: how a service's matches reach its pull bots.

The embedded server plays its matches on threads of the process that holds the bots'
connections, so one :class:`~referee.relay.MemoryRelay` per process joins them. A layout with
a broker (Celery workers apart from the web processes) needs a relay all of them share, through
Redis: not built yet, so such a service refuses pull bots (:func:`available`).
"""

from __future__ import annotations

import threading
from datetime import datetime

from sqlalchemy import Engine

from ladder import presence
from referee.relay import MemoryRelay, Relay

_lock = threading.Lock()
_relay: Relay | None = None


def process_relay() -> Relay:
    """This process's relay (made on first use)."""
    global _relay
    with _lock:
        if _relay is None:
            _relay = MemoryRelay()
        return _relay


def use(relay: Relay | None) -> None:
    """Make ``relay`` this process's (``None``: a fresh one on next use), for a server that
    builds its own and for tests."""
    global _relay
    with _lock:
        _relay = relay


def available(mode: str) -> str | None:
    """Why the service's layout cannot carry pull bots (``None`` when it can): ``mode`` is
    ``embedded`` or ``celery`` (:class:`api.context.Service`)."""
    if mode == "embedded":
        return None
    return ("pull bots need the embedded server for now: this service plays its matches on "
            "broker workers, which reach a bot's connection only through a shared relay")


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
