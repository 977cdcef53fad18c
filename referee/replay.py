"""Replaying a match log from its seed and recorded choices (``referee replay``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.core import Result, RulesError
from referee.games import find_game
from referee.match import LOG_FORMAT, apply_forfeits


class LogError(ValueError):
    """A file that is not a readable match log; the message says what is wrong."""


@dataclass(frozen=True)
class ReplayOutcome:
    """What replaying gave, and whether it matches what the log recorded."""

    result: Result
    matches: bool
    differences: tuple[str, ...]


def replay(log: Mapping[str, Any]) -> ReplayOutcome:
    """Re-run the game with the logged seed, board, options and choices; compare results."""
    if log.get("format") != LOG_FORMAT:
        raise LogError(f"not a match log: format is {log.get('format')!r}, expected {LOG_FORMAT!r}")
    try:
        game = find_game(log["game"])
        board = game.board_from_data(log["board"]) if log.get("board") else game.load_board()
        state = game.new_state(len(log["players"]), int(log["seed"]), board, log.get("options"))
        steps: dict[int, dict[int, str]] = {}
        for d in log["decisions"]:
            steps.setdefault(int(d["step"]), {})[int(d["seat"])] = d["choice"]
    except (KeyError, TypeError, ValueError) as exc:
        raise LogError(f"malformed match log: {exc!r}") from exc
    differences: list[str] = []
    for step in sorted(steps):
        if state.is_over:
            differences.append(f"game over before step {step}")
            break
        try:
            state.apply(steps[step])
        except RulesError as exc:
            differences.append(f"step {step}: {exc}")
            break
    result = state.result()
    if result is None:
        differences.append("the recorded choices do not finish the game")
        raise LogError("; ".join(differences))
    final = apply_forfeits(result, list(log.get("forfeited", [])))
    if final.to_dict() != log.get("result"):
        differences.append(
            f"result differs: replay {final.to_dict()!r} vs logged {log.get('result')!r}"
        )
    return ReplayOutcome(final, not differences, tuple(differences))
