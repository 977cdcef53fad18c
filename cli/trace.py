"""``referee replay LOG --trace``: the match's frames as text (kept apart from the replay check).

The log is the reader's own, so the trace shows what each bot said (its ``log`` text and the
``stderr`` lines of a bot the referee started) under its decision.
"""

from __future__ import annotations

from typing import Any

import click

from referee.frames import build_frames
from referee.frames.trace import trace_lines
from referee.matchlog import LogError


def print_trace(log_file: str, log: Any) -> None:
    """Print the trace of ``log``; a log the frames cannot follow is a one-line error."""
    try:
        doc = build_frames(log, notes=True)
    except LogError as exc:
        raise LogError(f"{log_file}: {exc}") from exc
    for line in trace_lines(doc):
        click.echo(line)
