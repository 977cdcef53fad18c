"""What a bot's name stands for: one bot, recorded once, changed only when asked.

Bots are shared by every game's ladder and by the CLI and the service alike.
:func:`claim_names` records what each name is (its built-in spec, or its URL without
credentials) and refuses a different bot under a name already in the ladder unless asked for
a new version, which keeps the rating and numbers the matches played from then on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import Connection, Engine, select, update

from ladder import LadderError
from ladder.db import insert_ignoring, translate_errors
from ladder.models import SPEC_LEN, Bot


def identity_spec(bot: str) -> str:
    """What a name is recorded as standing for: a built-in spec as given, a URL without its
    credentials (never stored) or trailing slash, scheme and host in lower case."""
    if "://" not in bot:
        return bot[:SPEC_LEN]
    try:
        parts = urlsplit(bot)
        host = (parts.hostname or "").lower()
        if ":" in host:
            host = f"[{host}]"
        netloc = host + (f":{parts.port}" if parts.port is not None else "")
    except ValueError:
        return bot[:SPEC_LEN]
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), parts.query,
                       ""))[:SPEC_LEN]


def claim_names(engine: Engine, bots: Mapping[str, str], *,
                new_version: bool = False) -> dict[str, int]:
    """Check (and record) that each name in ``bots`` (name -> spec or URL) stands for that bot.

    A new name is created with its spec; a name recorded before specs were kept adopts it.  A
    name standing for another bot raises LadderError, or with ``new_version`` starts version
    n+1 under the name (its rating carries on, its matches record the version).  Returns each
    name's version.
    """
    now = datetime.now(timezone.utc)
    identities = {name: identity_spec(spec) for name, spec in bots.items()}
    with translate_errors(engine), engine.begin() as conn:
        ensure_bots(conn, list(identities), now)
        return claim(conn, identities, new_version=new_version, now=now)


def claim(conn: Connection, identities: Mapping[str, str], *, new_version: bool,
          now: datetime) -> dict[str, int]:
    """:func:`claim_names` inside the caller's transaction, for names that exist
    (``identities``: name -> :func:`identity_spec`)."""
    rows = conn.execute(select(Bot.id, Bot.name, Bot.spec, Bot.version, Bot.owner_id)
                        .where(Bot.name.in_(list(identities)))).all()
    versions: dict[str, int] = {}
    for row in rows:
        wanted = identities[row.name]
        if row.spec is None:
            conn.execute(update(Bot).where(Bot.id == row.id).values(spec=wanted))
        elif row.spec != wanted:
            if not new_version or row.owner_id is not None:
                hint = ("it is a service bot; choose another name" if row.owner_id is not None
                        else "use another name (NAME=BOT), or --new-version to replace it")
                raise LadderError(
                    f"the ladder's bot {row.name!r} is {row.spec!r} (version {row.version}), "
                    f"not {wanted!r}: {hint}")
            conn.execute(update(Bot).where(Bot.id == row.id)
                         .values(spec=wanted, version=row.version + 1, updated_at=now))
            versions[row.name] = row.version + 1
            continue
        versions[row.name] = row.version
    return versions


def ensure_bots(conn: Connection, names: Sequence[str], now: datetime) -> dict[str, int]:
    """Ids of the named bots, created if new.

    Bots are shared by every game's ladder, so writers of two games (holding different ladder
    locks) may insert the same new names at once; inserting in sorted order makes them wait
    for each other in the same order, never in a deadlock.
    """
    conn.execute(
        insert_ignoring(conn, Bot).on_conflict_do_nothing(index_elements=["name"]),
        [{"name": n, "created_at": now} for n in sorted(names)],
    )
    rows = conn.execute(select(Bot.name, Bot.id).where(Bot.name.in_(names))).all()
    return {name: bot_id for name, bot_id in rows}
