"""``referee bot serve`` and ``referee bot check``: the bot author's dev loop.

``serve`` puts a built-in bot behind a real HTTP server, to play against from your own code.
``check`` is the first thing a bot author runs: it reads ``GET /``, plays a short match against
``random`` and prints a verdict (protocol errors naming the field, latency per decision kind,
strikes with their reasons). It exits 0 only for a clean bot, so it can gate a CI job.
"""

from __future__ import annotations

import math
import secrets
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import click

from cli.params import GAME, game_option
from referee.core import Game, RulesError
from referee.display import printable, redact
from referee.faults import Fault

DEFAULT_HOST = "127.0.0.1"


@click.group()
def bot() -> None:
    """Serve a built-in bot over HTTP, or check that your bot speaks the protocol."""


@bot.command()
@click.argument("name")
@click.option("--port", "-p", type=click.IntRange(0, 65535), required=True,
              help="TCP port (0 picks a free one).")
@click.option("--host", default=DEFAULT_HOST, show_default=True,
              help="Address to listen on (0.0.0.0 for every interface).")
@click.option("--game", "-g", type=GAME, default=None,
              help="Play only this game (default: every game the bot knows).")
@click.option("--seed", type=int, default=None, help="Base seed of the bot's own randomness.")
@click.option("--threads", type=click.IntRange(1, 256), default=8, show_default=True,
              help="Requests answered at once.")
@click.option("--connections", type=click.IntRange(1, 1_000_000), default=None,
              help="Connections held open at once (a match keeps one per seat; default: "
                   "max(1024, 32 x the CPU count)); announced in GET / as max_connections.")
