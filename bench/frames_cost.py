"""CPU per match of a first read of its frames and of its match page's replay (issue 26).

A finished match's frames are built from its log the first time a process is asked for them
(``api.replays``): the endpoint replays the log, builds every frame, writes the JSON and gzips
it; the match page does the same and then reads the document back, renders the frame it shows
as text and counts the game's length. With 10,000 matches most reads of a match are first
reads, so this is what a match read costs the web.

The logs are real: matches played here by the built-in bots with fixed seeds (Tokaido Duo two
seats and solo, Doubletrack four seats), gzipped as the service stores them. Each repetition
builds every match once, in a new random order; a match's figure is its median over the
repetitions, and the table gives, per game, the median over matches [min-max], in ms of
process CPU time (``time.process_time``). The process is warmed first (one build of every
match), as a web process that has served a few matches is: what is measured is a first read
of *this* match, not the first of the process.

Usage: python bench/frames_cost.py [--matches 6] [--reps 15] [--profile GAME]
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import json
import os
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api.pages.views import game_length  # noqa: E402
from api.replays import Frames, _build  # noqa: E402
from api.viewer import render_fragment  # noqa: E402
from referee import play  # noqa: E402

GAMES: dict[str, tuple[list[str], dict[str, Any] | None]] = {
    "tokaido-duo": (["greedy", "random"], None),
    "tokaido-duo solo": (["greedy"], {"automa": 3}),
    "doubletrack": (["greedy", "random", "greedy", "random"], None),
}
"""What is played: the bots per seat and the game's options."""


def logs(name: str, matches: int) -> list[bytes]:
    """``matches`` logs of ``name``, gzipped as stored (seeds 1, 2, ...)."""
    bots, options = GAMES[name]
    game = name.split()[0]
    out = []
    for seed in range(1, matches + 1):
        record = play(game, bots, seed=seed, options=options)
        out.append(gzip.compress(json.dumps(record.log).encode(), mtime=0))
    return out


def frames_read(gz: bytes) -> Frames:
    """What ``GET /api/v1/matches/{id}/frames`` builds on a first read."""
    return Frames(_build(1, gz)[0], "")


def page_read(gz: bytes) -> Any:
    """What the match page builds from the log on a first read (``api.pages.views.match``):
    the frames (kept for the API), the steps' plies, frame 0 as text, the game's length."""
    zipped, doc = _build(1, gz)
    Frames(zipped, "")
    plies = {f["step"]: f["ply"] for f in doc["frames"] if f["step"] is not None}
    html = render_fragment(doc, 0, frames_url="/frames", link=lambda n: f"?ply={n}")
    return plies, html, game_length({"result": doc["match"]["result"], "game": ""}, doc)


def cpu_ms(fn: Callable[[bytes], Any], gz: bytes) -> float:
    start = time.process_time()
    fn(gz)
    return (time.process_time() - start) * 1000


def measure(fn: Callable[[bytes], Any], stored: list[bytes], reps: int) -> list[float]:
    """Per match, its median CPU ms over ``reps`` rounds (each round in a new order)."""
    for gz in stored:  # warm-up: imports, the default board, the templates
        fn(gz)
    times: list[list[float]] = [[] for _ in stored]
    order = list(range(len(stored)))
    for _ in range(reps):
        random.shuffle(order)
        for i in order:
            times[i].append(cpu_ms(fn, stored[i]))
    return [statistics.median(t) for t in times]


def row(label: str, per_match: list[float]) -> str:
    return (f"| {label} | {statistics.median(per_match):.1f} "
            f"[{min(per_match):.1f}-{max(per_match):.1f}] |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=6, help="matches per game")
    parser.add_argument("--reps", type=int, default=15, help="builds of each match")
    parser.add_argument("--profile", choices=sorted(GAMES), help="profile one game's page read")
    args = parser.parse_args()
    if args.profile:
        stored = logs(args.profile, args.matches)
        page_read(stored[0])
        prof = cProfile.Profile()
        prof.runcall(lambda: [page_read(gz) for gz in stored])
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    print("| match (CPU ms per first read) | frames | page |")
    print("|---|---|---|")
    for name in GAMES:
        stored = logs(name, args.matches)
        frames = measure(frames_read, stored, args.reps)
        page = measure(page_read, stored, args.reps)
        print(row(name, frames) + f" {statistics.median(page):.1f} "
              f"[{min(page):.1f}-{max(page):.1f}] |", flush=True)


if __name__ == "__main__":
    main()
