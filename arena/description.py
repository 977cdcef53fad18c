"""What a match is, as plain data: :class:`MatchDescription` and its seats, :class:`Seat`.

A description names everything that decides how a match is played (game, seats as bot specs,
seed, board, options, time control, strikes, match id) and nothing that is built from it
(players, servers, a loaded board), so it pickles for a process pool and round-trips through
JSON (:meth:`MatchDescription.to_dict`, :meth:`MatchDescription.from_dict`) for a database row
or a queue message. :func:`arena.play_match` turns it into a match record.

A seat's bot is a built-in bot spec (``greedy``, ``mcts:playouts=200``), an HTTP bot's base
URL, which may carry credentials: a description holds them (it must, to connect), so keep its
dict where secrets are kept; names and logs never show them. On the command line only, it may
also be a bot the referee runs itself: ``cmd:COMMAND``, a program started for the match and
played over HTTP (:mod:`arena.launch`), or ``py:PATH[:NAME]``, a Python bot loaded from a
file and played in-process (:mod:`arena.py_seat`); the service refuses both
(:func:`runs_here`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.display import redact
from referee.errors import RefereeError
from referee.match import TimeControl

NAME_RE = re.compile(r"[A-Za-z0-9_.+-]+")
"""What a ``NAME=BOT`` name may be made of."""


class DescriptionError(RefereeError, ValueError):
    """A match description that cannot describe a match (a field of the wrong type, a seat
    spec like ``NAME=``, a ``--option`` that is not ``key=value``); the message names it."""


def is_url(spec: str) -> bool:
    """Whether a bot spec is an address rather than a built-in name. Any scheme counts, so that
    ``ftp://x`` or ``htp://x`` is refused as a bad URL rather than looked up as a bot name."""
    return "://" in spec


COMMAND_PREFIX = "cmd:"
PYTHON_PREFIX = "py:"
PULL_PREFIX = "pull:"
"""``pull:KEY``: a bot that connects out to the service, asked through its relay
(:mod:`referee.relay`); only a service's matches have one."""


def is_pull(spec: str) -> bool:
    """Whether a bot spec is a pull bot of the service (``pull:KEY``)."""
    return spec.startswith(PULL_PREFIX)


def is_command(spec: str) -> bool:
    """Whether a bot spec is a program for the referee to start (``cmd:COMMAND``)."""
    return spec.startswith(COMMAND_PREFIX)


def runs_here(spec: str) -> bool:
    """Whether a bot spec runs code of the user's on this machine (``cmd:``, ``py:``): the
    command line's dev loop, which a service must never accept from anyone."""
    return spec.startswith((COMMAND_PREFIX, PYTHON_PREFIX))


@dataclass(frozen=True)
class Seat:
    """One seat: ``bot`` is a built-in bot spec, an HTTP bot's base URL, or a bot the referee runs
    (``cmd:`` a program it starts, ``py:`` a Python file it loads); ``name`` is what the
    match log and the other bots call it (``None``: the spec, a URL's credentials hidden);
    ``time_control``, the seat's own, where it is not the match's (``None``)."""

    bot: str
    name: str | None = None
    time_control: TimeControl | None = None

    @property
    def shown_name(self) -> str:
        return self.name or redact(self.bot)

    @property
    def remote(self) -> bool:
        """Whether the bot is at a URL (checked, probed and guarded as one)."""
        return is_url(self.bot)

    @property
    def launched(self) -> bool:
        """Whether the referee starts the bot's program for the match (``cmd:``)."""
        return is_command(self.bot)

    @property
    def pulled(self) -> bool:
        """Whether the bot connects out to the service and is asked through a relay."""
        return is_pull(self.bot)

    @property
    def waits(self) -> bool:
        """Whether the match mostly waits on this seat's bot (over HTTP, or a relay): threads
        suit it."""
        return self.remote or self.launched or self.pulled

    @classmethod
    def parse(cls, text: str) -> Seat:
        """``NAME=BOT`` or a bare bot (named by its spec, a URL without its credentials).

        Only a plain name before ``=`` splits: never a URL (``http://x/?a=b``), nor a bot spec
        with a parameter (``mcts:ms=50``). :class:`DescriptionError` for ``NAME=`` alone.
        """
        name, sep, bot = text.partition("=")
        if sep and NAME_RE.fullmatch(name):
            if not bot:
                raise DescriptionError(f"no bot after {name}=")
            return cls(bot, name)
        return cls(text, redact(text))


