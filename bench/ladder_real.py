"""Does what a real game says beyond its winner rank built-in bots faster?  (issue 27, item 3)

A pool of real games between built-in bots of different strength (``random``, ``greedy`` and
``mcts`` at several playout budgets) is played once, with fixed seeds, and cached to a file
(one JSON line a game, so an interrupted run resumes): Tokaido Duo in pairs, Doubletrack at
tables of 4 drawn from the bots (each table's seats in random order).  The *full-data order*
is the results-only fit (:mod:`ladder.fit`, the public rating) on the whole pool.  Then, for
growing subsamples of the pool (random, ``--draws`` times each), the fits are compared by how
often their order equals the full-data order, the share of bot pairs they order as it does, and
how often they order right every pair more than ``GAP`` apart in it:

- ``results``: the public rating, placings only (Bradley-Terry / Plackett-Luce);
- ``margin``: the same placings, plus what the score says, in one joint MAP: a normal
  (Thurstone) model of each seat's score against its table's mean, ``s - mean(s) ~ N(c (theta -
  mean(theta)), sigma^2)``, with ``c`` and ``sigma`` fitted by least squares on the same games
  (Tokaido Duo: the final scores; Doubletrack: the score the game reports, the small pawn's
  position);
- ``money`` (Doubletrack): the same with the final money in place of the score.

The full-data orders of the margin models are printed beside the results fit's, and how many
of the bot pairs they order alike: a margin model may call another bot stronger.  A subsample
shares games with the full pool, which favours the model the reference is fitted by; the
``own`` column (each model against its own full-data order) has that bias on both sides.

Usage: python bench/ladder_real.py [--cache FILE] [--duo 300] [--doubletrack 150] [--draws 100]
       [--sizes 10,20,40,80,120,160,240]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from arena import MatchDescription, Seat, TimeControl, play_match  # noqa: E402

BOTS = ("random", "greedy", "mcts:playouts=4", "mcts:playouts=12", "mcts:playouts=36")
"""Built-in bots of (expected) increasing strength; the study's order is the fit's, not this."""
GAMES = (("tokaido-duo", 2), ("doubletrack", 4))
GAP = 0.3
"""Logits: pairs further apart than this in the full-data fit count as distinct."""


def play_one(game: str, bots: list[str], seed: int) -> dict[str, Any]:
    """One game of ``bots`` (seat order); each seat's bot, standing, score (and money)."""
    description = MatchDescription(game, tuple(Seat(b) for b in bots), seed,
                                   time_control=TimeControl(decision_ms=60_000))
    result = play_match(description).result
    money = (result.extra or {}).get("money")
    return {"game": game, "seed": seed,
            "seats": [{"bot": bots[s.seat], "rank": s.rank, "score": s.score,
                       "money": None if money is None else money[s.seat]}
                      for s in result.seats]}


def pool(path: Path, counts: dict[str, int]) -> list[dict[str, Any]]:
    """The cached games, playing the missing ones (fixed seeds: the same pool every time)."""
    games: list[dict[str, Any]] = []
    if path.exists():
        games = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    have = {(g["game"], g["seed"]) for g in games}
    with path.open("a") as out:
        for game, seats in GAMES:
            rng = random.Random(f"{game}-tables")
            for seed in range(counts[game]):
                bots = rng.sample(BOTS, seats)  # drawn even when cached: same tables
                if (game, seed) in have:
                    continue
                row = play_one(game, bots, seed)
                out.write(json.dumps(row) + "\n")
                out.flush()
                games.append(row)
    return games


# -- fits -------------------------------------------------------------------------------------

def results_fit(games: list[dict], bots: list[str]) -> np.ndarray:
    """The public rating's strengths (placings only), in ``bots`` order."""
    from ladder.fit import fit
    fitted = fit([[(s["bot"], s["rank"], False) for s in g["seats"]] for g in games], bots)
    return np.array([fitted.strengths[b] for b in bots])


def _design(games: list[dict], bots: list[str], key: str) -> tuple[np.ndarray, np.ndarray]:
    """Seat rows: ``y`` a seat's ``key`` minus its table's mean, ``B`` the matching contrast
    (the seat's bot minus the table's mean bot), so ``y ~ c B theta + noise``."""
    index = {b: i for i, b in enumerate(bots)}
    rows, ys = [], []
    for g in games:
        seats = g["seats"]
        values = [float(s[key]) for s in seats]
        mean = sum(values) / len(values)
        for s, v in zip(seats, values):
            row = np.zeros(len(bots))
            for t in seats:
                row[index[t["bot"]]] -= 1.0 / len(seats)
            row[index[s["bot"]]] += 1.0
            rows.append(row)
            ys.append(v - mean)
    return np.array(rows), np.array(ys)


