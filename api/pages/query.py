"""A page's query string, checked: a bad value of a parameter the page takes is a 400 page that
says which and why, never a silent default (pages are linked to, and typos happen).

Parameters a page does not take are ignored: shared links carry ``utm_source``, ``fbclid``,
``ref`` and the like, and a page must open all the same.  (The REST API stays strict: an
unknown parameter there is a 422.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flask import request
from werkzeug.exceptions import BadRequest

Parser = Callable[[str], Any]


def query(**allowed: Parser) -> dict[str, Any]:
    """The request's parameters this page takes, parsed; an empty value counts as not given
    (a form's blank field); any other parameter is ignored."""
    out: dict[str, Any] = {}
    for name, parse in allowed.items():
        values = request.args.getlist(name)
        if len(values) > 1:
            raise BadRequest(f"{name}: give it once, not {len(values)} times")
        if values and values[0].strip():
            try:
                out[name] = parse(values[0].strip())
            except ValueError as exc:
                raise BadRequest(f"{name}: {exc}") from None
    return out


def known_args(*names: str) -> dict[str, str]:
    """The raw, non-blank values of the parameters ``names`` (for links that keep a page's
    filters: never a parameter the page ignored, such as a tracking tag)."""
    return {k: v for k in names if (v := request.args.get(k, "")).strip()}


def whole(low: int, high: int) -> Parser:
    def parse(text: str) -> int:
        if not text.isascii() or not text.isdigit() or len(text) > 12:
            raise ValueError(f"{text[:40]!r} is not a whole number")
        value = int(text)
        if not low <= value <= high:
            raise ValueError(f"{value} is not between {low} and {high}")
        return value
    return parse


def one_of(choices: Sequence[str]) -> Parser:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"{text[:40]!r} is not one of {', '.join(choices)}")
        return text
    return parse


def yes_no(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("yes", "true", "1"):
        return True
    if lowered in ("no", "false", "0"):
        return False
    raise ValueError(f"{text[:40]!r} is not yes or no")


def bot_ref(text: str) -> int | str:
    """A bot by id (digits) or by name."""
    if text.isascii() and text.isdigit():
        return whole(1, 2**31 - 1)(text)
    if len(text) > 200:
        raise ValueError("a bot name is at most 200 characters")
    return text
