"""Matches per minute, and CPU per match, on ``referee worker`` (1 and 2 processes) vs
``referee tournament``.

The same Tokaido Duo matches between two fast HTTP bots (the built-in ``random`` behind
waitress, each in its own process) are played three ways, in alternation, ``--reps`` times, in short runs taken in turn (so that a busy moment on a shared machine
hits all three alike):

* ``tournament``: the tournament runner in one process, one match at a time (what
  ``referee tournament a=URL b=URL --concurrency 1`` does, without the command's start-up);
* ``worker -c 1`` and ``worker -c 2``: scheduled in PostgreSQL, enqueued on Redis, played by a
  Celery worker (claim, lease renewal, log and result written in the finishing transaction).

The difference per match between ``tournament`` and ``worker -c 1`` is the service's overhead;
the worker's log line for each match (``claim``, ``play`` with its CPU time, ``finish``) tells
the database's share from the playing's.

**The service's own CPU per match** (issue 26): each round, the CPU of the worker's whole
process tree (the Celery parent and its pool, read from ``/proc`` before and after) over the
matches of ``worker -c 1``, less the CPU this process spends playing the same matches (same
seeds, seat orders and settings) with ``arena.play_match`` and nothing else: what claiming,
the lease, storing the log and result, the rating and the tick after each match cost, with
Celery's own share (its task, its idle polling while the bench waits). Rounds alternate, so
the figure is a paired difference per round: median and range. Beside it, matches per CPU
minute of the worker tree against ``referee tournament``'s process with the same bots.

``--profile N``: N matches run in this process through the worker's own functions
(:func:`api.runner.run_match` with :func:`api.scheduling.after_match`) under cProfile; the
functions with the most cumulative time, outside the match itself, are printed.

``--against DIR``: a ``worker -c 1`` of another checkout (say, the code before a change) takes
its turn in every round as well, and the difference of the two workers' own CPU is paired by
round: the figure to compare a change against on a shared machine.

Usage: python bench/service_matches.py [--matches 10] [--reps 8] [--against DIR]
       [--phases 0] [--profile 0]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import secrets
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from service_support import REDIS, TICKS, migrate, pg_schema, processes, start, start_bot, stop

GAME = "tokaido-duo"
DEPTH = 16
"""The matchmaker's depth under a broker's workers (its default)."""


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of every process of ``root``'s session, and of the
    children it reaped (a pool process replaced meanwhile)."""
    mine = [p for p in processes() if p.session == root]
    return (sum(p.ticks for p in mine) + sum(p.reaped_ticks for p in mine if p.pid == root)
            ) / TICKS


def tournament_run(urls: list[str], matches: int, folder: Path) -> tuple[float, float]:
    """Matches per minute and CPU seconds of this process for ``matches`` matches."""
    from tournaments.plan import Entrant, Plan
    from tournaments.store import JsonlStateStore, new_tournament_id
    from tournaments.tournament import Tournament

    plan = Plan(GAME, (Entrant("a", urls[0]), Entrant("b", urls[1])), matches, 2,
                secrets.randbits(63))
    t = Tournament.start(plan, JsonlStateStore(folder, new_tournament_id()))
    began, cpu = time.perf_counter(), time.process_time()
    t.run(1)
    cpu = time.process_time() - cpu
    return matches / (time.perf_counter() - began) * 60, cpu


def setup_bots(engine: Any, urls: list[str]) -> list[int]:
    from ladder.accounts import create_owner
    from ladder.registry import register_bot

    owner, _ = create_owner(engine, f"bench{secrets.token_hex(3)}")
    return [register_bot(engine, owner["id"], name=f"b{i}-{secrets.token_hex(3)}", url=url,
                         games=[GAME], description="", status="active", nonce="x")
            for i, url in enumerate(urls)]


