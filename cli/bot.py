"""``referee bot serve`` and ``referee bot check``: the bot author's dev loop.

``serve`` puts a built-in bot behind a real HTTP server, to play against from your own code.
``check`` is the first thing a bot author runs: it reads ``GET /`` (of a URL, or of a ``cmd:``
program it starts; a ``py:`` file has none), plays a short match against ``random`` and prints a
verdict (protocol errors naming the field, latency per decision kind,
strikes with their reasons). It exits 0 only for a clean bot, so it can gate a CI job.
"""

from __future__ import annotations

import click

from arena.conformance import ConformanceReport, check_bot
from arena.description import runs_here
from cli.params import GAME, game_option
from referee.core import Game
from referee.display import printable

DEFAULT_HOST = "127.0.0.1"


@click.group()
def bot() -> None:
    """Serve a built-in bot over HTTP, check that your bot speaks the protocol, or connect
    it to a service from behind NAT (pull mode)."""


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
    from bots.server import BotApp, BotServer

    app = BotApp(name, game.name if game else None, seed)  # an unknown bot: one line, cli.main
    try:
        server = BotServer(app, host=host, port=port, threads=threads, connections=connections)
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
@click.argument("url", metavar="BOT")
@game_option()
@click.option("--time-ms", type=click.IntRange(1), default=1000, show_default=True,
              help="Time per decision, as in a real match.")
@click.option("--games", "num_games", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Matches to play (the bot's seat rotates).")
@click.option("--seed", type=int, default=None, help="Seed of the first match (drawn if absent).")
def check(url: str, game: Game, time_ms: int, num_games: int, seed: int | None) -> None:
    """Check BOT (an http:// URL, "cmd:COMMAND" or py:FILE[:NAME]): its GET / document, then
    short matches against random."""
    if "://" not in url and not runs_here(url):
        raise click.BadParameter(f"{url!r} is not a bot's address: did you mean "
                                 f"http://{url} ? (or cmd:COMMAND to start it, py:FILE)",
                                 param_hint="BOT")
    try:
        report = check_bot(url, game.name, time_ms, num_games, seed)
    except KeyboardInterrupt:
        click.echo("interrupted: the check did not finish (no verdict)", err=True)
        raise SystemExit(130) from None
    if not report.reachable:
        assert report.info_fault is not None
        raise click.ClickException(f"cannot reach {report.url}: {report.info_fault.detail}")
    shown = [printable(p) for p in report.info_problems]
    if report.info is not None or report.info_fault is not None:
        click.echo(f"GET /: '{report.name}'" + ("  ok" if not shown else
                                                f"  {len(shown)} problem(s)"))
    else:
        click.echo(f"'{report.name}' (a py: bot: no GET /)")
    for problem in shown:
        click.echo(f"  protocol error: {problem}")
    print_report(report)
    if not report.passed:
        click.echo(f"FAIL: {len(report.problems)} problem(s); fix them and run this again")
        raise SystemExit(1)
    click.echo(f"PASS: {report.name} speaks bot protocol v1 for {game.name}")


def print_report(report: ConformanceReport) -> None:
    """The check matches: each match, latency per decision kind and per call, the problems."""
    for m in report.matches:
        click.echo(f"match {m.line()}")
    click.echo(f"latency per decision kind (limit {report.time_ms} ms):")
    for k in report.kinds:
        click.echo(f"  {k.kind:<24} n={k.count:<4} p50 {k.p50_ms:7.1f} ms  p95 {k.p95_ms:7.1f} ms"
                   f"  max {k.max_ms:7.1f} ms")
    click.echo("calls:")
    for c in report.calls:
        statuses = ", ".join(f"{status} {n}" for status, n in sorted(c.statuses.items()))
        timing = "" if c.p50_ms is None else f"  p50 {c.p50_ms:7.1f} ms  p95 {c.p95_ms:7.1f} ms"
        click.echo(f"  {c.call:<8} {statuses}{timing}")
        if c.bad_body is not None:
            click.echo(f"    first bad body: {c.bad_body[:200]}")
    for problem in report.match_problems:
        click.echo(f"  {problem}")
    if not report.strikes:
        click.echo("strikes: none")


def _add_connect() -> None:
    from cli.connect import connect

    bot.add_command(connect)


_add_connect()
