"""CPU per decision: the referee's HTTP bots against kaggle-environments' URL agents (optional).

Both sides orchestrate two-player games whose players are HTTP bots in another process that
choose uniformly at random, served the same way (a WSGI app behind waitress):

- the referee: Tokaido Duo, the built-in ``random`` bot behind ``bots.server``;
- kaggle-environments: ConnectX with URL agents (``env.run([url, url])``), the bot a small WSGI
  app that answers kaggle's ``act`` requests with a random legal column.

The figures are CPU time of the orchestrating side per decision, the bots' own work left
out: this process for the referee; for kaggle-environments this process and the worker
processes it forks to call URL agents (its design: a process pool whenever every agent is a
URL; one environment is reused, so the pool starts once).  Two figures per side:

- total: everything the orchestrating side spends per decision;
- own share: the total less a bare ``requests`` loop sending the same requests the side's own
  way (the referee: its recorded bodies, prepared once and sent on a keep-alive session per
  seat, as ``transport.send`` does, from ``http_overhead.py``; kaggle: ``requests.post`` of its
  ``act`` body, a new connection per call, as its ``UrlAgent`` does).  This is the overhead a
  framework adds to the HTTP client it chose: the engine, the views, the checks, the clock.

Rounds alternate the four arms (referee match, referee loop, kaggle episode, kaggle loop) in a
rotating order; the ratios are kaggle / referee per round, median and range.  Issue 15 asks
that the referee's per-decision overhead stay at least 20 times lower as its API grows.

kaggle-environments is not a dependency of this project, and its install is heavy (it pulls in
jax, transformers, open_spiel and more, about 1.6 GB), so use a throwaway environment:

    python -m venv ../kaggle-venv
    ../kaggle-venv/bin/pip install kaggle-environments psutil .
    ../kaggle-venv/bin/python bench/kaggle_url_agents.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

try:
    import psutil
    import requests
    from kaggle_environments import __version__ as kaggle_version, make
except ImportError as exc:
    sys.exit(f"this comparison needs kaggle-environments and psutil ({exc.name} is missing); "
             "they are not dependencies of the project: see the top of this script for how to "
             "install them in a throwaway environment")

from http_overhead import (  # noqa: E402
    Match, exchange_like_the_referee, loop, match_id, play_once, record_requests, start_server,
    with_id,
)

from referee.games import find_game  # noqa: E402
from referee.transport import new_session  # noqa: E402

KAGGLE_BOT = """
import json, random
from waitress import create_server
rng = random.Random(1)
def app(environ, start_response):
    size = int(environ.get("CONTENT_LENGTH") or 0)
    request = json.loads(environ["wsgi.input"].read(size))
    board, columns = request["state"]["observation"]["board"], request["configuration"]["columns"]
    body = json.dumps({"action": rng.choice([c for c in range(columns) if board[c] == 0])}).encode()
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", str(len(body)))])
    return [body]
