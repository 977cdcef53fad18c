"""Make-ups: what a tick does about fixtures that cannot be played as planned.

* **cancel**: a planned fixture with a bot that is no longer eligible is cancelled (so is a
  held game of a dispatched one); the other bots in it become *orphans*;
* **settle**: a fixture whose matches are all over is done, placement counts down per
  finished game, and a match voided for an infrastructure reason gets a **make-up** (same
  bots, same seat order, fresh seed) filed under the same round; when a bot of it is gone,
  the others are orphans instead; after :data:`~ladder.matchmaking.state.MAX_MAKEUPS`
  make-ups its bots rest;
* **orphans** of a round are seated together as make-ups; those left take a bye when nothing
  else of their round waits (or at the latest when the next round opens).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import func, select, update

from ladder.matchmaking.ladder_state import LadderState
from ladder.matchmaking.state import CANCEL_PREFIX, MAX_MAKEUPS, FixtureRow, Kind, Stage
from ladder.models import FINISHED, VOIDED, LadderEntry, MatchSeat
from ladder.pairing import Plan, plan_round, table_sizes


def cancel(lad: LadderState) -> None:
    """Cancel planned fixtures with a bot gone; void held games of a bot gone."""
    for f in list(lad.fixtures.values()):
        if f.kind == Kind.BYE or not f.open:
            continue
        gone = [b for b in f.bots if b not in lad.eligible]
        if not gone:
            continue
        if f.state == Stage.PLANNED:
            lad.update_fixture(f, state=Stage.CANCELLED,
                               reason=f"bot {gone[0]} no longer eligible")
            if f.kind != Kind.ORPHAN:
                orphan(lad, f, [b for b in f.bots if b not in gone], f.games)
            continue
        held = [m for m in lad.matches[f.id] if m.held]
        if held:
            lad.void_held(held, f"{CANCEL_PREFIX} bot {gone[0]} no longer eligible")


def settle(lad: LadderState) -> None:
    """Fixtures whose matches are all over: done, placement counted, voids made up."""
    for f in list(lad.fixtures.values()):
        if f.state != Stage.DISPATCHED:
            continue
        ms = lad.matches[f.id]
        if len(ms) < f.games or not all(m.over for m in ms):
            continue
        lad.update_fixture(f, state=Stage.DONE)
        finished = sum(m.state == FINISHED for m in ms)
        if finished:
            _count_placement(lad, f.bots, finished)
        voided = [m for m in ms if m.state == VOIDED]
        if not voided:
            continue
        seatings = _seatings_of(lad, [m.id for m in voided])
        present = [b for b in f.bots if b in lad.eligible]
        cancelled = any((m.void_reason or "").startswith(CANCEL_PREFIX) for m in voided)
        if lad.generation(f) >= MAX_MAKEUPS:  # it keeps failing: rest its bots
            for bot in present:
                lad.add_fixture(f.round_id, Kind.BYE, [bot], 0, reason="void",
                                state=Stage.DONE, makeup_of=f.id)
                lad.rest(bot, None)
        elif len(present) == len(f.bots) and not cancelled:
            lad.add_fixture(f.round_id, Kind.MAKEUP, seatings[0], len(voided),
                            reason=f"make-up of fixture {f.id}", makeup_of=f.id)
        else:
            orphan(lad, f, present, len(voided))


def _seatings_of(lad: LadderState, match_ids: list[int]) -> list[list[int]]:
    rows = lad.conn.execute(select(MatchSeat.match_pk, MatchSeat.bot_id)
                            .where(MatchSeat.match_pk.in_(match_ids))
                            .order_by(MatchSeat.match_pk, MatchSeat.seat)).all()
    by_match: dict[int, list[int]] = defaultdict(list)
    for pk, bot in rows:
        by_match[pk].append(bot)
    return [by_match[pk] for pk in match_ids]


def _count_placement(lad: LadderState, bots: Sequence[int], games: int) -> None:
    left = LadderEntry.placement_remaining - games
    lad.conn.execute(update(LadderEntry).where(
        LadderEntry.game == lad.game, LadderEntry.bot_id.in_(list(bots)),
        LadderEntry.placement_remaining > 0).values(
        placement_remaining=func.max(left, 0) if lad.conn.dialect.name == "sqlite"
        else func.greatest(left, 0)))


def orphan(lad: LadderState, f: FixtureRow, bots: Sequence[int], games: int) -> None:
    """``bots`` of ``f`` wait for a make-up partner (``games`` of ``f`` are owed them)."""
    for bot in bots:
        lad.add_fixture(f.round_id, Kind.ORPHAN, [bot], games,
                        reason=f"fixture {f.id} was cancelled", makeup_of=f.id)


def seat_orphans(lad: LadderState) -> None:
    """Seat each round's orphans together; a bye for those who cannot be, once nothing
    else of their round waits to be dispatched (another orphan could come from it)."""
    by_round: dict[tuple[int, int], list[FixtureRow]] = defaultdict(list)
    for f in lad.fixtures.values():
        if f.kind == Kind.ORPHAN and f.state == Stage.PLANNED:
            by_round[(f.round_id, f.games)].append(f)
    for (round_id, games), orphans in sorted(by_round.items()):
        sizes = table_sizes(len(orphans), lad.big)
        entrants = [lad.entrant(o.bots[0]) for o in orphans]
        plan = plan_round(entrants, lad.big, {}, lad.rng, p_far=0.0) if sizes else Plan(
            byes=[])
        seated = {b for t in plan.fixtures for b in t}
        for table in plan.fixtures:
            lad.add_fixture(round_id, Kind.MAKEUP, list(table), games,
                            reason="orphans of cancelled fixtures",
                            makeup_of=next(o.makeup_of for o in orphans
                                           if o.bots[0] == table[0]))
        waiting = any(f.round_id == round_id and f.to_start for f in lad.fixtures.values())
        for o in orphans:
            if o.bots[0] in seated:
                lad.update_fixture(o, state=Stage.DONE, reason="seated in a make-up")
            elif not waiting:
                orphan_rests(lad, o)


def orphan_rests(lad: LadderState, o: FixtureRow) -> None:
    """An orphan no make-up seated rests in its round: a bye, not a rotation one (the
    rotation is untouched)."""
    lad.update_fixture(o, state=Stage.DONE, kind=Kind.BYE, reason="orphan")
    lad.rest(o.bots[0], None)
