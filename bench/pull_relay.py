"""What pull mode costs a decision, in the production layout, against the same bot in push mode.

The layout: ``referee serve --broker redis://…`` (gunicorn, its own processes) holds the pull
bot's connection, ``referee bot connect`` (its own process) bridges the bot, and this process
plays the matches as a Celery worker would, its pull seat asked through the Redis relay. The
bot is the built-in ``random`` behind a loopback server of its own (a process), the same one the
push seat calls directly. Rounds alternate the arms:

- push: seat 0 is the bot at its URL (``HttpPlayer``);
- pull: seat 0 is the same bot as a pull bot (``RelayPlayer`` → Redis → the web process → the
  bridge's poll → the bot, and back through an answer POST).

Seat 1 is the bot at its URL in both. The figure is the wall time of seat 0's ``/decide`` as
the match sees it: median and 95th percentile per arm, and the relay's added median (target,
issue 25: at most 5 ms on loopback): the median over rounds of (the pull arm's median minus
the push arm's) in the same round, the arms alternating so that a busy machine weighs on both.
Wall times move with the machine's load; the CPU time the web server's processes (and the
bridge's) spent per pull decision does much less: it is read from ``/proc`` for their whole
process group over the pull arm's matches (``/start`` and ``/end`` included in the cost, the
decisions only in the count). Then ``--concurrent`` pull matches at once: the decisions per
second the one web process (``--web-workers`` gunicorn processes) relays.

Usage: python bench/pull_relay.py [--game tokaido-duo] [--rounds 5] [--concurrent 8]
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests
from service_support import (
    REDIS, free_port, group_cpu, percentile, sqlite_url, start, start_bot, stop, wait_http,
)

from referee.games import find_game
from referee.match import Runner, TimeControl
from referee.players import Player
from referee.pull_player import RelayPlayer
from referee.transport import HttpPlayer


def timed(player: Player, into: list[float]) -> Player:
    """``player`` with the wall time of each ``decide`` appended to ``into`` (ms)."""
    decide = player.decide

    def timing(request: Any) -> Any:
        began = time.perf_counter()
        answer = decide(request)
        into.append((time.perf_counter() - began) * 1000)
        return answer

    player.decide = timing  # type: ignore[method-assign]
    return player


def play(game: str, first: Player, bot_url: str, seed: int) -> int:
    """One match, ``first`` in seat 0 and the bot at its URL in seat 1; its decisions."""
    g = find_game(game)
    players = [first, HttpPlayer(name="push", url=bot_url)]
    try:
        record = Runner(g, players, seed, board=g.load_board(), time_control=TimeControl(1000),
                        match_id=f"bench-{secrets.token_hex(6)}").run()
    finally:
        for p in players:
            p.close()
    if record.log["faults"]:
        raise SystemExit(f"faults in a bench match: {record.log['faults'][:3]}")
    return len(record.log["decisions"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="tokaido-duo")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matches", type=int, default=2, help="matches per arm per round")
    parser.add_argument("--concurrent", type=int, default=8)
    parser.add_argument("--web-workers", type=int, default=1)
    args = parser.parse_args()
    from ladder.relay_redis import RedisRelay

    queue = f"bench-{secrets.token_hex(4)}"
    port, logs = free_port(), Path(tempfile.mkdtemp(prefix="referee-pull-bench-"))
    base = f"http://127.0.0.1:{port}"
    env = {"REFEREE_DB": sqlite_url(), "REFEREE_ALLOW_NETWORKS": "127.0.0.0/8",
           "REFEREE_RATELIMIT": "0", "REFEREE_QUEUE": queue}
    bot, bot_url = start_bot(args.game, 1)
    web = start(["serve", "--port", str(port), "--broker", REDIS, "--workers",
                 str(args.web_workers), "--threads", "32"], env, logs / "web.log")
    bridge = None
    try:
        wait_http(base + "/api/v1/healthz")
        token = requests.post(base + "/api/v1/owners", json={"name": "bench"},
                              timeout=10).json()["token"]
        made = requests.post(base + "/api/v1/bots", headers={"Authorization": f"Bearer {token}"},
                             json={"name": "laptop", "mode": "pull", "games": [args.game],
                                   "ladder": False}, timeout=10)
        if made.status_code != 201:
            raise SystemExit(f"registering the pull bot: {made.status_code} {made.text}")
        bot_id = str(made.json()["id"])
        bridge = start(["bot", "connect", base, "--token", token, "--as", "laptop", bot_url],
                       {}, logs / "bridge.log")
        bridge_pid = bridge.pid
        relay = RedisRelay(REDIS, prefix=f"referee:{queue}:pull")
        give_up = time.monotonic() + 60
        while not relay.connected(bot_id):
            if time.monotonic() > give_up:
                raise SystemExit(f"the bridge did not connect: see {logs / 'bridge.log'}")
            time.sleep(0.1)

        def pull_player() -> Player:
            return RelayPlayer(name="pull", relay=relay, bot=bot_id)

        arms = {"push": lambda: HttpPlayer(name="push", url=bot_url), "pull": pull_player}
        times: dict[str, list[float]] = {"push": [], "pull": []}
        medians: dict[str, list[float]] = {"push": [], "pull": []}
        cpu = {"web": 0.0, "bridge": 0.0}
        play(args.game, pull_player(), bot_url, 0)  # warm-up (imports, connections)
        for rnd in range(args.rounds):
            for arm in (("push", "pull") if rnd % 2 == 0 else ("pull", "push")):
                got: list[float] = []
                before = group_cpu(web.pid), group_cpu(bridge_pid)
                for m in range(args.matches):
                    play(args.game, timed(arms[arm](), got), bot_url, rnd * 100 + m)
                if arm == "pull":
                    cpu["web"] += group_cpu(web.pid) - before[0]
                    cpu["bridge"] += group_cpu(bridge_pid) - before[1]
                times[arm] += got
                medians[arm].append(statistics.median(got))
        for arm in ("push", "pull"):
            print(f"{arm}: /decide median {statistics.median(times[arm]):.2f} ms, "
                  f"p95 {percentile(times[arm], 95):.2f} ms ({len(times[arm])} decisions)")
        added = sorted(pl - pu for pl, pu in zip(medians["pull"], medians["push"]))
        print(f"relay's added median per decision, paired rounds: "
              f"{statistics.median(added):.2f} ms (rounds: "
              f"{', '.join(f'{a:.2f}' for a in added)})")
        decisions = len(times["pull"])
        print(f"CPU per pull decision: web server {cpu['web'] * 1000 / decisions:.2f} ms, "
              f"bridge {cpu['bridge'] * 1000 / decisions:.2f} ms (over {decisions} decisions)")

        relayed: list[float] = []  # list.append is atomic: the threads share it
        web_before = group_cpu(web.pid)
        began = time.perf_counter()
        with ThreadPoolExecutor(args.concurrent) as pool:
            list(pool.map(lambda s: play(args.game, timed(pull_player(), relayed), bot_url, s),
                          range(args.concurrent * 2)))
        seconds = time.perf_counter() - began
        web_ms = (group_cpu(web.pid) - web_before) * 1000 / len(relayed)
        print(f"{args.concurrent} pull matches at once: {len(relayed) / seconds:.0f} pull "
              f"decisions per second relayed by {args.web_workers} web process(es), /decide "
              f"median {statistics.median(relayed):.2f} ms, web server CPU {web_ms:.2f} ms "
              "per decision")
    finally:
        if bridge is not None:
            stop(bridge)
        stop(web)
        bot.terminate()
        bot.wait()


if __name__ == "__main__":
    sys.exit(main())
