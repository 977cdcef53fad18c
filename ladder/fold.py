"""The rating fold: a game's ratings are a fold over its rated, finished matches.

The matches are folded in ``matches.rating_seq`` order (:func:`folded` says which ones).
:func:`apply_rating` is one step of the fold, inside the transaction that finishes a match
(the CLI's :func:`ladder.store.record_match`, the service's :func:`ladder.work.finish`), under
the game's ladder lock: it draws the match's ``rating_seq`` under that lock, so the sequence is
the order the steps were applied in, and :func:`ladder.recompute.recompute` (the whole fold
from scratch) reproduces the incremental ratings exactly.  Each ladder's Elo settings live in
its ``ladders`` row, so that every step and every recompute uses the same ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, insert, select, update

from ladder.db import insert_ignoring
from ladder.models import FINISHED, Ladder, Match, Rating, RatingHistory
from ladder.ratings import (
    INITIAL_SKILL, EloConfig, elo_two, elo_update, outcomes, plackett_luce, plackett_luce_two,
)

HistoryValues = tuple[float, float, float, float]
"""A seat's rating history entry for one match: elo_before, elo_after, mu, sigma."""


@dataclass(slots=True)
class BotRating:
    """A bot's running ratings and counts in one ladder."""

    elo: float
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_match_pk: int = 0
    last_played: datetime | None = None


def _count(state: BotRating, result: str, match_pk: int, played_at: datetime | None) -> None:
    """A match's result in a bot's counts."""
    if result == "win":
        state.wins += 1
    elif result == "draw":
        state.draws += 1
    else:
        state.losses += 1
    state.games += 1
    state.last_match_pk, state.last_played = match_pk, played_at


class RatingFold:
    """The rating fold's state for one game; ``step`` (or ``add``) is one match."""

    def __init__(self, game: str, config: EloConfig,
                 states: dict[int, BotRating] | None = None) -> None:
        self.game, self.config = game, config
        self.states: dict[int, BotRating] = states if states is not None else {}

    def state(self, bot_id: int) -> BotRating:
        state = self.states.get(bot_id)
        if state is None:
            state = self.states[bot_id] = BotRating(self.config.start, INITIAL_SKILL.mu,
                                                    INITIAL_SKILL.sigma)
        return state

    def step(self, match_pk: int, played_at: datetime | None,
             seats: Sequence[Sequence[Any]]) -> list[HistoryValues]:
        """Apply one match; return each seat's ``(elo_before, elo_after, mu, sigma)``.

        Each seat starts with ``(bot_id, standing, forfeited)``; anything after that is
        ignored, so that a recompute can pass the rows it read as they are.
        """
        if len(seats) == 2:
            return self._step_two(match_pk, played_at, seats[0], seats[1])
        return self._step_many(match_pk, played_at, seats)

    def _step_many(self, match_pk: int, played_at: datetime | None,
                   seats: Sequence[Sequence[Any]]) -> list[HistoryValues]:
        """:meth:`step` for any number of seats."""
        states, places, forfeited, elos, games, skills = [], [], [], [], [], []
        known = self.states
        for seat in seats:  # one pass, not six list comprehensions: this runs a million times
            state = known.get(seat[0]) or self.state(seat[0])
            states.append(state)
            places.append(seat[1])
            forfeited.append(seat[2])
            elos.append(state.elo)
            games.append(state.games)
            skills.append((state.mu, state.sigma))
        elo = elo_update(elos, games, places, self.config)
        skill = plackett_luce(skills, places)
        results = outcomes(places, forfeited)
        values = []
        for state, new_elo, (mu, sigma), result in zip(states, elo, skill, results):
            values.append((state.elo, new_elo, mu, sigma))
            state.elo, state.mu, state.sigma = new_elo, mu, sigma
            _count(state, result, match_pk, played_at)
        return values

    def _step_two(self, match_pk: int, played_at: datetime | None, seat_a: Sequence[Any],
                  seat_b: Sequence[Any]) -> list[HistoryValues]:
        """:meth:`step` for two seats (most ladders; a recompute runs it a million times):
        the same functions' two-seat forms, without the per-seat lists."""
        known = self.states
        a = known.get(seat_a[0]) or self.state(seat_a[0])
        b = known.get(seat_b[0]) or self.state(seat_b[0])
        place_a, place_b = seat_a[1], seat_b[1]
        elo_a, elo_b = elo_two(a.elo, b.elo, a.games, b.games, place_a, place_b, self.config)
        (mu_a, sigma_a), (mu_b, sigma_b) = plackett_luce_two(
            (a.mu, a.sigma), (b.mu, b.sigma), place_a, place_b)
        result_a, result_b = outcomes((place_a, place_b), (seat_a[2], seat_b[2]))
        values = [(a.elo, elo_a, mu_a, sigma_a), (b.elo, elo_b, mu_b, sigma_b)]
        a.elo, a.mu, a.sigma = elo_a, mu_a, sigma_a
        b.elo, b.mu, b.sigma = elo_b, mu_b, sigma_b
        _count(a, result_a, match_pk, played_at)
        _count(b, result_b, match_pk, played_at)
        return values

    def add(self, match_pk: int, played_at: datetime,
            seats: Sequence[tuple[int, int, bool]]) -> list[dict[str, Any]]:
        """``step``, returning the match's rating history rows."""
        return [
            {"match_pk": match_pk, "game": self.game, "bot_id": bot_id, "elo_before": before,
             "elo_after": after, "mu": mu, "sigma": sigma}
            for (bot_id, _, _), (before, after, mu, sigma)
            in zip(seats, self.step(match_pk, played_at, seats))
        ]


