"""Before the first game: is every HTTP bot up, does it play the game, can it take the load?

A bot that is down would otherwise "play" a whole match (or tournament) of fallback moves, so
the commands that play matches call ``GET /`` of every HTTP bot first (the protocol's own
check) through :func:`probe`; what to do about a dead bot (stop, or warn and play anyway) is
the caller's choice: :meth:`Probe.require_alive` raises :class:`DeadBotError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.display import printable, redact
from referee.errors import RefereeError
from referee.faults import Fault


class DeadBotError(RefereeError):
    """An HTTP bot that does not answer ``GET /``, or does not play the game; the message
    names each such bot and says how to look into it."""


@dataclass(frozen=True)
class Probe:
    """What ``GET /`` of the HTTP bots gave: the documents of those that can play ``game``
    (by URL), and a line for each that cannot (its URL's credentials hidden)."""

    game: str
    infos: Mapping[str, Any]
    dead: tuple[str, ...]

    def require_alive(self) -> None:
        """:class:`DeadBotError` naming every dead bot, if there is one."""
        if self.dead:
            raise DeadBotError(
                f"{'; '.join(self.dead)}: check it with `referee bot check URL --game "
                f"{self.game}`, or pass --allow-dead to play anyway")


def probe(urls: Sequence[str], game: str) -> Probe:
    """``GET /`` of every distinct URL at once (bots that are down cost one connect timeout
    together, not one each)."""
    if not urls:
        return Probe(game, {}, ())
    from referee.transport import fetch_infos  # loads requests: only for URLs

    infos: dict[str, Any] = {}
    dead = []
    for url, (info, fault) in fetch_infos(urls).items():
        problem = liveness_problem(info, fault, game)
        if problem:
            dead.append(f"bot {redact(url)} {problem}")
        else:
            infos[url] = info
    return Probe(game, infos, tuple(dead))


def liveness_problem(info: Any, fault: Fault | None, game: str) -> str | None:
    """Why a bot's ``GET /`` answer says it cannot play ``game`` now, or ``None``."""
    if fault is not None:
        return f"does not answer GET / ({printable(str(fault))})"
    if not isinstance(info, dict):
        return "answers GET / with something that is not a JSON object"
    games = info.get("games")
    if isinstance(games, list) and game not in games:
        return f"does not play {game} (its GET / lists {printable(repr(games))[:200]})"
    return None


def capacity_warnings(infos: Mapping[str, Any], needed: Mapping[str, int],
                      advice: str) -> list[str]:
    """A line for every bot whose ``GET /`` announces fewer ``max_connections`` than the
    matches will hold open to it at once (one kept-alive connection per seat per match)."""
    lines = []
    for url, need in needed.items():
        info = infos.get(url)
        cap = info.get("max_connections") if isinstance(info, dict) else None
        if isinstance(cap, int) and not isinstance(cap, bool) and need > cap:
            lines.append(f"bot {redact(url)} takes at most {cap} connections (its GET /), "
                         f"but the matches may hold {need} open to it at once: {advice}")
    return lines
