"""The game interface every game implements and the runner relies on.

A game is a registry entry (:class:`Game`) that makes states; a :class:`State` says who must
decide now (:meth:`State.pending`), takes the answers (:meth:`State.apply`), shows each seat what
it may see (:meth:`State.view`) and, once over, gives a :class:`Result`.

Decisions and options are ``NamedTuple`` s rather than dataclasses: the engines create tens of
thousands per second and tuple construction is several times cheaper, while still immutable and
typed.  Rules never read a clock, print, or touch the network; all chance comes from the state's
own seeded ``random.Random``, so the same seed and the same choices replay the same game.
"""

from __future__ import annotations

import enum
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar, NamedTuple, NotRequired, TypedDict

from referee import yamldata
from referee.errors import RefereeError

MAX_BOARD_BYTES = 256 * 1024
"""A board file is a few KiB of YAML (the packaged ones 2 and 4 KiB); reading stops past this
(``--board /dev/zero`` would otherwise fill the memory). The board travels in every match log
and every ``/start``, so this also bounds what a board adds to them: its JSON may be no larger
(:data:`MAX_BOARD_JSON`)."""
MAX_BOARD_JSON = MAX_BOARD_BYTES


class Option(NamedTuple):
    """One legal move: a stable string ``id`` (sent to bots), a human ``label``, structured ``data``."""

    id: str
    label: str
    data: Mapping[str, Any]


class Decision(NamedTuple):
    """A question for one seat. Several pending decisions at once are simultaneous (sealed)."""

    seat: int
    kind: str
    prompt: str
    options: tuple[Option, ...]

    def option_ids(self) -> tuple[str, ...]:
        return tuple(o.id for o in self.options)


_OPTION_INDEX: dict[int, tuple[tuple[Option, ...], dict[str, int]]] = {}
_OPTION_INDEX_MAX = 8192


def option_index(options: tuple[Option, ...], choice: object) -> int | None:
    """The index of the option whose id is ``choice`` (``None``: none is).

    Engines hand out the same options tuple whenever a question recurs, so the id -> index map
    of a tuple is built once and kept by the tuple's identity (the entry holds the tuple, so its
    id cannot be reused by another object while cached); the runner checks every answer here.
    """
    hit = _OPTION_INDEX.get(id(options))
    if hit is None or hit[0] is not options:
        if len(_OPTION_INDEX) >= _OPTION_INDEX_MAX:
            _OPTION_INDEX.clear()
        index: dict[str, int] = {}
        for i, o in enumerate(options):
            index.setdefault(o.id, i)
        hit = _OPTION_INDEX[id(options)] = (options, index)
    try:  # a str key never equals a value of another type: only an unhashable one raises
        return hit[1].get(choice)  # type: ignore[call-overload]
    except TypeError:
        return None


class EndReason(str, enum.Enum):
    """How a game ended; the string value is what logs and ``--json`` carry."""

    NORMAL = "normal"
    FORFEIT = "forfeit"
    TURN_LIMIT = "turn_limit"


@dataclass(frozen=True)
class SeatResult:
    """One seat's outcome. ``breakdown`` values add up to ``score``; ``rank`` is 1-based, ties share."""

    seat: int
    score: int
    breakdown: Mapping[str, int]
    rank: int


class SeatResultDoc(TypedDict):
    """A seat's result as JSON (the match log, ``/end``)."""

    seat: int
    score: int
    breakdown: dict[str, int]
    rank: int


class ResultDoc(TypedDict):
    """A :class:`Result` as JSON: what :meth:`Result.to_dict` gives (the schema is
    ``referee.matchlog.RESULT_SCHEMA``)."""

    seats: list[SeatResultDoc]
    winners: list[int]
    end: str
    rounds: int
    reason: str
    extra: dict[str, Any]
    turns: NotRequired[int]


