"""Replaying a match log from its seed and recorded choices (``referee replay``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.core import Result, RulesError, UnknownGameError
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


def replay(log: Any) -> ReplayOutcome:
    """Re-run the game with the logged seed, board, options and choices; compare results.

    ``log`` is whatever a file held: anything that is not a match log raises :class:`LogError`
    with a readable message (no ``repr`` of an exception), never another exception.
    """
    if not isinstance(log, Mapping):
        raise LogError(f"not a match log: a JSON {type(log).__name__}, not an object")
    if log.get("format") != LOG_FORMAT:
        raise LogError(f"not a match log: format is {log.get('format')!r}, expected {LOG_FORMAT!r}")
    try:
        game = find_game(log["game"])
    except UnknownGameError as exc:
        raise LogError(f"match log of an unknown game: {exc}") from exc
    except KeyError as exc:
        raise LogError(f"malformed match log: no {exc.args[0]!r}") from exc
    except TypeError as exc:
        raise LogError(f"malformed match log: 'game' is not a name: {exc}") from exc
    try:
        board = game.board_from_data(log["board"]) if log.get("board") else game.load_board()
        state = game.new_state(len(log["players"]), int(log["seed"]), board, log.get("options"))
        steps: dict[int, dict[int, str]] = {}
        for d in log["decisions"]:
            steps.setdefault(int(d["step"]), {})[int(d["seat"])] = d["choice"]
        forfeited = [int(seat) for seat in log.get("forfeited", [])]
    except KeyError as exc:
        raise LogError(f"malformed match log: no {exc.args[0]!r}") from exc
    except (AttributeError, TypeError, ValueError) as exc:
        raise LogError(f"malformed match log: {exc}") from exc
    played_under = log.get("rules_version")
    if played_under != game.rules_version:
        raise LogError(
            f"this log was played under {game.name} rules version {played_under!r}; this "
            f"referee plays version {game.rules_version!r}, so it cannot replay it")
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
        except (KeyError, TypeError, AttributeError) as exc:  # a choice of the wrong type
            raise LogError(f"malformed match log: step {step}: {exc}") from exc
    result = state.result()
    if result is None:
        differences.append("the recorded choices do not finish the game")
        raise LogError("; ".join(differences))
    final = apply_forfeits(result, forfeited)
    if final.to_dict() != log.get("result"):
        differences.append(
            f"result differs: replay {final.to_dict()!r} vs logged {log.get('result')!r}"
        )
    return ReplayOutcome(final, not differences, tuple(differences))