def busy_ladder(engine: Any, n: int, depth: int, bench_bots: list[int]) -> int:
    """A Tokaido Duo ladder of ``n`` built-in bots in the state a busy service's is in most
    of the time: a round open and ``depth`` of its matches in play elsewhere (running, under
    a lease that outlives the bench), the rest waiting for room.  The bench's own bots join
    it after that round opened (so they wait for the next, which does not open): each tick
    after a bench match runs, reads the whole ladder and has nothing to do.  Returns the
    matches in play."""
    from sqlalchemy import insert, update

    from ladder import matchmaking as mm
    from ladder.accounts import create_owner, now_utc
    from ladder.models import ACTIVE, RUNNING, Bot, LadderEntry, Match

    now = now_utc()
    owners = [create_owner(engine, f"lo{i}-{secrets.token_hex(3)}")[0]["id"]
              for i in range(max(2, n // 3))]
    with engine.begin() as conn:
        bots = conn.execute(insert(Bot).returning(Bot.id), [
            {"name": f"ladder{i}-{secrets.token_hex(3)}", "spec": "random", "version": 1,
             "owner_id": owners[i % len(owners)], "status": ACTIVE, "games": [GAME],
             "created_at": now, "max_concurrency": 1} for i in range(n)]).scalars().all()
        conn.execute(insert(LadderEntry), [
            {"bot_id": b, "game": GAME, "active": True, "placement_remaining": 0,
             "joined_at": now, "version": 1, "last_rest": 0, "byes": 0} for b in bots])
    config = mm.MatchmakerConfig(depth=depth)
    released = mm.tick(engine, config=config).enqueue
    with engine.begin() as conn:  # played elsewhere, for longer than the bench runs
        conn.execute(update(Match).where(Match.id.in_(released)).values(
            state=RUNNING, attempt=1, lease_owner="elsewhere", started_at=now,
            lease_until=now + timedelta(days=1)))
        if bench_bots:
            conn.execute(insert(LadderEntry), [
                {"bot_id": b, "game": GAME, "active": True, "placement_remaining": 0,
                 "joined_at": now, "version": 1, "last_rest": 0, "byes": 0}
                for b in bench_bots])
    again = mm.tick(engine, config=config)
    if again.enqueue or again.opened:
        raise SystemExit("the busy ladder is not steady: a tick still released matches")
    return len(released)


def wait_all(engine: Any, ids: list[int], timeout: float = 600) -> None:
    from sqlalchemy import func, select

    from ladder.models import Match

    give_up = time.monotonic() + timeout
    while True:
        with engine.connect() as conn:
            left = conn.execute(select(func.count()).select_from(Match).where(
                Match.id.in_(ids), Match.state.in_(("scheduled", "running")))).scalar_one()
        if not left:
            return
        if time.monotonic() > give_up:
            raise SystemExit(f"{left} matches not over after {timeout} s")
        time.sleep(0.1)  # light polling: this process shares the machine with the worker


def schedule_matches(engine: Any, bots: list[int], matches: int) -> list[int]:
    from ladder.work import rotations, schedule

    return schedule(engine, GAME, rotations(bots, matches, f"w{secrets.token_hex(2)}"),
                    rated=True)  # as the ladder's: the rating step is part of finishing


def worker_run(engine: Any, bots: list[int], queue: str, matches: int,
               root: int) -> tuple[float, float, list[int]]:
    """Matches per minute, the worker tree's CPU seconds, and the matches' ids."""
    from api.dispatch import CeleryDispatcher

    ids = schedule_matches(engine, bots, matches)
    dispatcher = CeleryDispatcher(REDIS, queue)
    began, cpu = time.perf_counter(), tree_cpu(root)
    dispatcher.enqueue(ids)
    wait_all(engine, ids)
    elapsed, cpu = time.perf_counter() - began, tree_cpu(root) - cpu
    dispatcher.close()
    return matches / elapsed * 60, cpu, ids


def descriptions(engine: Any, ids: list[int]) -> list[Any]:
    """The execution layer's descriptions of matches ``ids`` as their first attempt was."""
    from sqlalchemy import select

    from api.execution import description
    from ladder.models import Bot, Match, MatchSeat
    from ladder.newmatches import MatchSettings
    from ladder.work import Claim, SeatPlan

    out = []
    with engine.connect() as conn:
        for pk in ids:
            m = conn.execute(select(Match.game, Match.seed, Match.settings)
                             .where(Match.id == pk)).one()
            seats = conn.execute(select(MatchSeat.seat, MatchSeat.bot_id, Bot.name, Bot.url)
                                 .join(Bot, Bot.id == MatchSeat.bot_id)
                                 .where(MatchSeat.match_pk == pk)).all()
            plans = tuple(SeatPlan(s.seat, s.bot_id, s.name, s.url, s.name, 1) for s in seats)
            out.append(description(Claim(pk, 1, m.game, int(m.seed), plans,
                                         MatchSettings.from_json(m.settings), False, "bench",
                                         None)))  # type: ignore[arg-type]
    return out


def play_cpu(described: list[Any], policy: Any) -> float:
    """CPU seconds of this process playing the matches with ``play_match`` alone."""
    from arena import play_match

    cpu = time.process_time()
    for d in described:
        play_match(d, guard=policy.pin)
    return time.process_time() - cpu


def profile(engine: Any, bots: list[int], matches: int, policy: Any) -> None:
    """Run ``matches`` matches through the worker's functions here, under cProfile."""
    from api.config import ServiceConfig
    from api.runner import run_match
    from api.scheduling import after_match

    class Nowhere:
        def enqueue(self, ids: Any) -> None: ...

        def enqueue_checks(self, ids: Any) -> None: ...

    settings = ServiceConfig.from_env()
    run_match(engine, schedule_matches(engine, bots, 2)[0], policy, lease_s=60)  # warm up
    ids = schedule_matches(engine, bots, matches)
    prof = cProfile.Profile(time.process_time)
    cpu = time.process_time()
    prof.enable()
    for pk in ids:
        settings = ServiceConfig.from_env()  # as the Celery task does, each match
        run_match(engine, pk, settings.policy(), lease_s=settings.lease_s,
                  after=after_match(engine, settings.matchmaker(), Nowhere()))
    prof.disable()
    cpu = time.process_time() - cpu
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    play = next((v for k, v in stats.stats.items()  # type: ignore[attr-defined]
                 if k[2] == "play_match"), None)
    play_s = play[3] if play else 0.0
    print(f"{matches} matches in this process: {cpu / matches * 1000:.1f} ms CPU a match, "
          f"play_match {play_s / matches * 1000:.1f} ms of it (profiled CPU, cumulative)")
    stats.sort_stats("cumulative")
    stats.print_callees("run_match")
    stats.print_stats("ladder/|api/(runner|scheduling|execution|live|tasks|config)", 40)
    print(out.getvalue())


def phases(engine: Any, bots: list[int], matches: int) -> None:
    """CPU of each step of a match as the worker runs it, in this process (no Celery):
    claim, play, finish and the tick after, timed around the functions the runner calls."""
    import api.runner as runner
    from api.config import ServiceConfig
    from api.scheduling import after_match

    spent: dict[str, list[float]] = {"claim": [], "play (with live publishing)": [],
                                     "finish": [], "tick after": []}

    def timed(name: str, fn: Any) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            cpu = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[name].append(time.process_time() - cpu)
        return run

    class Nowhere:
        def enqueue(self, ids: Any) -> None: ...

        def enqueue_checks(self, ids: Any) -> None: ...

    from api.execution import play
    saved = runner.claim, runner.finish
    runner.claim, runner.finish = timed("claim", runner.claim), timed("finish", runner.finish)
    try:
        for pk in schedule_matches(engine, bots, matches + 2):
            settings = ServiceConfig.from_env()  # as the Celery task does, each match
            cpu = time.process_time()
            runner.run_match(engine, pk, settings.policy(), lease_s=settings.lease_s,
                             play=timed("play (with live publishing)", play),
                             after=timed("tick after",
                                         after_match(engine, settings.matchmaker(), Nowhere())))
            spent.setdefault("in all", []).append(time.process_time() - cpu)
    finally:
        runner.claim, runner.finish = saved
    print(f"{matches} matches in this process (after 2 to warm up), CPU ms a match, "
          "median [min-max]:")
    for name, values in spent.items():
        print(f"  {name:<28} {spread([v * 1000 for v in values[2:]], '{:.2f}')}")
    own = [(a - p) * 1000 for a, p in zip(spent["in all"][2:],
                                          spent["play (with live publishing)"][2:])]
    print(f"  {'in all but play':<28} {spread(own, '{:.2f}')}")


def spread(values: list[float], fmt: str = "{:.1f}") -> str:
    return (f"{fmt.format(statistics.median(values))} "
            f"[{fmt.format(min(values))}-{fmt.format(max(values))}]")


def report(args: Any, rates: dict[str, list[float]], cpus: dict[str, list[float]]) -> None:
    n = args.matches
    print(f"{n} Tokaido Duo matches per run between two HTTP random bots, "
          f"{args.reps} runs each, alternating (median [min-max])")
    medians = {}
    for name, values in rates.items():
        medians[name] = statistics.median(values)
        print(f"  {name:<24} {spread(values):>22} matches/min, "
              f"{spread([n / c * 60 for c in cpus[name]]):>22} matches per CPU-minute")
    ratios = [w / t for w, t in zip(rates["worker -c 1"], rates["tournament (1 process)"])]
    base, one = medians["tournament (1 process)"], medians["worker -c 1"]
    print(f"  worker -c 1 / tournament, paired runs: {spread(ratios, '{:.2f}')}; service "
          f"overhead per match (wall, medians): {(60 / one - 60 / base) * 1000:+.0f} ms")
    play = cpus["play_match (same matches)"]
    owns = {}
    for name in [name for name in rates if name.startswith("worker")]:
        own = owns[name] = [(w - p) / n * 1000 for w, p in zip(cpus[name], play)]
        per = [w / n * 1000 for w in cpus[name]]
        print(f"  {name}: CPU per match {spread(per)} ms (process tree), play_match alone "
              f"{spread([p / n * 1000 for p in play])} ms; the service's own, paired: "
              f"{spread(own)} ms a match")
    for name in [name for name in rates if name.startswith("worker")]:
        cpm = [t / w for w, t in zip(cpus[name], cpus["tournament (1 process)"])]
        print(f"  matches per CPU-minute, {name} / tournament, paired: {spread(cpm, '{:.2f}')}")
    if args.against:
        gain = [a - b for a, b in zip(owns[f"worker -c 1 ({AGAINST})"], owns["worker -c 1"])]
        print(f"  the service's own CPU a match, {AGAINST} less this tree, paired: "
              f"{spread(gain)} ms")


def rounds(args: Any, engine: Any, bot_ids: list[int], urls: list[str], folder: Path,
           workers: dict[str, tuple[Any, str]], policy: Any
           ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    names = ("tournament (1 process)", *workers)
    rates: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in (*names, "play_match (same matches)")}
    for proc, queue in workers.values():
        worker_run(engine, bot_ids, queue, 2, proc.pid)  # warm up: ready
    for _ in range(args.reps):  # short runs in turn, so a busy moment hits all of them
        rate, cpu = tournament_run(urls, args.matches, folder)
        rates["tournament (1 process)"].append(rate)
        cpus["tournament (1 process)"].append(cpu)
        played: list[int] = []
        for name, (proc, queue) in workers.items():
            rate, cpu, ids = worker_run(engine, bot_ids, queue, args.matches, proc.pid)
            rates[name].append(rate)
            cpus[name].append(cpu)
            played = played or ids
        cpus["play_match (same matches)"].append(play_cpu(descriptions(engine, played), policy))
    return rates, cpus


AGAINST = "against"


def start_workers(args: Any, env: dict[str, str], folder: Path) -> dict[str, tuple[Any, str]]:
    """``worker -c 1`` and ``-c 2`` of this tree, and ``-c 1`` of ``--against``'s (run
    from that folder, so that its code is the one imported); all stay up, idle they cost
    little."""
    import subprocess
    import sys

    workers = {}
    for concurrency in (1, 2):
        queue = f"bench-{secrets.token_hex(4)}"
        workers[f"worker -c {concurrency}"] = (start(
            ["worker", "-c", str(concurrency), "-l", "warning"],
            {**env, "REFEREE_QUEUE": queue}, folder / f"worker{concurrency}.log"), queue)
    if args.against:
        queue = f"bench-{secrets.token_hex(4)}"
        tree = str(Path(args.against).resolve())
        proc = subprocess.Popen(
            [sys.executable, "-c", "from cli import main; main()", "worker", "-c", "1", "-l",
             "warning"], cwd=tree, start_new_session=True, stderr=subprocess.STDOUT,
            stdout=open(folder / "against.log", "wb"),
            env={**os.environ, **env, "REFEREE_QUEUE": queue, "PYTHONPATH": tree})
        workers[f"worker -c 1 ({AGAINST})"] = (proc, queue)
    return workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=10, help="per run (even)")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--ladder", type=int, default=63,
                        help="bots on a busy ladder beside the bench's (0: none)")
    parser.add_argument("--against", metavar="DIR",
                        help="another checkout (the code before a change): its worker -c 1 "
                             "takes its turn in every round too")
    parser.add_argument("--phases", type=int, default=0,
                        help="time each step of this many matches in this process instead")
    parser.add_argument("--profile", type=int, default=0,
                        help="profile this many matches in this process instead")
    args = parser.parse_args()
    from api.config import ServiceConfig
    from ladder.store import open_db

    folder = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    pg_url, drop = pg_schema()
    bots_procs = [start_bot(GAME, seed) for seed in (1, 2)]
    urls = [url for _, url in bots_procs]
    engine = None
    base_env = {"REFEREE_DB": pg_url, "REFEREE_BROKER": REDIS,
                "REFEREE_ALLOW_NETWORKS": "127.0.0.0/8"}
    os.environ.update(base_env)
    policy = ServiceConfig.from_env().policy()
    try:
        migrate(pg_url)
        engine = open_db(pg_url)
        bot_ids = setup_bots(engine, urls)
        if args.ladder:
            playing = busy_ladder(engine, args.ladder, DEPTH, bot_ids)
            print(f"a Tokaido Duo ladder of {args.ladder} more bots and the bench's, {playing} "
                  f"of its matches in play elsewhere: each tick after a match reads it and "
                  f"changes nothing")
        if args.phases:
            os.environ["REFEREE_QUEUE"] = f"bench-{secrets.token_hex(4)}"
            phases(engine, bot_ids, args.phases)
            return
        if args.profile:
            os.environ["REFEREE_QUEUE"] = f"bench-{secrets.token_hex(4)}"
            profile(engine, bot_ids, args.profile, policy)
            return
        workers = start_workers(args, base_env, folder)
        try:
            rates, cpus = rounds(args, engine, bot_ids, urls, folder, workers, policy)
        finally:
            for proc, _ in workers.values():
                stop(proc)
        report(args, rates, cpus)
    finally:
        if engine is not None:
            engine.dispose()
        for proc, _ in bots_procs:
            proc.terminate()
            proc.wait()
        drop()
        for name in (*base_env, "REFEREE_QUEUE"):
            os.environ.pop(name, None)


if __name__ == "__main__":
    main()
