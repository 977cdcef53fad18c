"""Tournaments: a deterministic schedule of matches, played in parallel, resumable.

Two-seat games are played as *game pairs*: both seat orders of the same seed, so the same dice
fall for both entrants and most of the luck cancels (fastchess's pairs). Larger tables play each
seed once per cyclic rotation of the seats. Such a set of games sharing a seed is a *block*;
blocks are the independent samples of the statistics (see :mod:`ladder.stats`).

Every match is described by a :class:`MatchSpec`, plain picklable data, so matches of built-in
bots run in a spawn-context process pool (CPU-bound bots gain nothing from threads); matches
with an HTTP bot run on threads, since they mostly wait. Results come back to the parent, which
alone writes the state file and the database. The state file (JSON lines: a header, then one
line per finished match keyed by its schedule index) is what ``--resume`` reads.
"""

from __future__ import annotations

import functools
import itertools
import json
import multiprocessing
import os
import random
import re
import secrets
import signal
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ladder import stats
from ladder.stats import pair_score
from ladder.watchdog import exit_with_parent
from referee.core import Game
from referee.display import HIDDEN, redact
from referee.errors import RefereeError
from referee.lineup import is_url, make_player, split_name
from referee.match import Runner, TimeControl
from referee.players import Player

STATE_FORMAT = "referee-tournament-state"


class TournamentError(RefereeError, ValueError):
    """A tournament that cannot be set up or resumed; the message says why, in one line."""


# -- entrants and configuration -----------------------------------------------------------

@dataclass(frozen=True)
class Entrant:
    """A named participant: ``bot`` is a built-in bot spec or an HTTP bot's URL."""

    name: str
    bot: str

    @property
    def remote(self) -> bool:
        return is_url(self.bot)


def parse_entrant(text: str) -> Entrant:
    """``greedy``, ``http://…`` or ``NAME=BOT`` (so the same bot can enter twice); a URL's
    credentials never become part of its name.

    Only a plain name before ``=`` splits: never a URL (``http://x/?a=b``), nor a bot spec
    with a parameter (``mcts:ms=50``).
    """
    try:
        name, bot = split_name(text)
    except ValueError as exc:
        raise TournamentError(f"entrant {redact(text)!r}: {exc}") from None
    return Entrant(name, bot)


def parse_entrants(texts: Sequence[str]) -> list[Entrant]:
    entrants = [parse_entrant(t) for t in texts]
    seen: set[str] = set()
    for e in entrants:
        if e.name in seen:
            raise TournamentError(
                f"entrant {e.name!r} appears twice; enter a bot twice as NAME=BOT"
            )
        seen.add(e.name)
    if len(entrants) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    return entrants


@dataclass(frozen=True)
class Settings:
    """Everything a match needs besides its seats and seed; the same for every match.

    ``want_log``: send each match log back to the parent (only when the database needs it:
    logs are large, and pickling them between processes costs time).
    """

    game: str
    board_path: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    time_ms: int = 1000
    bank_ms: int = 0
    strikes: int = 3
    want_log: bool = False

    def time_control(self) -> TimeControl:
        return TimeControl(self.time_ms, self.bank_ms)


