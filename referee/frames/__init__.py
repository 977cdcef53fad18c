"""A spectator's frames of a finished match, derived from its log by replaying the engine.

Frame 0 is the table before the first decision; then one frame per step of the log (one
decision, or several simultaneous ones such as Doubletrack's sealed bids). Each frame holds the
spectator view after the step (``state.view(None)``, the game's audited public view), the
public events of that step with a sentence for each, and who decided what: seat, kind, the
option's label as well as its id, the time taken and the status (a strike's reason). The
result is JSON-ready and feeds ``referee replay --trace``, ``referee view`` and the viewer.

Nothing a spectator may not see gets in:

- the view is the spectator's; the events are the ones every seat is shown;
- a decision whose answer stays secret (the card a Doubletrack seller puts face down) is shown
  without its choice, and a decision whose options would tell a hand (which distinct cards a
  seat could play) without their number: each game's kit names those kinds;
- a bot's own words (the ``log`` text it sent with an answer, and the ``stderr`` lines the
  referee captured from a bot it started) are owner-only: copied only when the caller asks
  for them (``notes=True``: the author's own ``referee view`` and ``replay --trace``), never
  into the service's frames; the seed stays in the log.

Neither game reveals hidden information when it ends (Tokaido Duo's face-down paintings are
never turned over; Doubletrack's hands are never shown), so the last frame shows no more than
the engine's final spectator view does. A game whose final view reveals more shows it there.

The same log always gives the same frames: the engine is deterministic and nothing here reads
a clock or a generator.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.core import Decision, Game, RulesError, State, UnknownGameError
from referee.frames.kits import Cast, kit_for
from referee.games import find_game
from referee.matchlog import FORFEITED, OK, LogError
from referee.replay import log_board, replay, start_state

FRAMES_FORMAT = "referee-frames"
FRAMES_VERSION = 1

__all__ = ["FRAMES_FORMAT", "FRAMES_VERSION", "build_frames", "build_live", "frame_count",
           "iter_frames"]


def build_frames(log: Any, *, notes: bool = False) -> dict[str, Any]:
    """The frames document of ``log``: ``{format, version, match, board, frames}``.

    ``notes`` copies each bot's own words into its decisions (``log``, ``stderr``): for the
    author reading their own log, never for a spectator.

    The log is first replayed and checked (:func:`referee.replay.replay`): anything that is not
    a match log, or whose choices do not reach its recorded result, raises :class:`LogError`
    with the reason, so a viewer never shows a game the log does not prove.
    """
    built: list[_Builder] = []

    def watch(state: State, pending: Sequence[Decision] | None) -> None:
        if pending is None:  # the first state: frame 0
            built.append(_Builder(log, _cast(log, find_game(log["game"]), state), notes))
            built[0].first(state)
        else:  # the replay checked this step's choices: they are offered, the seats asked
            step = built[0].next_step()
            built[0].after(step, state, pending, built[0].decide(step, pending))

    outcome = replay(log, watch)  # the frames are built in the same pass as the check
    if not outcome.matches:
        raise LogError("the log does not replay to its recorded result: "
                       + "; ".join(outcome.differences))
    if log.get("unfinished") is not None:
        raise LogError(f"the log of an unfinished match ({log['unfinished']}, after "
                       f"{len(log['decisions'])} decisions): it has no result to show")
    game, builder = find_game(log["game"]), built[0]
    cast, frames = builder.cast, builder.frames
    frames[-1]["faults"] += [_fault(f) for f in log.get("faults", [])
                             if f.get("step") is None and f.get("kind") != "start"]
    return {
        "format": FRAMES_FORMAT,
        "version": FRAMES_VERSION,
        "match": _match_header(log, game, cast),
        "board": cast.board,
        "frames": frames,
    }


def build_live(log: Mapping[str, Any]) -> dict[str, Any]:
    """The frames document of a match still being played, from its log so far (no result:
    ``match.result`` is ``None``): one frame per complete step.  The last step's decisions may
    be logged only in part (simultaneous ones are booked one by one): that step waits for the
    next call.  Anything else that does not fit the game raises :class:`LogError`, as for a
    finished log.  The seed stays in the log; the bots' own words are not copied."""
    game, state, cast = _start(log)
    try:
        frames = list(_frames(log, state, cast))
    except LogError:
        steps = sorted({int(d["step"]) for d in log["decisions"]})
        if not steps:
            raise
        log = {**log, "decisions": [d for d in log["decisions"] if int(d["step"]) != steps[-1]]}
        game, state, cast = _start(log)
        frames = list(_frames(log, state, cast))
    return {
        "format": FRAMES_FORMAT,
        "version": FRAMES_VERSION,
        "match": _match_header(log, game, cast),
        "board": cast.board,
        "frames": frames,
    }


