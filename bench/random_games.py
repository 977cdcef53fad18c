"""Random games per CPU second, engine alone and through the match runner: the shared part of
``tokaido_speed.py`` and ``doubletrack_speed.py``.

Every seat picks uniformly among the offered options from its own generator, seeded as the
runner's in-process ``random`` bot is, so the engine-only loop and the runner play exactly the
same games (the random bot never reads its view, so no view is built in either).  The figure is
process CPU time, which other load on a shared machine disturbs far less than the wall clock;
a warm-up game comes first (imports, board tables, caches), then ``reps`` rounds, each timing
the three arms (:data:`ARMS`: the engine's fast path, the engine by id, the runner) in turn on
the same seeds, so that drift hits them alike.
"""

from __future__ import annotations

import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bots.random_bot import RandomBot
from referee import protocol
from referee.core import Game
from referee.match import Runner
from referee.players import InProcessPlayer


@dataclass(frozen=True)
class Setup:
    """What to play: the game, its board, seats, options, and the seeds of the games."""

    game: Game
    board: Any
    seats: int
    options: Mapping[str, Any] | None
    seeds: range

    def bot_seed(self, seed: int, seat: int) -> int:
        return seed * 10 + seat


def play_engine(setup: Setup, seed: int) -> int:
    """One random game on the bare engine's fast path (``choice_counts`` and ``apply_index``:
    no option is built); returns its number of decisions. ``randrange(n)`` draws exactly what
    ``choice`` over ``n`` options draws, so this is the game the runner's random bots play."""
    state = setup.game.new_state(setup.seats, seed, setup.board, setup.options)
    pickers = [random.Random(setup.bot_seed(seed, s)).randrange for s in range(setup.seats)]
    decisions = 0
    counts = state.choice_counts()
    while counts:
        state.apply_index({seat: pickers[seat](n) for seat, n in counts})
        decisions += len(counts)
        counts = state.choice_counts()
    return decisions


def play_engine_by_id(setup: Setup, seed: int) -> int:
    """The same game on the engine's full path, the one the runner drives: every decision
    built (``pending``), the pick's id looked up (``apply``); its number of decisions."""
    state = setup.game.new_state(setup.seats, seed, setup.board, setup.options)
    choosers = [random.Random(setup.bot_seed(seed, s)).choice for s in range(setup.seats)]
    decisions = 0
    pending = state.pending()
    while pending:
        state.apply({d.seat: choosers[d.seat](d.options).id for d in pending})
        decisions += len(pending)
        pending = state.pending()
    return decisions


def play_runner(setup: Setup, seed: int) -> int:
    """The same game through the match runner, in-process random bots; its decisions."""
    players = [
        InProcessPlayer(name=f"random-{s}", bot=RandomBot(setup.game.name, setup.bot_seed(seed, s)))
        for s in range(setup.seats)
    ]
    record = Runner(setup.game, players, seed, board=setup.board, options=setup.options,
                    match_id=f"bench-{seed}").run()
    return len(record.log["decisions"])


def cpu_rate(play: Callable[[Setup, int], int], setup: Setup) -> tuple[float, int]:
    """Games per CPU second over ``setup.seeds``, and the decisions played."""
    began = time.process_time()
    decisions = sum(play(setup, seed) for seed in setup.seeds)
    return len(setup.seeds) / (time.process_time() - began), decisions


def spread(values: list[float], fmt: str = ".0f") -> str:
    return (f"{statistics.median(values):{fmt}} median "
            f"({min(values):{fmt}}-{max(values):{fmt}}, n={len(values)})")


ARMS = {"engine": play_engine, "by id": play_engine_by_id, "runner": play_runner}
"""The three ways of playing the same games, timed in turn every round."""


def report(setup: Setup, reps: int, label: str) -> None:
    """Warm up, then ``reps`` rounds of the three arms in turn: print their rates and the
    runner's cost on top of each engine path (per round)."""
    for play in ARMS.values():
        play(setup, setup.seeds[0])
    rates: dict[str, list[float]] = {name: [] for name in ARMS}
    decisions = 0
    for _ in range(reps):
        played = {}
        for name, play in ARMS.items():
            rate, played[name] = cpu_rate(play, setup)
            rates[name].append(rate)
        if len(set(played.values())) != 1:
            raise SystemExit(f"the arms played other games (decisions: {played}): the "
                             f"comparison is void")
        decisions = played["engine"]
    games = len(setup.seeds)
    print(f"{label}: {games} random games per round, {decisions / games:.1f} decisions per game,"
          f" {reps} rounds after a warm-up (CPU time of this process)")
    print(f"  engine, fast path   {spread(rates['engine'])} games per CPU second "
          f"(choice_counts + apply_index: random playouts)")
    print(f"  engine, by id       {spread(rates['by id'])} games per CPU second "
          f"(pending + apply: what the runner drives)")
    print(f"  through the runner  {spread(rates['runner'])} games per CPU second")
    for base, words in (("by id", "the engine by id"), ("engine", "the fast path")):
        extra = [100 * (b / r - 1) for b, r in zip(rates[base], rates["runner"])]
        print(f"  the runner costs {spread(extra)} % on top of {words} (per round)")
    rate, entries = options_cache_hits(setup)
    print(f"  encoded-options cache (HTTP /decide bodies): {100 * rate:.1f}% hits, "
          f"{entries} entries after the round")


def options_cache_hits(setup: Setup) -> tuple[float, int]:
    """The hit rate of the runner's cache of encoded options (``protocol.options_json``, the
    JSON of a decision's options in a ``/decide`` body, kept by the tuple's identity) over
    ``setup.seeds``, starting empty, and how many entries it holds at the end."""
    protocol._OPTIONS_JSON.clear()
    hits = asked = 0
    for seed in setup.seeds:
        state = setup.game.new_state(setup.seats, seed, setup.board, setup.options)
        choosers = [random.Random(setup.bot_seed(seed, s)).choice for s in range(setup.seats)]
        pending = state.pending()
        while pending:
            for d in pending:
                hit = protocol._OPTIONS_JSON.get(id(d.options))
                hits += hit is not None and hit[0] is d.options
                asked += 1
                protocol.options_json(d.options)
            state.apply({d.seat: choosers[d.seat](d.options).id for d in pending})
            pending = state.pending()
    return hits / asked, len(protocol._OPTIONS_JSON)


def profile(setup: Setup, runner: bool, top: int = 25) -> None:
    """Where the CPU time goes: the functions with the most own time, and their shares."""
    play = play_runner if runner else play_engine
    play(setup, setup.seeds[0])
    profiler = cProfile.Profile()
    profiler.runcall(lambda: [play(setup, seed) for seed in setup.seeds])
    entries = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(tt for _cc, _nc, tt, _ct, _callers in entries.values())
    ranked = sorted(entries.items(), key=lambda item: -item[1][2])[:top]
    print(f"{'own %':>6} {'cum %':>6} {'calls':>10}  function (cProfile, {total:.2f} s in all)")
    for (path, line, name), (_cc, calls, own, cumulative, _callers) in ranked:
        where = f"{path.split('site-packages/')[-1].split('referee/')[-1]}:{line}"
        print(f"{100 * own / total:6.1f} {100 * cumulative / total:6.1f} {calls:10d}  "
              f"{name} ({where})")