@dataclass(frozen=True)
class Plan:
    """A tournament's identity: what ``--resume`` checks against the state file."""

    game: str
    entrants: tuple[Entrant, ...]
    games: int
    seats: int
    seed: int
    settings: Settings

    def to_dict(self) -> dict[str, Any]:
        """The plan as stored in the state file: bot URLs without their credentials (a
        resume names such bots again, see :meth:`with_entrants`)."""
        data = asdict(self)
        data["settings"]["options"] = dict(self.settings.options)
        data["entrants"] = [{"name": e.name, "bot": redact(e.bot)} for e in self.entrants]
        return data

    def hidden_credentials(self) -> list[str]:
        """Entrants whose bot URL was stored with its credentials hidden."""
        return [e.name for e in self.entrants if is_url(e.bot) and f"{HIDDEN}@" in e.bot]

    def with_entrants(self, entrants: Sequence[Entrant]) -> Plan:
        """This plan with the entrants as named again on a resume: the same names and bots,
        credentials put back (:class:`TournamentError` for any other difference)."""
        given = [(e.name, redact(e.bot)) for e in entrants]
        stored = [(e.name, redact(e.bot)) for e in self.entrants]
        if given != stored:
            shown = ", ".join(f"{n}={b}" if n != b else n for n, b in stored)
            raise TournamentError(f"--resume: this tournament was started with entrants {shown}")
        return replace(self, entrants=tuple(entrants))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        return cls(
            game=data["game"],
            entrants=tuple(Entrant(**e) for e in data["entrants"]),
            games=int(data["games"]),
            seats=int(data["seats"]),
            seed=int(data["seed"]),
            settings=Settings(**data["settings"]),
        )


def default_seats(game: Game, entrants: int) -> int:
    """The largest table the game allows that the entrants can fill."""
    fitting = [n for n in game.player_counts if n <= entrants]
    if not fitting:
        raise TournamentError(
            f"{game.name} needs at least {min(game.player_counts)} players; got {entrants} entrants"
        )
    return max(fitting)


def check_plan(game: Game, plan: Plan) -> None:
    """Raise :class:`TournamentError` for a seat count or game count that cannot be scheduled."""
    if plan.seats not in game.player_counts:
        counts = ", ".join(map(str, game.player_counts))
        raise TournamentError(f"{game.name} is played by {counts} players, not {plan.seats}")
    if plan.seats > len(plan.entrants):
        raise TournamentError(f"{plan.seats} seats need at least {plan.seats} entrants")
    if plan.games < plan.seats or plan.games % plan.seats:
        what = "seat-swapped pairs" if plan.seats == 2 else f"rotations over {plan.seats} seats"
        raise TournamentError(
            f"--games must be a positive multiple of {plan.seats}: each seed is played in {what}"
        )


# -- the schedule ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MatchSpec:
    """One scheduled match: plain data, picklable, enough for a worker process to play it.

    ``seats`` are entrant indices in seat order; ``block`` numbers the games that share
    ``seed`` (a pair, or a rotation); ``match_id`` is stable so a result is recorded once.
    """

    index: int
    match_id: str
    block: int
    seed: int
    seats: tuple[int, ...]
    names: tuple[str, ...]
    bots: tuple[str, ...]

    @property
    def remote(self) -> bool:
        return any(is_url(b) for b in self.bots)


def block_seed(tournament_seed: int, round_no: int) -> int:
    """The seed of every table's block in one round: the same deal for every pairing."""
    return random.Random(f"{tournament_seed}:round:{round_no}").getrandbits(63)


