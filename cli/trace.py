"""``referee replay LOG --trace``: the match's frames as text (kept apart from the replay check)."""

from __future__ import annotations

from typing import Any

import click

from referee.frames import build_frames
from referee.frames.trace import trace_lines
from referee.matchlog import LogError


def print_trace(log_file: str, log: Any) -> None:
    """Print the trace of ``log``; a log the frames cannot follow is a one-line error."""
    try:
        doc = build_frames(log)
    except LogError as exc:
        raise LogError(f"{log_file}: {exc}") from exc
    for line in trace_lines(doc):
        click.echo(line)
