"""``referee tournament``: a round-robin with crosstable, Elo error bars and LOS; resumable.

With ``--broker redis://…`` the matches are played by the service's ``referee worker``
processes (on any machine) instead of this one's processes; this command still plans, books
and reports every result, so standings, state file, ladder and resume are the same
(``api.broker_pool``)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import secrets
import shlex
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import BrokenExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from arena import TimeControl, capacity_warnings, load_board
from arena.description import runs_here
from cli.params import (
    GAME, EntrantTimes, allow_dead_option, board_option, clock_options, game_options_option,
    require_live,
)
from cli.progress import game_progress, progress_mode
from ladder import LadderError
from referee.core import Game
from referee.display import has_credentials, redact
from referee.errors import RefereeError
from referee.games import game_names
from tournaments import Interrupted, TournamentError
from tournaments.fixtures import Fixture, Outcome
from tournaments.plan import (
    Entrant, Plan, check_entrants, check_plan, declared_names, default_seats, parse_entrant,
    parse_entrants, with_times,
)
from tournaments.pool import PoolFactory
from tournaments.standings import Standings
from tournaments.stats import format_elo
from tournaments.store import JsonlStateStore, default_state_dir, new_tournament_id
from tournaments.tournament import Tournament, report

CSV_FIELDS = ("entrant", "opponent", "games", "wins", "draws", "losses", "points", "score",
              "elo", "elo_error", "los")


def check_live(plan: Plan, concurrency: int, allow_dead: bool) -> Plan:
    """``GET /`` of every HTTP entrant before the first game (one line if one is dead), and a
    warning for a bot that announces fewer connections than the matches will hold open.
    Returns the plan with each unnamed HTTP or ``cmd:`` bot shown by the name its ``GET /``
    declares."""
    urls = [e.bot for e in plan.entrants if e.remote]
    found = require_live(urls, plan.game, allow_dead)
    needed = {url: concurrency * min(plan.seats, urls.count(url)) for url in set(urls)}
    advice = f"lower --concurrency (now {concurrency}) or let the bot take more"
    for line in capacity_warnings(found.infos, needed, advice):
        click.echo(f"warning: {line}", err=True)
    infos = dict(found.infos)
    for e in plan.entrants:  # a program is started once to be named, and to know it starts
        if e.declares and not e.remote and not e.named and e.bot not in infos:
            from arena.launch import declared_info

            infos[e.bot] = declared_info(e.bot, plan.game)
    return dataclasses.replace(plan, entrants=tuple(declared_names(plan.entrants, infos)))


def build_plan(bots: tuple[str, ...], game: Game, games: int | None, seats: int | None,
               seed: int | None, gauntlet: str | None, terms: dict[str, Any],
               own_times: Mapping[str, int]) -> Plan:
    """A new tournament's plan from the command line, checked before anything is played."""
    if not bots:
        raise click.UsageError("name at least two BOTS (or --resume ID)")
    if games is None:
        raise click.UsageError("Missing option '--games' (games per pairing or table).")
    entrants = with_times(parse_entrants(bots), own_times)
    if seats is None and gauntlet is not None:  # NEW against each other entrant in turn
        seats = min((n for n in game.player_counts if n >= 2), default=None)
    seats = seats or default_seats(game, len(entrants))
    plan = Plan(game.name, tuple(entrants), games, seats,
                seed if seed is not None else secrets.randbits(63), **terms,
                gauntlet=None if gauntlet is None else gauntlet_index(entrants, gauntlet))
    check_plan(game, plan)
    check_entrants(entrants, game.name)
    return plan


def gauntlet_index(entrants: Sequence[Entrant], name: str) -> int:
    """The entrant ``--gauntlet NAME`` names (by its name, or its bot spec or URL)."""
    for i, e in enumerate(entrants):
        if name in (e.name, e.bot):
            return i
    names = ", ".join(e.name for e in entrants)
    raise click.UsageError(f"--gauntlet {name}: no such entrant (the entrants: {names})")


def match_terms(game: Game, board_path: str | None, options: dict[str, Any], time_ms: int,
                bank_ms: int, strikes: int, keep_logs: bool = False) -> dict[str, Any]:
    """The plan's terms of every match, checked now (the board loads, the game takes the
    options) rather than in the first match."""
    load_board(game.name, board_path)
    return {"board": board_path, "options": game.validate_options(options),
            "time_control": TimeControl(time_ms, bank_ms), "strikes": strikes,
            "keep_logs": keep_logs}