def schedule(plan: Plan, tournament_id: str) -> list[MatchSpec]:
    """Every match of the tournament, in playing order (deterministic from the plan).

    Rounds go over all tables, so partial results stay balanced; in round ``r`` every table
    plays the same seed once per cyclic seat rotation (both orders, for two seats).
    """
    tables = list(itertools.combinations(range(len(plan.entrants)), plan.seats))
    specs: list[MatchSpec] = []
    block = 0
    for round_no in range(plan.games // plan.seats):
        seed = block_seed(plan.seed, round_no)
        for table in tables:
            for shift in range(plan.seats):
                seats = table[shift:] + table[:shift]
                index = len(specs)
                specs.append(MatchSpec(
                    index=index, match_id=f"{tournament_id}-{index}", block=block, seed=seed,
                    seats=seats, names=tuple(plan.entrants[i].name for i in seats),
                    bots=tuple(plan.entrants[i].bot for i in seats),
                ))
            block += 1
    return specs


# -- playing one match (runs in a worker) ---------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """A finished match as the parent needs it: ranks, strikes and forfeited seats (so that a
    dead bot shows in the standings rather than only losing), and the log if asked for."""

    index: int
    match_id: str
    block: int
    seed: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    end: str
    faults: int
    strikes: tuple[int, ...] = ()
    forfeited: tuple[int, ...] = ()
    log: dict[str, Any] | None = None

    def to_line(self) -> dict[str, Any]:
        data = asdict(self)
        del data["log"]
        return data

    @classmethod
    def from_log(cls, spec: MatchSpec, log: Mapping[str, Any], keep_log: bool) -> Outcome:
        """The outcome of ``spec`` as its match log tells it (a finished match, or one the
        ladder already holds); the log itself is kept only if ``keep_log``."""
        result, players = log["result"], log["players"]
        seats = sorted(result["seats"], key=lambda s: int(s["seat"]))
        return cls(
            index=spec.index, match_id=spec.match_id, block=spec.block, seed=spec.seed,
            seats=spec.seats, ranks=tuple(int(s["rank"]) for s in seats),
            scores=tuple(int(s["score"]) for s in seats), end=str(result["end"]),
            faults=len(log["faults"]), strikes=tuple(int(p["strikes"]) for p in players),
            forfeited=tuple(i for i, p in enumerate(players) if p["forfeited"]),
            log=dict(log) if keep_log else None,
        )

    @classmethod
    def from_line(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(
            index=int(data["index"]), match_id=str(data["match_id"]), block=int(data["block"]),
            seed=int(data["seed"]), seats=tuple(data["seats"]), ranks=tuple(data["ranks"]),
            scores=tuple(data["scores"]), end=str(data["end"]), faults=int(data["faults"]),
            # absent from the state files of older versions
            strikes=tuple(data.get("strikes", ())), forfeited=tuple(data.get("forfeited", ())),
        )


@functools.lru_cache(maxsize=8)
def load_game(name: str, board_path: str | None) -> tuple[Game, Any]:
    """The game and its board, loaded once per process: parsing and validating a board file
    costs about as much as playing a quick game."""
    from referee.games import find_game

    game = find_game(name)
    return game, game.load_board(board_path)


def play_spec(settings: Settings, spec: MatchSpec) -> Outcome:
    """Play one scheduled match. Top-level so a process pool can pickle it by name."""
    game, board = load_game(settings.game, settings.board_path)
    players: list[Player] = []
    try:
        for seat, (name, bot) in enumerate(zip(spec.names, spec.bots)):
            player = make_player(bot, game.name, spec.seed, seat)
            player.name = name
            players.append(player)
        record = Runner(
            game, players, spec.seed, board=board, options=settings.options,
            time_control=settings.time_control(), strikes=settings.strikes,
            match_id=spec.match_id,
        ).run()
    finally:
        for p in players:
            p.close()
    return Outcome.from_log(spec, record.log, settings.want_log)


def registry_snapshot() -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The game and bot registries as this process sees them (tests and plug-ins add entries)."""
    from bots import registered_bots
    from referee.games import registered_games

    return registered_games(), registered_bots()


def init_worker(snapshot: tuple[dict[str, str], dict[str, dict[str, str]]],
                parent_pid: int) -> None:
    """Worker set-up: the parent's registries, Ctrl-C left to the parent, and an exit when
    the parent dies (:mod:`ladder.watchdog`: a killed tournament must not leave its workers).

    The terminal sends SIGINT to the whole process group; workers ignore it so that only the
    parent reacts (it cancels the rest and stops the pool) and no worker prints a traceback.
    """
    from bots import register_bot
    from referee.games import register_game

    exit_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name, module in snapshot[0].items():
        register_game(name, module)
    for name, by_game in snapshot[1].items():
        for game, target in by_game.items():
            register_bot(name, target, game)


# -- running many -----------------------------------------------------------------------------

class Interrupted(Exception):
    """Raised by :meth:`Tournament.run` and :func:`run_sprt` after Ctrl-C, once the pools have
    been stopped (the games finished so far are kept)."""


