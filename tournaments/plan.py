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
from arena.description import NAME_RE, is_command
from referee.core import Game
from referee.display import HIDDEN, redact
from referee.errors import RefereeError
from tournaments.errors import TournamentError


@dataclass(frozen=True)
class Entrant:
    """A named participant: ``bot`` is a built-in bot spec, an HTTP bot's URL or a bot the
    referee runs (``cmd:``, ``py:``). ``named``: the name is settled: given (``NAME=BOT``), a
    built-in or ``py:`` bot's spec, or declared by the bot's ``GET /`` (:func:`declared_names`);
    not, for an HTTP bot given by its URL alone or a ``cmd:`` bot by its command alone."""

    name: str
    bot: str
    named: bool = field(default=True, compare=False)
    time_ms: int | None = None
    """The entrant's own time per decision (``--time-ms NAME=MS``); ``None``: the plan's."""

    @property
    def remote(self) -> bool:
        return is_url(self.bot)

    @property
    def declares(self) -> bool:
        """Whether it answers ``GET /`` (an HTTP bot, or a program the referee starts)."""
        return self.remote or is_command(self.bot)


def parse_entrant(text: str) -> Entrant:
    """``greedy``, ``http://…`` or ``NAME=BOT`` (so the same bot can enter twice); a URL's
    credentials never become part of its name (see :meth:`arena.Seat.parse`)."""
    try:
        seat = Seat.parse(text)
    except DescriptionError as exc:
        raise TournamentError(f"entrant {redact(text)!r}: {exc}") from None
    return Entrant(seat.shown_name, seat.bot,
                   named=seat.bot != text or not (seat.remote or seat.launched))


def parse_entrants(texts: Sequence[str]) -> list[Entrant]:
    entrants = [parse_entrant(t) for t in texts]
    check_unique(entrants)
    if len(entrants) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    return entrants


def check_unique(entrants: Sequence[Entrant]) -> None:
    seen: set[str] = set()
    for e in entrants:
        if e.name in seen:
            raise TournamentError(
                f"entrant {e.name!r} appears twice; enter a bot twice as NAME=BOT"
            )
        seen.add(e.name)


def with_times(entrants: Sequence[Entrant], times: Mapping[str, int]) -> list[Entrant]:
    """The entrants with their own time per decision, by name (``--time-ms NAME=MS``)."""
    names = [e.name for e in entrants]
    for name in times:
        if name not in names:
            raise TournamentError(f"--time-ms {name}={times[name]}: no entrant is named {name} "
                                  f"(the entrants: {', '.join(names)})")
    return [replace(e, time_ms=times.get(e.name, e.time_ms)) for e in entrants]


def declared_names(entrants: Sequence[Entrant], infos: Mapping[str, Mapping[str, Any]]
                   ) -> list[Entrant]:
    """The entrants with every unnamed HTTP or ``cmd:`` bot shown by the name its ``GET /``
    declared (``infos``, by URL or command): a standings table of ``http://127.0.0.1:8001`` and
    ``cmd:python3 bot.py --port {port}`` says little. The name keeps the characters a ``NAME=`` may
    have; a name taken already gets ``-2``, ``-3``…; a bot that declared none, or one with
    no usable character, keeps its URL."""
    taken = {e.name for e in entrants if e.named or not e.declares}
    out = []
    for e in entrants:
        declared = infos.get(e.bot, {}).get("name") if e.declares and not e.named else None
        base = "".join(NAME_RE.findall(declared))[:40] if isinstance(declared, str) else ""
        if not base:
            out.append(e)
            continue
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        out.append(replace(e, name=name, named=True))
    return out


def check_entrants(entrants: Sequence[Entrant], game: str) -> None:
    """Fail now, in one line naming the entrant, for a bot that does not exist for ``game`` or
    a URL that cannot be a bot's address, rather than in the middle of the first match."""
    for e in entrants:
        try:
            check_seat(Seat(e.bot, e.name), game)
        except RefereeError as exc:
            raise TournamentError(f"entrant {e.name}: {exc}") from exc


