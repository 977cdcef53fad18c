"""Solo play on the service: one bot against the engine's own opponent (Tokaido Duo's Automa).

A game with a solo mode says so as data (``Game.solo_option`` and ``Game.solo_levels``): the
service hosts it without knowing the game.  A solo match is an ordinary match with one seat
and the level in its options (``{"automa": 3}``); its log's result has a second seat, the
engine's, which no bot sits in.

What a solo game says about a bot is its **margin**, the bot's score less the opponent's, and
its outcome (a win is first place alone, a draw first place shared).  A forfeited game is a
loss whose margin counts the bot's score as 0: a bot that stops answering is played to the end
by the referee's fallback, and its fallback's points are not the bot's.

**Strength** (:func:`fit`): the margin modelled as the bot's own strength plus the luck of
the seed plus noise, ``margin = s_bot + d_seed + e``, fitted by least squares with a normal
prior on the seed effects.  The prior's weight (noise variance over seed variance) is
estimated from the games themselves (:func:`seed_prior`): how much two bots' margins on the
same seed move together.  Where seeds decide much, bots that played the same seeds are
compared on the same luck and a bot that joined later is corrected for how kind its seeds
were to the others; where they decide little (Tokaido Duo's solo games: the two built-in bots'
margins on the same seeds correlate at about 0.05-0.1, the game's course diverging with the
first different choice), the fit stays close to each bot's plain mean, as it should.  The
interval is from the spread of the bot's own margins (``1.96 · sd / √n``): how well its mean
against the opponent is known, the seeds' luck included.  The win rate (draws half) comes
with a Wilson 95% interval.

The ranking rule: by fitted strength, highest first; equal strengths by win rate.  The margin,
not the win rate, ranks because it saturates nowhere: against a level no bot beats, every win
rate is 0 and the margins still order the bots.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ladder import InvalidError
from ladder.newmatches import STANDARD, MatchSettings

Z95 = 1.959964
PRIOR_RANGE = (0.25, 1000.0)
"""The seed prior's weight (the noise's variance over the seed effects', in games) is kept
within these: a seed never counts as fully known from a handful of games, and a ladder whose
seeds seem to decide nothing still gets a trace of correction."""
FIT_ROUNDS = 500
FIT_TOLERANCE = 1e-9
WIN, DRAW, LOSS = "win", "draw", "loss"


def ladder_name(game: str, level: int) -> str:
    """A solo ladder's name: ``<game>-solo-<level>``."""
    return f"{game}-solo-{level}"


def solo_game(game: str) -> Any:
    """The registry entry of ``game`` if it has a solo mode; InvalidError saying which games
    do otherwise."""
    from referee.games import find_game, game_names

    entry = find_game(game)
    if entry.solo_option is None or 1 not in entry.player_counts:
        solo = [name for name in game_names() if find_game(name).solo_option is not None]
        raise InvalidError(f"{game} has no solo mode: one bot plays alone only in "
                           f"{', '.join(solo) or 'no game'}")
    return entry


def check_level(game: str, level: int) -> Any:
    """The registry entry, once ``level`` is one of the game's solo levels (InvalidError)."""
    entry = solo_game(game)
    if level not in entry.solo_levels:
        levels = entry.solo_levels
        raise InvalidError(f"{game}'s solo opponent has levels {levels[0]}-{levels[-1]}, "
                           f"not {level}")
    return entry


def settings(game: str, level: int, base: MatchSettings = STANDARD) -> MatchSettings:
    """How a solo match of ``game`` at ``level`` is played: ``base`` with the level option."""
    entry = check_level(game, level)
    options = {**base.options, entry.solo_option: level}
    return MatchSettings(base.time_ms, base.bank_ms, base.strikes, MappingProxyType(options))


def challenge_settings(game: str, bots: int, level: int | None) -> MatchSettings | None:
    """The settings of a challenge of ``bots`` bots: a solo one needs one bot and a level,
    and a level needs one bot (InvalidError); ``None`` for an ordinary challenge."""
    if level is None and bots != 1:
        return None
    if level is None:
        entry = solo_game(game)
        raise InvalidError(f"one bot plays {game} alone against its solo opponent: give "
                           f"automa_level ({entry.solo_levels[0]}-{entry.solo_levels[-1]})")
    if bots != 1:
        raise InvalidError(f"automa_level is for a solo challenge: one bot, not {bots}")
    return settings(game, level)


def level_of(match_settings: Mapping[str, Any] | None, game: str) -> int | None:
    """The solo level a match was played at (from its stored settings), if any."""
    from referee.games import find_game

    option = find_game(game).solo_option
    options = (match_settings or {}).get("options") or {}
    level = options.get(option) if option else None
    return int(level) if isinstance(level, int) else None


# -- one game ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SoloResult:
    """One finished solo game, as the bot's: its score, the opponent's, the outcome."""

    match_pk: int
    bot_id: int
    score: float
    opponent: float
    outcome: str
    forfeited: bool
    seed: str = ""
    """What the seed is known by (a solo round's seeds are shared by its bots)."""

    @property
    def margin(self) -> float:
        return self.score - self.opponent

    def to_json(self) -> dict[str, Any]:
        return {"match_id": self.match_pk, "score": self.score, "automa_score": self.opponent,
                "margin": self.margin, "outcome": self.outcome, "forfeited": self.forfeited}


