"""A tiny game for testing the runner, transport and ladder without a real rules engine.

"Race to 10": seats take turns moving 1-3 steps; every third turn all seats bid 0-2 at once
(sealed) and the highest unique bid moves 2 more. First to reach 10 wins; the rest rank by
position. Seeded: who starts is drawn from the state's generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from referee.core import (
    Decision, EndReason, Game, GameOverError, IllegalChoiceError, Option, Result, SeatResult, State,
    ranks_from_keys,
)

GOAL = 10
STEP_OPTIONS = tuple(Option(str(n), f"move {n}", {"steps": n}) for n in (1, 2, 3))
BID_OPTIONS = tuple(Option(f"bid-{n}", f"bid {n}", {"bid": n}) for n in (0, 1, 2))


class ToyBoard:
    data: dict[str, Any] = {"goal": GOAL}


class ToyState(State):
    def __init__(self, num_players: int, seed: int) -> None:
        self.num_players = num_players
        self.rng = random.Random(seed)
        self.pos = [0] * num_players
        self.turn = self.rng.randrange(num_players)
        self.turns = 0
        self.events: list[dict[str, Any]] = []

    def pending(self) -> list[Decision]:
        if max(self.pos) >= GOAL:
            return []
        if self.turns % 3 == 2:
            return [Decision(s, "bid", "sealed bid", BID_OPTIONS) for s in range(self.num_players)]
        return [Decision(self.turn, "move", "how far", STEP_OPTIONS)]

    def apply(self, choices: Mapping[int, str]) -> None:
        pending = self.pending()
        if not pending:
            raise GameOverError("game over")
        for d in pending:
            if choices.get(d.seat) not in d.option_ids():
                raise IllegalChoiceError(d.seat, choices.get(d.seat), d.kind)
        if pending[0].kind == "bid":
            bids = {s: int(choices[s].split("-")[1]) for s in choices}
            top = max(bids.values())
            top_seats = [s for s, b in bids.items() if b == top]
            if len(top_seats) == 1:
                self.pos[top_seats[0]] += 2
            self.events.append({"bids": bids})
        else:
            self.pos[self.turn] += int(choices[self.turn])
            self.turn = (self.turn + 1) % self.num_players
        self.turns += 1

    def view(self, seat: int | None) -> dict[str, Any]:
        return {"positions": list(self.pos), "turn": self.turn, "turns": self.turns, "seat": seat}

    def result(self) -> Result | None:
        if max(self.pos) < GOAL:
            return None
        ranks = ranks_from_keys(list(self.pos))
        seats = tuple(
            SeatResult(s, self.pos[s], {"position": self.pos[s]}, ranks[s])
            for s in range(self.num_players)
        )
        winners = tuple(s for s in range(self.num_players) if ranks[s] == 1)
        return Result(seats, winners, EndReason.NORMAL, self.turns, "someone reached 10")

    def clone(self) -> ToyState:
        other = ToyState.__new__(ToyState)
        other.__dict__.update(self.__dict__)
        other.pos = list(self.pos)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.events = list(self.events)
        return other


class ToyGame(Game):
    name = "toy-race"
    title = "Race to 10 (test game)"
    rules_version = "1"
    player_counts = (2, 3, 4)

    def load_board(self, path: str | None = None) -> ToyBoard:
        return ToyBoard()

    def board_from_data(self, data: Mapping[str, Any]) -> ToyBoard:
        return ToyBoard()

    def new_state(self, num_players: int, seed: int, board: Any = None,
                  options: Mapping[str, Any] | None = None) -> ToyState:
        self.validate_options(options)
        return ToyState(num_players, seed)

    def determinize(self, view: Mapping[str, Any], seed: int, board: Any = None) -> ToyState:
        state = ToyState(len(view["positions"]), seed)
        state.pos, state.turn = list(view["positions"]), view["turn"]
        state.turns = view["turns"]
        return state


GAME = ToyGame()
