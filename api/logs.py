"""One logging set-up for ``referee serve``, ``referee worker`` and ``referee beat``.

``REFEREE_LOG_FORMAT``: ``text`` (the default; a line of words, then the record's ids as
``key=value``) or ``json`` (one JSON object a line: ``ts``, ``level``, ``logger``, ``message``
and every id the record carries as a field of its own, e.g. ``match``, ``game``, ``state``,
``bots``, ``attempt``, ``worker``, ``owner``, ``request_id``).  A line logged while a request is
served carries that request's id (``X-Request-Id``), so the match a request scheduled is found
from the request and the other way round.  Celery is told not to set up logging of its own
(:func:`celery_keeps_ours`): its worker and beat lines come out in the same format.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from flask import g, has_request_context

FORMAT_ENV = "REFEREE_LOG_FORMAT"
FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")
_RECORD_FIELDS = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message", "asctime", "taskName"}
"""A log record's own attributes: anything else on it came through ``extra=`` (an id)."""


def log_format() -> str:
    """The format ``REFEREE_LOG_FORMAT`` names; ValueError for one it does not."""
    raw = os.environ.get(FORMAT_ENV, "").strip().lower() or "text"
    if raw not in FORMATS:
        raise ValueError(f"{FORMAT_ENV} must be {' or '.join(FORMATS)}, not {raw!r}")
    return raw


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """The ids a record carries (its ``extra=``), in the order they were given."""
    return {k: v for k, v in record.__dict__.items()
            if k not in _RECORD_FIELDS and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(), "logger": record.name,
            "message": record.getMessage()}
        for key, value in fields(record).items():
            doc.setdefault(key, value)
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """A line of words, then the record's ids as ``key=value``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        ids = " ".join(f"{k}={v}" for k, v in fields(record).items() if v is not None)
        return f"{line} [{ids}]" if ids else line


class RequestIds(logging.Filter):
    """Gives a record logged while a request is served that request's id."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id") and has_request_context():
            found = g.get("request_id")
            if found:
                record.request_id = found
        return True


class Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to ``sys.stderr`` as it is when a line is written, not as it was when the
    handler was made (a stream replaced since, e.g. closed by a test's capture, is never
    written to)."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        """The stream is always the current ``sys.stderr``."""


def handler(fmt: str | None = None) -> logging.Handler:
    """A stderr handler in ``fmt`` (default: :func:`log_format`)."""
    out = Stderr()
    out.setFormatter(JsonFormatter() if (fmt or log_format()) == "json" else TextFormatter())
    out.addFilter(RequestIds())
    return out


def configure(level: str = "info", fmt: str | None = None) -> Callable[[], None]:
    """The root logger writes to stderr in the chosen format, at ``level`` (a second call
    replaces the first's handler); what undoes it."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_referee", False)]:
        root.removeHandler(old)
    new, before = handler(fmt), root.level
    new._referee = True  # type: ignore[attr-defined]
    root.addHandler(new)
    root.setLevel(level.upper())
    logging.captureWarnings(True)  # a library's warnings in the same format

    def undo() -> None:
        logging.captureWarnings(False)
        root.removeHandler(new)
        root.setLevel(before)
    return undo


def celery_keeps_ours() -> None:
    """Celery sets up no logging of its own (a receiver of its ``setup_logging`` signal is
    its documented way to say so): :func:`configure` applies to worker and beat."""
    from celery.signals import setup_logging

    setup_logging.connect(_keep, weak=False)


def _keep(**_: Any) -> None:
    """Nothing: the logging is set up already."""
