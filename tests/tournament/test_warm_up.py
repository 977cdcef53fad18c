"""Built-in bots get ready in ``start``, off the clock: no first decision builds a board."""

from __future__ import annotations

import copy

import pytest

import bots.boards
from bots import find_bot
from referee.games import find_game
from referee.games.tokaido_duo import tables
from referee.match import board_data
from referee.players import MatchInfo


def info(game: str, seats: int, data=None) -> MatchInfo:
    board = data if data is not None else board_data(find_game(game).load_board())
    return MatchInfo("m1", game, 0, tuple((s, f"p{s}") for s in range(seats)),
                     {"decision_ms": 1000, "bank_ms": 0}, board)


def first_decision(game: str, seats: int):
    state = find_game(game).new_state(seats, 5)
    decision = state.pending()[0]
    return decision, state.view(decision.seat)


@pytest.mark.parametrize("spec", ["greedy", "mcts:playouts=3", "mcts:ms=5"])
def test_tokaido_bots_build_nothing_in_their_first_decision(spec, monkeypatch):
    bot = find_bot(spec, "tokaido-duo", 1)
    data = copy.deepcopy(board_data(find_game("tokaido-duo").load_board()))
    data["name"] = f"a board of this test only ({spec})"  # not cached by an earlier test
    bot.start(info("tokaido-duo", 2, data))
    assert bot.board.move_tables is not None  # built in start
    decision, view = first_decision("tokaido-duo", 2)

    def no_tables(self, board):
        raise AssertionError("move tables built during a decision")

    monkeypatch.setattr(tables.MoveTables, "__init__", no_tables)
    assert bot.decide(decision, view)


def test_the_same_board_data_gives_the_same_board_once_per_process():
    game = find_game("tokaido-duo")
    data = board_data(game.load_board())
    first = bots.boards.match_board(game, copy.deepcopy(data))
    assert bots.boards.match_board(game, copy.deepcopy(data)) is first
    assert bots.boards.match_board(game, None) is game.load_board()


def test_only_the_most_recent_boards_are_kept(monkeypatch):
    monkeypatch.setattr(bots.boards, "_boards", type(bots.boards._boards)())
    game = find_game("doubletrack")
    data = board_data(game.load_board())
    boards = [bots.boards.match_board(game, {**data, "name": f"b{i}"})
              for i in range(bots.boards.KEEP + 1)]
    assert len(bots.boards._boards) == bots.boards.KEEP
    assert bots.boards.match_board(game, {**data, "name": "b1"}) is boards[1]
    assert bots.boards.match_board(game, {**data, "name": "b0"}) is not boards[0]


def test_doubletrack_search_is_ready_after_start():
    bot = find_bot("mcts:playouts=2", "doubletrack", 1)
    started = info("doubletrack", 3)
    bot.start(started)
    assert bots.boards.match_board(find_game("doubletrack"), started.board) is bot.board
    from bots.doubletrack_value import weights

    assert weights.cache_info().currsize >= 1  # the value model read in start
