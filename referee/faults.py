"""Why a bot's answer was struck: :class:`FaultReason` and :class:`Fault`.

A bot's fault never raises: the transport (or the in-process player) reports it as a
:class:`Fault`, the runner strikes the seat and records it in the match log (its ``reason`` as
the string value), and the CLI and the bot check read the same type. The reasons are the
protocol's (``docs/protocol.md``, "Strikes"); the published schemas take their values from
:class:`FaultReason`, so they cannot drift apart.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.display import printable

BODY_EXCERPT_CHARS = 500
"""How much of a bad answer's body a fault keeps: enough for a bot author to see what their
bot sent (an HTML error page, a traceback), little enough to store with every check."""


class FaultReason(enum.StrEnum):
    """Why an answer (or a ``/start``, ``/end`` or ``GET /`` call) failed; the string value
    is what logs, ``--json`` and the schemas carry."""

    TIMEOUT = "timeout"
    """No complete answer within the deadline."""
    CONNECTION_ERROR = "connection_error"
    """Could not connect, or the connection was reset or dropped."""
    HTTP_STATUS = "http_status"
    """A status other than 2xx (redirects included: they are never followed)."""
    BAD_JSON = "bad_json"
    """The body is not the JSON the protocol asks for, or it is compressed."""
    TOO_LARGE = "too_large"
    """The body is over the size cap."""
    UNKNOWN_OPTION = "unknown_option"
    """The choice is not one of the ids offered."""
    BOT_ERROR = "bot_error"
    """An in-process bot raised (never an HTTP bot's fault)."""

    @property
    def unreachable(self) -> bool:
        """Whether the bot was not heard from at all (not up, or not answering in time)."""
        return self in (FaultReason.TIMEOUT, FaultReason.CONNECTION_ERROR)


REMOTE_REASONS = tuple(r for r in FaultReason if r is not FaultReason.BOT_ERROR)
"""The reasons an HTTP bot can be struck for (the protocol's table of strikes)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One failed call: why, a one-line ``detail`` fit to print (the bot's words escaped, URL
    credentials hidden), and the start of the body when one was read and was the fault."""

    reason: FaultReason
    detail: str
    body: str | None = None
    """The first :data:`BODY_EXCERPT_CHARS` characters of a bad body, escaped; ``None`` when
    no body was read (a timeout, a refused connection, a non-2xx status)."""

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"


def body_excerpt(body: bytes) -> str:
    """The start of ``body`` as text a terminal or a page can show as it is."""
    text = body[:4 * BODY_EXCERPT_CHARS].decode("utf-8", "replace")[:BODY_EXCERPT_CHARS]
    return printable(text)