class MatchPool:
    """Plays match specs on ``concurrency`` workers; results in completion order.

    ``concurrency == 1`` plays in this process (no pool to start). Otherwise in-process matches
    go to a spawn-context pool of ``concurrency`` processes and matches with an HTTP seat to a
    pool of as many threads; each pool is created on first use, so a tournament of one kind
    starts only one.
    """

    def __init__(self, settings: Settings, concurrency: int) -> None:
        self.settings, self.concurrency = settings, max(1, concurrency)
        self.depth = 2 * self.concurrency
        """Matches in flight: one queued behind each running one, so no worker waits for the
        parent's round trip between two quick games."""
        self._processes: ProcessPoolExecutor | None = None
        self._threads: ThreadPoolExecutor | None = None

    def _executor(self, spec: MatchSpec) -> Executor:
        if spec.remote:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(self.concurrency, "referee-match")
            return self._threads
        if self._processes is None:
            self._processes = ProcessPoolExecutor(
                self.concurrency, mp_context=multiprocessing.get_context("spawn"),
                initializer=init_worker, initargs=(registry_snapshot(), os.getpid()),
            )
        return self._processes

    def run(self, specs: Iterable[MatchSpec]) -> Generator[Outcome, None, None]:
        """Yield outcomes as matches finish. Closing the generator stops the rest."""
        if self.concurrency == 1:
            for spec in specs:
                yield play_spec(self.settings, spec)
            return
        pending: set[Future[Outcome]] = set()
        source = iter(specs)
        try:
            while True:
                for spec in itertools.islice(source, self.depth - len(pending)):
                    pending.add(self._executor(spec).submit(play_spec, self.settings, spec))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: f.result().index):
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()
            self.close(kill=bool(pending))

    def close(self, kill: bool = False) -> None:
        """Shut the pools down; ``kill`` ends worker processes still playing a match."""
        if self._processes is not None:
            workers = list(getattr(self._processes, "_processes", {}).values())
            self._processes.shutdown(wait=not kill, cancel_futures=True)
            if kill:
                for proc in workers:
                    proc.terminate()
                for proc in workers:
                    proc.join(timeout=5)
            self._processes = None
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)
            self._threads = None


# -- standings ---------------------------------------------------------------------------------

