"""Revision 0008_fixture_id, up and down, on a ladder that revision 0007 wrote: every match,
seat and fixture is kept, each ladder match gets its fixture's id, a held match is named held
(and the sweeper leaves it alone), and the downgrade writes the old year-9000 mark back."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import MetaData, Table, func, insert, select

from ladder.db import current_revision, head_revision, make_engine, migrate
from ladder.matchmaking import round_detail
from ladder.work import SweepPolicy, sweep

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
HELD_MARK = datetime(9000, 1, 1, tzinfo=timezone.utc)
"""What revision 0007's matchmaker wrote in ``enqueued_at`` for a held match."""


def _table(conn, name: str) -> Table:
    return Table(name, MetaData(), autoload_with=conn)


def _write_0007(conn) -> dict[str, int]:
    """A round of a pair's fixture (one game finished, one held), a planned fixture, a bye,
    a challenge's match and a match naming a fixture that is gone: as 0007 wrote them."""
    bots, rounds, fixtures = (_table(conn, n) for n in ("bots", "rounds", "fixtures"))
    matches, seats = _table(conn, "matches"), _table(conn, "match_seats")
    a, b = (conn.execute(insert(bots).values(name=n, created_at=T0).returning(bots.c.id))
            .scalar_one() for n in ("a", "b"))
    round_id = conn.execute(insert(rounds).values(
        game="tokaido-duo", number=1, opened_at=T0, eligible=[a, b]).returning(rounds.c.id)
    ).scalar_one()

    def fixture(kind: str, state: str, bots_: list[int], games: int) -> int:
        return int(conn.execute(insert(fixtures).values(
            round_id=round_id, game="tokaido-duo", kind=kind, bots=bots_, state=state,
            games=games, made=1 if state == "dispatched" else 0, seed=7, created_at=T0)
            .returning(fixtures.c.id)).scalar_one())

    pair, planned = fixture("fixture", "dispatched", [a, b], 2), fixture("fixture", "planned",
                                                                          [b, a], 2)
    fixture("bye", "done", [a], 0)

    def match(key: str, state: str, enqueued: datetime | None, in_round: bool) -> int:
        pk = int(conn.execute(insert(matches).values(
            match_id=f"svc-{key}-{state}", game="tokaido-duo", rules_version="1", num_seats=2,
            recorded_at=T0, state=state, rated=in_round, seed=7, attempt=0,
            enqueued_at=enqueued, round_id=round_id if in_round else None, pair_key=key)
            .returning(matches.c.id)).scalar_one())
        conn.execute(insert(seats), [{"match_pk": pk, "seat": 0, "bot_id": a, "bot_version": 1},
                                     {"match_pk": pk, "seat": 1, "bot_id": b, "bot_version": 1}])
        return pk

    return {"pair": pair, "planned": planned,
            "played": match(f"fx{pair}", "finished", T0, True),
            "held": match(f"fx{pair}", "scheduled", HELD_MARK, True),
            "challenge": match("c1.0", "scheduled", T0, False),
            "gone": match("fx999999", "voided", T0, True)}


def _counts(engine) -> tuple[int, int, int]:
    with engine.connect() as conn:
        return tuple(conn.execute(select(func.count()).select_from(_table(conn, name)))
                     .scalar_one() for name in ("matches", "fixtures", "match_seats"))


def _matches(engine) -> dict[int, dict]:
    with engine.connect() as conn:
        table = _table(conn, "matches")
        return {r["id"]: dict(r) for r in conn.execute(select(table)).mappings()}


def test_0008_links_every_ladder_match_to_its_fixture_and_names_the_held_one(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        migrate(engine, "0007_checks")
        with engine.begin() as conn:
            ids = _write_0007(conn)
        before = _counts(engine)
        assert before == (4, 3, 8)

        migrate(engine, "0008_fixture_id")
        assert current_revision(engine) == "0008_fixture_id"
        assert _counts(engine) == before
        rows = _matches(engine)
        assert {pk: rows[pk]["fixture_id"] for pk in rows} == {
            ids["played"]: ids["pair"], ids["held"]: ids["pair"], ids["challenge"]: None,
            ids["gone"]: None}
        assert [pk for pk in rows if rows[pk]["held"]] == [ids["held"]]
        assert rows[ids["held"]]["enqueued_at"] is None
        assert rows[ids["played"]]["pair_key"] == f"fx{ids['pair']}"  # the seed's group stays
        detail = round_detail(engine, rows[ids["played"]]["round_id"])
        by_fixture = {f["id"]: [m["id"] for m in f["matches"]] for f in detail["fixtures"]}
        assert by_fixture == {ids["pair"]: [ids["played"], ids["held"]], ids["planned"]: []}
        # the sweeper hands lost enqueues on (the challenge's), never a held match
        assert sweep(engine, SweepPolicy(requeue_after_s=0, max_age_s=10**9),
                     now=T0 + timedelta(minutes=5)) == [ids["challenge"]]

        migrate(engine, "0007_checks", down=True)
        assert _counts(engine) == before
        rows = _matches(engine)
        assert "fixture_id" not in rows[ids["held"]] and "held" not in rows[ids["held"]]
        held_at = rows[ids["held"]]["enqueued_at"]
        assert held_at is not None and held_at.year == 9000
    finally:
        engine.dispose()
