"""Match logs for the frames tests: random games of both games (cached: several tests read the
same logs), and a replay that exposes the engine's state beside each frame."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from referee.core import State
from referee.frames import build_frames
from referee.games import find_game

from support.matches import play_bots

LINEUPS: tuple[tuple[str, int, tuple[tuple[str, int], ...]], ...] = (
    ("tokaido-duo", 2, ()),
    ("tokaido-duo", 1, (("automa", 1),)),
    ("tokaido-duo", 1, (("automa", 6),)),
    ("doubletrack", 3, ()),
    ("doubletrack", 4, ()),
)


@cache
def random_log(game: str, seats: int, options: tuple[tuple[str, int], ...], seed: int
               ) -> Mapping[str, Any]:
    """The log of a match between built-in ``random`` bots (cached, so treat it as read-only)."""
    return play_bots(game, ["random"] * seats, seed, options=dict(options)).log


def states_along(log: Mapping[str, Any]) -> Iterator[State]:
    """The engine's state at frame 0 and after every step of ``log`` (one object, advanced)."""
    game = find_game(log["game"])
    state = game.new_state(len(log["players"]), log["seed"], game.board_from_data(log["board"]),
                           log["options"])
    yield state
    steps: dict[int, dict[int, str]] = {}
    for d in log["decisions"]:
        steps.setdefault(d["step"], {})[d["seat"]] = d["choice"]
    for step in sorted(steps):
        state.apply(steps[step])
        yield state



@cache
def random_frames(game: str, seats: int, options: tuple[tuple[str, int], ...], seed: int
                  ) -> Mapping[str, Any]:
    """The frames of :func:`random_log`'s match (cached, so treat them as read-only)."""
    return build_frames(random_log(game, seats, options, seed))


def random_cases(count: int) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """``count`` (log, frames) pairs, the lineups taken in turn; the same seeds every time, so
    the tests share one cache."""
    for k in range(count):
        game, seats, options = LINEUPS[k % len(LINEUPS)]
        yield random_log(game, seats, options, k), random_frames(game, seats, options, k)
