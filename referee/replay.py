"""Replaying a match log from its seed and recorded choices (``referee replay``).

A replay checks the whole log against the engine and the runner's rules, not only the final
result: at every step, that the decisions recorded are the ones the engine asks (seat, kind,
number of options) and that each choice was offered; that every fallback choice (a struck or
forfeited decision) is the one the seeded fallback draws; that the faults, each seat's strikes
and the forfeits follow from the recorded statuses; and that both results (the game's, and the
one with forfeits applied) are what the game gives. The first difference names its step.
The log of an unfinished match (``unfinished``: stopped by Ctrl-C) has no results: its
decisions and faults are checked as far as they go.

What no replay can check is a choice a bot really made: any offered option is a legal game.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.core import Decision, Game, Result, RulesError, State, UnknownGameError
from referee.faults import FaultReason
from referee.games import find_game
from referee.match import apply_forfeits
from referee.matchlog import FORFEITED, LIFECYCLE_STRIKES, LOG_FORMAT, OK, LogError

FAULTS = frozenset(reason.value for reason in FaultReason)
"""The statuses of a struck decision."""

@dataclass(frozen=True)
class ReplayOutcome:
    """What replaying gave, and whether it matches what the log recorded. ``result`` is the
    replayed result (forfeits applied), ``None`` when a difference stopped the replay early."""

    result: Result | None
    matches: bool
    differences: tuple[str, ...]


@dataclass
class _Tally:
    """The runner's strike bookkeeping, redone from the recorded statuses."""

    limit: int
    strikes: list[int]
    forfeited: list[bool]

    def strike(self, seat: int) -> None:
        self.strikes[seat] += 1
        if self.strikes[seat] >= self.limit:
            self.forfeited[seat] = True


Watch = Callable[[State, Sequence[Decision] | None], None]
"""Shown the state before the first step (``None``), then after each step with the decisions
that step answered: what :mod:`referee.frames` builds its frames from, in the same pass."""


def replay(log: Any, watch: Watch | None = None) -> ReplayOutcome:
    """Re-run the game with the logged seed, board, options and choices; check every step.

    ``log`` is whatever a file held: anything that is not a match log raises :class:`LogError`
    with a readable message (no ``repr`` of an exception), never another exception (those of
    ``watch`` included: it is called on each step that checked, so that what follows one log
    is derived while it is checked, not by a second replay).
    """
    if not isinstance(log, Mapping):
        raise LogError(f"not a match log: a JSON {type(log).__name__}, not an object")
    if log.get("format") != LOG_FORMAT:
        raise LogError(f"not a match log: format is {log.get('format')!r}, expected {LOG_FORMAT!r}")
    try:
        return _replay(log, watch)
    except UnknownGameError as exc:
        raise LogError(f"match log of an unknown game: {exc}") from exc
    except KeyError as exc:
        raise LogError(f"malformed match log: no {exc.args[0]!r}") from exc
    except RecursionError:
        raise LogError("malformed match log: nested too deep") from None
    except LogError:
        raise
    except (AttributeError, TypeError, ValueError, IndexError) as exc:
        raise LogError(f"malformed match log: {exc}") from exc


def _replay(log: Mapping[str, Any], watch: Watch | None) -> ReplayOutcome:
    game = find_game(log["game"])
    board = log_board(game, log)
    seats = len(log["players"])
    seed = int(log["seed"])
    state = start_state(log, game, board)
    steps = _steps(log["decisions"])
    faults = [_fault_key(f) for f in log.get("faults", [])]
    tally = _Tally(int(log.get("strike_limit", 3)), [0] * seats, [False] * seats)
    for _step, seat, kind, _reason in faults:
        if _step is None and kind in LIFECYCLE_STRIKES:
            tally.strike(seat)
    differences: list[str] = []
    expected_faults = [f for f in faults if f[0] is None and f[2] in LIFECYCLE_STRIKES]
    fallback = random.Random(f"{seed}:fallback")
    if watch is not None:
        watch(state, None)
    for step, entries in enumerate(steps):
        pending = state.pending()
        problem = _check_step(state, pending, step, entries, fallback, tally, expected_faults)
        if problem:
            return ReplayOutcome(None, False, (problem,))
        if watch is not None:
            watch(state, pending)
    if log.get("unfinished") is not None:  # no results to compare: the rest as far as it goes
        differences += _check_faults(log, faults, expected_faults, tally)
        return ReplayOutcome(None, not differences, tuple(differences))
    result = state.result()
    if result is None:
        raise LogError(f"the recorded choices do not finish the game (it goes on after step "
                       f"{len(steps) - 1})")
    expected_faults += [f for f in faults if f[0] is None and f[2] not in LIFECYCLE_STRIKES]
    differences += _check_faults(log, faults, expected_faults, tally)
    forfeited = [seat for seat in range(seats) if tally.forfeited[seat]]
    final = apply_forfeits(result, forfeited)
    for key, value in (("game_result", result), ("result", final)):
        if key in log and value.to_dict() != log[key]:
            fields = "; ".join(field_differences(value.to_dict(), log[key]))
            differences.append(f"{key} differs: {fields}")
    return ReplayOutcome(final, not differences, tuple(differences))