@dataclass(frozen=True)
class Result:
    """A finished game: per-seat results in seat order, the winners, and why it ended."""

    seats: tuple[SeatResult, ...]
    winners: tuple[int, ...]
    end: EndReason
    rounds: int
    """Full rounds played: in a game of turns (Doubletrack), full circuits of the table."""
    reason: str = ""
    """Human words for why the game ended (``"temple 9 reached by seat 0"``)."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Game-specific facts worth showing (e.g. the Automa's level); JSON-ready."""
    turns: int | None = None
    """Turns played, for a game whose seats take turns one by one (``None``: rounds only)."""

    def win_share(self, seat: int) -> float:
        """``seat``'s share of the win: 1, 1/k for a k-way tie for first, else 0."""
        return 1 / len(self.winners) if seat in self.winners else 0.0

    def to_dict(self) -> ResultDoc:
        doc: ResultDoc = {
            "seats": [
                {"seat": s.seat, "score": s.score, "breakdown": dict(s.breakdown), "rank": s.rank}
                for s in self.seats
            ],
            "winners": list(self.winners),
            "end": self.end.value,
            "rounds": self.rounds,
            "reason": self.reason,
            "extra": dict(self.extra),
        }
        if self.turns is not None:
            doc["turns"] = self.turns
        return doc


def ranks_from_keys(keys: list[Any]) -> list[int]:
    """Competition ranks (1-based, ties share, higher key is better): ``[5, 9, 5] -> [2, 1, 2]``."""
    return [1 + sum(1 for other in keys if other > k) for k in keys]


class RulesError(RefereeError, ValueError):
    """Base of every error a rules engine raises on bad input."""


class IllegalChoiceError(RulesError):
    """An answer that was not among the options offered to that seat for that decision."""

    def __init__(self, seat: int, choice: object, kind: str, detail: str = "") -> None:
        self.seat, self.choice, self.kind = seat, choice, kind
        msg = f"seat {seat}: {choice!r} is not an option of decision {kind!r}"
        super().__init__(msg + (f" ({detail})" if detail else ""))


class GameOverError(RulesError):
    """``apply`` called on a finished game."""


class BoardError(RulesError):
    """A board file that cannot be loaded or breaks an invariant; the message names the problem."""


class GameOptionsError(RulesError):
    """Unknown, missing or out-of-range game options (never silently defaulted)."""


class UnknownGameError(RefereeError, LookupError):
    """``find_game`` with a name that is not registered; the message lists the known names."""


class State(ABC):
    """A game in progress. Mutable; :meth:`clone` gives an independent copy cheaply."""

    num_players: int

    @abstractmethod
    def pending(self) -> list[Decision]:
        """Decisions due now; several means simultaneous; empty means the game is over."""

    @abstractmethod
    def apply(self, choices: Mapping[int, str]) -> None:
        """Answer every pending decision at once (seat -> option id).

        Raises :class:`IllegalChoiceError` for an id not offered (or a seat not asked, or a
        pending seat left out) and :class:`GameOverError` once over.
        """

    def choice_counts(self) -> Sequence[tuple[int, int]]:
        """Each pending decision's seat and number of options, in :meth:`pending`'s order (empty:
        the game is over), not to be changed by the caller. With :meth:`apply_index` it is all a random playout needs, and an
        engine may answer it without building a single ``Decision`` or ``Option``."""
        return [(d.seat, len(d.options)) for d in self.pending()]

    def apply_index(self, choices: Mapping[int, int]) -> None:
        """:meth:`apply` with each seat's answer given as the index of its option in the
        pending decision (what a random playout picks); an engine may make it faster than
        looking the id up. Raises :class:`IllegalChoiceError` for an index out of range or a
        seat not asked."""
        decisions = {d.seat: d for d in self.pending()}
        ids: dict[int, str] = {}
        for seat, i in choices.items():
            d = decisions.get(seat)
            if d is None or type(i) is not int or not 0 <= i < len(d.options):
                raise IllegalChoiceError(seat, i, d.kind if d else "?",
                                         "no option of that index for that seat")
            ids[seat] = d.options[i].id
        self.apply(ids)

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator), JSON-ready, with ``events`` since that
        seat last decided. The only way information leaves a state."""

    def events_since(self, seat: int) -> list[Any]:
        """The events ``seat``'s view shows (``view(seat)["events"]``: those since it last
        decided), without building the rest of the view: after each step of a replay, that
        step's events (:mod:`referee.frames`). An engine may answer it more cheaply."""
        return list(self.view(seat).get("events", []))

    @abstractmethod
    def result(self) -> Result | None:
        """The result once over, else ``None``."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy (search bots apply moves to copies)."""

    @property
    def is_over(self) -> bool:
        return self.result() is not None


