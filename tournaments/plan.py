"""A tournament's identity: its entrants and the terms every match is played on (:class:`Plan`).

What ``--resume`` checks against the state, and what the schedule turns into one
:class:`~arena.MatchDescription` per match (:meth:`Plan.describe`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena import DescriptionError, MatchDescription, Seat, TimeControl, check_seat, is_url
from referee.core import Game
from referee.display import HIDDEN, redact
from referee.errors import RefereeError
from tournaments.errors import TournamentError


@dataclass(frozen=True)
class Entrant:
    """A named participant: ``bot`` is a built-in bot spec or an HTTP bot's URL."""

    name: str
    bot: str

    @property
    def remote(self) -> bool:
        return is_url(self.bot)


def parse_entrant(text: str) -> Entrant:
    """``greedy``, ``http://…`` or ``NAME=BOT`` (so the same bot can enter twice); a URL's
    credentials never become part of its name (see :meth:`arena.Seat.parse`)."""
    try:
        seat = Seat.parse(text)
    except DescriptionError as exc:
        raise TournamentError(f"entrant {redact(text)!r}: {exc}") from None
    return Entrant(seat.shown_name, seat.bot)


def parse_entrants(texts: Sequence[str]) -> list[Entrant]:
    entrants = [parse_entrant(t) for t in texts]
    seen: set[str] = set()
    for e in entrants:
        if e.name in seen:
            raise TournamentError(
                f"entrant {e.name!r} appears twice; enter a bot twice as NAME=BOT"
            )
        seen.add(e.name)
    if len(entrants) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    return entrants


def check_entrants(entrants: Sequence[Entrant], game: str) -> None:
    """Fail now, in one line naming the entrant, for a bot that does not exist for ``game`` or
    a URL that cannot be a bot's address, rather than in the middle of the first match."""
    for e in entrants:
        try:
            check_seat(Seat(e.bot, e.name), game)
        except RefereeError as exc:
            raise TournamentError(f"entrant {e.name}: {exc}") from exc


@dataclass(frozen=True)
class Plan:
    """A tournament: who plays (``entrants``), how many games per pairing or table
    (``games``), at how many ``seats``, from which ``seed``, and the terms of every match
    (board file, game options, time control, strikes). ``keep_logs``: send each match log back
    to the parent (only when a database records them: logs are large, and pickling them
    between processes costs time)."""

    game: str
    entrants: tuple[Entrant, ...]
    games: int
    seats: int
    seed: int
    board: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    time_control: TimeControl = TimeControl()
    strikes: int = 3
    keep_logs: bool = False
    outputs: str | None = None
    """The folder where ``cmd:`` bots' output goes, per match (``--logs``: beside each log);
    not stored: a resumed run names it again."""

    def describe(self, seats: Sequence[int], seed: int, match_id: str) -> MatchDescription:
        """The match of these entrants (indices, in seat order) on ``seed``."""
        return MatchDescription(
            game=self.game,
            seats=tuple(Seat(self.entrants[i].bot, self.entrants[i].name) for i in seats),
            seed=seed, board=self.board, options=dict(self.options),
            time_control=self.time_control, strikes=self.strikes, match_id=match_id,
            outputs=None if self.outputs is None else
            str(Path(self.outputs) / re.sub(r"[^A-Za-z0-9._-]", "_", match_id)),
        )

    def to_dict(self) -> dict[str, Any]:
        """The plan as stored (state file format 1): bot URLs without their credentials (a
        resume names such bots again, see :meth:`with_entrants`)."""
        return {
            "game": self.game,
            "entrants": [{"name": e.name, "bot": redact(e.bot)} for e in self.entrants],
            "games": self.games,
            "seats": self.seats,
            "seed": self.seed,
            "settings": {
                "game": self.game, "board_path": self.board, "options": dict(self.options),
                "time_ms": self.time_control.decision_ms, "bank_ms": self.time_control.bank_ms,
                "strikes": self.strikes, "want_log": self.keep_logs,
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        terms = data["settings"]
        return cls(
            game=data["game"],
            entrants=tuple(Entrant(**e) for e in data["entrants"]),
            games=int(data["games"]),
            seats=int(data["seats"]),
            seed=int(data["seed"]),
            board=terms.get("board_path"),
            options=dict(terms.get("options", {})),
            time_control=TimeControl(int(terms.get("time_ms", 1000)),
                                     int(terms.get("bank_ms", 0))),
            strikes=int(terms.get("strikes", 3)),
            keep_logs=bool(terms.get("want_log", False)),
        )

    def hidden_credentials(self) -> list[str]:
        """Entrants whose bot URL was stored with its credentials hidden."""
        return [e.name for e in self.entrants if is_url(e.bot) and f"{HIDDEN}@" in e.bot]

    def with_entrants(self, entrants: Sequence[Entrant]) -> Plan:
        """This plan with the entrants as named again on a resume: the same names and bots,
        credentials put back (:class:`TournamentError` for any other difference)."""
        given = [(e.name, redact(e.bot)) for e in entrants]
        stored = [(e.name, redact(e.bot)) for e in self.entrants]
        if given != stored:
            shown = ", ".join(f"{n}={b}" if n != b else n for n, b in stored)
            raise TournamentError(f"--resume: this tournament was started with entrants {shown}")
        return replace(self, entrants=tuple(entrants))


def default_seats(game: Game, entrants: int) -> int:
    """The largest table the game allows that the entrants can fill."""
    fitting = [n for n in game.player_counts if n <= entrants]
    if not fitting:
        raise TournamentError(
            f"{game.name} needs at least {min(game.player_counts)} players; got {entrants} entrants"
        )
    return max(fitting)


def check_plan(game: Game, plan: Plan) -> None:
    """Raise :class:`TournamentError` for a seat count or game count that cannot be scheduled."""
    if plan.seats not in game.player_counts:
        counts = ", ".join(map(str, game.player_counts))
        raise TournamentError(f"{game.name} is played by {counts} players, not {plan.seats}")
    if plan.seats > len(plan.entrants):
        raise TournamentError(f"{plan.seats} seats need at least {plan.seats} entrants")
    if plan.games < plan.seats or plan.games % plan.seats:
        what = "seat-swapped pairs" if plan.seats == 2 else f"rotations over {plan.seats} seats"
        raise TournamentError(
            f"--games must be a positive multiple of {plan.seats}: each seed is played in {what}"
        )