MAX_FIELDS_SHOWN = 8
"""Differing fields named in one difference; past that, how many more."""


def field_differences(replayed: Any, logged: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, one ``path: replay X, logged Y`` per differing leaf
    (``seats[1].score: replay 12, logged 14``), so a difference in a result shows the field,
    not two whole results to compare by eye; at most :data:`MAX_FIELDS_SHOWN`."""
    found = _walk(replayed, logged, path)
    if len(found) > MAX_FIELDS_SHOWN:
        found = found[:MAX_FIELDS_SHOWN] + [f"and {len(found) - MAX_FIELDS_SHOWN} more"]
    return found


def _walk(replayed: Any, logged: Any, path: str) -> list[str]:
    if isinstance(replayed, Mapping) and isinstance(logged, Mapping):
        keys = list(replayed) + [k for k in logged if k not in replayed]
        return [line for k in keys for line in _walk(replayed.get(k, _ABSENT),
                                                      logged.get(k, _ABSENT),
                                                      f"{path}.{k}" if path else str(k))]
    if (isinstance(replayed, list) and isinstance(logged, list)
            and len(replayed) == len(logged)):
        return [line for i, (a, b) in enumerate(zip(replayed, logged))
                for line in _walk(a, b, f"{path}[{i}]")]
    if replayed == logged:
        return []
    return [f"{path or 'the value'}: replay {_shown(replayed)}, logged {_shown(logged)}"]


_ABSENT = object()
"""A key one side has and the other lacks."""


def _shown(value: Any) -> str:
    return "(absent)" if value is _ABSENT else repr(value)


BOARDS_KEPT = 8
"""Boards built from logs' board data kept per process (a service plays one or a few)."""

_boards: OrderedDict[tuple[str, str], Any] = OrderedDict()
_boards_lock = threading.Lock()


def log_board(game: Game, log: Mapping[str, Any]) -> Any:
    """The validated board of ``log`` (its ``board`` data; none: the packaged board), the
    same object for the same data while kept. Every log carries its board, and validating it
    and deriving the tables its states read (Tokaido Duo's move tables) cost 30 ms, several
    times what replaying a whole game does; a board is read-only once built (its caches only
    ever hold what it derives), so one object serves every log played on it.

    Bad board data raises what ``game.board_from_data`` raises (nothing is kept)."""
    data = log.get("board")
    if not data:
        return game.load_board()
    key = (game.name, json.dumps(data, sort_keys=True, separators=(",", ":")))
    with _boards_lock:
        board = _boards.get(key)
        if board is not None:
            _boards.move_to_end(key)
            return board
    board = game.board_from_data(data)
    with _boards_lock:
        board = _boards.setdefault(key, board)
        while len(_boards) > BOARDS_KEPT:
            _boards.popitem(last=False)
    return board


def start_state(log: Mapping[str, Any], game: Game, board: Any) -> State:
    """The logged game before its first decision, under the rules version it was played by:
    the current one, or an older one the game still plays (``Game.older_rules``), so that a
    log recorded before a rules change still replays (and shows) the game it recorded.

    Raises :class:`LogError` naming both versions for a version the game does not play.
    """
    played_under = log.get("rules_version")
    if played_under != game.rules_version and played_under not in game.older_rules:
        kept = ", ".join(map(repr, game.older_rules))
        older = f" (and replays {kept})" if kept else ""
        raise LogError(
            f"this log was played under {game.name} rules version {played_under!r}; this "
            f"referee plays version {game.rules_version!r}{older}, so it cannot replay it")
    return game.new_state_under(played_under, len(log["players"]), int(log["seed"]), board,
                                log.get("options"))


def _steps(decisions: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The logged decisions grouped by step, in order; steps must run 0, 1, 2, ... ."""
    steps: list[list[Mapping[str, Any]]] = []
    for entry in decisions:
        step = int(entry["step"])
        if step == len(steps):
            steps.append([])
        elif step != len(steps) - 1:
            raise LogError(f"malformed match log: decision step {step} follows step "
                           f"{len(steps) - 1}")
        steps[-1].append(entry)
    return steps


def _check_step(state: State, pending: Sequence[Decision], step: int,
                entries: list[Mapping[str, Any]], fallback: random.Random, tally: _Tally,
                expected_faults: list[tuple[Any, ...]]) -> str | None:
    """Compare one step with what the engine asks (``pending``), apply it; the difference, or
    ``None``."""
    if not pending:
        return f"step {step}: the game is already over, but the log goes on"
    asked = [(d.seat, d.kind, len(d.options)) for d in pending]
    logged = [(int(e["seat"]), str(e["kind"]), int(e["options"])) for e in entries]
    if asked != logged:
        return (f"step {step}: the log has {_describe(logged)}, the engine asks "
                f"{_describe(asked)}")
    choices: dict[int, str] = {}
    for decision, entry in zip(pending, entries):
        problem = _check_choice(decision, entry, fallback, tally)
        if problem:
            return f"step {step}, seat {decision.seat} ({decision.kind}): {problem}"
        if entry["status"] in FAULTS:
            expected_faults.append((step, decision.seat, decision.kind, entry["status"]))
        choices[decision.seat] = entry["choice"]
    try:
        state.apply(choices)
    except RulesError as exc:  # pragma: no cover - every choice was checked as offered
        return f"step {step}: {exc}"
    return None


def _check_choice(decision: Decision, entry: Mapping[str, Any], fallback: random.Random,
                  tally: _Tally) -> str | None:
    """One decision's status and choice against the runner's rules."""
    status, choice = entry["status"], entry["choice"]
    if not isinstance(choice, str) or choice not in decision.option_ids():
        return f"choice {choice!r} was not offered"
    if status != OK and status != FORFEITED and status not in FAULTS:
        return f"unknown status {status!r}"
    if (status == FORFEITED) != tally.forfeited[decision.seat]:
        return ("the seat had forfeited, but the log shows it asked" if tally.forfeited[decision.seat]
                else "the log says the seat had forfeited, but it had not")
    if status != OK:
        drawn = fallback.choice(decision.options).id
        if choice != drawn:
            return f"fallback choice {choice!r}, but the seeded fallback draws {drawn!r}"
    if status in FAULTS:
        tally.strike(decision.seat)
    return None


def _describe(decisions: list[tuple[int, str, int]]) -> str:
    return ", ".join(f"seat {seat} {kind!r} with {n} options" for seat, kind, n in decisions)


def _fault_key(fault: Mapping[str, Any]) -> tuple[Any, ...]:
    step = fault["step"]
    return (None if step is None else int(step), int(fault["seat"]), str(fault["kind"]),
            str(fault["reason"]))


def _fault_text(fault: tuple[Any, ...] | None) -> str:
    if fault is None:
        return "no fault"
    step, seat, kind, reason = fault
    return f"{reason} of seat {seat} at " + (f"step {step} ({kind})" if step is not None
                                              else f"/{kind}")


def _check_faults(log: Mapping[str, Any], faults: list[tuple[Any, ...]],
                  expected: list[tuple[Any, ...]], tally: _Tally) -> list[str]:
    """Faults, strikes and forfeits as the recorded statuses imply them."""
    out = []
    for i, (got, want) in enumerate(itertools.zip_longest(faults, expected)):
        if got != want:
            out.append(f"fault {i}: the log has {_fault_text(got)}, the decisions' statuses "
                       f"give {_fault_text(want)}")
            break
    for seat, player in enumerate(log["players"]):
        if int(player.get("strikes", 0)) != tally.strikes[seat]:
            out.append(f"seat {seat}: the log says {player.get('strikes')} strikes, the faults "
                       f"make {tally.strikes[seat]}")
        if bool(player.get("forfeited", False)) != tally.forfeited[seat]:
            out.append(f"seat {seat}: forfeited is {player.get('forfeited')}, the strikes say "
                       f"{tally.forfeited[seat]}")
    forfeited = [seat for seat, gone in enumerate(tally.forfeited) if gone]
    if [int(s) for s in log.get("forfeited", [])] != forfeited:
        out.append(f"forfeited seats {log.get('forfeited')} differ from the strikes' {forfeited}")
    return out