@dataclass
class Head:
    """A's record against B: games, wins, draws, losses over pairwise comparisons."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


class Standings:
    """Scores, crosstable and per-block samples, built from outcomes in any order.

    In a game of ``k`` seats every pair of seats is compared by rank, and a game gives each
    entrant the share of its ``k - 1`` opponents it finished ahead of (a tie counts half): for
    two seats the usual win 1, draw 1/2, loss 0, and at any table the field averages 1/2.
    Blocks count for the statistics only when all their games are in.
    """

    def __init__(self, entrants: Sequence[Entrant], seats: int) -> None:
        self.entrants, self.seats = list(entrants), seats
        n = len(entrants)
        self.heads = [[Head() for _ in range(n)] for _ in range(n)]
        self.points = [0.0] * n
        self.games = [0] * n
        self.firsts = [0] * n
        self.strikes = [0] * n
        self.forfeits = [0] * n
        self.played = 0
        self.blocks: dict[int, list[Outcome]] = {}

    def add(self, outcome: Outcome) -> None:
        self.played += 1
        self.blocks.setdefault(outcome.block, []).append(outcome)
        share = 1.0 / (len(outcome.seats) - 1)
        for seat, entrant in enumerate(outcome.seats):
            self.games[entrant] += 1
            self.firsts[entrant] += outcome.ranks[seat] == 1
            self.strikes[entrant] += outcome.strikes[seat] if outcome.strikes else 0
            self.forfeits[entrant] += seat in outcome.forfeited
            for other_seat, other in enumerate(outcome.seats):
                if other_seat == seat:
                    continue
                s = pair_score(outcome.ranks[seat], outcome.ranks[other_seat])
                self.points[entrant] += s * share
                head = self.heads[entrant][other]
                head.games += 1
                head.wins += s == 1.0
                head.draws += s == 0.5
                head.losses += s == 0.0

    def block_games(self, a: int, b: int) -> list[list[float]]:
        """A's game scores against B, block by block, over complete blocks with both in."""
        out = []
        for _, games in sorted(self.blocks.items()):
            if len(games) < self.seats or a not in games[0].seats or b not in games[0].seats:
                continue
            games = sorted(games, key=lambda g: g.index)
            out.append([pair_score(g.ranks[g.seats.index(a)], g.ranks[g.seats.index(b)])
                        for g in games])
        return out

    def estimate(self, a: int, b: int) -> stats.EloEstimate | None:
        """Elo of A over B from complete blocks (pentanomial for pairs); ``None`` without any."""
        counts = Counter(sum(scores) / len(scores) for scores in self.block_games(a, b))
        if not counts:
            return None
        values = sorted(counts)
        return stats.estimate(values, [counts[v] for v in values], games_per_block=self.seats)

    def pentanomial(self, a: int, b: int) -> stats.Pentanomial:
        """Game-pair counts of A against B (two-seat tournaments)."""
        return stats.Pentanomial.from_pairs((g[0], g[1]) for g in self.block_games(a, b))

    def order(self) -> list[int]:
        """Entrant indices, best first (points per game, then name)."""
        def key(i: int) -> tuple[float, str]:
            return -self.points[i] / max(1, self.games[i]), self.entrants[i].name

        return sorted(range(len(self.entrants)), key=key)

    def leaders(self, top: int = 3) -> str:
        """A short line for the progress bar: the leading entrants and their points."""
        return "  ".join(
            f"{self.entrants[i].name} {self.points[i]:g}/{self.games[i]}"
            for i in self.order()[:top]
        )


# -- the state file ------------------------------------------------------------------------

def new_tournament_id() -> str:
    return secrets.token_hex(4)


def state_path(state_dir: Path, tournament_id: str) -> Path:
    if not re.fullmatch(r"[0-9a-f]{8}", tournament_id):
        raise TournamentError(f"{tournament_id!r} is not a tournament id (8 hex digits)")
    return state_dir / f"{tournament_id}.jsonl"


def default_state_dir() -> Path:
    """Where tournament state files live: the user's data directory."""
    from platformdirs import user_data_path

    return user_data_path("referee", appauthor=False) / "tournaments"