def iter_frames(log: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The frames of ``log``'s decisions, as far as they go, without checking its result: the
    first frames of a match from a prefix of its log. Raises :class:`LogError` where the log
    does not fit the game."""
    _, state, cast = _start(log)
    yield from _frames(log, state, cast)


def _start(log: Mapping[str, Any]) -> tuple[Game, State, Cast]:
    """The game, its first state, and the kit bound to this match's seats and board."""
    try:
        game = find_game(log["game"])
        board = log_board(game, log)
        state = start_state(log, game, board)
    except LogError:
        raise
    except UnknownGameError as exc:
        raise LogError(f"match log of an unknown game: {exc}") from exc
    except KeyError as exc:
        raise LogError(f"malformed match log: no {exc.args[0]!r}") from exc
    except (AttributeError, TypeError, ValueError) as exc:
        raise LogError(f"malformed match log: {exc}") from exc
    return game, state, _cast(log, game, state)


def _cast(log: Mapping[str, Any], game: Game, state: State) -> Cast:
    """The kit bound to this match's seats (read from its first state) and board."""
    kit = kit_for(game.name)
    board = log_board(game, log)
    return Cast(kit, kit.seats(log, state.view(None)),
                kit.board_facts(board, log.get("options") or {}))


def frame_count(log: Mapping[str, Any]) -> int:
    """How many frames ``log`` gives: one per step of its decisions, plus the start."""
    return len({int(d["step"]) for d in log["decisions"]}) + 1


def _frames(log: Mapping[str, Any], state: State, cast: Cast, notes: bool = False
            ) -> Iterator[dict[str, Any]]:
    """Frame 0, then replay step by step (unchecked: a live match's log, a prefix)."""
    builder = _Builder(log, cast, notes)
    yield builder.first(state)
    for step in sorted(builder.steps):
        pending = state.pending()
        if {d.seat for d in pending} != set(builder.steps[step]):
            raise LogError(f"step {step}: the log answers seats {sorted(builder.steps[step])}, "
                           f"the game asks {sorted(d.seat for d in pending)}")
        decisions = builder.decide(step, pending)
        try:
            state.apply({seat: e["choice"] for seat, e in builder.steps[step].items()})
        except RulesError as exc:
            raise LogError(f"step {step}: {exc}") from exc
        yield builder.after(step, state, pending, decisions)


class _Builder:
    """The frames of one log, a step at a time: its own replay (:func:`_frames`) or the checked
    one's (:func:`build_frames`) applies each step. ``/start`` faults are strikes (the runner's
    rule) shown on frame 0; ``/end`` faults come after the result (added to the last frame)."""

    def __init__(self, log: Mapping[str, Any], cast: Cast, notes: bool) -> None:
        self.cast, self.notes = cast, notes
        self.steps: dict[int, dict[int, Mapping[str, Any]]] = {}
        for d in log["decisions"]:
            self.steps.setdefault(int(d["step"]), {})[int(d["seat"])] = d
        self.faults = {(f["step"], f["seat"]): f for f in log.get("faults", [])
                       if f.get("step") is not None}
        self.started = [f for f in log.get("faults", [])
                        if f.get("step") is None and f.get("kind") == "start"]
        self.strikes = [0] * len(cast.seats)
        for f in self.started:
            self.strikes[int(f["seat"])] += 1
        self.frames: list[dict[str, Any]] = []
        self._order = iter(sorted(self.steps))

    def next_step(self) -> int:
        return next(self._order)

    def first(self, state: State) -> dict[str, Any]:
        frame = _frame(0, None, None, state, self.cast, [], state.view(None).get("events", []),
                       self.strikes, self.started)
        frame["turn"] = frame["turn_now"]
        self.frames.append(frame)
        return frame

    def decide(self, step: int, pending: Sequence[Decision]) -> list[dict[str, Any]]:
        """What each seat decided at ``step``, counting strikes (before the step is applied)."""
        decisions = []
        for d in pending:
            entry = self.steps[step][d.seat]
            if entry["status"] not in (OK, FORFEITED):
                self.strikes[d.seat] += 1
            decision = _decision(d, entry, self.faults.get((step, d.seat)), self.cast,
                                 self.strikes[d.seat])
            if self.notes:
                decision.update(bot_notes(entry))
            decisions.append(decision)
        return decisions

    def after(self, step: int, state: State, pending: Sequence[Decision],
              decisions: list[dict[str, Any]]) -> dict[str, Any]:
        """The frame of ``step``, once applied to ``state``."""
        turn = self.frames[-1]["turn_now"]  # the turn the decision is taken in
        # A decider's events since it decided are exactly this step's, and events are public.
        events = state.events_since(pending[0].seat)
        frame = _frame(len(self.frames), step, turn, state, self.cast, decisions, events,
                       self.strikes, [])
        self.frames.append(frame)
        return frame


def _frame(ply: int, step: int | None, turn: int | None, state: State, cast: Cast,
           decisions: list[dict[str, Any]], events: Sequence[Mapping[str, Any]],
           strikes: Sequence[int], faults: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    view = state.view(None)
    view.pop("events", None)  # the frame's own events are this step's, not the view's window
    public = [dict(e) for e in events]
    return {
        "ply": ply,
        "step": step,
        "turn": turn,
        # what the view shows: one step can play more than one turn (Doubletrack's turns that
        # ask nothing pass within the step), so a header must not show ``turn`` beside it
        "turn_now": cast.kit.turn(view),
        "decisions": decisions,
        "events": public,
        "texts": [cast.text(e) for e in public],
        "view": view,
        "strikes": list(strikes),
        "faults": [_fault(f) for f in faults],
        "over": state.is_over,
    }


def _decision(d: Decision, entry: Mapping[str, Any], fault: Mapping[str, Any] | None,
              cast: Cast, strikes: int) -> dict[str, Any]:
    """One seat's answer as a spectator may see it; the bot's own words are not copied here."""
    option = next((o for o in d.options if o.id == entry["choice"]), None)
    if option is None:
        raise LogError(f"step {entry['step']}: {entry['choice']!r} is not an option of "
                       f"seat {d.seat}'s {d.kind}")
    secret = cast.kit.secret_answers.get(d.kind)
    out: dict[str, Any] = {
        "seat": d.seat,
        "who": cast.seats[d.seat]["label"],
        "kind": d.kind,
        "prompt": d.prompt,
        "options": None if d.kind in cast.kit.secret_options else len(d.options),
        "choice": None if secret else option.id,
        "label": secret or option.label,
        "data": None if secret else _json(option.data),
        "ms": entry.get("ms"),
        "status": entry["status"],
        "strikes": strikes,
    }
    if fault is not None:
        out["fault"] = _fault(fault)
    return out


def bot_notes(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A log entry's bot's own words, as the author sees them: ``log`` (the text the bot sent
    with its answer) and ``stderr`` (the lines the referee captured from a bot it started),
    each only when there is some. Raises :class:`LogError` for a field of the wrong shape."""
    out: dict[str, Any] = {}
    where = f"step {entry.get('step')}: seat {entry.get('seat')}'s"
    text = entry.get("log")
    if text is not None and not isinstance(text, str):
        raise LogError(f"{where} 'log' is not a string")
    if text:
        out["log"] = text
    lines = entry.get("stderr")
    if lines is not None and (not isinstance(lines, list)
                              or not all(isinstance(line, str) for line in lines)):
        raise LogError(f"{where} 'stderr' is not a list of strings")
    if lines:
        out["stderr"] = list(lines)
    return out


def _fault(f: Mapping[str, Any]) -> dict[str, Any]:
    return {"seat": f.get("seat"), "kind": f.get("kind"), "reason": f.get("reason"),
            "detail": f.get("detail", "")}


def _match_header(log: Mapping[str, Any], game: Game, cast: Cast) -> dict[str, Any]:
    result = log.get("result")  # none while the match is played (:func:`build_live`)
    return {
        "match_id": log.get("match_id"),
        "game": game.name,
        "title": game.title,
        "rules_version": log.get("rules_version"),
        "options": dict(log.get("options") or {}),
        "time_control": log.get("time_control"),
        "strike_limit": log.get("strike_limit"),
        "turn_name": cast.kit.turn_name,
        "seats": cast.seats,
        "result": result,
        "outcome": "" if result is None else cast.kit.result_text(result, cast.seats),
    }


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _json(value: Any) -> Any:
    """Option data as plain JSON (engines may hold tuples in it)."""
    if type(value) in _SCALARS:  # most of it: checked first, as a Mapping check is slow
        return value
    if isinstance(value, Mapping):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    return value