RESUME_FLAGS = {
    "game": "--game", "games": "--games", "seats": "--seats", "seed": "--seed",
    "board_path": "--board", "options": "--option", "time_ms": "--time-ms",
    "bank_ms": "--bank-ms", "strikes": "--strikes", "gauntlet": "--gauntlet",
    "elo0": "--elo0", "elo1": "--elo1", "alpha": "--alpha", "beta": "--beta", "model": "--model",
}
"""The options that say what a tournament or an SPRT is (its state file has them all), by
the name of the command's parameter."""


def plan_terms(plan: Plan) -> dict[str, Any]:
    """What each of :data:`RESUME_FLAGS` was when ``plan`` started."""
    terms = {
        "game": plan.game, "games": plan.games, "seats": plan.seats, "seed": plan.seed,
        "board_path": plan.board, "options": dict(plan.options),
        "time_ms": EntrantTimes(plan.time_control.decision_ms,
                                {e.name: e.time_ms for e in plan.entrants if e.time_ms}),
        "bank_ms": plan.time_control.bank_ms,
        "strikes": plan.strikes,
        "gauntlet": None if plan.gauntlet is None else plan.entrants[plan.gauntlet].name,
    }
    if plan.sprt is not None:
        terms.update(elo0=plan.sprt.elo0, elo1=plan.sprt.elo1, alpha=plan.sprt.alpha,
                     beta=plan.sprt.beta, model=plan.sprt.model)
    return terms


def given_terms(ctx: click.Context) -> dict[str, Any]:
    """The options of :data:`RESUME_FLAGS` this command line gives (not their defaults)."""
    given = {}
    for name in RESUME_FLAGS:
        source = ctx.get_parameter_source(name)
        if name in ctx.params and source not in (None, ParameterSource.DEFAULT,
                                                 ParameterSource.DEFAULT_MAP):
            value = ctx.params[name]
            given[name] = value.name if isinstance(value, Game) else value
    return given


def check_resume(plan: Plan, given: dict[str, Any]) -> None:
    """A resumed tournament or SPRT must be the same one: its state file holds its terms, so
    ``--resume ID`` needs no other option, and one that says otherwise is refused."""
    stored = plan_terms(plan)
    for key, value in given.items():
        if value is not None and value != stored[key]:
            flag, was = RESUME_FLAGS[key], stored[key]
            raise TournamentError(
                f"--resume: this {plan.kind} was started with {flag} {shown_term(was)}, not "
                f"{shown_term(value)}; leave {flag} out (the state file has it)")


def shown_term(value: Any) -> str:
    if isinstance(value, EntrantTimes):
        return " ".join([str(value.default_ms), *(f"{k}={v}" for k, v in value.own.items())])
    if isinstance(value, dict):
        return " ".join(f"{k}={json.dumps(v)}" for k, v in value.items()) or "(none)"
    return "(none)" if value is None else str(value)


class LadderRecorder:
    """The ladder a tournament records into, from this (the parent) process only, under names
    that stand for the bots they name (``claim`` checks that before the first game)."""

    def __init__(self, engine: Any, url: str) -> None:
        self.engine, self.url = engine, url

    def claim(self, entrants: Sequence[Entrant], new_version: bool) -> None:
        from ladder.identity import claim_names

        try:
            claim_names(self.engine, {e.name: e.bot for e in entrants}, new_version=new_version)
        except LadderError as exc:
            raise click.ClickException(f"--db: {exc}") from exc

    def record(self, outcome: Outcome, fixture: Fixture) -> None:
        from ladder.store import record_match

        assert outcome.log is not None
        try:
            record_match(self.engine, outcome.log, bots=dict(enumerate(fixture.names)),
                         specs=dict(enumerate(s.bot for s in fixture.match.seats)))
        except LadderError as exc:
            raise click.ClickException(f"--db: match {fixture.match_id}: {exc}") from exc

    def stored(self, match_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Results already in the ladder (recorded just before a crash): taken, not replayed."""
        from ladder.store import stored_logs

        try:
            return stored_logs(self.engine, match_ids)
        except LadderError as exc:
            raise click.ClickException(f"--db: {exc}") from exc


class LogFolder:
    """``--logs DIR``: every game's match log as ``DIR/<match id>.json``, written whole (a
    temporary file renamed into place) before the game counts as done, so a log on disk is
    always complete and a resumed tournament rewrites only games it plays again."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.written = 0
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-", delete=True)
            probe.close()
        except OSError as exc:
            raise click.ClickException(f"--logs: cannot write in {folder}: "
                                       f"{exc.strerror or exc}") from exc

    def path(self, match_id: str) -> Path:
        return self.folder / (re.sub(r"[^A-Za-z0-9._-]", "_", match_id) + ".json")

    def record(self, outcome: Outcome, fixture: Fixture) -> None:
        assert outcome.log is not None
        target = self.path(fixture.match_id)
        try:
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=self.folder,
                                             prefix=".", suffix=".tmp", delete=False) as fh:
                json.dump(outcome.log, fh, separators=(",", ":"))
            os.replace(fh.name, target)
        except OSError as exc:
            raise click.ClickException(f"--logs: cannot write {target}: "
                                       f"{exc.strerror or exc}") from exc
        self.written += 1