server = create_server(app, host="127.0.0.1", port=0, threads=8)
print(f"http://127.0.0.1:{server.effective_port}", flush=True)
server.run()
"""

EPISODES = 3
"""Kaggle episodes per round (a ConnectX episode is some 20-40 decisions: one alone is too short
for the workers' CPU clock, which ticks every 10 ms)."""

Arm = Callable[[int], tuple[float, int]]
"""One round of an arm: CPU seconds (this process and its workers, the bots left out) and the
number of decisions (or calls) it made."""


def start(code: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    if proc.stdout is None:
        sys.exit("a bot server did not start")
    return proc, proc.stdout.readline().strip()


def tree_cpu(skip: set[int]) -> float:
    """CPU seconds of this process (to the microsecond) and its descendants (to the clock tick,
    10 ms), less the ``skip`` ones (the bots)."""
    total = time.process_time()
    for child in psutil.Process().children(recursive=True):
        if child.pid not in skip:
            try:
                total += sum(child.cpu_times()[:2])
            except psutil.NoSuchProcess:
                pass
    return total


def referee_arms(url: str, skip: set[int]) -> tuple[Arm, Arm]:
    """A Tokaido Duo match over HTTP, and the same requests sent bare the referee's way."""
    game = find_game("tokaido-duo")
    match = Match(game, game.load_board(), 2, url, seed=7)
    play_once(match, match_id("kwarm", 0))
    recorded = match_id("krec", 0)
    groups = record_requests(match, recorded)
    decisions = play_once(match, match_id("kcount", 0))[2]

    def play(n: int) -> tuple[float, int]:
        cpu = tree_cpu(skip)
        played = play_once(match, match_id("kmatch", n))[2]
        return tree_cpu(skip) - cpu, played

    def bare(n: int) -> tuple[float, int]:
        renamed = with_id(groups, recorded, match_id("kloop", n))
        cpu = tree_cpu(skip)
        loop(url, renamed, 2, new_session, exchange_like_the_referee)
        return tree_cpu(skip) - cpu, decisions
    return play, bare


def kaggle_arms(url: str, skip: set[int]) -> tuple[Arm, Arm, Any]:
    """A ConnectX episode with two URL agents, and as many ``act`` posts sent bare kaggle's way."""
    env = make("connectx")
    env.reset()
    act = json.dumps({"action": "act", "configuration": env.configuration,
                      "environment": "connectx",
                      "state": {"observation": env.state[0].observation}})
    timeout = float(env.configuration.actTimeout) + 1
    last = [0]

    def play(_: int) -> tuple[float, int]:
        cpu, decisions = tree_cpu(skip), 0
        for _ in range(EPISODES):
            steps = env.run([url, url])
            if any(agent["status"] not in ("DONE", "INACTIVE") for agent in steps[-1]):
                sys.exit(f"a kaggle episode ended badly: {[a['status'] for a in steps[-1]]}")
            decisions += sum(1 for step in steps[:-1] for agent in step
                             if agent["status"] == "ACTIVE")
        last[0] = decisions
        return tree_cpu(skip) - cpu, decisions

    def bare(_: int) -> tuple[float, int]:
        calls = last[0] or 100
        cpu = tree_cpu(skip)
        for _ in range(calls):
            requests.post(url=url, data=act, timeout=timeout).json()
        return tree_cpu(skip) - cpu, calls
    return play, bare, env


def spread(values: list[float], fmt: str = ".0f") -> str:
    return (f"{statistics.median(values):{fmt}} median "
            f"({min(values):{fmt}}-{max(values):{fmt}}, n={len(values)})")


def report(results: dict[str, list[tuple[float, int]]], rounds: int) -> None:
    per = {name: [cpu / n * 1e6 for cpu, n in runs] for name, runs in results.items()}
    own = {side: [total - bare for total, bare in zip(per[side], per[f"{side} bare"])]
           for side in ("referee", "kaggle")}
    print(f"CPU of the orchestrating side per decision (us), {rounds} rounds, arms in rotating "
          "order; bots in their own processes")
    for side, label in (("referee", "referee, Tokaido Duo over HTTP"),
                        ("kaggle", f"kaggle-environments {kaggle_version}, ConnectX, URL agents")):
        print(f"  {label}:")
        print(f"    total      {spread(per[side])}")
        print(f"    bare loop  {spread(per[side + ' bare'])}  (the same requests, its own way)")
        print(f"    own share  {spread(own[side])}  (total less the bare loop, per round)")
    totals = [k / r for r, k in zip(per["referee"], per["kaggle"])]
    print(f"  kaggle / referee, total: {spread(totals, '.1f')}x per round")
    if min(own["referee"]) > 0:
        shares = [k / r for r, k in zip(own["referee"], own["kaggle"])]
        print(f"  kaggle / referee, own share: {spread(shares, '.1f')}x per round "
              "(target: at least 20)")
    else:
        ratio = statistics.median(own["kaggle"]) / max(statistics.median(own["referee"]), 1e-9)
        print(f"  kaggle / referee, own share: the referee's is within the noise of its bare loop "
              f"in some rounds; ratio of the medians {ratio:.0f}x (target: at least 20)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    referee_bot, referee_url = start_server("tokaido-duo")
    kaggle_bot, kaggle_url = start(KAGGLE_BOT)
    bots = {referee_bot.pid, kaggle_bot.pid}
    env = None
    try:
        ours, ours_bare = referee_arms(referee_url, bots)
        theirs, theirs_bare, env = kaggle_arms(kaggle_url, bots)
        theirs(0)
        theirs_bare(0)  # warm up: imports, connections, kaggle's worker pool
        arms: dict[str, Arm] = {"referee": ours, "referee bare": ours_bare,
                                "kaggle": theirs, "kaggle bare": theirs_bare}
        order = list(arms)
        results: dict[str, list[tuple[float, int]]] = {name: [] for name in arms}
        for n in range(1, args.rounds + 1):
            shift = n % len(order)
            for name in order[shift:] + order[:shift]:
                results[name].append(arms[name](n))
        report(results, args.rounds)
    finally:
        if env is not None and getattr(env, "pool", None) is not None:
            env.pool.terminate()
        for proc in (referee_bot, kaggle_bot):
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
