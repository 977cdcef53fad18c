"""CPU per decision: the referee's HTTP bots against kaggle-environments' URL agents (optional).

Both sides orchestrate two-player games whose players are HTTP bots in another process that
choose uniformly at random, served the same way (a WSGI app behind waitress):

- the referee: Tokaido Duo, the built-in ``random`` bot behind ``bots.server``;
- kaggle-environments: ConnectX with URL agents (``env.run([url, url])``), the bot a small WSGI
  app that answers kaggle's ``act`` requests with a random legal column.

The figure is the CPU time of the orchestrating side per decision, the bots' own work left
out: this process for the referee; for kaggle-environments this process and the worker
processes it forks to call URL agents (its design: a process pool whenever every agent is a
URL; one environment is reused, so the pool starts once).  Rounds alternate a referee match and
a kaggle episode; the ratio of each round, median and range.  Issue 15 asks that the referee
stay at least 20 times cheaper per decision as its API grows.

kaggle-environments is not a dependency of this project, and its install is heavy (it pulls in
jax, transformers, open_spiel and more, about 1.6 GB), so use a throwaway environment:

    python -m venv ../kaggle-venv
    ../kaggle-venv/bin/pip install kaggle-environments psutil .
    ../kaggle-venv/bin/python bench/kaggle_url_agents.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    import psutil
    from kaggle_environments import __version__ as kaggle_version
    from kaggle_environments import make
except ImportError as exc:
    sys.exit(f"this comparison needs kaggle-environments and psutil ({exc.name} is missing); "
             "they are not dependencies of the project: see the top of this script for how to "
             "install them in a throwaway environment")

from referee.games import find_game  # noqa: E402
from referee.match import Runner, TimeControl  # noqa: E402
from referee.transport import HttpPlayer  # noqa: E402

REFEREE_BOT = (
    "import sys; from bots.server import BotApp, BotServer; "
    "s = BotServer(BotApp('random', 'tokaido-duo', seed=1), port=0, threads=8); "
    "print(s.url, flush=True); s.serve_forever()"
)
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


def start(code: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    if proc.stdout is None:
        sys.exit("a bot server did not start")
    return proc, proc.stdout.readline().strip()


def tree_cpu(skip: set[int]) -> float:
    """CPU seconds of this process and its descendants, less the ``skip`` ones (the bots)."""
    me = psutil.Process()
    total = sum(me.cpu_times()[:2])
    for child in me.children(recursive=True):
        if child.pid not in skip:
            try:
                total += sum(child.cpu_times()[:2])
            except psutil.NoSuchProcess:
                pass
    return total


def referee_match(url: str, seed: int) -> Callable[[], int]:
    game = find_game("tokaido-duo")
    board = game.load_board()

    def play() -> int:
        players = [HttpPlayer(name=f"seat{i}", url=url) for i in range(2)]
        try:
            record = Runner(game, players, seed, board=board, time_control=TimeControl(1000),
                            match_id=f"kaggle-bench-{seed}-{time.monotonic_ns()}").run()
        finally:
            for p in players:
                p.close()
        if record.log["faults"]:
            sys.exit(f"faults in a referee match: {record.log['faults'][:3]}")
        return len(record.log["decisions"])
    return play


def kaggle_episode(url: str) -> tuple[Callable[[], int], Any]:
    env = make("connectx")

    def play() -> int:
        steps = env.run([url, url])
        if any(agent["status"] not in ("DONE", "INACTIVE") for agent in steps[-1]):
            sys.exit(f"a kaggle episode ended badly: {[a['status'] for a in steps[-1]]}")
        return sum(1 for step in steps[:-1] for agent in step if agent["status"] == "ACTIVE")
    return play, env


def per_decision(play: Callable[[], int], skip: set[int]) -> tuple[float, float]:
    """CPU and wall microseconds per decision of one game."""
    cpu, wall = tree_cpu(skip), time.perf_counter()
    decisions = play()
    return ((tree_cpu(skip) - cpu) / decisions * 1e6,
            (time.perf_counter() - wall) / decisions * 1e6)


def spread(values: list[float], fmt: str = ".0f") -> str:
    return (f"{statistics.median(values):{fmt}} median "
            f"({min(values):{fmt}}-{max(values):{fmt}}, n={len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    referee_bot, referee_url = start(REFEREE_BOT)
    kaggle_bot, kaggle_url = start(KAGGLE_BOT)
    bots = {referee_bot.pid, kaggle_bot.pid}
    env = None
    try:
        ours = referee_match(referee_url, seed=7)
        theirs, env = kaggle_episode(kaggle_url)
        ours()
        theirs()  # warm up: imports, connections, kaggle's worker pool
        results: dict[str, list[tuple[float, float]]] = {"referee": [], "kaggle": []}
        for _ in range(args.rounds):
            results["referee"].append(per_decision(ours, bots))
            results["kaggle"].append(per_decision(theirs, bots))
        print(f"CPU of the orchestrating side per decision, {args.rounds} rounds, alternating; "
              f"bots in their own processes")
        for name, label in (("referee", "referee, Tokaido Duo over HTTP"),
                            ("kaggle", f"kaggle-environments {kaggle_version}, ConnectX, "
                                       "URL agents")):
            print(f"  {label}: CPU {spread([c for c, _ in results[name]])} us/decision, "
                  f"wall {spread([w for _, w in results[name]])} us/decision")
        ratios = [k[0] / r[0] for r, k in zip(results["referee"], results["kaggle"])]
        print(f"  kaggle / referee, CPU per decision: {spread(ratios, '.1f')}x per round "
              f"(target: at least 20)")
    finally:
        if env is not None and getattr(env, "pool", None) is not None:
            env.pool.terminate()
        for proc in (referee_bot, kaggle_bot):
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
