"""Turning seat specs from the command line (``greedy``, ``http://…``) into players."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from referee.display import redact
from referee.players import InProcessPlayer, Player


NAME_RE = re.compile(r"[A-Za-z0-9_.+-]+")
"""What a ``NAME=BOT`` name may be made of."""


def split_name(text: str) -> tuple[str, str]:
    """``NAME=BOT`` -> ``(NAME, BOT)``; a bare bot -> ``(its shown name, bot)``, where a URL
    is shown without its credentials. ``ValueError`` for ``NAME=`` with nothing after it.

    Only a plain name before ``=`` splits: never a URL (``http://x/?a=b``), nor a bot spec
    with a parameter (``mcts:ms=50``).
    """
    name, sep, bot = text.partition("=")
    if sep and NAME_RE.fullmatch(name):
        if not bot:
            raise ValueError(f"no bot after {name}=")
        return name, bot
    return redact(text), text


def is_url(spec: str) -> bool:
    """Any scheme counts, so that ``ftp://x`` or ``htp://x`` is refused as a bad URL rather
    than looked up as a bot name."""
    return "://" in spec


def make_player(spec: str, game: str, seed: int, seat: int, name: str | None = None) -> Player:
    """A player for ``spec``: a built-in bot name, or the base URL of an HTTP bot; ``name``
    (default: ``spec``, its credentials hidden) is what the match log and the other bots call
    it.

    The one place a spec becomes a player, so that the CLI, ``bot check`` and ``--over-http``
    seed and name bots alike. Raises ``LookupError`` with the known names for an unknown bot
    or a bad parameter, :class:`~referee.transport.BotUrlError` for a malformed URL.
    """
    if is_url(spec):
        from referee.transport import HttpPlayer  # imported only when a URL is used

        return HttpPlayer(name=name or redact(spec), url=spec)
    from bots import find_bot

    return InProcessPlayer(name=name or spec, bot=find_bot(spec, game, bot_seed(seed, seat)))


def bot_seed(seed: int, seat: int) -> int:
    """The seed of a built-in bot's own generator in seat ``seat`` of the match seeded ``seed``
    (the same whether the bot runs in-process or behind ``--over-http``)."""
    return random.Random(f"{seed}:bot:{seat}").getrandbits(63)


def make_players(specs: Sequence[str], game: str, seed: int,
                 names: Sequence[str | None] | None = None) -> list[Player]:
    names = names or [None] * len(specs)
    return [make_player(s, game, seed, i, n) for i, (s, n) in enumerate(zip(specs, names))]
