"""Text fit to show or store as a name: URLs without their secrets, bot text without escapes.

Two rules, each kept in one place so that every output (the terminal, the match log, the
state file, the ladder's names, ``--json``) follows it:

* :func:`redact` hides the password (or the lone token) in every ``scheme://user:pass@host``
  of a text: bot URLs may carry credentials, and a database URL usually does. The real URL
  is used to connect and never leaves the process.
* :func:`printable` escapes every character a terminal would act on, in text a bot chose (an
  HTTP status line, a ``GET /`` name): ESC starts the ANSI sequences that recolour, clear or
  retitle a terminal, and bidirectional overrides make a line read as something else.
"""

from __future__ import annotations

import re

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/?#\s]*)@")
HIDDEN = "***"


def _hide(match: re.Match[str]) -> str:
    user, sep, _secret = match.group(2).partition(":")
    return match.group(1) + (f"{user}:{HIDDEN}" if sep else HIDDEN) + "@"


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it hidden: ``http://me:pw@host`` ->
    ``http://me:***@host``; a lone token (``http://tok@host``) -> ``http://***@host``."""
    return _USERINFO.sub(_hide, text)


def has_credentials(url: str) -> bool:
    return redact(url) != url


def printable(text: str) -> str:
    """``text`` with every non-printable character (controls, ESC, DEL, line breaks,
    invisible format characters such as bidi overrides) written as a Python-style escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
