"""Finding the truth: rated games per bot until a ladder's order matches the bots' true order.

50 bots of known strength (hidden skills ~ N(0, 1) in logit units; ``--sd`` widens the field,
``--ties G`` draws G levels and puts the bots within 0.05 of them: many near-ties) play round
after round, paired by :func:`ladder.pairing.plan_round` (the matchmaker's pairing) or
uniformly at random (the same planner with every table an explorer table).  Outcomes are
*simulated* from the hidden strengths with a Plackett-Luce model (Bradley-Terry for two seats)
instead of playing real games, so a run takes seconds; a Duo fixture is two games, a
Doubletrack table one.  After each round the ladder's order is compared with the true order
(Spearman rho), by one of three models:

- ``fit``: the public rating (:mod:`ladder.fit`, refitted to every result after each round,
  warm-started from the last fit), which also feeds the pairing its ratings and intervals, as
  the service's matchmaker does: *the ladder as built*;
- ``elo`` and ``openskill`` (mu - 3 sigma): the incremental ratings of :mod:`ladder.ratings`,
  as the service folds them (the pairing reads the same model).

Printed: rated games per bot until rho >= 0.9 and >= 0.95 (and stays there for 3 rounds),
median and range over ``--seeds`` ladders.  ``--json`` prints only the issue's figure: per
game, the median games per bot to rho >= 0.95 for the ladder as built (``fit``, the ladder's
pairing) and for Elo with random pairing, ``{"tokaido-duo": {"ladder": G, "elo-random": G},
"doubletrack": {...}}`` (``null`` where a seed never got there within ``--rounds``).

Usage: python bench/ladder_truth.py [--bots 50] [--seeds 9] [--rounds 150] [--sd 1]
       [--ties G] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from ladder.fit import FitConfig, Tables, fit_tables  # noqa: E402
from ladder.pairing import Entrant, pair_key, plan_round  # noqa: E402
from ladder.ratings import (  # noqa: E402
    ELO_SCALE, INITIAL_SKILL, Z95, EloConfig, elo_update, plackett_luce,
)

TARGETS = (0.9, 0.95)
FIT = FitConfig()
GAMES = (("tokaido-duo", 2), ("doubletrack", 4))
MODELS = ("fit", "elo", "openskill")
RECENT = 10
"""Rounds whose meetings the pairing counts (``MatchmakerConfig.recent_rounds``)."""


def spearman(a: list[float], b: list[float]) -> float:
    def ranks(xs: list[float]) -> list[int]:
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        out = [0] * len(xs)
        for r, i in enumerate(order):
            out[i] = r
        return out
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))


def places(strengths: list[float], rng: random.Random) -> list[int]:
    """A Plackett-Luce draw: the winner ~ exp(strength), then among the rest, and so on."""
    left = list(range(len(strengths)))
    out = [0] * len(strengths)
    for place in range(1, len(strengths) + 1):
        weights = [math.exp(strengths[i]) for i in left]
        pick = rng.choices(left, weights)[0]
        out[pick] = place
        left.remove(pick)
    return out


def strengths(bots: int, sd: float, ties: int, rng: random.Random) -> list[float]:
    """Hidden strengths: N(0, sd), or (``ties``) bots spread over that many N(0, sd) levels,
    each within N(0, 0.05) of its level."""
    if not ties:
        return [rng.gauss(0, sd) for _ in range(bots)]
    levels = [rng.gauss(0, sd) for _ in range(ties)]
    return [levels[i % ties] + rng.gauss(0, 0.05) for i in range(bots)]


class PublicFit:
    """The public rating refitted after every round (warm-started), as Elo-scale ratings and
    95% half-widths: what the service's pairing reads."""

    def __init__(self, bots: int) -> None:
        self.bots = bots
        self.rows: dict[int, tuple[list[list[int]], list[list[int]]]] = {}
        self.theta = np.zeros(bots)
        self.rating = [FIT.center] * bots
        self.margin = [0.0] * bots

    def add(self, order: list[int], result: list[int]) -> None:
        bots, standing = self.rows.setdefault(len(order), ([], []))
        bots.append(order)
        standing.append(result)

    def refit(self) -> None:
        tables = Tables(self.bots)
        for s, (bots, standing) in self.rows.items():
            tables.bots[s] = np.asarray(bots, dtype=np.int64)
            tables.standing[s] = np.asarray(standing, dtype=np.int64)
            tables.forfeited[s] = np.zeros((len(bots), s), dtype=bool)
        self.theta, errors, _, _, _ = fit_tables(tables, FIT, self.theta)
        self.rating = [FIT.center + ELO_SCALE * float(t) for t in self.theta]
        self.margin = [Z95 * ELO_SCALE * float(e) for e in errors]


