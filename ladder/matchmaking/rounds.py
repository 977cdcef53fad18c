"""Reading rounds (the rounds endpoints): a page of them with their progress, and one in
detail with its fixtures, their matches and the byes."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from sqlalchemy import Engine, func, select

from ladder import NotFoundError
from ladder.accounts import utc
from ladder.db import reader, translate_errors
from ladder.matchmaking.state import PLAYED, Kind, Stage
from ladder.models import Bot, Fixture, Match, Round
from ladder.pairing import ROTATION


def list_rounds(engine: Engine, game: str | None = None, page: int = 1,
                per_page: int = 20) -> tuple[list[dict[str, Any]], int]:
    """A page of rounds, newest first, each with its progress; and the total."""
    where = [Round.game == game] if game is not None else []
    with translate_errors(engine), reader(engine) as conn:
        total = conn.execute(select(func.count()).select_from(Round).where(*where)).scalar_one()
        rows = conn.execute(select(Round.__table__).where(*where)
                            .order_by(Round.opened_at.desc(), Round.id.desc())
                            .offset((page - 1) * per_page).limit(per_page)).all()
        counts: dict[int, Counter[tuple[str, str]]] = defaultdict(Counter)
        if rows:
            for round_id, kind, state, n in conn.execute(
                    select(Fixture.round_id, Fixture.kind, Fixture.state, func.count())
                    .where(Fixture.round_id.in_([r.id for r in rows]))
                    .group_by(Fixture.round_id, Fixture.kind, Fixture.state)):
                counts[round_id][(kind, state)] += n
    return [_round_dict(r, counts[r.id]) for r in rows], int(total)


def _round_dict(r: Any, counts: Counter[tuple[str, str]]) -> dict[str, Any]:
    def count(kinds: frozenset[Kind], *states: Stage) -> int:
        return sum(counts[(k, s)] for k in kinds for s in states)

    return {"id": r.id, "game": r.game, "number": r.number, "opened_at": utc(r.opened_at),
            "closed_at": utc(r.closed_at), "eligible": len(r.eligible or []),
            "progress": {"fixtures": count(PLAYED, *Stage),
                         "planned": count(PLAYED, Stage.PLANNED),
                         "dispatched": count(PLAYED, Stage.DISPATCHED),
                         "done": count(PLAYED, Stage.DONE),
                         "cancelled": count(PLAYED, Stage.CANCELLED),
                         "byes": count(frozenset({Kind.BYE}), Stage.DONE)}}


def round_detail(engine: Engine, round_id: int) -> dict[str, Any]:
    """A round: its eligible bots, fixtures (with their matches) and byes."""
    with translate_errors(engine), reader(engine) as conn:
        r = conn.execute(select(Round.__table__).where(Round.id == round_id)).one_or_none()
        if r is None:
            raise NotFoundError(f"no round {round_id}")
        fixtures = conn.execute(select(Fixture.__table__).where(Fixture.round_id == round_id)
                                .order_by(Fixture.id)).all()
        matches: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for m in conn.execute(select(Match.id, Match.fixture_id, Match.state)
                              .where(Match.round_id == round_id,
                                     Match.fixture_id.is_not(None)).order_by(Match.id)):
            matches[m.fixture_id].append({"id": m.id, "state": m.state})
        ids = set(r.eligible or []) | {b for f in fixtures for b in f.bots}
        names = dict(conn.execute(select(Bot.id, Bot.name).where(Bot.id.in_(list(ids)))).all())
    counts: Counter[tuple[str, str]] = Counter((f.kind, f.state) for f in fixtures)

    def bot(b: int) -> dict[str, Any]:
        return {"id": b, "name": names.get(b)}

    doc = _round_dict(r, counts)
    doc["eligible_bots"] = [bot(b) for b in r.eligible or []]
    doc["fixtures"] = [
        {"id": f.id, "kind": f.kind, "state": f.state, "reason": f.reason,
         "bots": [bot(b) for b in f.bots], "games": f.games, "released": f.made,
         "makeup_of": f.makeup_of, "matches": matches.get(f.id, [])}
        for f in fixtures if f.kind in PLAYED]
    doc["byes"] = [{"bot": bot(f.bots[0]), "reason": f.reason or ROTATION}
                   for f in fixtures if f.kind == Kind.BYE]
    return doc
