"""Doubletrack (Milton Bradley, 1981) for 3 or 4 seats: the registry entry ``GAME``.

Two tracks: a big pawn rolls two dice around the outer track and the square it stops on moves
the small pawn on the inner track (numbers, cards, sealed all-pay auctions, gate passes). The
first small pawn HOME wins. Rules: the project's Doubletrack rules page; board data: board.yaml.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core import Game, GameOptionsError
from referee.games.doubletrack.board import TURN_LIMIT, Board
from referee.games.doubletrack.determinize import determinize
from referee.games.doubletrack.state import DoubletrackState
from referee.games.doubletrack.views import FORCED_CARDS_VERSION, RULES_VERSION

__all__ = ["GAME", "Board", "DoubletrackGame", "DoubletrackState", "TURN_LIMIT"]


class DoubletrackGame(Game):
    name = "doubletrack"
    title = "Doubletrack"
    rules_version = RULES_VERSION
    """2: the seed-003 corrections (minimum bid $5, SELL THE LEAD tie, optional TAKE PASS).
    3: Trade Places and Steal A Gate Pass may be declined (the seed's 可, may)."""
    older_rules = (FORCED_CARDS_VERSION,)
    """Version 2 still plays, so that its logs replay: the two cards' effects are forced."""
    player_counts = (3, 4)

    def board_from_data(self, data: Mapping[str, Any]) -> Board:
        return Board(data)

    def new_state(self, num_players: int, seed: int, board: Board | None = None,
                  options: Mapping[str, Any] | None = None) -> DoubletrackState:
        return self.new_state_under(self.rules_version, num_players, seed, board, options)

    def new_state_under(self, rules_version: str, num_players: int, seed: int,
                        board: Board | None = None,
                        options: Mapping[str, Any] | None = None) -> DoubletrackState:
        if rules_version not in (self.rules_version, *self.older_rules):
            raise GameOptionsError(
                f"doubletrack rules version {rules_version!r}: this referee plays version "
                f"{self.rules_version!r} and replays {', '.join(map(repr, self.older_rules))}")
        self.validate_options(options)
        board = board if board is not None else self.load_board()
        if num_players not in board.players:
            raise GameOptionsError(
                f"doubletrack: {num_players} players; this board allows "
                f"{' or '.join(map(str, board.players))}")
        # Version 3 made Trade Places and Steal A Gate Pass optional; version 2 forced them.
        return DoubletrackState(board, num_players, seed,
                                may_decline=rules_version != FORCED_CARDS_VERSION)

    def determinize(self, view: Mapping[str, Any], seed: int,
                    board: Board | None = None) -> DoubletrackState:
        return determinize(view, seed, board if board is not None else self.load_board())


GAME = DoubletrackGame()
