"""A ``py:PATH`` or ``py:PATH:NAME`` seat: a Python bot from a file, played in-process.

The quickest loop for a Python bot's author (Kaggle's ``make().run()``): no server, yet the
bot sees exactly what an HTTP bot would. Every message is built by the protocol's own
functions, encoded and decoded again (:mod:`referee.protocol`), so the bot gets the same JSON
documents (``/start``, ``/decide``, ``/end`` bodies as dicts), and its answer goes through the
same check as an HTTP answer; the same time limit and strikes apply. The bot runs on a thread
of its own: one that overruns is struck for time and the match goes on (it is asked nothing
more until that call returns), and an exception in its code is a ``bot_error`` strike naming
the exception and where it was raised, never the referee's crash. What it prints during a
decision (stdout or stderr) goes to that decision's ``stderr`` in the match log, as a ``cmd:``
bot's stderr does, and never onto the referee's own output.

What the file may define (NAME picks one; without it ``decide``, then ``choose``):

* a function ``decide(request)`` returning an option id, or ``(id, note)``;
* a function ``choose(decision, view, request)``, the starter kit's form
  (``bots/starter/bot.py`` plays as ``py:bots/starter/bot.py`` unchanged);
* a class with ``decide(request)`` and optionally ``start(message)`` and ``end(message)``,
  made afresh for every match.

Only the command line plays such seats: the service never runs anyone's code in its process.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from referee import protocol
from referee.display import printable
from referee.errors import RefereeError
from referee.faults import Fault, FaultReason
from referee.players import Answer, DecisionRequest, MatchInfo, Player

PY_PREFIX = "py:"
DEFAULT_NAMES = ("decide", "choose")
LIFECYCLE_MS = 2000
"""Time a bot's ``start`` or ``end`` may take (as an HTTP bot's ``/start`` and ``/end``)."""


class PySeatError(RefereeError):
    """A ``py:`` seat whose file does not load, or holds no bot under the name asked for."""


def split_spec(spec: str) -> tuple[str, str | None]:
    """``py:PATH[:NAME]`` as ``(PATH, NAME or None)``."""
    body = spec[len(PY_PREFIX):]
    path, sep, name = body.rpartition(":")
    if sep and path and name.isidentifier():
        return path, name
    return body, None


_MODULES: dict[tuple[str, int, int], ModuleType] = {}
_LOADING = threading.Lock()


def load_module(path: str) -> ModuleType:
    """The module in ``path``, loaded once per process (again if the file changed); its
    folder goes on ``sys.path`` so that it can import its neighbours."""
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise PySeatError(f"{PY_PREFIX}{path}: {exc.strerror or exc}") from None
    full = str(Path(path).resolve())
    key = (full, stat.st_mtime_ns, stat.st_size)
    with _LOADING:
        if key in _MODULES:
            return _MODULES[key]
        name = f"referee_py_seat_{abs(hash(key)):x}"
        spec = importlib.util.spec_from_file_location(name, full)
        if spec is None or spec.loader is None:
            raise PySeatError(f"{PY_PREFIX}{path}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        folder = str(Path(full).parent)
        if folder not in sys.path:
            sys.path.append(folder)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:  # the bot's code: any failure is its author's to see
            del sys.modules[name]
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise PySeatError(f"{PY_PREFIX}{path}: loading it failed: {exception_line(exc)}"
                              ) from None
        _MODULES[key] = module
        return module


def load_bot(spec: str) -> Callable[[], BotCalls]:
    """What makes the bot of ``spec`` for one match; :class:`PySeatError` in one line for a
    file that does not load or a name that is not a bot."""
    path, name = split_spec(spec)
    module = load_module(path)
    if name is None:
        name = next((n for n in DEFAULT_NAMES if callable(getattr(module, n, None))), None)
        if name is None:
            raise PySeatError(f"{spec}: {path} defines no decide(request) nor "
                              f"choose(decision, view, request); name one as {spec}:NAME"
                              f"{_defined(module)}")
    target = getattr(module, name, None)
    if inspect.isclass(target):
        if not callable(getattr(target, "decide", None)):
            raise PySeatError(f"{spec}: class {name} has no decide(request) method")
        return lambda: BotCalls.of_instance(_made(spec, target))
    if callable(target):
        return lambda: BotCalls.of_function(spec, name, target)
    raise PySeatError(f"{spec}: {path} has no function or class {name!r}{_defined(module)}")


def _made(spec: str, cls: type) -> Any:
    """An instance of the bot's class, or :class:`PySeatError` naming what its constructor
    raised (before the match: a bot that cannot be made cannot play)."""
    try:
        return cls()
    except Exception as exc:  # the bot's code
        raise PySeatError(f"{spec}: making the bot failed: {exception_line(exc)}") from None


def _defined(module: ModuleType) -> str:
    names = sorted(n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                   and getattr(v, "__module__", None) == module.__name__)
    return f" (it defines: {', '.join(names[:12])})" if names else ""


@dataclass(frozen=True)
class BotCalls:
    """A loaded bot as three calls on protocol documents (``start`` and ``end`` may do
    nothing)."""

    decide: Callable[[dict[str, Any]], Any]
    start: Callable[[dict[str, Any]], Any] = lambda message: None
    end: Callable[[dict[str, Any]], Any] = lambda message: None

    @classmethod
    def of_instance(cls, bot: Any) -> BotCalls:
        nothing = cls.start
        return cls(bot.decide, getattr(bot, "start", nothing), getattr(bot, "end", nothing))

    @classmethod
    def of_function(cls, spec: str, name: str, func: Callable[..., Any]) -> BotCalls:
        try:
            params = len(inspect.signature(func).parameters)
        except (TypeError, ValueError):
            params = 1
        if params == 3:  # the starter kit's choose(decision, view, request)
            return cls(lambda request: func(request["decision"], request["view"], request))
        if params == 1:
            return cls(func)
        raise PySeatError(f"{spec}: {name} takes {params} arguments; a bot function takes "
                          "(request), or (decision, view, request)")


def exception_line(exc: BaseException) -> str:
    """The last line of the exception's traceback and where it was raised: what a bot's
    author needs to find the bug (``ZeroDivisionError: division by zero (bot.py:12 in
    decide)``)."""
    line = traceback.format_exception_only(type(exc), exc)[-1].strip()
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        line += f" ({Path(last.filename).name}:{last.lineno} in {last.name})"
    return printable(line)[:500]


@dataclass
class _Call:
    """One call of the bot's code on its own thread, and what it printed meanwhile."""

    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None
    printed: list[str] = field(default_factory=list)


