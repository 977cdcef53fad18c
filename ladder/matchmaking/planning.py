"""Planning a round: when the next one may open, who is in it, and storing its plan.

Round r+1 opens once every fixture of round r has started, with at most ``max_open_rounds``
open, from the eligible bots under their daily cap that have no fixture waiting to start
(:mod:`ladder.pairing` plans it, on the public rating: the fit's number and interval).  A fixture waiting on a retry holds neither back (a round
left with only such fixtures does not count as open).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from datetime import timedelta

from sqlalchemy import JSON, bindparam, func, insert, select, update

from ladder.db import DriverStatement
from ladder.leaderboard import PUBLIC, public_fit
from ladder.matchmaking.entries import latest_round
from ladder.matchmaking.ladder_state import LadderState
from ladder.matchmaking.makeups import orphan_rests
from ladder.matchmaking.state import PLAYED, Kind, RoundRow, Stage
from ladder.models import VOIDED, Fixture, LadderEntry, Match, MatchSeat, Round
from ladder.pairing import Entrant, Plan, pair_key, plan_round, table_sizes
from ladder.ratings import ELO_SCALE, Z95

_SET_SEATS = update(LadderEntry).where(
    LadderEntry.bot_id == bindparam("b_id"), LadderEntry.game == bindparam("b_game")).values(
    seat_counts=bindparam("b_seats", type_=JSON()))
_SET_SEATS_FIELDS = ("b_seats", "b_id", "b_game")
UNRATED_MARGIN = Z95 * ELO_SCALE * math.sqrt(4.0 / PUBLIC.prior_games)
"""The 95% half-width of a bot without rated results: the fit's prior alone."""
"""Seat counts of many entries at once, as plain tuples (JSON text: what the column stores)."""


def may_open(lad: LadderState) -> bool:
    """Whether the next round may open: every fixture of the latest has started (or waits
    on a retry), and fewer than ``max_open_rounds`` rounds are open."""
    if sum(not _behind(lad, r) for r in lad.rounds) >= lad.config.max_open_rounds:
        return False
    if not lad.rounds:
        return True
    latest = max(lad.rounds.values(), key=lambda r: r.number)
    return not any(f.to_start and not lad.lagging(f) for f in lad.in_round(latest.id))


def _behind(lad: LadderState, round_id: int) -> bool:
    """Whether everything of the round not over waits on a retry."""
    return all(lad.lagging(f) for f in lad.in_round(round_id) if f.open)


def open_round(lad: LadderState) -> bool:
    """Plan and store the next round; False when too few bots are eligible.  Orphans still
    waiting for a partner rest first, in their own round, and play this one: one left pending
    would sit it out (its bot has a fixture waiting), a round lost through no doing of its
    own, that the evenness bound does not allow."""
    for o in list(lad.fixtures.values()):
        if o.kind == Kind.ORPHAN and o.state == Stage.PLANNED:
            orphan_rests(lad, o)
    capped = _daily_counts(lad)
    pending = {b for f in lad.fixtures.values() if f.state == Stage.PLANNED for b in f.bots}
    bots = [b for b in lad.eligible.values() if b.bot_id not in pending
            and capped[b.bot_id] + lad.k <= lad.config.daily_cap]
    if not table_sizes(len(bots), lad.big):
        return False
    number = latest_round(lad.conn, lad.game) + 1
    plan = plan_round(_entrants(lad, [b.bot_id for b in bots]), lad.big, _meetings(lad),
                      lad.rng, p_far=lad.config.p_far)
    if not plan.fixtures:  # nobody can play anybody (one owner's bots only)
        return False
    round_id = lad.conn.execute(insert(Round).values(
        game=lad.game, number=number, opened_at=lad.now, closed_at=None,
        eligible=sorted(b.bot_id for b in bots)).returning(Round.id)).scalar_one()
    lad.rounds[round_id] = RoundRow(round_id, number)
    lad.result.opened.append(round_id)
    rows = [lad.fixture_row(round_id, Kind.FIXTURE, list(t), lad.k) for t in plan.fixtures]
    rows += [lad.fixture_row(round_id, Kind.BYE, [b.bot_id], 0, reason=b.reason,
                             state=Stage.DONE) for b in plan.byes]
    lad.add_fixtures(rows)
    _record_seats(lad, plan, number)
    return True


def _entrants(lad: LadderState, bots: list[int]) -> list[Entrant]:
    """The round's entrants rated by the public fit (its number and 95% interval, which the
    pairing weighs: issue 27), a bot without rated results at the prior."""
    fitted = public_fit(lad.conn, lad.game).bots
    out = []
    for bot in bots:
        public = fitted.get(bot)
        out.append(replace(lad.entrant(bot),
                           rating=public.rating if public else PUBLIC.center,
                           margin=public.margin if public else UNRATED_MARGIN))
    return out


def close(lad: LadderState) -> None:
    """Close the rounds whose fixtures are all over."""
    for round_id in list(lad.rounds):
        if all(not f.open for f in lad.in_round(round_id)):
            lad.conn.execute(update(Round).where(Round.id == round_id).values(closed_at=lad.now))
            lad.result.closed.append(round_id)
            del lad.rounds[round_id]
            lad.changes += 1


def _daily_counts(lad: LadderState) -> Counter[int]:
    """Rated matches per bot in this game over the last 24 hours, with those planned."""
    since = lad.now - timedelta(days=1)
    counts: Counter[int] = Counter(dict(lad.conn.execute(
        select(MatchSeat.bot_id, func.count()).join(Match, Match.id == MatchSeat.match_pk)
        .where(Match.game == lad.game, Match.rated.is_(True), Match.state != VOIDED,
               Match.recorded_at >= since).group_by(MatchSeat.bot_id)).all()))
    for f in lad.fixtures.values():
        if f.to_start:
            for b in f.bots:
                counts[b] += f.games
    return counts


def _meetings(lad: LadderState) -> dict[tuple[int, int], int]:
    last = latest_round(lad.conn, lad.game)
    recent = select(Round.id).where(Round.game == lad.game,
                                    Round.number > last - lad.config.recent_rounds)
    met: Counter[tuple[int, int]] = Counter()
    for (bots,) in lad.conn.execute(select(Fixture.bots).where(
            Fixture.round_id.in_(recent), Fixture.kind.in_(sorted(PLAYED)))):
        for i, a in enumerate(bots):
            for b in bots[i + 1:]:
                met[pair_key(a, b)] += 1
    return dict(met)


def _record_seats(lad: LadderState, plan: Plan, number: int) -> None:
    """Byes rest the bot; each fixture adds to its bots' seat counts."""
    rows = []
    if lad.k == 1:  # a pair plays both seats: nothing to balance
        for table in plan.fixtures:
            for seat, bot in enumerate(table):
                counts = list(lad.eligible[bot].seats)
                counts[seat] += 1
                lad.eligible[bot].seats = counts
                rows.append((json.dumps(counts), bot, lad.game))
    if rows:
        DriverStatement(lad.conn, _SET_SEATS, _SET_SEATS_FIELDS).executemany(rows)
    for bye in plan.byes:
        lad.rest(bye.bot_id, number)