def recorders(*hooks: Any) -> Any:
    """One recorder calling each given one (None when none is given)."""
    given = [h for h in hooks if h is not None]
    if not given:
        return None

    def record(outcome: Outcome, fixture: Fixture) -> None:
        for hook in given:
            hook(outcome, fixture)
    return record


def keep_logs(t: Tournament, folder: Path) -> None:
    """Ask the match workers for every log (the ladder asks already when it records), and
    have ``cmd:`` bots write their output beside it."""
    t.plan = dataclasses.replace(t.plan, keep_logs=True, outputs=str(folder))


@contextmanager
def broker_pool(url: str | None, queue: str | None,
                match_timeout_s: float | None) -> Iterator[PoolFactory | None]:
    """The workers that play the matches: ``url`` None, this machine's processes (no factory);
    ``""``, the broker of ``REFEREE_BROKER``. The broker is reached before anything is
    written, so a wrong URL fails in one line."""
    if url is None:
        if match_timeout_s is not None:
            raise click.UsageError("--match-timeout goes with --broker")
        yield None
        return
    from api.broker_pool import DEFAULT_MATCH_TIMEOUT_S, BrokerError, BrokerPool, check_broker
    from api.tasks import make_celery

    url = url or os.environ.get("REFEREE_BROKER", "")
    if not url:
        raise click.UsageError("--broker alone takes the broker of REFEREE_BROKER, which is "
                               "not set: pass --broker redis://…")
    try:
        check_broker(url)
        app = make_celery(url, broker_queue(queue))
    except (BrokerError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield BrokerPool.factory(
            app, broker_queue(queue),
            match_timeout_s=match_timeout_s or DEFAULT_MATCH_TIMEOUT_S,
            warn=lambda line: click.echo(f"warning: {line}", err=True))
    finally:
        app.close()


def check_sendable(entrants: Sequence[Entrant]) -> None:
    """A bot URL's credentials are never put on the broker: the workers' address policy
    refuses such URLs anyway, so say it now, in one line, rather than at the first match."""
    for e in entrants:
        if e.remote and has_credentials(e.bot):
            raise click.ClickException(
                f"--broker: entrant {e.name}: the workers play no bot URL with credentials "
                "(user:password@); serve the bot without them, or play here without --broker")
        if runs_here(e.bot):
            raise click.ClickException(
                f"--broker: entrant {e.name}: the workers run no cmd: or py: bot (only this "
                "machine does); serve it at a URL they can reach, or play without --broker")


def broker_queue(queue: str | None) -> str:
    return queue or os.environ.get("REFEREE_QUEUE") or "referee"


@contextmanager
def db_recorder(url: str | None) -> Iterator[LadderRecorder | None]:
    """The ladder to record in: ``url`` None, none; ``""``, the default ladder database."""
    if url is None:
        yield None
        return
    from ladder.db import describe
    from ladder.store import open_db

    try:
        engine = open_db(url or None)
    except LadderError as exc:
        raise click.ClickException(f"--db: {exc}") from exc
    try:
        yield LadderRecorder(engine, describe(engine.url))
    finally:
        engine.dispose()


def resumable_game_option() -> Any:
    """``--game``, required unless ``--resume ID`` (the state file has the game)."""
    return click.option("--game", "-g", type=GAME, default=None,
                        help=f"One of: {', '.join(game_names())} (not with --resume).")


@click.command()
@click.argument("bots", nargs=-1)
@resumable_game_option()
@click.option("--games", "-n", type=click.IntRange(1), default=None,
              help="Games per pairing (two seats) or per table; a multiple of the seat count. "
                   "Required (not with --resume).")
@click.option("--seats", type=click.IntRange(2), default=None,
              help="Seats per table (default: the most the game allows, up to the entrants).")
@click.option("--gauntlet", default=None, metavar="NAME",
              help="Entrant NAME plays every other entrant, who do not meet each other "
                   "(testing one bot against a field); tables of the fewest seats (two or "
                   "more) the game allows unless --seats.")
@click.option("--concurrency", "-j", type=click.IntRange(1), default=1, show_default=True,
              help="Matches played at once (a process each for built-in bots; for HTTP "
                   "bots, threads spread over one process per core; with --broker, matches "
                   "in flight on the workers).")
@click.option("--seed", type=int, default=None, help="Tournament seed (drawn if absent).")
@board_option()
@game_options_option()
@clock_options(per_entrant=True)
@click.option("--db", default=None, is_flag=False, flag_value="", metavar="URL",
              help="Record results in the ladder (alone: the default ladder database).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
@click.option("--csv", "csv_path", default=None, is_flag=False, flag_value="-", metavar="FILE",
              help="Write pairwise results as CSV to FILE (alone: to standard output).")
@click.option("--resume", "resume_id", default=None, metavar="ID",
              help="Finish the missing games of an interrupted tournament (its state file "
                   "holds the game, entrants and terms: no other option is needed).")
@click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where tournament state files live (default: the user data directory).")
@click.option("--progress/--no-progress", default=None,
              help="A live bar on stderr (default in a terminal; elsewhere a line per game).")
@allow_dead_option()
@click.option("--new-version", is_flag=True,
              help="With --db: a name already in the ladder for another bot starts a new "
                   "version of it (otherwise that is refused).")
@click.option("--logs", "logs_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, metavar="DIR",
              help="Write every game's match log to DIR/<match id>.json (for referee replay "
                   "and referee view).")
@click.option("--broker", "broker_url", default=None, is_flag=False, flag_value="",
              metavar="URL",
              help="Play the matches on the service's workers (referee worker, any machine) "
                   "through this Redis broker, redis://… (alone: REFEREE_BROKER). HTTP bots "
                   "must be reachable from the workers and allowed by their address policy.")
@click.option("--queue", "queue", default=None, metavar="NAME",
              help="With --broker: the workers' queue (default: REFEREE_QUEUE, else 'referee').")
@click.option("--match-timeout", "match_timeout_s", type=click.FloatRange(1), default=None,
              metavar="SECONDS",
              help="With --broker: a match started this long ago without a result is sent "
                   "again, to another worker (default 900; 3 tries).")
@click.pass_context
def tournament(
    ctx: click.Context, bots: tuple[str, ...], game: Game | None, games: int | None,
    seats: int | None, gauntlet: str | None, concurrency: int, seed: int | None,
    board_path: str | None, options: dict[str, Any], time_ms: EntrantTimes,
    bank_ms: int, strikes: int, db: str | None, as_json: bool, csv_path: str | None,
    resume_id: str | None, state_dir: Path | None, progress: bool | None, allow_dead: bool,
    new_version: bool, logs_dir: Path | None, broker_url: str | None, queue: str | None,
    match_timeout_s: float | None,
) -> None:
    """Play a round-robin between BOTS (built-in names, http:// URLs, or NAME=BOT), or a
    gauntlet of one of them against the others (--gauntlet NAME).

    An HTTP bot given without NAME= is shown by the name its GET / declares (made unique
    with -2, -3…).

    Two-seat games are played in seat-swapped pairs on one seed; larger tables play each seed
    once per seat rotation; in each round every pairing or table gets the same seed.

    With --broker, `referee worker` processes on other machines play the matches; this
    command still books every result, so the standings, the state file, the ladder and
    --resume are as when it plays them itself.
    """
    default_dir = default_state_dir()
    state_dir = state_dir or default_dir
    logs = LogFolder(logs_dir) if logs_dir is not None else None
    try:
        # The database and the broker open first, so that a bad URL fails before a state file
        # is written.
        with db_recorder(db) as ladder, \
                broker_pool(broker_url, queue, match_timeout_s) as pool:
            if resume_id:
                t = resume_tournament(state_dir, resume_id, bots, given_terms(ctx), db)
                t.plan = check_live(t.plan, concurrency, allow_dead)
                if pool is not None:
                    check_sendable(t.plan.entrants)
            else:
                if game is None:
                    raise click.UsageError("Missing option '--game' (or --resume ID).")
                terms = match_terms(game, board_path, options, time_ms.default_ms, bank_ms,
                                    strikes, keep_logs=db is not None)
                plan = build_plan(bots, game, games, seats, seed, gauntlet, terms, time_ms.own)
                plan = check_live(plan, concurrency, allow_dead)
                if pool is not None:
                    check_sendable(plan.entrants)
                t = Tournament.start(plan, JsonlStateStore(state_dir, new_tournament_id()))
            if ladder is not None:
                ladder.claim(t.plan.entrants, new_version)
            if logs is not None:
                keep_logs(t, logs.folder)
            with t.playing():
                announce(t, resume_id is not None)
                table = play(t, concurrency, ladder, progress, logs, pool)
            if ladder is not None:
                click.echo(f"results recorded in the ladder at {ladder.url}: see `referee "
                           f"ladder show --game {t.plan.game}"
                           f"{' --db URL' if db else ''}`", err=True)
            if logs is not None:
                click.echo(f"{logs.written} match logs written to {logs.folder}", err=True)
    except Interrupted:
        hint = resume_command(t, db, state_dir if state_dir != default_dir else None,
                              concurrency, logs_dir, broker_url, queue)
        click.echo(f"interrupted after {len(t.done)} of {len(t.fixtures)} games; finish with:\n"
                   f"  {hint}", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("interrupted before the first game", err=True)
        sys.exit(130)
    output(report(t, table), as_json, csv_path)


def resume_tournament(state_dir: Path, resume_id: str, bots: tuple[str, ...],
                      given: dict[str, Any], db: str | None) -> Tournament:
    """The tournament to finish, after checking the command names the same one."""
    t = Tournament.resume(JsonlStateStore(state_dir, resume_id))
    t.plan = resumed_entrants(t.plan, bots)
    check_resume(t.plan, given)
    if db is not None and not t.plan.keep_logs:
        raise TournamentError("--db: this tournament was started without --db, so the logs "
                              "of its finished matches were not kept")
    if db is None and t.plan.keep_logs:
        raise TournamentError("this tournament records its results in the ladder: resume it "
                              "with --db as it was started")
    return t


def resumed_entrants(plan: Plan, bots: Sequence[str]) -> Plan:
    """The plan's entrants as a resume names them: none (the stored ones), or all of them
    again, as they were started (so a bot URL's credentials, which the state file does not
    keep, come back)."""
    if bots:
        return plan.with_entrants([parse_entrant(b) for b in bots])
    if plan.hidden_credentials():
        raise TournamentError(
            f"--resume: the bot URL of {', '.join(plan.hidden_credentials())} has credentials, "
            "which the state file does not keep: name every bot again, as it was started")
    return plan


def play(t: Tournament, concurrency: int, ladder: LadderRecorder | None,
         progress: bool | None, logs: LogFolder | None = None,
         pool: PoolFactory | None = None) -> Standings:
    """Run the missing games with progress on stderr; a failing match becomes one line."""
    record = recorders(logs.record if logs else None, ladder.record if ladder else None)
    try:
        with game_progress(len(t.fixtures), len(t.done), progress_mode(progress)) as update:
            return t.run(concurrency, record=record, progress=update,
                         stored=ladder.stored if ladder else None, pool=pool)
    except (RefereeError, OSError, BrokenExecutor) as exc:
        raise click.ClickException(
            f"{exc}; {len(t.done)} of {len(t.fixtures)} games are kept, finish them with "
            f"--resume {t.tournament_id}") from exc


def announce(t: Tournament, resumed: bool) -> None:
    plan = t.plan
    verb = "resuming" if resumed else "tournament"
    click.echo(
        f"{verb} {t.tournament_id}: {len(plan.entrants)} entrants, {plan.seats} seats, "
        f"{len(t.fixtures) - len(t.done)} of {len(t.fixtures)} games to play, seed {plan.seed}"
        f" (resume with --resume {t.tournament_id})", err=True,
    )


def resume_command(t: Tournament, db: str | None, state_dir: Path | None,
                   concurrency: int = 1, logs_dir: Path | None = None,
                   broker_url: str | None = None, queue: str | None = None) -> str:
    """The command that finishes this tournament, shown after Ctrl-C. Credentials in a bot
    URL or in ``--db`` are shown as ``***``: put them back to run it."""
    entrants = [e.name if e.name == redact(e.bot) else f"{e.name}={redact(e.bot)}"
                for e in t.plan.entrants]
    # the entrants only when a URL's credentials must be given again
    again = any(has_credentials(e.bot) for e in t.plan.entrants)
    args = ["referee", "tournament", *(entrants if again else []),
            "--resume", t.tournament_id]
    if concurrency > 1:
        args += ["--concurrency", str(concurrency)]
    if db is not None:
        args += ["--db", redact(db)] if db else ["--db"]
    if state_dir is not None:
        args += ["--state-dir", str(state_dir)]
    if logs_dir is not None:
        args += ["--logs", str(logs_dir)]
    if broker_url is not None:
        args += ["--broker", redact(broker_url)] if broker_url else ["--broker"]
    if queue is not None:
        args += ["--queue", queue]
    return " ".join(shlex.quote(a) for a in args)


def output(doc: dict[str, Any], as_json: bool, csv_path: str | None) -> None:
    if csv_path is not None:
        text = csv_text(doc)
        if csv_path == "-":
            click.echo(text, nl=False)
        else:
            Path(csv_path).write_text(text, encoding="utf-8")
    if as_json:
        click.echo(json.dumps(doc))
    elif csv_path != "-":
        click.echo(render_text(doc))


def csv_text(doc: dict[str, Any]) -> str:
    """One row per entrant and opponent: the crosstable cell and the Elo of the entrant over it."""
    stats = {(p["a"], p["b"]): p["stats"] for p in doc["pairs"]}
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for name, row in doc["crosstable"].items():
        for opp, cell in row.items():
            st = stats.get((name, opp)) or flip(stats.get((opp, name)))
            score = round(cell["points"] / cell["games"], 4) if cell["games"] else ""
            writer.writerow({"entrant": name, "opponent": opp, **cell, "score": score,
                             "elo": st.get("elo") if st else "",
                             "elo_error": st.get("elo_error") if st else "",
                             "los": st.get("los") if st else ""})
    return out.getvalue()


def flip(st: dict[str, Any] | None) -> dict[str, Any] | None:
    """B's view of A's statistics: Elo negated, LOS complemented."""
    if not st:
        return None
    elo, los = st.get("elo"), st.get("los")
    return {"elo": -elo if elo is not None else None, "elo_error": st.get("elo_error"),
            "los": round(1 - los, 4) if los is not None else None}


def render_text(doc: dict[str, Any]) -> str:
    """Standings, crosstable (points/games of the row against the column), pairwise Elo."""
    names = [e["name"] for e in doc["entrants"]]
    width = max(8, *(len(n) for n in names))
    lines = [f"{doc['game']}  tournament {doc['tournament']}  seed {doc['seed']}  "
             f"{doc['played']}/{doc['matches']} games  {doc['seats']} seats", ""]
    lines.append(f"  #  {'entrant':<{width}}  games  points  score  firsts  strikes  forfeits")
    for e in doc["entrants"]:
        score = f"{100 * e['score']:.1f}%" if e["score"] is not None else "-"
        lines.append(f"{e['rank']:>3}  {e['name']:<{width}}  {e['games']:>5}  {e['points']:>6g}"
                     f"  {score:>6}  {e['firsts']:>6}  {e['strikes']:>7}  {e['forfeits']:>8}")
    columns = [max(7, len(n)) for n in names]  # whole names: cut ones can be ambiguous
    lines += ["", f"  {'':<{width}}  " + "  ".join(f"{n:>{w}}" for n, w in zip(names, columns))]
    for a in names:
        cells = []
        for b in names:
            c = doc["crosstable"][a].get(b)
            cells.append(f"{c['points']:g}/{c['games']}" if c else "-")
        lines.append(f"  {a:<{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, columns)))
    lines.append("")
    for p in doc["pairs"]:
        penta = p.get("pentanomial")
        tail = ""
        if penta:
            tail = "  pairs LL-LD-WL/DD-WD-WW {ll}-{ld}-{wl}/{dd}-{wd}-{ww}".format(**penta)
        lines.append(f"  {p['a']} vs {p['b']}: {p['points']:g}/{p['games']}  "
                     f"{format_elo(p['stats'])}{tail}")
    return "\n".join(lines)
