"""Finding the truth: rated games per bot until a ladder's order matches the bots' true order.

50 bots of known strength (hidden skills ~ N(0, 1) in logit units) play round after round,
paired by :func:`ladder.pairing.plan_round` (the matchmaker's pairing) or uniformly at random
(the same planner with every table an explorer table).  Outcomes are *simulated* from the
hidden strengths with a Plackett-Luce model (Bradley-Terry for two seats) instead of playing
real games, so a run takes seconds; a Duo fixture is two games, a Doubletrack table one.
After each round the ladder's order by Elo and by openskill (mu - 3 sigma; both from
:mod:`ladder.ratings`, as the service folds them) is compared with the true order (Spearman
rho); printed: rated games per bot until rho >= 0.9 and >= 0.95 (and stays there for 3
rounds), median and range over ``--seeds`` ladders.

Usage: python bench/ladder_truth.py [--bots 50] [--seeds 7] [--rounds 150]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ladder.pairing import Entrant, pair_key, plan_round  # noqa: E402
from ladder.ratings import INITIAL_SKILL, EloConfig, elo_update, plackett_luce  # noqa: E402

TARGETS = (0.9, 0.95)


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


def run(bots: int, big: int, model: str, random_pairing: bool, seed: int,
        rounds: int) -> dict[float, float | None]:
    rng = random.Random(seed)
    truth = [rng.gauss(0, 1) for _ in range(bots)]
    config = EloConfig()
    elo = [config.start] * bots
    games = [0] * bots
    skill = [(INITIAL_SKILL.mu, INITIAL_SKILL.sigma)] * bots
    last_rest = [-1] * bots
    seats = [[0] * big for _ in range(bots)]
    meetings: dict[tuple[int, int], int] = {}
    reached: dict[float, float | None] = {t: None for t in TARGETS}
    streak = {t: 0 for t in TARGETS}
    k = 2 if big == 2 else 1
    for number in range(1, rounds + 1):
        rating = elo if model == "elo" else [mu - 3 * s for mu, s in skill]
        entrants = [Entrant(i, rating[i], None, last_rest[i], games[i], games[i] < 10,
                            games[i] // k, tuple(seats[i])) for i in range(bots)]
        plan = plan_round(entrants, big, meetings, rng, p_far=1.0 if random_pairing else 0.1)
        for bye in plan.byes:
            last_rest[bye.bot_id] = number
        for table in plan.fixtures:
            for a in table:
                for b in table:
                    if a < b:
                        meetings[pair_key(a, b)] = meetings.get(pair_key(a, b), 0) + 1
            orders = [list(table), list(table)[::-1]] if k == 2 else [list(table)]
            for order in orders:
                result = places([truth[i] for i in order], rng)
                new_elo = elo_update([elo[i] for i in order], [games[i] for i in order], result,
                                     config)
                new_skill = plackett_luce([skill[i] for i in order], result)
                for seat, i in enumerate(order):
                    elo[i], skill[i] = new_elo[seat], new_skill[seat]
                    games[i] += 1
                    seats[i][seat] += 1
        rating = elo if model == "elo" else [mu - 3 * s for mu, s in skill]
        rho = spearman(rating, truth)
        for t in TARGETS:
            streak[t] = streak[t] + 1 if rho >= t else 0
            if streak[t] == 3 and reached[t] is None:
                reached[t] = statistics.mean(games)
    return reached


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--seeds", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=150)
    args = parser.parse_args()
    print(f"{args.bots} bots, hidden strengths N(0,1), outcomes simulated (Plackett-Luce); "
          f"rated games per bot until Spearman rho >= target for 3 rounds; "
          f"median [range] over {args.seeds} ladders ('-': not within {args.rounds} rounds)")
    for game, big in (("tokaido-duo", 2), ("doubletrack", 4)):
        for model in ("elo", "openskill"):
            for random_pairing in (False, True):
                found = [run(args.bots, big, model, random_pairing, s, args.rounds)
                         for s in range(args.seeds)]
                cells = []
                for t in TARGETS:
                    values = [f[t] for f in found if f[t] is not None]
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