def folded(game: Any) -> tuple[Any, ...]:
    """The matches the rating fold runs over: ``game``'s rated, finished ones."""
    return (Match.game == game, Match.state == FINISHED, Match.rated.is_(True),
            Match.rating_seq.is_not(None))


# -- one step, in the database ------------------------------------------------------------------

def apply_rating(conn: Connection, game: str, match_pk: int, now: datetime,
                 seats: Sequence[tuple[int, int, bool]]) -> list[dict[str, Any]]:
    """One step of ``game``'s rating fold for the finished match ``match_pk`` (seats as
    ``(bot_id, standing, forfeited)``), inside the caller's transaction, which must hold the
    ladder lock.  Numbers the match in the fold's order; returns the history rows written."""
    config = ensure_ladder(conn, game, now)
    numbered = select(func.coalesce(func.max(Match.rating_seq), 0) + 1).where(
        Match.game == game).scalar_subquery()  # one statement: the lock keeps it unique
    conn.execute(update(Match).where(Match.id == match_pk).values(rating_seq=numbered))
    bot_ids = [bot_id for bot_id, _, _ in seats]
    known = _load_ratings(conn, game, bot_ids)
    fold = RatingFold(game, config, dict(known))
    history = fold.add(match_pk, now, seats)
    _save_ratings(conn, game, fold.states, set(known))
    conn.execute(insert(RatingHistory), history)
    return history


_SETTINGS = (Ladder.elo_k, Ladder.elo_k_provisional, Ladder.elo_provisional_games)


def ensure_ladder(conn: Connection, game: str, now: datetime) -> EloConfig:
    """``game``'s Elo settings, its ladder created with the default ones if it had none
    (read first: every finished match asks, and the ladder is there but the first time)."""
    found = ladder_config(conn, game)
    if found is not None:
        return found
    default = EloConfig()
    conn.execute(insert_ignoring(conn, Ladder).values(
        game=game, elo_k=default.k, elo_k_provisional=default.k_provisional,
        elo_provisional_games=default.provisional_games, created_at=now,
    ).on_conflict_do_nothing(index_elements=["game"]))
    return EloConfig(*conn.execute(select(*_SETTINGS).where(Ladder.game == game)).one())


def ladder_config(conn: Connection, game: str) -> EloConfig | None:
    """``game``'s Elo settings (None if nothing was recorded for it)."""
    row = conn.execute(select(*_SETTINGS).where(Ladder.game == game)).one_or_none()
    return None if row is None else EloConfig(*row)


def rating_row(game: str, bot_id: int, s: BotRating) -> dict[str, Any]:
    """A bot's ``ratings`` row."""
    return {"game": game, "bot_id": bot_id, "elo": s.elo, "mu": s.mu, "sigma": s.sigma,
            "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses,
            "last_match_pk": s.last_match_pk, "last_played": s.last_played}


def _load_ratings(conn: Connection, game: str, bot_ids: Sequence[int]) -> dict[int, BotRating]:
    rows = conn.execute(
        select(Rating.__table__).where(Rating.game == game, Rating.bot_id.in_(bot_ids))
    )
    return {
        r.bot_id: BotRating(r.elo, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses,
                            r.last_match_pk, r.last_played)
        for r in rows
    }


def _save_ratings(conn: Connection, game: str, states: Mapping[int, BotRating],
                  existing: set[int]) -> None:
    new = [rating_row(game, b, s) for b, s in states.items() if b not in existing]
    if new:
        conn.execute(insert(Rating), new)
    changed = []
    for bot_id in existing:  # the columns to set, by name, and the row's key
        row = rating_row(game, bot_id, states[bot_id])
        del row["game"], row["bot_id"]
        changed.append({**row, "r_bot": bot_id})
    if changed:  # one statement for all of them
        conn.execute(update(Rating).where(Rating.game == game,
                                          Rating.bot_id == bindparam("r_bot")), changed)
