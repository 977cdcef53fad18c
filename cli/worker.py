"""``referee worker`` and ``referee beat``: Celery processes of the production service.

A worker plays matches (``run_match`` tasks carry only a match id; the database decides who
plays what).  Beat runs the periodic jobs (the sweeper, the matchmaker, the health probes); run
exactly one.  Each command keeps its Celery process running: it is started again whenever it
ends on its own (:mod:`cli.supervise`).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import click

from cli.ladder_db import db_option


BROKER_OPTION = click.option("--broker", "broker_url", default=None, metavar="URL",
                             help="Celery broker, redis://… (default: REFEREE_BROKER).")
QUEUE_OPTION = click.option("--queue", "-Q", default=None,
                            help="Queue name (default: REFEREE_QUEUE, else 'referee').")
SUPERVISE_OPTION = click.option("--supervise/--no-supervise", default=True, hidden=True,
                                help="Start the Celery process again when it ends on its own.")


def prepare(db_url: str | None, broker_url: str | None, queue: str | None) -> None:
    """Put the options where every (forked) process reads them, and check the database."""
    from ladder import LadderError
    from ladder.store import open_db

    for name, value in (("REFEREE_DB", db_url), ("REFEREE_BROKER", broker_url),
                        ("REFEREE_QUEUE", queue)):
        if value:
            os.environ[name] = value
    if not os.environ.get("REFEREE_BROKER"):
        raise click.ClickException("no broker: pass --broker redis://… or set REFEREE_BROKER")
    try:
        open_db(os.environ.get("REFEREE_DB") or None).dispose()
    except LadderError as exc:
        raise click.ClickException(str(exc)) from exc


@click.command()
@db_option()
@BROKER_OPTION
@QUEUE_OPTION
@click.option("--concurrency", "-c", type=click.IntRange(1, 256), default=2, show_default=True,
              help="Matches played at once (worker processes).")
@click.option("--loglevel", "-l", default="info", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]))
@SUPERVISE_OPTION
def worker(db_url: str | None, broker_url: str | None, queue: str | None, concurrency: int,
           loglevel: str, supervise: bool) -> None:
    """Play matches from the broker's queue (Celery prefork worker)."""
    from api.tasks import app_from_env

    prepare(db_url, broker_url, queue)
    if supervise:
        from cli.supervise import keep_running

        raise SystemExit(keep_running("worker"))
    app = app_from_env()
    name = f"referee-{os.getpid()}@{socket.gethostname()}"
    app.worker_main(["worker", "--pool", "prefork", "--concurrency", str(concurrency),
                     "--queues", app.conf.task_default_queue, "--loglevel", loglevel,
                     "--hostname", name, "--without-gossip", "--without-mingle"])


@click.command()
@db_option()
@BROKER_OPTION
@QUEUE_OPTION
@click.option("--schedule", "schedule_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Beat's state file (default: in the user data directory).")
@click.option("--loglevel", "-l", default="info", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]))
@SUPERVISE_OPTION
def beat(db_url: str | None, broker_url: str | None, queue: str | None,
         schedule_file: Path | None, loglevel: str, supervise: bool) -> None:
    """Send the periodic jobs (sweeper, matchmaker tick, health probes); run one beat per service."""
    import platformdirs

    from api.tasks import app_from_env

    prepare(db_url, broker_url, queue)
    if supervise:
        from cli.supervise import keep_running

        raise SystemExit(keep_running("beat"))
    if schedule_file is None:
        folder = Path(platformdirs.user_data_dir("referee", appauthor=False))
        folder.mkdir(parents=True, exist_ok=True)
        schedule_file = folder / "celerybeat-schedule"
    app = app_from_env()
    app.start(["beat", "--schedule", str(schedule_file), "--loglevel", loglevel])