_PRINTING = threading.local()
"""Per thread: where a bot's call thread's prints go (unset elsewhere)."""


class _Routed:
    """``sys.stdout`` or ``sys.stderr``, except that what a bot's call thread writes goes to
    that call (and then to the decision's ``stderr`` in the log), never onto the referee's
    own output (``referee match --json`` prints one JSON object, whatever a bot prints)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        sink = getattr(_PRINTING, "sink", None)
        if sink is None:
            written: int = self._stream.write(text)
            return written
        sink.append(text)
        return len(text)

    def flush(self) -> None:
        if getattr(_PRINTING, "sink", None) is None:
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _route_prints() -> None:
    if not isinstance(sys.stdout, _Routed):
        sys.stdout = _Routed(sys.stdout)  # type: ignore[assignment]
    if not isinstance(sys.stderr, _Routed):
        sys.stderr = _Routed(sys.stderr)  # type: ignore[assignment]


@dataclass
class PyPlayer(Player):
    """A ``py:`` seat. ``remote``: asked concurrently with other seats (it runs on a thread)."""

    make: Callable[[], BotCalls] | None = field(default=None, repr=False)
    remote: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        assert self.make is not None
        self._bot = self.make()
        self._busy: _Call | None = None
        self._game, self._seat = "", 0

    def start(self, info: MatchInfo) -> Fault | None:
        self._game, self._seat = info.game, info.seat
        message = _round_trip(protocol.encode(protocol.start_message(info)))
        return self._call(self._bot.start, message, LIFECYCLE_MS)[2]

    def decide(self, request: DecisionRequest) -> Answer:
        message = _round_trip(protocol.decide_body(request))
        value, ms, fault = self._call(self._bot.decide, message, request.deadline_ms)
        printed = self._printed()
        body = _answer_body(value) if fault is None else None
        if body is None:
            fault = fault or Fault(FaultReason.BAD_JSON, f"returned {printable(repr(value))[:200]}"
                                   ", not an option id or (id, note)")
            return Answer(None, ms, fault=fault, stderr=printed)
        parsed = protocol.parse_answer(body, request.decision.option_ids())
        return Answer(parsed.choice, ms, parsed.log, parsed.fault, stderr=printed)

    def _printed(self) -> list[str] | None:
        """What the last call printed, as lines (``None``: nothing, or it is still running)."""
        call = self._busy
        if call is None or not call.done.is_set():
            return None
        return "".join(call.printed).splitlines() or None

    def end(self, match_id: str, result: Any) -> Fault | None:
        message = _round_trip(protocol.encode(protocol.end_message(
            match_id, self._game, self._seat, result)))
        return self._call(self._bot.end, message, LIFECYCLE_MS)[2]

    def _call(self, func: Callable[[dict[str, Any]], Any], message: dict[str, Any],
              limit_ms: float) -> tuple[Any, float, Fault | None]:
        """``func(message)`` on a thread, waited for ``limit_ms``: its value, the time it
        took and the fault (a timeout, or the exception it raised)."""
        if self._busy is not None and not self._busy.done.is_set():
            return None, 0.0, Fault(FaultReason.TIMEOUT, "still busy with an earlier call "
                                    "that ran past its deadline")
        call = self._busy = _Call()
        _route_prints()

        def run() -> None:
            _PRINTING.sink = call.printed
            try:
                call.value = func(message)
            except BaseException as exc:  # the bot's code: its fault, never the referee's
                call.error = exc
            finally:
                call.done.set()

        began = time.perf_counter()
        threading.Thread(target=run, name=f"py-bot-{self.name}"[:40], daemon=True).start()
        finished = call.done.wait(limit_ms / 1000)
        ms = (time.perf_counter() - began) * 1000
        if not finished:
            return None, ms, Fault(FaultReason.TIMEOUT, f"no answer within {limit_ms:.0f} ms")
        if call.error is not None:
            return None, ms, Fault(FaultReason.BOT_ERROR, exception_line(call.error))
        return call.value, ms, None


def _round_trip(body: bytes) -> dict[str, Any]:
    """The document an HTTP bot would have parsed from ``body``."""
    doc: dict[str, Any] = protocol.decode_json(body)
    return doc


def _answer_body(value: Any) -> bytes | None:
    """The ``/decide`` answer an HTTP bot would have sent for ``value`` (an id, or ``(id,
    note)``), for the same parser to check; ``None`` for a value that is no JSON at all."""
    if isinstance(value, tuple) and len(value) == 2:
        doc: dict[str, Any] = {"choice": value[0], "log": value[1]}
    else:
        doc = {"choice": value}
    try:
        return protocol.encode(doc)
    except (TypeError, ValueError):
        return None
