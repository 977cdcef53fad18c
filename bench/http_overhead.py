"""The referee's own CPU per HTTP decision, against bare ``requests`` loops sending the same bodies.

1. Overhead: one match whose seats are all HTTP bots (the built-in ``random`` behind waitress,
   in a separate process so that it does not share the referee's GIL or CPU clock), against
   three loops that send exactly the same requests (``/start``, every ``/decide``, ``/end``; the
   bodies the referee sent, recorded once) to the same server:

   - tuned: the referee's own session settings (``transport.new_session``: keep-alive, one
     connection per seat, proxy lookup off) and its way of reading (``raw.read1``);
   - plain: a default ``requests.Session()`` (proxy lookup from the environment on every call)
     reading ``response.content``, the everyday loop;
   - exchange: the referee's own way of sending (a request prepared once per seat and path,
     sent on the session's adapter: ``transport.send``): against it, the ratio is the
     referee's own share alone (the engine, the view's JSON, the answer's parsing, the clock).

   Both loops send what the referee sends at once the same way: the ``/start`` and ``/end`` of
   all seats, and the sealed bids of a simultaneous decision, concurrently from a thread pool
   with one session per seat; a lone decision inline.  Every round uses a new match id (the
   recorded bodies get it too), and the arms run in a rotating order.  The figures are
   CPU seconds of this process per decision (the bot server's work is not counted), and the
   ratio of the match to each loop per round: median and range.  Target (issue 15): at most
   1.10 against the tuned loop (``requests`` keep-alive with the referee's settings).
2. Throughput: decisions per second with ``--concurrent`` matches at once (wall clock).

Usage: python bench/http_overhead.py [--game doubletrack] [--seats N] [--reps 9] [--concurrent 16]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import requests

from referee.core import Game
from referee.games import find_game
from referee.match import Runner, TimeControl
from referee.transport import HEADERS, HttpPlayer, Transport, new_session, send, with_body

SERVER = (
    "import sys; from bots.server import BotApp, BotServer; "
    "s = BotServer(BotApp('random', sys.argv[1], seed=1, per_match=False), port=0, threads=64); "
    "print(s.url, flush=True); s.serve_forever()"
)
ID_WIDTH = 20
"""Match ids all have this length, so that recorded bodies can take another id in place."""


def start_server(game: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", SERVER, game], stdout=subprocess.PIPE, text=True)
    if proc.stdout is None:
        raise SystemExit("the bot server did not start")
    return proc, proc.stdout.readline().strip()


def match_id(kind: str, number: int) -> str:
    return f"bench-{kind}-{number}".ljust(ID_WIDTH, "x")


@dataclass(frozen=True)
class Match:
    game: Game
    board: Any
    seats: int
    url: str
    seed: int


def play_once(match: Match, mid: str) -> tuple[float, float, int]:
    """Wall and CPU seconds of one all-HTTP match, and the number of decisions in it."""
    players = [HttpPlayer(name=f"seat{i}", url=match.url) for i in range(match.seats)]
    try:
        runner = Runner(match.game, players, match.seed, board=match.board,
                        time_control=TimeControl(1000), match_id=mid)
        began, cpu = time.perf_counter(), time.process_time()
        record = runner.run()
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    finally:
        for p in players:
            p.close()
    if record.log["faults"]:
        raise SystemExit(f"faults in a bench match: {record.log['faults'][:3]}")
    return seconds, cpu, len(record.log["decisions"])


Group = list[tuple[int, str, bytes]]
"""Requests the referee sends at once: (seat, path, body)."""


def record_requests(match: Match, mid: str) -> list[Group]:
    """Every request of one match, in order, grouped as the referee sends them."""
    sent: list[tuple[Transport, str, bytes]] = []
    lock = threading.Lock()
    original = Transport.call

    def recording(self: Transport, method: str, path: str, body: bytes | None,
                  budget_ms: float) -> Any:
        with lock:
            sent.append((self, path, body or b""))
        return original(self, method, path, body, budget_ms)

    Transport.call = recording  # type: ignore[method-assign]
    try:
        play_once(match, mid)
    finally:
        Transport.call = original  # type: ignore[method-assign]
    seat_of = {id(t): json.loads(b)["seat"] for t, p, b in sent if p == "/start"}
    groups: dict[str, Group] = {}
    for transport, path, body in sent:
        step = json.loads(body)["request_id"].rsplit(":", 2)[1] if path == "/decide" else path
        groups.setdefault(step, []).append((seat_of[id(transport)], path, body))
    return list(groups.values())


def with_id(groups: list[Group], old: str, new: str) -> list[Group]:
    before, after = old.encode(), new.encode()
    return [[(s, p, b.replace(before, after)) for s, p, b in group] for group in groups]


def read_like_the_referee(session: requests.Session, url: str, body: bytes) -> None:
    response = session.post(url, data=body, stream=True, allow_redirects=False)
    while response.raw.read1(65537, decode_content=False):
        pass
    response.raw.release_conn()


_TEMPLATES: dict[tuple[int, str], Any] = {}


def exchange_like_the_referee(session: requests.Session, url: str, body: bytes) -> None:
    """Exactly the referee's exchange: a request prepared once per session and URL, sent on
    the adapter (``transport.send``), read with ``raw.read1``."""
    template = _TEMPLATES.get((id(session), url))
    if template is None:
        template = _TEMPLATES[(id(session), url)] = session.prepare_request(
            requests.Request("POST", url))
    response = send(session, with_body(template, body), (1.0, 10.0))
    while response.raw.read1(65537, decode_content=False):
        pass
    response.raw.release_conn()


def read_plainly(session: requests.Session, url: str, body: bytes) -> None:
    session.post(url, data=body, headers=HEADERS).content  # noqa: B018


def plain_session() -> requests.Session:
    return requests.Session()


def loop(url: str, groups: list[Group], seats: int, make: Callable[[], requests.Session],
         send: Callable[[requests.Session, str, bytes], None]) -> tuple[float, float]:
    """Wall and CPU seconds to send ``groups`` with one keep-alive session per seat."""
    sessions = [make() for _ in range(seats)]
    pool = ThreadPoolExecutor(max_workers=seats)
    began, cpu = time.perf_counter(), time.process_time()
    for group in groups:
        if len(group) == 1:
            seat, path, body = group[0]
            send(sessions[seat], url + path, body)
        else:
            for future in [pool.submit(send, sessions[s], url + p, b) for s, p, b in group]:
                future.result()
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    pool.shutdown()
    for session in sessions:
        session.close()
    return seconds, cpu


def spread(values: list[float], fmt: str = ".2f") -> str:
    return (f"{statistics.median(values):{fmt}} median "
            f"({min(values):{fmt}}-{max(values):{fmt}}, n={len(values)})")


def overhead(match: Match, reps: int) -> None:
    play_once(match, match_id("warm", 0))  # warm up both sides
    recorded_id = match_id("rec", 0)
    groups = record_requests(match, recorded_id)
    calls = sum(len(g) for g in groups)
    arms: dict[str, Callable[[int], tuple[float, float]]] = {
        "match": lambda n: play_once(match, match_id("match", n))[:2],
        "tuned": lambda n: loop(match.url, with_id(groups, recorded_id, match_id("tuned", n)),
                                match.seats, new_session, read_like_the_referee),
        "plain": lambda n: loop(match.url, with_id(groups, recorded_id, match_id("plain", n)),
                                match.seats, plain_session, read_plainly),
        "exchange": lambda n: loop(match.url, with_id(groups, recorded_id, match_id("exch", n)),
                                   match.seats, new_session, exchange_like_the_referee),
    }
    order = list(arms)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in arms}
    for rep in range(1, reps + 1):
        shift = rep % len(order)
        for name in order[shift:] + order[:shift]:  # rotate, so that order cannot bias
            times[name].append(arms[name](rep))
    decisions = play_once(match, match_id("count", 0))[2]
    print(f"{match.game.name}, {match.seats} seats: {decisions} decisions, {calls} HTTP calls "
          f"per match; {reps} rounds, arms in rotating order")
    for name, note in (("match", "the referee over HTTP"),
                       ("tuned", "requests, the referee's session settings, raw.read1"),
                       ("plain", "requests.Session() defaults, .content"),
                       ("exchange", "the referee's own exchange: prepared once, adapter.send")):
        cpu = [c / decisions * 1e6 for _, c in times[name]]
        wall = [w / decisions * 1e6 for w, _ in times[name]]
        print(f"  {name:<6} CPU {spread(cpu, '.0f')} us/decision, "
              f"wall {spread(wall, '.0f')} us/decision  ({note})")
    for base in ("tuned", "plain", "exchange"):
        cpu_ratio = [m[1] / b[1] for m, b in zip(times["match"], times[base])]
        wall_ratio = [m[0] / b[0] for m, b in zip(times["match"], times[base])]
        print(f"  match / {base}: CPU {spread(cpu_ratio)}x, wall {spread(wall_ratio)}x per round")


def throughput(match: Match, concurrent: int) -> None:
    """Decisions per second with ``concurrent`` matches at once (distinct match ids)."""
    counts: list[int] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        _, _, n = play_once(match, match_id("many", i))
        with lock:
            counts.append(n)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(concurrent)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - began
    print(f"  {concurrent} concurrent matches: {sum(counts)} decisions, "
          f"{sum(counts) / seconds:,.0f} decisions/s (wall)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--game", default="doubletrack")
    parser.add_argument("--seats", type=int, default=None,
                        help="seats per match (default: the most the game allows)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--concurrent", type=int, default=16)
    args = parser.parse_args()
    game = find_game(args.game)
    seats = args.seats or max(game.player_counts)
    if seats not in game.player_counts or seats < 2:
        raise SystemExit(f"{game.name} is not played by {seats} HTTP seats")
    proc, url = start_server(args.game)
    try:
        match = Match(game, game.load_board(), seats, url, args.seed)
        overhead(match, args.reps)
        throughput(match, args.concurrent)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