def read_result(match_pk: int, bot_id: int, result: Mapping[str, Any], forfeited: bool,
                seed: str = "") -> SoloResult | None:
    """The bot's view of a finished solo match's stored result (``matches.result``); None for
    one that is not a solo result (it lacks the opponent's seat)."""
    seats = {int(s["seat"]): s for s in result.get("seats", [])}
    if set(seats) != {0, 1}:
        return None
    mine, theirs = seats[0], seats[1]
    score = 0.0 if forfeited else float(mine.get("score") or 0)
    opponent = float(theirs.get("score") or 0)
    if forfeited or mine["rank"] != 1:
        outcome = LOSS
    else:
        outcome = DRAW if theirs["rank"] == 1 else WIN
    return SoloResult(match_pk, bot_id, score, opponent, outcome, forfeited, seed)


# -- many games -------------------------------------------------------------------------------

def wilson(successes: float, n: int) -> tuple[float, float] | None:
    """The Wilson 95% interval of a proportion (``None`` without games)."""
    if n == 0:
        return None
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


def tally(results: Sequence[SoloResult]) -> dict[str, Any]:
    """Games, wins, draws, losses, the win rate (draws half) with its Wilson interval, and the
    mean margin with its interval (``1.96 · sd / √n``; none under two games)."""
    n = len(results)
    wins = sum(r.outcome == WIN for r in results)
    draws = sum(r.outcome == DRAW for r in results)
    margins = [r.margin for r in results]
    mean = sum(margins) / n if n else None
    return {"games": n, "wins": wins, "draws": draws, "losses": n - wins - draws,
            "forfeits": sum(r.forfeited for r in results),
            "win_rate": round((wins + draws / 2) / n, 4) if n else None,
            "win_interval": wilson(wins + draws / 2, n),
            "mean_margin": None if mean is None else round(mean, 3),
            "margin_interval": _half_width(margins)}


def _half_width(values: Sequence[float]) -> float | None:
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return round(Z95 * sd / math.sqrt(n), 3)


@dataclass(frozen=True)
class Strength:
    """A bot's fitted strength against the opponent: its seed-corrected mean margin."""

    value: float
    interval: float | None
    games: int


def fit(results: Iterable[SoloResult], prior: float | None = None) -> dict[int, Strength]:
    """Each bot's strength (see the module's docstring), with the seed prior's weight
    ``prior`` (estimated from the games when not given: once from the plain means, then again
    from the fit's strengths)."""
    by_bot: dict[int, list[SoloResult]] = {}
    by_seed: dict[str, list[SoloResult]] = {}
    for r in results:
        by_bot.setdefault(r.bot_id, []).append(r)
        by_seed.setdefault(_seed(r), []).append(r)
    strength = {b: sum(r.margin for r in rs) / len(rs) for b, rs in by_bot.items()}
    for _ in range(1 if prior is not None else 2):
        weight = prior if prior is not None else seed_prior(by_seed, strength)
        strength = _descend(by_bot, by_seed, strength, weight)
    return {b: Strength(round(strength[b], 3), _half_width([r.margin for r in rs]), len(rs))
            for b, rs in by_bot.items()}


def _seed(r: SoloResult) -> str:
    return r.seed or f"m{r.match_pk}"


def _descend(by_bot: Mapping[int, list[SoloResult]], by_seed: Mapping[str, list[SoloResult]],
             start: Mapping[int, float], weight: float) -> dict[int, float]:
    """Coordinate descent on the penalised least squares (convex: it converges)."""
    strength = dict(start)
    for _ in range(FIT_ROUNDS):
        luck = {s: sum(r.margin - strength[r.bot_id] for r in rs) / (len(rs) + weight)
                for s, rs in by_seed.items()}
        moved = 0.0
        for b, rs in by_bot.items():
            new = sum(r.margin - luck[_seed(r)] for r in rs) / len(rs)
            moved = max(moved, abs(new - strength[b]))
            strength[b] = new
        if moved < FIT_TOLERANCE:
            break
    return strength


def seed_prior(by_seed: Mapping[str, list[SoloResult]], strength: Mapping[int, float]) -> float:
    """The noise's variance over the seeds', by moments: the seeds' variance is the mean
    product of two different bots' residuals on one seed (what they share), the noise's what
    is left of the residuals' variance; the heaviest weight when no seed was played twice or
    the residuals share nothing.  Kept within :data:`PRIOR_RANGE`."""
    low, high = PRIOR_RANGE
    shared, pairs, total, n = 0.0, 0, 0.0, 0
    for rs in by_seed.values():
        res = [r.margin - strength[r.bot_id] for r in rs]
        squares = sum(x * x for x in res)
        total += squares
        n += len(res)
        shared += (sum(res) ** 2 - squares) / 2  # the sum over pairs i < j of res_i res_j
        pairs += len(res) * (len(res) - 1) // 2
    if not pairs or shared <= 0 or not n:
        return high
    tau2 = shared / pairs
    noise = max(total / n - tau2, 0.0)
    return min(high, max(low, noise / tau2))
