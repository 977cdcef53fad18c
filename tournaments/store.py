"""Where a tournament's state is kept: the :class:`StateStore` interface, and its JSON-lines
file (:class:`JsonlStateStore`), the store of ``referee tournament``.

The state is the plan, then one outcome per finished match keyed by its schedule index: what
``--resume`` reads to play only the missing matches. A store also makes sure one process at a
time plays a tournament (:meth:`StateStore.exclusive`). A service that runs tournaments keeps
the same state in its database by implementing the same four methods.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from tournaments.errors import TournamentError
from tournaments.fixtures import Outcome
from tournaments.plan import Plan

STATE_FORMAT = "referee-tournament-state"


class StateStore(Protocol):
    """The state of one tournament, ``tournament_id``."""

    @property
    def tournament_id(self) -> str:
        """The tournament's id (it also names its matches: ``<id>-<index>``)."""
        ...

    def create(self, plan: Plan) -> None:
        """Store a new tournament's plan; :class:`TournamentError` if the id is taken."""
        ...

    def load(self) -> tuple[Plan, dict[int, Outcome]]:
        """The plan and the outcomes recorded so far, by schedule index;
        :class:`TournamentError` if there is no such tournament."""
        ...

    def append(self, outcome: Outcome) -> None:
        """Record one finished match, durably enough that a crash right after loses nothing."""
        ...

    def exclusive(self) -> Any:
        """A context manager holding the tournament for this process while it plays;
        :class:`TournamentError` naming who holds it if another process does."""
        ...


def new_tournament_id() -> str:
    return secrets.token_hex(4)


def default_state_dir() -> Path:
    """Where tournament state files live: the user's data directory."""
    from platformdirs import user_data_path

    return user_data_path("referee", appauthor=False) / "tournaments"


class JsonlStateStore:
    """The append-only file ``<dir>/<id>.jsonl``: a header line (the plan), then outcomes.

    Each outcome line is written (flushed, not fsynced: a killed process loses nothing written,
    and a power cut only costs replaying a few matches, which the database records once) as
    soon as the match is done and recorded, so an interruption loses at most the matches still
    being played. A torn last line, from a crash mid-write, is ignored on reading.
    """

    def __init__(self, state_dir: Path, tournament_id: str) -> None:
        if not re.fullmatch(r"[0-9a-f]{8}", tournament_id):
            raise TournamentError(f"{tournament_id!r} is not a tournament id (8 hex digits)")
        self._id = tournament_id
        self.path = state_dir / f"{tournament_id}.jsonl"
        self.lock = StateLock(self.path.with_suffix(".lock"))
        self._appending: Any = None
        """The state file, open for appending while this process holds the tournament."""

    @property
    def tournament_id(self) -> str:
        return self._id

    def create(self, plan: Plan) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = {"format": STATE_FORMAT, "version": 1, "id": self._id, "plan": plan.to_dict()}
        try:
            with self.path.open("x", encoding="utf-8") as fh:
                fh.write(json.dumps(header) + "\n")
        except FileExistsError:
            raise TournamentError(f"tournament {self._id} exists already ({self.path})") from None

    def load(self) -> tuple[Plan, dict[int, Outcome]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise TournamentError(f"no tournament state at {self.path}") from None
        try:
            header = json.loads(lines[0])
            if header.get("format") != STATE_FORMAT:
                raise ValueError
            plan = Plan.from_dict(header["plan"])
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            raise TournamentError(f"{self.path} is not a tournament state file") from None
        done: dict[int, Outcome] = {}
        for line in lines[1:]:
            try:
                outcome = Outcome.from_line(json.loads(line))
            except (ValueError, KeyError, TypeError):
                continue  # a line torn by a crash mid-write: that match is simply replayed
            done[outcome.index] = outcome
        return plan, done

    def append(self, outcome: Outcome) -> None:
        line = json.dumps(outcome.to_line()) + "\n"
        if not self.lock.held:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line)
            return
        if self._appending is None:  # kept open while this process holds the tournament
            self._appending = self.path.open("a", encoding="utf-8")
        self._appending.write(line)
        self._appending.flush()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        self.lock.acquire()
        try:
            yield
        finally:
            appending, self._appending = self._appending, None
            if appending is not None:
                appending.close()
            self.lock.release()


class StateLock:
    """An exclusive OS lock on ``<id>.lock`` beside the state file, so that one process at a
    time plays a tournament: two ``--resume ID`` at once would otherwise both play every
    missing game. The operating system drops the lock when the process ends, however it ends
    (a crash or SIGKILL leaves no stale lock behind); the file itself stays, holding the pid
    of its last holder for the message."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self) -> None:
        """Take the lock or raise :class:`TournamentError` naming the process that holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        try:
            _lock_file(handle)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise TournamentError(f"tournament {self.path.stem} is being played by process "
                                  f"{holder}; wait for it to finish or stop it") from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle

    def release(self) -> None:
        handle, self._file = self._file, None
        if handle is not None:
            handle.close()  # closing the file releases the lock


def _lock_file(handle: Any) -> None:
    """A non-blocking exclusive lock on an open file; ``OSError`` if someone holds it."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