def run(bots: int, big: int, model: str, random_pairing: bool, seed: int, rounds: int,
        sd: float = 1.0, ties: int = 0) -> dict[float, float | None]:
    rng = random.Random(seed)
    truth = strengths(bots, sd, ties, rng)
    config = EloConfig()
    elo = [config.start] * bots
    games = [0] * bots
    skill = [(INITIAL_SKILL.mu, INITIAL_SKILL.sigma)] * bots
    public = PublicFit(bots)
    last_rest = [-1] * bots
    seats = [[0] * big for _ in range(bots)]
    meetings: dict[tuple[int, int], int] = {}
    recent: deque[list[tuple[int, int]]] = deque()  # the pairs met, per round, last RECENT
    reached: dict[float, float | None] = {t: None for t in TARGETS}
    streak = {t: 0 for t in TARGETS}
    k = 2 if big == 2 else 1

    def rating() -> list[float]:
        if model == "fit":
            return public.rating
        return elo if model == "elo" else [mu - 3 * s for mu, s in skill]

    for number in range(1, rounds + 1):
        now = rating()
        margin = public.margin if model == "fit" else [0.0] * bots
        entrants = [Entrant(i, now[i], None, last_rest[i], games[i], games[i] < 10,
                            games[i] // k, tuple(seats[i]), margin[i]) for i in range(bots)]
        plan = plan_round(entrants, big, meetings, rng, p_far=1.0 if random_pairing else 0.1)
        for bye in plan.byes:
            last_rest[bye.bot_id] = number
        recent.append([pair_key(a, b) for t in plan.fixtures for a in t for b in t if a < b])
        for pair in recent[-1]:
            meetings[pair] = meetings.get(pair, 0) + 1
        if len(recent) > RECENT:  # the service counts the meetings of its last 10 rounds
            for pair in recent.popleft():
                meetings[pair] -= 1
        for table in plan.fixtures:
            orders = [list(table), list(table)[::-1]] if k == 2 else [list(table)]
            for order in orders:
                result = places([truth[i] for i in order], rng)
                new_elo = elo_update([elo[i] for i in order], [games[i] for i in order], result,
                                     config)
                new_skill = plackett_luce([skill[i] for i in order], result)
                public.add(order, result)
                for seat, i in enumerate(order):
                    elo[i], skill[i] = new_elo[seat], new_skill[seat]
                    games[i] += 1
                    seats[i][seat] += 1
        if model == "fit":
            public.refit()
        rho = spearman(rating(), truth)
        for t in TARGETS:
            streak[t] = streak[t] + 1 if rho >= t else 0
            if streak[t] == 3 and reached[t] is None:
                reached[t] = statistics.mean(games)
        if all(v is not None for v in reached.values()):
            break
    return reached


def median(found: list[dict[float, float | None]], target: float) -> float | None:
    """The median over seeds, a seed that never got there counting as worst (None if half
    or more never did)."""
    values: list[float] = sorted(math.inf if (v := f[target]) is None else v for f in found)
    m = statistics.median(values)
    return None if math.isinf(m) else round(m, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--seeds", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--sd", type=float, default=1.0, help="spread of the hidden strengths")
    parser.add_argument("--ties", type=int, default=0, help="near-ties: this many levels")
    parser.add_argument("--json", action="store_true", help="only the issue's figure, as JSON")
    args = parser.parse_args()
    if args.bots < 4 or args.seeds < 1 or args.rounds < 1 or args.sd <= 0 or args.ties < 0:
        parser.error("--bots >= 4, --seeds >= 1, --rounds >= 1, --sd > 0, --ties >= 0")

    def measure(big: int, model: str, random_pairing: bool) -> list[dict[float, float | None]]:
        return [run(args.bots, big, model, random_pairing, s, args.rounds, args.sd, args.ties)
                for s in range(args.seeds)]

    if args.json:
        print(json.dumps({game: {"ladder": median(measure(big, "fit", False), 0.95),
                                 "elo-random": median(measure(big, "elo", True), 0.95)}
                          for game, big in GAMES}))
        return
    print(f"{args.bots} bots, hidden strengths N(0,{args.sd:g})"
          f"{f' on {args.ties} levels' if args.ties else ''}, outcomes simulated "
          f"(Plackett-Luce); rated games per bot until Spearman rho >= target for 3 rounds; "
          f"median [range] over {args.seeds} ladders ('-': not within {args.rounds} rounds)")
    for game, big in GAMES:
        for model in MODELS:
            for random_pairing in (False, True):
                found = measure(big, model, random_pairing)
                cells = []
                for t in TARGETS:
                    values: list[float] = [v for f in found if (v := f[t]) is not None]
                    missing = len(found) - len(values)
                    cell = "    -"
                    if values:
                        cell = (f"{statistics.median(values):5.1f} "
                                f"[{min(values):.0f}-{max(values):.0f}]")
                    cells.append(cell + (f" ({missing} never)" if missing else ""))
                print(f"{game:12} {model:9} {'random' if random_pairing else 'ladder':6} "
                      f"rho>=0.90: {cells[0]:18} rho>=0.95: {cells[1]}")


if __name__ == "__main__":
    main()