class Game(ABC):
    """A registry entry: the game's name, seat counts, board data and state factory."""

    name: ClassVar[str]
    title: ClassVar[str]
    rules_version: ClassVar[str]
    older_rules: ClassVar[tuple[str, ...]] = ()
    """Earlier rules versions the engine still plays, only so that their logs replay under the
    rules they were played by (:meth:`new_state_under`); matches are played under the current
    ``rules_version``."""
    player_counts: ClassVar[tuple[int, ...]]
    solo_option: ClassVar[str | None] = None
    """The option that sets the level of the engine's own opponent in one-seat play (Tokaido
    Duo's Automa: ``automa``); ``None`` for a game with no solo mode.  The service reads it to
    host solo challenges and solo ladders without knowing each game."""
    solo_levels: ClassVar[tuple[int, ...]] = ()
    """The levels that option takes (empty without a solo mode)."""

    def load_board(self, path: str | None = None) -> Any:
        """The validated board: the packaged default (``board.yaml`` beside the game's
        module, read once), or the YAML file at ``path``.

        Raises :class:`BoardError` naming the problem.
        """
        if path is None:
            default = self.__dict__.get("_default_board")
            if default is None:
                default = self._default_board = self.board_from_data(self._read_board(None))
            return default
        return self.board_from_data(self._read_board(path))

    def _read_board(self, path: str | None) -> Mapping[str, Any]:
        try:
            if path is None:
                package = resources.files(type(self).__module__)
                text = package.joinpath("board.yaml").read_text("utf-8")
            else:
                with open(path, "rb") as fh:
                    raw = fh.read(MAX_BOARD_BYTES + 1)
                if len(raw) > MAX_BOARD_BYTES:
                    raise BoardError(f"board file over {MAX_BOARD_BYTES} bytes")
                text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BoardError(f"cannot read board file: {getattr(exc, 'strerror', None) or exc}") from exc
        try:
            data = yamldata.load(text)
        except yamldata.YamlDataError as exc:
            raise BoardError(str(exc)) from None
        if not isinstance(data, Mapping):
            raise BoardError("board file: expected a mapping at the top level")
        size = len(json.dumps(data, separators=(",", ":")))
        if size > MAX_BOARD_JSON:
            raise BoardError(f"board data of {size} bytes as JSON; at most {MAX_BOARD_JSON}")
        return data

    @abstractmethod
    def board_from_data(self, data: Mapping[str, Any]) -> Any:
        """Validate raw board data (as read from YAML, or embedded in a match log)."""

    @abstractmethod
    def new_state(
        self,
        num_players: int,
        seed: int,
        board: Any | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> State:
        """A new game. Raises :class:`GameOptionsError` for a bad seat count or option."""

    def new_state_under(self, rules_version: str, num_players: int, seed: int,
                        board: Any | None = None,
                        options: Mapping[str, Any] | None = None) -> State:
        """A new game under ``rules_version``: the current rules, or one of :attr:`older_rules`
        (a game that keeps any overrides this). Raises :class:`GameOptionsError` for another
        version, naming both."""
        if rules_version != self.rules_version:
            raise GameOptionsError(f"{self.name} rules version {rules_version!r}: this referee "
                                   f"plays version {self.rules_version!r}")
        return self.new_state(num_players, seed, board, options)

    @abstractmethod
    def determinize(self, view: Mapping[str, Any], seed: int, board: Any | None = None) -> State:
        """A full state consistent with ``view`` (hidden information sampled from ``seed``).

        This is how search bots use the engine while reading only their view, as a remote bot
        must. The state's own future chance is drawn from ``seed`` too.
        """

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check game options against the game's schema; the default accepts none."""
        if options:
            raise GameOptionsError(f"{self.name} takes no options; got {sorted(options)}")
        return {}