def serve(name: str, port: int, host: str, game: Game | None, seed: int | None,
          threads: int, connections: int | None) -> None:
    """Serve the built-in bot NAME (e.g. random, greedy, mcts:ms=200) over HTTP."""
    from bots import UnknownBotError
    from bots.server import BotApp, BotServer

    try:
        app = BotApp(name, game.name if game else None, seed)
        server = BotServer(app, host=host, port=port, threads=threads, connections=connections)
    except UnknownBotError as exc:
        raise click.ClickException(str(exc)) from exc
    except (OSError, OverflowError, ValueError) as exc:  # waitress: ValueError for a bad host
        why = getattr(exc, "strerror", None) or str(exc)
        raise click.ClickException(f"cannot listen on {host}:{port}: {why}") from exc
    games = ", ".join(app.info()["games"])
    click.echo(f"serving {name} ({games}) on {server.url}, up to {server.connections} "
               "connections  (Ctrl-C to stop)", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    click.echo("stopped", err=True)


@bot.command()
@click.argument("url")
@game_option()
@click.option("--time-ms", type=click.IntRange(1), default=1000, show_default=True,
              help="Time per decision, as in a real match.")
@click.option("--games", "num_games", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Matches to play (the bot's seat rotates).")
@click.option("--seed", type=int, default=None, help="Seed of the first match (drawn if absent).")
def check(url: str, game: Game, time_ms: int, num_games: int, seed: int | None) -> None:
    """Check the bot at URL: its GET / document, then short matches against random."""
    from referee.transport import BotUrlError, check_url, fetch_info

    try:
        url = check_url(url)
    except BotUrlError as exc:
        raise click.ClickException(str(exc)) from exc
    info, fault = fetch_info(url)
    if fault is not None and fault.reason.unreachable:
        raise click.ClickException(f"cannot reach {redact(url)}: {fault.detail}")
    problems = [printable(p) for p in info_problems(info, fault, game.name)]
    name = bot_name(info)
    click.echo(f"GET /: '{name}'" + ("  ok" if not problems else f"  {len(problems)} problem(s)"))
    for problem in problems:
        click.echo(f"  protocol error: {problem}")
    seed = secrets.randbits(63) if seed is None else seed
    try:
        report = play_checks(url, name, game, time_ms, num_games, seed)
    except RulesError as exc:
        raise click.ClickException(str(exc)) from exc
    problems += report.print()
    if problems:
        click.echo(f"FAIL: {len(problems)} problem(s); fix them and run this again")
        raise SystemExit(1)
    click.echo(f"PASS: {name} speaks bot protocol v1 for {game.name}")


def bot_name(info: Any) -> str:
    """The name a bot gives in ``GET /``, fit to print (escaped, at most 64 characters)."""
    name = info.get("name") if isinstance(info, dict) else None
    return printable(name[:64]) if isinstance(name, str) and name else "bot"


def info_problems(info: Any, fault: Fault | None, game: str) -> list[str]:
    """What is wrong with the ``GET /`` answer, each naming the field."""
    from referee.protocol import info_errors

    if fault:
        return [f"GET /: {fault}"]
    problems = [f"info.{e}" if not e.startswith("(") else f"info: {e}" for e in info_errors(info)]
    games = info.get("games") if isinstance(info, dict) else None
    if isinstance(games, list) and game not in games:
        problems.append(f"info.games: {game!r} is not listed (the bot says it plays {games})")
    return problems


class CheckReport:
    """What the check matches showed about the bot's seat."""

    def __init__(self, time_ms: int) -> None:
        self.time_ms = time_ms
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.faults: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.matches: list[str] = []

    def add(self, log: Mapping[str, Any], seat: int, notes: Sequence[str]) -> None:
        for d in log["decisions"]:
            if d["seat"] == seat and d["status"] != "forfeited":
                self.latencies[d["kind"]].append(d["ms"])
        self.faults += [f for f in log["faults"] if f["seat"] == seat]
        self.notes += [n for n in notes if n not in self.notes]
        rank = log["result"]["seats"][seat]["rank"]
        forfeit = " (forfeited)" if seat in log["forfeited"] else ""
        self.matches.append(f"seed {log['seed']} seat {seat}: rank {rank} of "
                            f"{len(log['players'])}{forfeit}")

    def print(self) -> list[str]:
        """Print the report; returns the problems found."""
        for line in self.matches:
            click.echo(f"match {line}")
        click.echo(f"latency per decision kind (limit {self.time_ms} ms):")
        for kind, values in sorted(self.latencies.items()):
            p50, p95 = percentile(values, 50), percentile(values, 95)
            click.echo(f"  {kind:<24} n={len(values):<4} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms"
                       f"  max {max(values):7.1f} ms")
        strikes = [f for f in self.faults if f["kind"] != "end"]
        problems = [f"strike: {f['kind']} ({f['reason']}) {f['detail']}" for f in strikes]
        # the protocol never strikes an /end failure (the game is over), but /end must be 2xx
        problems += [f"protocol error: /end failed, {f['reason']}: {f['detail']} (not a strike)"
                     for f in self.faults if f["kind"] == "end"]
        problems += [f"protocol error: {n}" for n in self.notes]
        for problem in problems:
            click.echo(f"  {problem}")
        if not strikes:
            click.echo("strikes: none")
        return problems


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (no interpolation: a reported time was really measured)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def play_checks(url: str, name: str, game: Game, time_ms: int, num_games: int,
                seed: int) -> CheckReport:
    """``num_games`` matches of the bot against ``random`` in the fewest seats the game allows."""
    from referee.lineup import make_player
    from referee.match import Runner, TimeControl
    from referee.players import Player
    from referee.transport import HttpPlayer

    seats = min((n for n in game.player_counts if n >= 2), default=min(game.player_counts))
    report = CheckReport(time_ms)
    for n in range(num_games):
        match_seed, bot_seat = seed + n, n % seats
        http = HttpPlayer(name=name, url=url)
        players: list[Player] = [
            http if s == bot_seat else make_player("random", game.name, match_seed, s)
            for s in range(seats)
        ]
        try:
            record = Runner(game, players, match_seed, time_control=TimeControl(time_ms)).run()
        finally:
            http.close()
        report.add(record.log, bot_seat, http.notes)
    return report
