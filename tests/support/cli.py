"""Checking that a command failed the way the project promises: click's one-line error.

``"Traceback" not in out.output`` proves nothing under click's ``CliRunner``: an uncaught
exception is kept in ``out.exception`` and never printed. What does prove a clean failure is
that the command ended through ``SystemExit`` (click's own exit after printing ``Error: …``).
"""

from __future__ import annotations

from typing import Any


def assert_clean_error(out: Any, code: int | None = None, *needles: str) -> None:
    """``out`` (a ``click.testing.Result``) is a handled failure: non-zero exit through
    ``SystemExit``, exit ``code`` if given, one ``Error:`` line containing every needle."""
    assert out.exit_code != 0, out.output
    assert isinstance(out.exception, SystemExit), repr(out.exception)
    if code is not None:
        assert out.exit_code == code, (out.exit_code, out.output)
    errors = [line for line in out.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and errors[0].split(":", 1)[1].strip(), out.output
    assert all(n in out.output for n in needles), out.output
