"""What ``referee serve``, ``referee worker`` and ``referee beat`` set up before they start: the
logging (:mod:`api.logs`), and the multiprocess directory of ``prometheus_client``.

gunicorn's workers (``referee serve --broker``) and a Celery worker's pool processes
(``referee worker --metrics-port``) each count in their own process; ``prometheus_client``
sums them when every process writes its counters to files in one directory, named by
``PROMETHEUS_MULTIPROC_DIR``.  The command that forks prepares it before any metric exists (the
variable is read when ``prometheus_client`` loads, and the metrics are made when
:mod:`ladder.metrics` loads), and its children inherit it:

* ``PROMETHEUS_MULTIPROC_DIR`` set (e.g. a tmpfs volume of a container): that directory,
  created if missing and emptied of the previous run's files;
* unset: a new private directory (in the system's temporary folder, ``TMPDIR``), removed when
  the command exits.

One directory per command: two commands sharing one would empty each other's files at start.
The directory comes first: importing ``api`` or ``ladder.work`` makes the metrics.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import click

ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_dir() -> Path:
    """The directory this process and its children write their metrics to, clean, and named
    in the environment; RuntimeError if the metrics were already made (too late)."""
    if "ladder.metrics" in sys.modules:
        raise RuntimeError("the multiprocess metrics directory must be prepared before "
                           "ladder.metrics is imported")
    given = os.environ.get(ENV, "").strip()
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):
            stale.unlink(missing_ok=True)
    else:
        folder = Path(tempfile.mkdtemp(prefix="referee-metrics-"))
        owner = os.getpid()
        atexit.register(_remove, folder, owner)
        os.environ[ENV] = str(folder)
    if "prometheus_client.values" in sys.modules:  # loaded before the variable was set
        from prometheus_client import values

        values.ValueClass = values.get_value_class()
    return folder


def _remove(folder: Path, owner: int) -> None:
    """Remove the private directory, in the process that made it only (a forked child
    exiting runs the same hooks)."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


def set_up(level: str = "info", *, forks: bool, celery: bool = False) -> None:
    """A command's set-up, before it imports the service: the multiprocess directory when it
    ``forks`` processes that count (or one is named), then the logging."""
    if forks or os.environ.get(ENV, "").strip():
        prepare_dir()
    set_up_logs(level, celery=celery)


def set_up_logs(level: str = "info", *, celery: bool = False) -> None:
    """The one logging set-up (``REFEREE_LOG_FORMAT``), Celery told to keep it when
    ``celery``; a bad format is a one-line error.  Undone when the command ends (a command
    run in-process, as a test runs it, leaves the process's logging as it found it)."""
    from api import logs

    try:
        undo = logs.configure(level, logs.log_format())
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    context = click.get_current_context(silent=True)
    if context is not None:
        context.call_on_close(undo)
    if celery:
        logs.celery_keeps_ours()


def gunicorn_logger() -> type:
    """gunicorn's logger class, writing through the root logger (so in the set-up's format)
    instead of handlers of its own."""
    from gunicorn.glogging import Logger

    class ThroughRoot(Logger):  # type: ignore[misc]
        def setup(self, cfg: object) -> None:
            super().setup(cfg)
            for log in (self.error_log, self.access_log):
                log.handlers.clear()
                log.propagate = True

    return ThroughRoot
