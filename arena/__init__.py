"""The match-execution layer: one description of a match in, its record out.

Above the rules and the runner (``referee``) and the bots (``bots``), below the tournaments, the
ladder and the front ends (``cli``, ``api``). Every match of the project is played by
:func:`play_match`::

    from arena import MatchDescription, Seat, play_match

    record = play_match(MatchDescription("tokaido-duo", (Seat("greedy"), Seat("random")), seed=7))
    record.result.winners, record.log    # the result, and the match log (a contract)

A :class:`MatchDescription` is plain data (picklable; ``to_dict``/``from_dict`` for a database
row or a queue message). The checks a front end makes before playing are domain functions that
raise typed errors (subclasses of :class:`~referee.errors.RefereeError`): :func:`check_match`,
:func:`check_seat`, the ``GET /`` probe (:func:`probe`), :func:`check_bot` (the conformance
check a bot's registration runs). Processes started apart get the registries through
:func:`snapshot` and :func:`restore`. :func:`play` (also ``referee.play``) is the short way
from Python: bot specs in, the record out.
"""

from __future__ import annotations

from arena.conformance import ConformanceReport, check_bot
from arena.description import (
    DescriptionError, MatchDescription, Seat, is_url, parse_option_pairs, parse_seats,
)
from arena.liveness import DeadBotError, Probe, capacity_warnings, probe
from arena.notebook import play
from arena.play import Prepared, check_match, load_board, play_match, play_prepared
from arena.registry import Registries, init_worker, restore, snapshot
from arena.seats import ServeError, bot_seed, check_seat, make_player, seated
from referee.match import MatchRecord, TimeControl

__all__ = [
    "ConformanceReport", "DeadBotError", "DescriptionError", "MatchDescription", "MatchRecord",
    "Prepared", "Probe", "Registries", "Seat", "ServeError", "TimeControl", "bot_seed",
    "capacity_warnings", "check_bot", "check_match", "check_seat", "init_worker", "is_url",
    "load_board", "make_player", "parse_option_pairs", "parse_seats", "play", "play_match",
    "play_prepared", "probe", "restore", "seated", "snapshot",
]
