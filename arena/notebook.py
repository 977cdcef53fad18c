"""``play(game, bots) -> record``: one match from Python (a notebook, a script, a test).

The Python face of ``referee match``, re-exported as ``referee.play``::

    from referee import play

    record = play("tokaido-duo", ["py:bots/starter/bot.py", "greedy"], seed=7)
    record.result.winners            # (1,)
    record.log["decisions"][0]       # what seat 0 was asked, what it chose, its note

Bots are the command line's specs: built-in names, ``http://`` URLs, ``cmd:COMMAND``,
``py:FILE[:NAME]``, each optionally ``NAME=BOT``. Errors are raised as the typed errors of
:func:`arena.check_match` (subclasses of :class:`~referee.errors.RefereeError`).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from arena.description import MatchDescription, parse_seats
from arena.play import play_match
from referee.match import MatchRecord, TimeControl
from referee.matchlog import write_log


def play(game: str, bots: Sequence[str], *, seed: int | None = None, time_ms: int = 1000,
         bank_ms: int = 0, strikes: int = 3, options: Mapping[str, Any] | None = None,
         board: str | None = None, log: str | None = None) -> MatchRecord:
    """Play one match of ``game`` between ``bots`` (one spec per seat) and return its record
    (``record.result``, ``record.log``: the match log, ``record.faults``).

    ``seed`` ``None`` draws one (``record.log["seed"]`` says which); ``time_ms`` and
    ``bank_ms`` are the time control, ``strikes`` the strikes before a forfeit, ``options``
    the game's options, ``board`` a board file. ``log``: also write the match log to this
    file (and ``cmd:`` bots' output beside it, as ``referee match --log`` does).
    """
    if isinstance(bots, str):
        raise TypeError("bots is a list of bot specs, one per seat, not one string")
    description = MatchDescription(
        game=game, seats=parse_seats(list(bots)),
        seed=secrets.randbits(63) if seed is None else seed, board=board,
        options=dict(options or {}), time_control=TimeControl(time_ms, bank_ms),
        strikes=strikes, outputs=_prefix(log))
    record = play_match(description)
    if log is not None:
        write_log(log, record.log)
    return record


def _prefix(log: str | None) -> str | None:
    if log is None:
        return None
    return log[:-len(".json")] if log.endswith(".json") else log
