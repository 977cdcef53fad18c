"""Fit the Doubletrack search's leaf value (``bots/doubletrack_value.json``) and print its figures.

    python bench/fit_doubletrack_value.py --games 12000          # needs numpy (not a dependency)
    python bench/fit_doubletrack_value.py --games 2000 --dry-run  # figures only, file untouched

Data: greedy self-play at 3 and at 4 seats. At the start of a turn a position is kept (share
``--keep``) with the eventual winner as its label, and (share ``--change``) a copy of it is
changed at random (money moved to a seat, a small pawn, a hand card) and played on to the end
for its own label. The changed copies are what teach the fit the *worth* of money and circles: in
plain play money goes with being behind (the last seat is paid for every lead auction).
Model: a conditional logit over the seats (softmax of per-seat strengths, features from
``bots.doubletrack_value``), fitted by Newton's method with a weak ridge. Prints the held-out
log loss of the fit beside a progress-only fit and the uniform guess.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots import find_bot  # noqa: E402
from bots.doubletrack_value import FEATURES, KNOTS, features  # noqa: E402
from referee.games import find_game  # noqa: E402

try:
    import numpy as np
except ImportError:  # a dev tool: say what it needs rather than fail with a traceback
    sys.exit("fit_doubletrack_value.py needs numpy: pip install numpy")

OUT = Path(__file__).resolve().parent.parent / "bots" / "doubletrack_value.json"
RIDGE = 1e-3
CHUNK = 250


def winner_shares(state: Any) -> list[float]:
    result = state.result()
    return [result.win_share(s) for s in range(state.num_players)]


def play_on(state: Any, bots: list[Any]) -> list[float]:
    while state.pending():
        state.apply({d.seat: bots[d.seat].decide(d, state.view(d.seat)) for d in state.pending()})
    return winner_shares(state)


def change(state: Any, rng: random.Random) -> None:
    """One random change to a seat, kept legal (money moved between two seats, as in play, and
    never below 0; one pawn per circle; hidden cards only); the question waiting is asked
    again, since its options may depend on what changed."""
    seat, n, home = rng.randrange(state.num_players), state.num_players, state.board.home
    roll = rng.random()
    if roll < 0.4:
        payer = rng.choice([s for s in range(n) if s != seat])
        amount = min(state.money[payer], state.board.unit * rng.randint(1, 20))
        state.money[payer] -= amount
        state.money[seat] += amount
    elif roll < 0.75:
        taken = {state.small[o] for o in range(n) if o != seat}
        to = min(max(0, state.small[seat] + rng.randint(-12, 12)), home - 1)
        while 0 < to < home - 1 and to in taken:
            to += 1
        if to == 0 or to not in taken:
            state.small[seat] = to
    else:
        hand, pile = state.hands[seat], state.pile
        i, j = rng.randrange(len(hand)), rng.randrange(len(pile))
        if hand[i] not in state.known[seat] and j >= state.pile_known:
            hand[i], pile[j] = pile[j], hand[i]
    state.resume()


def games(job: tuple[int, int, int, float, float]) -> tuple[Any, Any]:
    """Rows (position, seat, feature) and labels (position, seat) from seeds lo..hi-1."""
    seats, lo, hi, keep, changed = job
    game = find_game("doubletrack")
    rows: list[list[list[float]]] = []
    labels: list[list[float]] = []
    for seed in range(lo, hi):
        rng = random.Random(f"fit:{seed}")
        bots = [find_bot("greedy", "doubletrack", seed * 10 + s) for s in range(seats)]
        state = game.new_state(seats, seed)
        kept: list[list[list[float]]] = []
        turn = 0
        while state.pending():
            if state.turns != turn:
                turn = state.turns
                if rng.random() < keep:
                    kept.append([features(state.view(s)) for s in range(seats)])
                if rng.random() < changed:
                    other = state.clone()
                    other.rng = random.Random(rng.getrandbits(63))
                    change(other, rng)
                    if other.pending():
                        rows.append([features(other.view(s)) for s in range(seats)])
                        labels.append(play_on(other, bots))
            state.apply({d.seat: bots[d.seat].decide(d, state.view(d.seat))
                         for d in state.pending()})
        rows += kept
        labels += [winner_shares(state)] * len(kept)
    return np.array(rows, dtype=np.float32), np.array(labels, dtype=np.float32)


def log_loss(w: Any, x: Any, y: Any) -> float:
    s = x @ w
    s -= s.max(axis=1, keepdims=True)
    logp = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
    return float(-(y * logp).sum() / len(x))


def fit(x: Any, y: Any, iterations: int = 30) -> Any:
    """Newton's method on the ridge-penalised conditional logit (convex: it converges)."""
    m, _, k = x.shape
    w = np.zeros(k)
    for _ in range(iterations):
        s = x @ w
        s -= s.max(axis=1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("ps,psk->pk", p, x)
        grad = np.einsum("ps,psk->k", p - y, x) / m + 2 * RIDGE * w
        flat = x.reshape(-1, k)
        hess = ((flat * p.reshape(-1, 1)).T @ flat - mean.T @ mean) / m
        step = np.linalg.solve(hess + 2 * RIDGE * np.eye(k), grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


def fit_seats(seats: int, n_games: int, procs: int, keep: float, changed: float
              ) -> dict[str, Any]:
    jobs = [(seats, lo, min(lo + CHUNK, n_games), keep, changed)
            for lo in range(0, n_games, CHUNK)]
    with ProcessPoolExecutor(procs) as pool:
        parts = list(pool.map(games, jobs))
    x = np.concatenate([p[0] for p in parts]).astype(np.float64)
    y = np.concatenate([p[1] for p in parts]).astype(np.float64)
    order = np.random.default_rng(0).permutation(len(x))
    train, test = order[: len(x) * 4 // 5], order[len(x) * 4 // 5:]
    w = fit(x[train], y[train])
    progress = list(range(KNOTS + 1))
    w_progress = fit(x[train][:, :, progress], y[train])
    figures = {
        "log_loss": round(log_loss(w, x[test], y[test]), 5),
        "progress_only_log_loss": round(log_loss(w_progress, x[test][:, :, progress], y[test]), 5),
        "uniform_log_loss": round(float(np.log(seats)), 5),
    }
    print(f"{seats} seats: {n_games} games, {len(x)} positions; held-out log loss "
          f"{figures['log_loss']} (progress only {figures['progress_only_log_loss']}, "
          f"uniform {figures['uniform_log_loss']})")
    w = fit(x, y)  # the shipped weights use every position
    return {"games": n_games, "positions": len(x), **figures,
            "weights": {name: round(float(v), 5) for name, v in zip(FEATURES, w)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12_000, help="games per seat count")
    parser.add_argument("--keep", type=float, default=0.2)
    parser.add_argument("--change", type=float, default=0.3)
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    models = {str(n): fit_seats(n, args.games, args.procs, args.keep, args.change)
              for n in find_game("doubletrack").player_counts}
    print(f"  {'weights':26s}" + "".join(f"{n + ' seats':>10s}" for n in models))
    for name in FEATURES:
        print(f"  {name:26s}" + "".join(f"{m['weights'][name]:10.3f}" for m in models.values()))
    if not args.dry_run:
        about = ("Leaf value of the Doubletrack search (bots/doubletrack_value.py): per-seat "
                 "weights of a conditional logit, written by bench/fit_doubletrack_value.py.")
        OUT.write_text(json.dumps({"about": about, "seats": models}, indent=1) + "\n")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
