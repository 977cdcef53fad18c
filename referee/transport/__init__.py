"""HTTP bots: :class:`HttpPlayer` speaks protocol v1 to a bot's base URL under a hard deadline.

A stack of four layers, each importing only those below it (``setup.cfg`` holds the order),
each module's docstring saying why it is built the way it is:

* :mod:`~referee.transport.deadline`: a call another thread can cut off by shutting its socket
  down, the connection hooks that hand the socket to the call, and its time in awake time;
* :mod:`~referee.transport.adapter`: the ``requests`` adapter and session a bot is called
  through (tracked connections, a connection guard, no redirects, retries or environment);
* :mod:`~referee.transport.exchange`: :class:`Transport`, one call within its budget (inline or
  on a worker thread), the response read and checked, and what is the bot's fault;
* :mod:`~referee.transport.player`: :class:`HttpPlayer` and the ``GET /`` probes.

The names below are the package's whole surface: the player and the probes, the URL check and
the connection guard's type for the seats and the service, and the transport and the adapter's
sending for the benches and tests that time or exercise them.
"""

from __future__ import annotations

from referee.transport.adapter import HEADERS, ConnectGuard, new_session, send, with_body
from referee.transport.exchange import MAX_BODY, BotUrlError, Exchange, Transport, check_url
from referee.transport.player import LIFECYCLE_MS, HttpPlayer, fetch_info, fetch_infos

__all__ = [
    "HEADERS", "LIFECYCLE_MS", "MAX_BODY", "BotUrlError", "ConnectGuard", "Exchange",
    "HttpPlayer", "Transport", "check_url", "fetch_info", "fetch_infos", "new_session", "send",
    "with_body",
]