class StateFile:
    """The append-only record of a tournament: a header line (the plan), then outcomes.

    Each outcome line is written (flushed, not fsynced: a killed process loses nothing written,
    and a power cut only costs replaying a few matches, which the database records once) as
    soon as the match is done and recorded, so an interruption loses at most the matches still
    being played. A torn last line, from a crash mid-write, is ignored on reading.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def create(self, plan: Plan, tournament_id: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = {"format": STATE_FORMAT, "version": 1, "id": tournament_id, "plan": plan.to_dict()}
        with self.path.open("x", encoding="utf-8") as fh:
            fh.write(json.dumps(header) + "\n")

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
        except (ValueError, KeyError, TypeError, IndexError):
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
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(outcome.to_line()) + "\n")


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


# -- the tournament --------------------------------------------------------------------------

Recorder = Callable[[Outcome, MatchSpec], None]
"""Called in the parent for each finished match before it is marked done (the database)."""
Stored = Callable[[Sequence[str]], Mapping[str, Mapping[str, Any]]]
"""The logs of those of the given match ids that the database already holds."""


@dataclass
class Tournament:
    """A planned tournament bound to its state file."""

    plan: Plan
    tournament_id: str
    state: StateFile
    done: dict[int, Outcome]
    lock: StateLock = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.lock = StateLock(self.state.path.with_suffix(".lock"))

    @classmethod
    def start(cls, plan: Plan, state_dir: Path, tournament_id: str | None = None) -> Tournament:
        """A new tournament with a fresh state file; raises :class:`TournamentError` for a plan
        that cannot be scheduled."""
        from referee.games import find_game

        check_plan(find_game(plan.game), plan)
        tid = tournament_id or new_tournament_id()
        state = StateFile(state_path(state_dir, tid))
        state.create(plan, tid)
        return cls(plan, tid, state, {})

    @classmethod
    def resume(cls, state_dir: Path, tournament_id: str) -> Tournament:
        state = StateFile(state_path(state_dir, tournament_id))
        plan, done = state.load()
        return cls(plan, tournament_id, state, done)

    @property
    def specs(self) -> list[MatchSpec]:
        return schedule(self.plan, self.tournament_id)

    def missing(self) -> list[MatchSpec]:
        return [s for s in self.specs if s.index not in self.done]

    def standings(self) -> Standings:
        table = Standings(self.plan.entrants, self.plan.seats)
        for outcome in self.done.values():
            table.add(outcome)
        return table

    @property
    def complete(self) -> bool:
        return len(self.done) == len(self.specs)

    @contextmanager
    def playing(self) -> Iterator[Tournament]:
        """Hold the tournament's lock (:class:`TournamentError` if another process has it)
        and reread what is done, which that process may have changed meanwhile."""
        if self.lock.held:
            yield self
            return
        self.lock.acquire()
        try:
            self.done = self.state.load()[1]
            yield self
        finally:
            self.lock.release()

    def run(
        self, concurrency: int, record: Recorder | None = None,
        progress: Callable[[Outcome, Standings], None] | None = None,
        stored: Stored | None = None,
    ) -> Standings:
        """Play the missing matches under the lock; raise :class:`Interrupted` on Ctrl-C
        (progress is kept).

        ``record`` runs before a match is written to the state file. If the process dies
        between the two, the database has a result the state file lacks: ``stored`` gives
        those results back and they are taken as they are, not played again (a second game
        could end otherwise, and the report would then disagree with the ladder).
        """
        with self.playing():
            table = self.standings()
            specs = {s.index: s for s in self.missing()}
            for outcome in self._recovered(specs, stored):
                self._book(outcome, table, progress)
                del specs[outcome.index]
            outcomes = MatchPool(self.plan.settings, concurrency).run(specs.values())
            try:
                for outcome in outcomes:
                    if record is not None:
                        record(outcome, specs[outcome.index])
                    self._book(outcome, table, progress)
            except KeyboardInterrupt:
                outcomes.close()
                raise Interrupted(self.tournament_id) from None
            return table

    def _recovered(self, specs: Mapping[int, MatchSpec], stored: Stored | None) -> list[Outcome]:
        if stored is None or not specs:
            return []
        logs = stored([s.match_id for s in specs.values()])
        return [Outcome.from_log(s, logs[s.match_id], keep_log=False)
                for s in specs.values() if s.match_id in logs]

    def _book(self, outcome: Outcome, table: Standings,
              progress: Callable[[Outcome, Standings], None] | None) -> None:
        self.state.append(outcome)
        self.done[outcome.index] = outcome
        table.add(outcome)
        if progress is not None:
            progress(outcome, table)


# -- the report -------------------------------------------------------------------------------

def report(tournament: Tournament, table: Standings) -> dict[str, Any]:
    """The tournament's results as one JSON-ready document (``--json``; the CSV and text
    outputs are views of it)."""
    plan, names = tournament.plan, [e.name for e in tournament.plan.entrants]
    order = table.order()
    entrants = [
        {"rank": rank, "name": names[i], "bot": redact(plan.entrants[i].bot),
         "games": table.games[i],
         "points": round(table.points[i], 4),
         "score": round(table.points[i] / table.games[i], 4) if table.games[i] else None,
         "firsts": table.firsts[i], "strikes": table.strikes[i], "forfeits": table.forfeits[i]}
        for rank, i in enumerate(order, 1)
    ]
    crosstable = {
        names[a]: {names[b]: {"games": h.games, "wins": h.wins, "draws": h.draws,
                              "losses": h.losses, "points": h.points}
                   for b, h in enumerate(table.heads[a]) if b != a}
        for a in order
    }
    pairs = []
    for x, a in enumerate(order):
        for b in order[x + 1:]:
            head, est = table.heads[a][b], table.estimate(a, b)
            entry: dict[str, Any] = {"a": names[a], "b": names[b], "games": head.games,
                                     "points": head.points, "stats": est.to_dict() if est else None}
            if plan.seats == 2:
                entry["pentanomial"] = table.pentanomial(a, b).to_dict()
            pairs.append(entry)
    return {
        "tournament": tournament.tournament_id, "game": plan.game, "seed": plan.seed,
        "seats": plan.seats, "games_per_table": plan.games, "matches": len(tournament.specs),
        "played": table.played, "complete": tournament.complete,
        "entrants": entrants, "crosstable": crosstable, "pairs": pairs,
    }


# -- the SPRT ---------------------------------------------------------------------------------

@dataclass
class SprtRun:
    """An SPRT in progress or finished: counts, the LLR after every pair, the verdict."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    penta: stats.Pentanomial = field(default_factory=stats.Pentanomial)
    trace: list[stats.SprtStep] = field(default_factory=list)

    @property
    def bounds(self) -> tuple[float, float]:
        return stats.sprt_bounds(self.alpha, self.beta)

    @property
    def verdict(self) -> str | None:
        return self.trace[-1].verdict if self.trace else None

    def add_pair(self, first: float, second: float) -> stats.SprtStep:
        """Book NEW's scores in both games of one pair and test again."""
        self.penta = self.penta.add(first, second)
        value = stats.pentanomial_llr(self.penta, self.elo0, self.elo1, self.model)
        step = stats.SprtStep(self.penta.pairs, value, stats.sprt_verdict(value, self.bounds))
        self.trace.append(step)
        return step