@dataclass(frozen=True)
class MatchDescription:
    """One match, as plain data: enough for any process to play it, the same way each time.

    ``board`` is ``None`` (the game's packaged board), the path of a board file, or board data
    (as a match log embeds it). ``match_id`` ``None`` draws a fresh one when played.
    ``over_http`` serves the built-in bots behind real loopback HTTP servers, seeded as they
    would be in-process, so the match is the same one through the whole protocol.
    ``outputs`` is where started (``cmd:``) bots write their output.
    """

    game: str
    seats: tuple[Seat, ...]
    seed: int
    board: str | Mapping[str, Any] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    time_control: TimeControl = TimeControl()
    strikes: int = 3
    match_id: str | None = None
    over_http: bool = False
    outputs: str | None = None
    """Where ``cmd:`` bots' output goes: ``<outputs>.seat<N>.stdout`` and ``.stderr`` (a path
    prefix, beside the match log); ``None``, a temporary folder, kept only if a bot fails."""

    @property
    def remote(self) -> bool:
        """Whether any seat's bot is played over HTTP (such matches mostly wait: threads suit
        them)."""
        return any(seat.waits for seat in self.seats)

    def names(self) -> tuple[str, ...]:
        return tuple(seat.shown_name for seat in self.seats)

    def to_dict(self) -> dict[str, Any]:
        """The description as JSON-ready data (bot URLs with their credentials)."""
        return {
            "game": self.game,
            "seats": [{"bot": s.bot, "name": s.name}
                      | ({"time_control": dict(s.time_control.to_dict())} if s.time_control
                         else {})
                      for s in self.seats],
            "seed": self.seed,
            "board": self.board if isinstance(self.board, str | None) else dict(self.board),
            "options": dict(self.options),
            "time_control": dict(self.time_control.to_dict()),
            "strikes": self.strikes,
            "match_id": self.match_id,
            "over_http": self.over_http,
            "outputs": self.outputs,
        }

    @classmethod
    def from_dict(cls, data: Any) -> MatchDescription:
        """The description :meth:`to_dict` gave (absent optional fields take their defaults);
        :class:`DescriptionError` naming the first field of the wrong type."""
        doc = _expect(data, dict, "the description")
        seats = tuple(
            Seat(_expect(_expect(s, dict, f"seats[{i}]").get("bot"), str, f"seats[{i}].bot"),
                 _optional(s.get("name"), str, f"seats[{i}].name"),
                 None if s.get("time_control") is None
                 else _time_control(s["time_control"], f"seats[{i}].time_control"))
            for i, s in enumerate(_expect(doc.get("seats"), list, "seats"))
        )
        board = doc.get("board")
        if not isinstance(board, str | dict | None):
            raise DescriptionError("field board is not a path, board data or null")
        return cls(
            game=_expect(doc.get("game"), str, "game"),
            seats=seats,
            seed=_expect(doc.get("seed"), int, "seed"),
            board=board,
            options=_expect(doc.get("options", {}), dict, "options"),
            time_control=_time_control(doc.get("time_control", {}), "time_control"),
            strikes=_expect(doc.get("strikes", 3), int, "strikes"),
            match_id=_optional(doc.get("match_id"), str, "match_id"),
            over_http=_expect(doc.get("over_http", False), bool, "over_http"),
            outputs=_optional(doc.get("outputs"), str, "outputs"),
        )

    def check_shape(self) -> None:
        """:class:`DescriptionError` for values no match can have (checked before a game or a
        bot is looked up: see :func:`arena.check_match` for the rest)."""
        if not self.seats:
            raise DescriptionError("a match needs at least one seat")
        for clock in (self.time_control, *(s.time_control for s in self.seats)):
            if clock is not None and (clock.decision_ms < 1 or clock.bank_ms < 0):
                raise DescriptionError(f"time control {clock.to_dict()}: the decision "
                                       "time must be at least 1 ms and the bank not negative")
        if self.strikes < 1:
            raise DescriptionError(f"strikes must be at least 1, got {self.strikes}")


_TYPE_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "an array",
               bool: "true or false"}


def _expect(value: Any, kind: type, what: str) -> Any:
    if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
        return value
    shown = "missing" if value is None else f"not {_TYPE_NAMES[kind]}"
    raise DescriptionError(f"field {what} is {shown}")


def _time_control(value: Any, what: str) -> TimeControl:
    clock = _expect(value, dict, what)
    return TimeControl(
        _expect(clock.get("decision_ms", TimeControl.decision_ms), int, f"{what}.decision_ms"),
        _expect(clock.get("bank_ms", TimeControl.bank_ms), int, f"{what}.bank_ms"),
    )


def _optional(value: Any, kind: type, what: str) -> Any:
    return None if value is None else _expect(value, kind, what)


def parse_seats(texts: Sequence[str]) -> tuple[Seat, ...]:
    """Seats from command-line words (``greedy``, ``http://…``, ``cmd:…``, ``py:…``,
    ``NAME=BOT``)."""
    return tuple(Seat.parse(text) for text in texts)


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, Any]:
    """Game options from ``key=value`` words; a value is read as JSON when it parses (``2`` is
    a number, ``x`` a string). :class:`DescriptionError` for a word that is not ``key=value``.
    Whether the game takes them is the game's check (``Game.validate_options``)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise DescriptionError(f"{pair!r} is not key=value")
        try:
            options[key] = json.loads(raw)
        except ValueError:
            options[key] = raw
    return options