@dataclass(frozen=True)
class SprtTerms:
    """What makes a plan an SPRT (``referee sprt``): its two entrants, NEW then BASE, play
    game pairs until the test of "NEW is ``elo1`` stronger, not ``elo0``" decides, or until
    ``max_pairs``."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    max_pairs: int

    def to_dict(self) -> dict[str, Any]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model, "max_pairs": self.max_pairs}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SprtTerms:
        return cls(float(data["elo0"]), float(data["elo1"]), float(data["alpha"]),
                   float(data["beta"]), str(data["model"]), int(data["max_pairs"]))


@dataclass(frozen=True)
class Plan:
    """A tournament: who plays (``entrants``), how many games per pairing or table
    (``games``), at how many ``seats``, from which ``seed``, and the terms of every match
    (board file, game options, time control, strikes). ``keep_logs``: send each match log back
    to the parent (only when a database records them: logs are large, and pickling them
    between processes costs time).

    ``gauntlet``: the index of the entrant who plays every table, the others meeting only it
    (fastchess's gauntlet, for testing one change against a field); ``None``, a round-robin.
    ``sprt``: the plan is an SPRT (:mod:`tournaments.sprt`) rather than a fixed schedule."""

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
    gauntlet: int | None = None
    sprt: SprtTerms | None = None
    outputs: str | None = None
    """The folder where ``cmd:`` bots' output goes, per match (``--logs``: beside each log);
    not stored: a resumed run names it again."""

    @property
    def kind(self) -> str:
        """What the plan is, in the words of the command that plays it."""
        return "sprt" if self.sprt is not None else "tournament"

    def describe(self, seats: Sequence[int], seed: int, match_id: str) -> MatchDescription:
        """The match of these entrants (indices, in seat order) on ``seed``."""
        return MatchDescription(
            game=self.game,
            seats=tuple(Seat(self.entrants[i].bot, self.entrants[i].name, self.clock(i))
                        for i in seats),
            seed=seed, board=self.board, options=dict(self.options),
            time_control=self.time_control, strikes=self.strikes, match_id=match_id,
            outputs=None if self.outputs is None else
            str(Path(self.outputs) / re.sub(r"[^A-Za-z0-9._-]", "_", match_id)),
        )

    def clock(self, entrant: int) -> TimeControl | None:
        """The entrant's own time control, where it has its own time per decision."""
        own = self.entrants[entrant].time_ms
        return None if own is None else TimeControl(own, self.time_control.bank_ms)

    def to_dict(self) -> dict[str, Any]:
        """The plan as stored (state file format 1): bot URLs without their credentials (a
        resume names such bots again, see :meth:`with_entrants`). ``gauntlet`` and ``sprt``
        are written only when set, so a round-robin's header reads as it always did."""
        doc: dict[str, Any] = {
            "game": self.game,
            "entrants": [{"name": e.name, "bot": redact(e.bot)}
                         | ({} if e.named else {"named": False})
                         | ({} if e.time_ms is None else {"time_ms": e.time_ms})
                         for e in self.entrants],
            "games": self.games,
            "seats": self.seats,
            "seed": self.seed,
            "settings": {
                "game": self.game, "board_path": self.board, "options": dict(self.options),
                "time_ms": self.time_control.decision_ms, "bank_ms": self.time_control.bank_ms,
                "strikes": self.strikes, "want_log": self.keep_logs,
            },
        }
        if self.gauntlet is not None:
            doc["gauntlet"] = self.entrants[self.gauntlet].name
        if self.sprt is not None:
            doc["sprt"] = self.sprt.to_dict()
        return doc

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        terms = data["settings"]
        entrants = tuple(Entrant(str(e["name"]), str(e["bot"]), bool(e.get("named", True)),
                                 None if e.get("time_ms") is None else int(e["time_ms"]))
                         for e in data["entrants"])
        gauntlet = data.get("gauntlet")
        return cls(
            game=data["game"],
            entrants=entrants,
            games=int(data["games"]),
            seats=int(data["seats"]),
            seed=int(data["seed"]),
            board=terms.get("board_path"),
            options=dict(terms.get("options", {})),
            time_control=TimeControl(int(terms.get("time_ms", 1000)),
                                     int(terms.get("bank_ms", 0))),
            strikes=int(terms.get("strikes", 3)),
            keep_logs=bool(terms.get("want_log", False)),
            gauntlet=None if gauntlet is None else [e.name for e in entrants].index(gauntlet),
            sprt=SprtTerms.from_dict(data["sprt"]) if data.get("sprt") else None,
        )

    def hidden_credentials(self) -> list[str]:
        """Entrants whose bot URL was stored with its credentials hidden."""
        return [e.name for e in self.entrants if is_url(e.bot) and f"{HIDDEN}@" in e.bot]

    def with_entrants(self, entrants: Sequence[Entrant]) -> Plan:
        """This plan with the entrants as named again on a resume: the same names and bots,
        credentials put back (:class:`TournamentError` for any other difference). A bot
        given without a name matches one shown by the name its ``GET /`` declared."""
        stored = [(e.name, redact(e.bot)) for e in self.entrants]
        given = [(old if not new.named else new.name, redact(new.bot))
                 for (old, _), new in zip(stored, entrants)]
        if len(entrants) != len(stored) or given != stored:
            shown = ", ".join(f"{n}={b}" if n != b else n for n, b in stored)
            raise TournamentError(f"--resume: this {self.kind} was started with entrants {shown}")
        return replace(self, entrants=tuple(
            replace(e, name=old.name, named=old.named, time_ms=old.time_ms)
            for old, e in zip(self.entrants, entrants)))


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
    if plan.gauntlet is not None and not 0 <= plan.gauntlet < len(plan.entrants):
        raise TournamentError(f"gauntlet entrant {plan.gauntlet} is not an entrant")
    if plan.games < plan.seats or plan.games % plan.seats:
        what = "seat-swapped pairs" if plan.seats == 2 else f"rotations over {plan.seats} seats"
        raise TournamentError(
            f"--games must be a positive multiple of {plan.seats}: each seed is played in {what}"
        )
