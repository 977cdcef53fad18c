"""The logs stored in a ladder, for export: finished matches, filtered, oldest first.

What leaves is each match's public log, the document ``GET /api/v1/matches/{id}/log`` serves:
bots' own ``log`` lines stay behind (they are their owners'), and a match whose seed another
match still being played shares (a Tokaido Duo pair) is withheld, as the API withholds it,
so an export taken while the ladder runs can be published at once.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, or_, select

from ladder.accounts import utc
from ladder.db import reader, translate_errors
from ladder.models import FINISHED, Bot, Match, MatchLog, MatchSeat
from ladder.reads import _logs_public
from ladder.work import split_log

BATCH = 200


@dataclass(frozen=True)
class Selection:
    """Which finished matches: ``ids`` as inclusive ``(low, high)`` ranges (``high`` None: no
    upper end), finished in ``[since, until)``; at most ``limit`` of them."""

    game: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    ids: Sequence[tuple[int, int | None]] = ()
    after_id: int | None = None
    limit: int | None = None

    def where(self) -> list[Any]:
        out: list[Any] = [Match.state == FINISHED]
        if self.game is not None:
            out.append(Match.game == self.game)
        if self.since is not None:
            out.append(Match.finished_at >= self.since)
        if self.until is not None:
            out.append(Match.finished_at < self.until)
        if self.after_id is not None:
            out.append(Match.id > self.after_id)
        if self.ids:
            out.append(or_(*(Match.id == low if high == low else
                             and_(Match.id >= low, *([Match.id <= high] if high else []))
                             for low, high in self.ids)))
        return out


@dataclass(frozen=True)
class Exported:
    id: int
    match_id: str
    game: str
    rated: bool
    finished_at: datetime | None
    log: dict[str, Any]
    sha256: str
    """Of the log's JSON as stored: the API's ETag for it."""
    bots: list[str] = field(default_factory=list)
    """The ladder's names of the bots, by seat (a log may name them otherwise)."""

    def index_line(self, file: str | None = None) -> dict[str, Any]:
        """What an index of the export says of this match."""
        line: dict[str, Any] = {
            "id": self.id, "match_id": self.match_id, "game": self.game, "rated": self.rated,
            "finished_at": None if self.finished_at is None else
            self.finished_at.isoformat(timespec="seconds"),
            "bots": self.bots,
            "winners": self.log.get("result", {}).get("winners", []),
            "end": self.log.get("result", {}).get("end"), "sha256": self.sha256}
        if file is not None:
            line["file"] = file
        return line


@dataclass
class Tally:
    exported: int = 0
    withheld: list[int] = field(default_factory=list)


def public_logs(engine: Engine, selection: Selection, tally: Tally | None = None
                ) -> Iterator[Exported]:
    """The selected matches' public logs, by id; ``tally`` counts them and the withheld."""
    tally = tally if tally is not None else Tally()
    after = 0
    while selection.limit is None or tally.exported < selection.limit:
        with translate_errors(engine), reader(engine) as conn:
            rows = conn.execute(select(Match.__table__).where(*selection.where(),
                                                              Match.id > after)
                                .order_by(Match.id).limit(BATCH)).all()
            if not rows:
                return
            public = _logs_public(conn, rows)
            batch = [m.id for m in rows]
            stored = {r.match_pk: r for r in conn.execute(
                select(MatchLog.match_pk, MatchLog.gz, MatchLog.sha256)
                .where(MatchLog.match_pk.in_(batch)))}
            names: dict[int, list[str]] = {}
            for pk, name in conn.execute(
                    select(MatchSeat.match_pk, Bot.name).join(Bot, Bot.id == MatchSeat.bot_id)
                    .where(MatchSeat.match_pk.in_(batch))
                    .order_by(MatchSeat.match_pk, MatchSeat.seat)):
                names.setdefault(pk, []).append(name)
        for m in rows:
            after = m.id
            if m.id not in public:
                tally.withheld.append(m.id)
                continue
            if selection.limit is not None and tally.exported >= selection.limit:
                return
            log, sha = _log_of(m, stored.get(m.id))
            tally.exported += 1
            yield Exported(m.id, m.match_id, m.game, bool(m.rated), utc(m.finished_at), log,
                           sha, names.get(m.id, []))


def _log_of(m: Any, stored: Any) -> tuple[dict[str, Any], str]:
    if stored is not None:
        raw = gzip.decompress(stored.gz)
        log: dict[str, Any] = json.loads(raw)
        return log, str(stored.sha256)
    public, _ = split_log(m.log or {})  # a CLI match: its log is stored inline
    raw = json.dumps(public, separators=(",", ":")).encode()
    return public, hashlib.sha256(raw).hexdigest()
