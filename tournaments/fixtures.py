"""The schedule: every match of a tournament as a :class:`Fixture`, and its :class:`Outcome`.

Two-seat games are played as *game pairs*: both seat orders of the same seed, so the same dice
fall for both entrants and most of the luck cancels (fastchess's pairs). Larger tables play each
seed once per cyclic rotation of the seats. Such a set of games sharing a seed is a *block*;
blocks are the independent samples of the statistics (see :mod:`tournaments.stats`).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from arena import MatchDescription
from tournaments.plan import Plan


@dataclass(frozen=True)
class Fixture:
    """One scheduled match: its place in the schedule (``index``), the ``block`` of games
    sharing its seed, the entrants in seat order (indices), and the match itself, whose
    ``match_id`` is stable so that a result is recorded once."""

    index: int
    block: int
    entrants: tuple[int, ...]
    match: MatchDescription

    @property
    def match_id(self) -> str:
        return self.match.match_id or ""

    @property
    def seed(self) -> int:
        return self.match.seed

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.names()


def block_seed(tournament_seed: int, round_no: int) -> int:
    """The seed of every table's block in one round: the same deal for every pairing."""
    return random.Random(f"{tournament_seed}:round:{round_no}").getrandbits(63)


def schedule(plan: Plan, tournament_id: str) -> list[Fixture]:
    """Every match of the tournament, in playing order (deterministic from the plan).

    Rounds go over all tables, so partial results stay balanced; in round ``r`` every table
    plays the same seed once per cyclic seat rotation (both orders, for two seats).
    """
    tables = plan_tables(plan)
    fixtures: list[Fixture] = []
    block = 0
    for round_no in range(plan.games // plan.seats):
        seed = block_seed(plan.seed, round_no)
        for table in tables:
            for shift in range(plan.seats):
                seats = table[shift:] + table[:shift]
                index = len(fixtures)
                match = plan.describe(seats, seed, f"{tournament_id}-{index}")
                fixtures.append(Fixture(index, block, seats, match))
            block += 1
    return fixtures


def plan_tables(plan: Plan) -> list[tuple[int, ...]]:
    """The tables of a round: every set of ``plan.seats`` entrants, or in a gauntlet only
    those with the gauntlet's entrant (who then plays every game)."""
    tables = itertools.combinations(range(len(plan.entrants)), plan.seats)
    return [t for t in tables if plan.gauntlet is None or plan.gauntlet in t]


@dataclass(frozen=True)
class Outcome:
    """A finished match as the tournament needs it: ranks, strikes and forfeited seats (so
    that a dead bot shows in the standings rather than only losing), and the log if asked for.
    ``seats`` are the entrants' indices in seat order."""

    index: int
    match_id: str
    block: int
    seed: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    end: str
    faults: int
    strikes: tuple[int, ...] = ()
    forfeited: tuple[int, ...] = ()
    log: Mapping[str, Any] | None = None

    def to_line(self) -> dict[str, Any]:
        """The outcome as a line of the state file: every field but the log. (Built field by
        field: ``dataclasses.asdict`` deep-copies, which made writing the line cost more than
        a quick game's bookkeeping.)"""
        return {name: getattr(self, name) for name in LINE_FIELDS}

    @classmethod
    def from_log(cls, fixture: Fixture, log: Mapping[str, Any], keep_log: bool) -> Outcome:
        """The outcome of ``fixture`` as its match log tells it (a finished match, or one the
        ladder already holds); the log itself is kept only if ``keep_log``."""
        result, players = log["result"], log["players"]
        seats = sorted(result["seats"], key=lambda s: int(s["seat"]))
        return cls(
            index=fixture.index, match_id=fixture.match_id, block=fixture.block,
            seed=fixture.seed, seats=fixture.entrants, ranks=tuple(int(s["rank"]) for s in seats),
            scores=tuple(int(s["score"]) for s in seats), end=str(result["end"]),
            faults=len(log["faults"]), strikes=tuple(int(p["strikes"]) for p in players),
            forfeited=tuple(i for i, p in enumerate(players) if p["forfeited"]),
            log=dict(log) if keep_log else None,
        )

    @classmethod
    def from_line(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(
            index=int(data["index"]), match_id=str(data["match_id"]), block=int(data["block"]),
            seed=int(data["seed"]), seats=tuple(data["seats"]), ranks=tuple(data["ranks"]),
            scores=tuple(data["scores"]), end=str(data["end"]), faults=int(data["faults"]),
            # absent from the state files of older versions
            strikes=tuple(data.get("strikes", ())), forfeited=tuple(data.get("forfeited", ())),
        )


LINE_FIELDS = tuple(f.name for f in fields(Outcome) if f.name != "log")
"""The fields of a state-file line, in order."""
