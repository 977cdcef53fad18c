"""Standings: scores, crosstable and per-block samples of a tournament, from its outcomes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments import stats
from tournaments.fixtures import Outcome
from tournaments.plan import Entrant
from tournaments.stats import pair_score


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
