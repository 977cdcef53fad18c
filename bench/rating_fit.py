"""CPU seconds to fit the public rating (``ladder.fit``) to a whole ladder, 1,000-10,000 bots and
100,000-1,000,000 results, and how close it lands to a reference.

Each case draws ``bots`` strengths from N(0, 1) (logits) and ``results`` tables of ``--seats``
seats with uniformly random bots (the sparsest, least repetitive field: ladder pairing repeats
pairs, which the fit merges), placed by Plackett-Luce draws from those strengths; on two seats
5% of games are draws and 1% have one seat forfeit.  Per case, medians of ``--reps`` runs:

- ``build``: indexing the tables into the model's risk sets (from arrays; turning database
  rows into arrays is the caller's);
- ``cold``: Newton from zero, with the intervals; ``warm``: the same after 1% more results,
  started from the previous fit (what a refit after a round does);
- ``newton``: Newton steps, cold and warm;
- ``grad``: the largest |gradient| left at the optimum (0 at the exact MAP);
- ``ref``: the largest |rating difference| in Elo points against an independent dense Newton
  (full Hessian, ``numpy.linalg.solve``; run where bots <= 2,000), and, for the intervals,
  against the exact dense Laplace margins when the fit used its large-field approximation
  (``--dense-limit 0`` forces it, to measure it where the exact one is computable).

Times are CPU seconds of this process (``time.process_time``, all threads).

Usage: python bench/rating_fit.py [--cases 1000x100000,10000x100000,1000x1000000,10000x1000000]
       [--seats 2] [--reps 3] [--dense-limit 2000] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ladder.fit import (  # noqa: E402
    FitConfig, Tables, build_model, centred_variances, fit_tables, maximise,
)
from ladder.ratings import ELO_SCALE, Z95  # noqa: E402


def synthetic(n: int, results: int, seats: int, seed: int) -> Tables:
    """Random tables of ``seats`` distinct bots, placed by Plackett-Luce from N(0, 1) strengths."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, n)
    bots = np.empty((results, seats), dtype=np.int64)
    bots[:, 0] = rng.integers(0, n, results)
    for k in range(1, seats):  # distinct seats: redraw clashes until none is left
        bots[:, k] = rng.integers(0, n, results)
        while (clash := (bots[:, k:k + 1] == bots[:, :k]).any(axis=1)).any():
            bots[clash, k] = rng.integers(0, n, int(clash.sum()))
    # Plackett-Luce by Gumbel noise: sorting strength + Gumbel draws the placing
    noisy = strength[bots] + rng.gumbel(size=bots.shape)
    standing = (-noisy).argsort(axis=1).argsort(axis=1) + 1
    forfeited = np.zeros(bots.shape, dtype=bool)
    if seats == 2:
        draw = rng.random(results) < 0.05
        standing[draw] = 1
        lost = rng.random(results) < 0.01
        forfeited[lost, 1] = True
        standing[lost] = [1, 3]
    return Tables(n, {seats: bots}, {seats: standing.astype(np.int64)}, {seats: forfeited})


def with_more(tables: Tables, extra: Tables) -> Tables:
    return Tables(tables.n, {s: np.concatenate([b, extra.bots[s]]) for s, b in tables.bots.items()},
                  {s: np.concatenate([b, extra.standing[s]]) for s, b in tables.standing.items()},
                  {s: np.concatenate([b, extra.forfeited[s]]) for s, b in tables.forfeited.items()})


def dense_reference(tables: Tables, config: FitConfig) -> np.ndarray:
    """An independent MAP: Newton with the full Hessian built from the model's risk sets."""
    model = build_model(tables)
    theta = np.zeros(model.n)
    for _ in range(100):
        grad = model.linear - config.ridge * theta
        hess = np.diag(np.full(model.n, config.ridge))
        for r, sets in model.sets.items():
            e = np.exp(theta[sets])
            p = e / e.sum(axis=1)[:, None]
            w = model.weights[r][:, None]
            np.add.at(grad, sets, -w * p)
            for a in range(r):
                np.add.at(hess, (sets[:, a], sets[:, a]), model.weights[r] * p[:, a])
                for b in range(r):
                    np.add.at(hess, (sets[:, a], sets[:, b]),
                              -model.weights[r] * p[:, a] * p[:, b])
        step = np.linalg.solve(hess, grad)
        theta += step
        if np.abs(step).max() < 1e-12:
            break
    return theta


def timed(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(reps):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
    return statistics.median(times), out


def run_case(n: int, results: int, args: argparse.Namespace) -> dict[str, Any]:
    config = FitConfig(dense_limit=args.dense_limit)
    tables = synthetic(n, results, args.seats, args.seed)
    more = with_more(tables, synthetic(n, results // 100, args.seats, args.seed + 1))
    build, model = timed(lambda: build_model(tables), args.reps)
    cold, (theta, errors, _, steps, exact) = timed(lambda: fit_tables(tables, config), args.reps)
    cold_more = fit_tables(more, config)
    warm, (theta_w, _, _, steps_w, _) = timed(lambda: fit_tables(more, config, theta), args.reps)
    _, point, _ = maximise(model, config.ridge, theta, config.tol, 1)
    row: dict[str, Any] = {
        "bots": n, "results": results, "terms": sum(len(s) for s in model.sets.values()),
        "build_s": build, "cold_s": cold, "warm_s": warm, "newton_cold": steps,
        "newton_warm": steps_w, "grad": float(np.abs(point.grad).max()),
        "warm_vs_cold_elo": float(ELO_SCALE * np.abs(theta_w - cold_more[0]).max()),
        "exact_intervals": exact,
    }
    if n <= 2000:
        ref = dense_reference(tables, config)
        row["ref_elo"] = float(ELO_SCALE * np.abs(theta - ref).max())
        if not exact:
            exact_var, _ = centred_variances(model, point, config.ridge, n)
            exact_margin = Z95 * ELO_SCALE * np.sqrt(exact_var)
            margin = Z95 * ELO_SCALE * errors
            row["margin_mean"] = float(exact_margin.mean())
            row["margin_err_max"] = float(np.abs(margin - exact_margin).max())
            row["margin_err_mean"] = float((margin - exact_margin).mean())
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="1000x100000,10000x100000,1000x1000000,10000x1000000")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--dense-limit", type=int, default=FitConfig().dense_limit)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for case in args.cases.split(","):
        n, results = (int(x) for x in case.split("x"))
        row = run_case(n, results, args)
        print("  ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
