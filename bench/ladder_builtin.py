"""A living ladder of built-in bots of known order finds that order (issue 27, item 4).

The embedded service's own parts, in this process: a fresh SQLite database, the bots entered
in one game's ladder (``join``), the matchmaker's ``tick`` opening rounds and releasing
fixtures (the public fit pairs them), and every released match played by the worker's runner
(``api.runner.run_match``, real games of the built-in bots, as the embedded pool's threads
play them).  After every round that closes, the leaderboard (``ladder.leaderboard``: the
public rating) is read; the run stops when its order has equalled the known order for 3
rounds in a row (or after ``--rounds``).  Printed: per round, the order and each bot's rating
and interval; at the end the rated games per bot it took (at the first of the 3 rounds, and
at the third) and the CPU seconds.  Match seeds come from the service (random), so figures
vary from run to run: ``--runs`` repeats on fresh databases and prints each.

Usage: python bench/ladder_builtin.py [--game tokaido-duo]
       [--bots random,greedy,mcts:playouts=25,mcts:playouts=200] [--rounds 40] [--runs 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import select  # noqa: E402

from ladder.identity import claim_names  # noqa: E402
from ladder.leaderboard import leaderboard  # noqa: E402
from ladder.matchmaking import MatchmakerConfig, join, tick  # noqa: E402
from ladder.models import Bot  # noqa: E402
from ladder.store import open_db  # noqa: E402
from referee.netpolicy import UrlPolicy  # noqa: E402

STAY = 3
"""Closed rounds in a row the order must hold."""


def in_order(board: list[dict[str, Any]], bots: list[str]) -> bool:
    """The leaderboard lists ``bots`` strongest first (``bots`` is weakest first), with
    strictly falling ratings (a tie broken by the name does not count)."""
    ratings = [r["rating"] for r in board]
    return ([r["bot"] for r in board] == bots[::-1]
            and all(a > b for a, b in zip(ratings, ratings[1:])))


def ladder_run(game: str, bots: list[str], rounds: int, folder: Path,
               show: bool = True) -> tuple[float | None, float | None, int]:
    """One ladder from scratch; games per bot when the order first held and when it had held
    ``STAY`` rounds (None: not within ``rounds``), and the rounds closed."""
    from api.runner import run_match

    engine = open_db(f"sqlite:///{folder / 'ladder.sqlite3'}")
    try:
        claim_names(engine, {b: b for b in bots})
        with engine.connect() as conn:
            by_name = dict(conn.execute(select(Bot.name, Bot.id)).all())
        for b in bots:
            join(engine, by_name[b], game)
        config, policy = MatchmakerConfig(), UrlPolicy()
        closed, streak, first = 0, 0, None
        while closed < rounds:
            result = tick(engine, config=config)
            for pk in result.enqueue:
                while run_match(engine, pk, policy, lease_s=600) == "retry":
                    pass
            for _ in result.closed:
                closed += 1
                board = leaderboard(engine, game)
                games = statistics.mean(r["games"] for r in board)
                streak = streak + 1 if in_order(board, bots) else 0
                if show:
                    print(f"  round {closed:2}: {games:5.1f} games/bot "
                          f"{'ok ' if streak else '   '}" + "  ".join(
                              f"{r['bot']} {r['rating']:.0f}±{r['interval']:.0f}"
                              for r in board), flush=True)
                if streak == 1:
                    first = games
                if streak == STAY:
                    return first, games, closed
            if not result.enqueue and not result.closed and not result.opened:
                raise RuntimeError("the ladder stalled: nothing to play, nothing opened")
        return None, None, closed
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="tokaido-duo")
    parser.add_argument("--bots", default="random,greedy,mcts:playouts=25,mcts:playouts=200",
                        help="weakest first: the known order")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(bots) < 2 or len(set(bots)) != len(bots) or args.rounds < 1 or args.runs < 1:
        parser.error("--bots: two or more different bots; --rounds, --runs >= 1")
    print(f"{args.game}: {', '.join(bots)} (weakest first); a Duo fixture is 2 games, "
          "a Doubletrack table 1")
    found = []
    for run in range(args.runs):
        began = time.process_time()
        with tempfile.TemporaryDirectory(prefix="referee-ladder-") as folder:
            first, held, closed = ladder_run(args.game, bots, args.rounds, Path(folder))
        cpu = time.process_time() - began
        found.append((first, held))
        where = (f"order found at {first:.1f} games/bot, held {STAY} rounds at {held:.1f}"
                 if held is not None else f"order not held {STAY} rounds in {closed} rounds")
        print(f"run {run + 1}: {where} ({closed} rounds, {cpu:.0f} s CPU)", flush=True)
    held_all = [h for _, h in found if h is not None]
    if len(found) > 1 and held_all:
        print(f"median games/bot to hold the order {STAY} rounds: "
              f"{statistics.median(held_all):.1f} over {len(held_all)} of {len(found)} runs")


if __name__ == "__main__":
    main()
