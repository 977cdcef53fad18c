"""The referee's own cost per HTTP decision, and its throughput with many matches at once.

1. Overhead ratio: one match whose seats are all HTTP bots (the built-in ``random`` behind
   waitress, in a separate process so that it does not share the referee's GIL), timed; then a
   bare loop of keep-alive ``requests`` POSTs of exactly the same bodies (``/start``, every
   ``/decide``, ``/end``) to the same server, timed. The ratio of the two is what the runner,
   the engine, the worker-thread deadline machinery and message building add on top of the
   HTTP round trips themselves. Aim: at most 1.2.
2. Throughput: decisions per second across ``--concurrent`` matches played at once.

Usage: python bench/http_overhead.py [--game doubletrack] [--reps 5] [--concurrent 16]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import requests

from referee.games import find_game
from referee.match import Runner, TimeControl
from referee.transport import HEADERS, HttpPlayer, Transport, new_session

SERVER = (
    "import sys; from bots.server import BotApp, BotServer; "
    "s = BotServer(BotApp('random', sys.argv[1], seed=1, per_match=False), port=0, threads=64); "
    "print(s.url, flush=True); s.serve_forever()"
)


def start_server(game: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", SERVER, game], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


_BOARDS: dict[str, Any] = {}


def board_of(game: Any) -> Any:
    if game.name not in _BOARDS:
        _BOARDS[game.name] = game.load_board()
    return _BOARDS[game.name]


def play_once(game: Any, url: str, seed: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of one all-HTTP match, and the number of decisions in it."""
    seats = min(n for n in game.player_counts if n >= 2)  # solo modes need options
    players = [HttpPlayer(name=f"seat{i}", url=url) for i in range(seats)]
    try:
        runner = Runner(game, players, seed, board=board_of(game),
                        time_control=TimeControl(1000), match_id=f"bench-{seed}")
        began, cpu = time.perf_counter(), time.process_time()  # board read outside the timing
        record = runner.run()
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    finally:
        for p in players:
            p.close()
    assert not record.log["faults"], record.log["faults"]
    return seconds, cpu, len(record.log["decisions"])


def capture_bodies(game: Any, url: str, seed: int) -> list[tuple[str, bytes]]:
    """Every (path, body) the referee sends in that match, in order."""
    sent: list[tuple[str, bytes]] = []
    original = Transport.call

    def recording(self: Transport, method: str, path: str, body: bytes | None,
                  budget_ms: float) -> Any:
        sent.append((path, body or b""))
        return original(self, method, path, body, budget_ms)

    Transport.call = recording  # type: ignore[method-assign]
    try:
        play_once(game, url, seed)
    finally:
        Transport.call = original  # type: ignore[method-assign]
    return sent


def plain_loop(url: str, bodies: list[tuple[str, bytes]]) -> tuple[float, float]:
    """Seconds to POST the same bodies with one keep-alive session, reading ``.content``:
    the everyday ``requests`` loop the issue names as the baseline."""
    session: requests.Session = new_session()
    began, cpu = time.perf_counter(), time.process_time()
    for path, body in bodies:
        response = session.post(url + path, data=body, headers=HEADERS, allow_redirects=False)
        response.content  # noqa: B018
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    session.close()
    return seconds, cpu


def bare_loop(url: str, bodies: list[tuple[str, bytes]]) -> tuple[float, float]:
    """Seconds to POST the same bodies with one keep-alive session and read each answer.

    The body is read the way the referee reads it (``raw.read1``, then the connection goes
    back to the pool): a stricter baseline than ``response.content``, whose layers cost more,
    so that the ratio isolates what the referee adds (engine, views, JSON, deadline threads).
    """
    session: requests.Session = new_session()
    began, cpu = time.perf_counter(), time.process_time()
    for path, body in bodies:
        response = session.post(url + path, data=body, headers=HEADERS, allow_redirects=False,
                                stream=True)
        while response.raw.read1(65537, decode_content=False):
            pass
        response.raw.release_conn()
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    session.close()
    return seconds, cpu


def throughput(game: Any, url: str, concurrent: int, seed: int) -> tuple[float, int]:
    """Decisions per second with ``concurrent`` matches at once, and the decisions played."""
    counts: list[int] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        _, _, n = play_once(game, url, seed)
        with lock:
            counts.append(n)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(concurrent)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - began
    return sum(counts) / seconds, sum(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="doubletrack")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--concurrent", type=int, default=16)
    args = parser.parse_args()
    game = find_game(args.game)
    proc, url = start_server(args.game)
    try:
        play_once(game, url, args.seed)  # warm up both sides
        bodies = capture_bodies(game, url, args.seed)
        match_t, bare_t, plain_t = [], [], []
        for _ in range(args.reps):  # interleaved, so that drift hits all alike
            wall, cpu, decisions = play_once(game, url, args.seed)
            match_t.append((wall, cpu))
            bare_t.append(bare_loop(url, bodies))
            plain_t.append(plain_loop(url, bodies))
        calls = len(bodies)
        print(f"{args.game}: {decisions} decisions, {calls} HTTP calls per match, "
              f"best of {args.reps} (wall; CPU of the referee's process)")
        # The minimum is the estimate least disturbed by other load on the machine (noise only
        # ever adds time); the median ratio is printed too, to show how noisy the run was.
        m, p, b = (min(t[0] for t in ts) for ts in (match_t, plain_t, bare_t))
        mc, pc, bc = (min(t[1] for t in ts) for ts in (match_t, plain_t, bare_t))
        for label, wall, cpu, note in (("match over HTTP", m, mc, ""),
                                       ("requests loop", p, pc, "POST, .content"),
                                       ("bare POST loop", b, bc, "POST, raw.read1 as the referee")):
            print(f"  {label:<16} {wall * 1000:7.1f} ms  {wall / calls * 1e6:5.0f} us/call wall"
                  f"  {cpu / calls * 1e6:5.0f} us/call CPU  {note}")
        med = statistics.median
        print(f"  overhead ratio   {m / p:7.2f}  vs the requests loop (aim: <= 1.2; ratio of "
              f"medians {med(t[0] for t in match_t) / med(t[0] for t in plain_t):.2f})")
        print(f"  overhead ratio   {m / b:7.2f}  vs the bare loop")
        print(f"  referee's own CPU per call: {(mc - bc) / calls * 1e6:.0f} us "
              f"(engine, views, JSON, deadline threads)")
        rate, total = throughput(game, url, args.concurrent, args.seed)
        print(f"  {args.concurrent} concurrent matches: {total} decisions, {rate:,.0f} decisions/s")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