def sprt_specs(new: Entrant, base: Entrant, seed: int, max_pairs: int) -> Iterator[MatchSpec]:
    """Game pairs NEW vs BASE, lazily: pair ``k`` plays one seed in both seat orders."""
    for k in range(max_pairs):
        pair_seed = block_seed(seed, k)
        for index, seats in ((2 * k, (0, 1)), (2 * k + 1, (1, 0))):
            entrants = [(new, base)[i] for i in seats]
            yield MatchSpec(
                index=index, match_id=f"sprt-{seed}-{index}", block=k, seed=pair_seed,
                seats=seats, names=tuple(e.name for e in entrants),
                bots=tuple(e.bot for e in entrants),
            )


def run_sprt(
    test: SprtRun, new: Entrant, base: Entrant, settings: Settings, seed: int, max_pairs: int,
    concurrency: int, progress: Callable[[SprtRun], None] | None = None,
) -> SprtRun:
    """Play pairs until the test decides or ``max_pairs`` are played.

    Pairs are booked in schedule order whatever order they finish in, so the trace (and the
    verdict) depends only on the seed, not on the concurrency. Raises :class:`Interrupted`.
    """
    stats.validate_sprt(test.elo0, test.elo1, test.alpha, test.beta, test.model)
    finished: dict[int, list[Outcome]] = {}
    outcomes = MatchPool(settings, concurrency).run(sprt_specs(new, base, seed, max_pairs))
    try:
        for outcome in outcomes:
            finished.setdefault(outcome.block, []).append(outcome)
            while len(finished.get(test.penta.pairs, ())) == 2:
                games = sorted(finished.pop(test.penta.pairs), key=lambda o: o.index)
                scores = [pair_score(g.ranks[g.seats.index(0)], g.ranks[g.seats.index(1)])
                          for g in games]
                test.add_pair(scores[0], scores[1])
                if progress is not None:
                    progress(test)
                if test.verdict is not None:
                    outcomes.close()
                    return test
    except KeyboardInterrupt:
        outcomes.close()
        raise Interrupted("sprt") from None
    return test