def margin_fit(games: list[dict], bots: list[str], key: str, rounds: int = 4) -> np.ndarray:
    """The joint MAP of the placings (Plackett-Luce, as the public rating) and the scores
    (seat score minus table mean ~ N(c (theta - table mean), sigma^2)), ``c`` and ``sigma``
    fitted by least squares at the current strengths, alternating a few times."""
    from ladder.fit import FitConfig, _evaluate, _hess_vec, build_model, tables_from
    config = FitConfig()
    tables, keys = tables_from([[(s["bot"], s["rank"], False) for s in g["seats"]]
                                for g in games], bots)
    assert list(keys) == bots
    model = build_model(tables)
    design, y = _design(games, bots, key)
    theta = results_fit(games, bots)
    eye = np.eye(len(bots))
    for _ in range(rounds):
        x = design @ theta
        c = float(x @ y / (x @ x)) if float(x @ x) > 0 else 0.0
        resid = y - c * x
        sigma2 = max(float(resid @ resid) / max(1, len(y) - len(bots)), 1e-9)
        for _ in range(30):  # Newton on the joint log posterior
            point = _evaluate(model, theta, config.ridge)
            grad = point.grad + c * design.T @ (y - c * design @ theta) / sigma2
            hess = np.array([_hess_vec(model, point, e, config.ridge) for e in eye])
            hess += c * c * design.T @ design / sigma2
            step = np.linalg.solve(hess, grad)
            theta = theta + step
            if float(np.abs(step).max()) < 1e-10:
                break
    return theta


# -- the study --------------------------------------------------------------------------------

MODELS = {"tokaido-duo": (("results", None), ("margin", "score")),
          "doubletrack": (("results", None), ("margin", "score"), ("money", "money"))}


def strengths(model: str | None, games: list[dict], bots: list[str]) -> np.ndarray:
    return results_fit(games, bots) if model is None else margin_fit(games, bots, model)


def pairs_agree(theta: np.ndarray, reference: np.ndarray, gap: float = 0.0) -> float:
    """The share of bot pairs that ``theta`` orders as ``reference`` does, among the pairs
    more than ``gap`` apart in ``reference`` (1.0 if there are none)."""
    n, same, total = len(theta), 0, 0
    for i in range(n):
        for j in range(i + 1, n):
            if abs(reference[i] - reference[j]) > gap:
                total += 1
                same += (theta[i] - theta[j]) * (reference[i] - reference[j]) > 0
    return same / total if total else 1.0


def study(game: str, games: list[dict], draws: int, sizes: list[int]) -> None:
    bots = list(BOTS)
    full = {name: strengths(key, games, bots) for name, key in MODELS[game]}
    truth = full["results"]
    print(f"\n{game}: {len(games)} games; full-data strengths (logits about the mean; "
          "results fit / " + " / ".join(n for n, _ in MODELS[game][1:]) + " fit):")
    for i, b in enumerate(bots):
        cells = [f"{full[n][i] - full[n].mean():6.2f}" for n, _ in MODELS[game]]
        print(f"  {b:18} " + "  ".join(cells))
    for name, _ in MODELS[game][1:]:
        print(f"  {name} fit on all games orders {pairs_agree(full[name], truth):.0%} of the "
              "pairs as the results fit does")
    print(f"  per subsample size, over {draws} random subsamples: the share whose order is the "
          f"full-data results order, the share of pairs ordered so, and the share of pairs "
          f"more than {GAP} logits apart in it (the distinct pairs) all ordered so; own: the "
          f"share whose order is the same model's full-data order")
    print(f"  games  " + "  ".join(f"{n + ': same / pairs / distinct / own':38}"
                                   for n, _ in MODELS[game]))
    rng = random.Random(f"{game}-subsamples")
    for size in sizes:
        if size > len(games):
            break
        same = {n: 0 for n, _ in MODELS[game]}
        agree: dict[str, list[float]] = {n: [] for n, _ in MODELS[game]}
        distinct = {n: 0 for n, _ in MODELS[game]}
        own = {n: 0 for n, _ in MODELS[game]}
        for _ in range(draws):
            sample = rng.sample(games, size)
            for name, key in MODELS[game]:
                theta = strengths(key, sample, bots)
                same[name] += bool((np.argsort(theta) == np.argsort(truth)).all())
                agree[name].append(pairs_agree(theta, truth))
                distinct[name] += pairs_agree(theta, truth, GAP) == 1.0
                own[name] += bool((np.argsort(theta) == np.argsort(full[name])).all())
        print(f"  {size:5}  " + "  ".join(
            f"{same[n] / draws:5.0%} / {statistics.mean(agree[n]):6.1%} / "
            f"{distinct[n] / draws:5.0%} / {own[n] / draws:5.0%}{'':3}"
            for n, _ in MODELS[game]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "referee-ladder-real.jsonl")
    parser.add_argument("--duo", type=int, default=300, help="Tokaido Duo games in the pool")
    parser.add_argument("--doubletrack", type=int, default=150, help="Doubletrack tables")
    parser.add_argument("--draws", type=int, default=100, help="subsamples per size")
    parser.add_argument("--sizes", default="10,20,40,80,120,160,240")
    args = parser.parse_args()
    if min(args.duo, args.doubletrack) < 10 or args.draws < 1:
        parser.error("--duo and --doubletrack >= 10, --draws >= 1")
    began = time.process_time()
    games = pool(args.cache, {"tokaido-duo": args.duo, "doubletrack": args.doubletrack})
    print(f"pool: {args.cache} ({time.process_time() - began:.0f} s CPU playing what was "
          "missing); bots: " + ", ".join(BOTS))
    sizes = [int(s) for s in args.sizes.split(",")]
    for game, _ in GAMES:
        count = args.duo if game == "tokaido-duo" else args.doubletrack
        chosen = [g for g in games if g["game"] == game and int(g["seed"]) < count]
        study(game, chosen, args.draws, sizes)


if __name__ == "__main__":
    main()
