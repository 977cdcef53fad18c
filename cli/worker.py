"""``referee worker`` and ``referee beat``: Celery processes of the production service.

A worker plays matches (``run_match`` tasks carry only a match id; the database decides who
plays what).  Beat runs the periodic jobs (the sweeper, the matchmaker, the health probes); run
exactly one.  Each command keeps its Celery process running: it is started again whenever it
ends on its own (:mod:`cli.supervise`).

Both log through the service's one set-up (:mod:`cli.observe`; ``REFEREE_LOG_FORMAT=json``).
A worker serves its metrics with ``--metrics-port`` (its own port rather than the web's
multiprocess directory: a worker usually runs on another host or container than the web, a
directory shared between them would tie their restarts together, and a port per worker lets
Prometheus see each one up or down).  Beat plays nothing, so it counts nothing.
"""

from __future__ import annotations

import logging
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
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=None,
              envvar="REFEREE_WORKER_METRICS_PORT",
              help="Serve this worker's metrics (its pool processes' too) at "
                   "http://HOST:PORT/metrics (default: REFEREE_WORKER_METRICS_PORT; none: "
                   "not served).")
@click.option("--metrics-host", default="127.0.0.1", show_default=True,
              help="Address the metrics port listens on (0.0.0.0: every interface; the "
                   "access rule of /metrics applies).")
@SUPERVISE_OPTION
def worker(db_url: str | None, broker_url: str | None, queue: str | None, concurrency: int,
           loglevel: str, metrics_port: int | None, metrics_host: str,
           supervise: bool) -> None:
    """Play matches from the broker's queue (Celery prefork worker)."""
    from cli.observe import set_up

    set_up(loglevel, forks=metrics_port is not None and not supervise, celery=True)
    prepare(db_url, broker_url, queue)
    if supervise:
        from cli.supervise import keep_running

        raise SystemExit(keep_running("worker"))
    from api.tasks import app_from_env

    if metrics_port is not None:
        serve_metrics(metrics_host, metrics_port)
    app = app_from_env()
    name = f"referee-{os.getpid()}@{socket.gethostname()}"
    app.worker_main(["worker", "--pool", "prefork", "--concurrency", str(concurrency),
                     "--queues", app.conf.task_default_queue, "--loglevel", loglevel,
                     "--hostname", name, "--without-gossip", "--without-mingle"])


def serve_metrics(host: str, port: int) -> None:
    """The worker's metrics port, from the Celery process itself: it is up exactly while the
    worker is (a scrape that fails is a worker down)."""
    from api.config import ServiceConfig
    from api.observability import serve_worker_metrics

    try:
        server = serve_worker_metrics(ServiceConfig.from_env(), host, port)
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot serve the metrics on {host}:{port}: {exc}") from exc
    logging.getLogger("referee.worker").info(
        "metrics at http://%s:%s/metrics", host, server.server_port,
        extra={"event": "metrics", "port": server.server_port})


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

    from cli.observe import set_up

    set_up(loglevel, forks=False, celery=True)
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
