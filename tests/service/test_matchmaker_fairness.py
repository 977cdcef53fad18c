"""Neither a ladder nor one fixture holds the others up.

Fairness across ladders: a discrete-event simulation, no wall clock.  Every bot is on both
ladders with ``max_concurrency`` 1; a match takes a fixed number of time units per game; the
match ending first is finished by hand and the tick after it is asked for that match's game
only, as the runner's trigger does (no beat: fairness must not depend on who ticks).

Retries: a match whose worker died (its lease lapsed) or that is being replayed does not keep
the next round from opening; its bots, and the bots waiting on them, sit rounds out with
their fixture pending, like a make-up, and come back once it is over.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from sqlalchemy import Engine, select

from ladder import matchmaking as mm
from ladder.accounts import now_utc
from ladder.matchmaking import MatchmakerConfig
from ladder.models import FINISHED, SCHEDULED, Fixture, Match, MatchSeat, Round
from ladder.store import open_db
from ladder.work import claim, finish

from service.matchmaking_support import add_bot, add_owner, fake_log, finish_match, seats_of

DUO, TRACK = "tokaido-duo", "doubletrack"
CONFIG = MatchmakerConfig(depth=64, daily_cap=100_000)


@dataclass
class Waits:
    """Per fixture, the matches of the other game released on its bots while it waited."""

    waiting: dict[int, tuple[str, set[int]]] = field(default_factory=dict)
    """Fixture id -> its game and bots, while it is planned."""
    passed: Counter[int] = field(default_factory=Counter)
    """Fixture id -> matches of the other game released on one of its bots meanwhile."""
    worst: Counter[str] = field(default_factory=Counter)
    """Per game, the most any of its fixtures that started had to let pass."""

    def planned(self, engine: Engine) -> None:
        """Note the fixtures planned now; those that were and are not any more started."""
        with engine.connect() as conn:
            rows = conn.execute(select(Fixture.id, Fixture.game, Fixture.bots).where(
                Fixture.kind.in_((mm.Kind.FIXTURE, mm.Kind.MAKEUP)), Fixture.state == mm.Stage.PLANNED)).all()
        now = {fid: (game, set(bots)) for fid, game, bots in rows}
        for fid, (game, _) in self.waiting.items():
            if fid not in now:
                self.worst[game] = max(self.worst[game], self.passed.pop(fid, 0))
        self.waiting = now

    def released(self, game: str, bots: list[int]) -> None:
        for fid, (waiting_game, waiting_bots) in self.waiting.items():
            if waiting_game != game and waiting_bots & set(bots):
                self.passed[fid] += 1

    def longest(self, game: str) -> int:
        """The most a fixture of ``game`` let pass, counting those still waiting."""
        still = [n for fid, n in self.passed.items() if self.waiting[fid][0] == game]
        return max([self.worst[game], *still])


def bots_on(url: str, bots: int, games: tuple[str, ...]) -> Engine:
    engine = open_db(url)
    for i in range(bots):
        bot = add_bot(engine, f"b{i}", add_owner(engine, f"o{i}"), cap=1)
        for game in games:
            mm.join(engine, bot, game)
    return engine


def released(engine: Engine, ids: list[int]) -> dict[int, tuple[str, list[int]]]:
    """The game and the bots (in seat order) of each match of ``ids``."""
    out: dict[int, tuple[str, list[int]]] = {}
    with engine.connect() as conn:
        for pk, game, bot in conn.execute(
                select(Match.id, Match.game, MatchSeat.bot_id)
                .join(MatchSeat, MatchSeat.match_pk == Match.id)
                .where(Match.id.in_(ids)).order_by(Match.id, MatchSeat.seat)):
            out.setdefault(pk, (game, []))[1].append(bot)
    return out


def simulate(engine: Engine, events: int, length: dict[str, int],
             rng: random.Random) -> Waits:
    """Play ``events`` matches to the end, each taking ``length[game]`` time units."""
    waits = Waits()
    game_of: dict[int, str] = {}
    running: list[tuple[int, int]] = []  # (ends at, match id)
    clock = 0

    def tick(game: str | None) -> None:
        result = mm.tick(engine, config=CONFIG, rng=rng)
        for pk, (match_game, bots) in released(engine, result.enqueue).items():
            game_of[pk] = match_game
            waits.released(match_game, bots)
            heapq.heappush(running, (clock + length[match_game], pk))
        waits.planned(engine)

    tick(None)
    for _ in range(events):
        assert running, "nothing in flight: the ladders stalled"
        clock, pk = heapq.heappop(running)
        assert finish_match(engine, pk, rng)
        tick(game_of[pk])
    return waits


def closed_rounds(engine: Engine) -> Counter[str]:
    with engine.connect() as conn:
        return Counter(conn.execute(select(Round.game).where(
            Round.closed_at.is_not(None))).scalars())


@pytest.mark.parametrize("bots, length", [
    (4, {DUO: 1, TRACK: 3}),  # one table of four; a Tokaido Duo match three times as quick
    (5, {DUO: 2, TRACK: 1}),  # byes on both ladders; Doubletrack the quicker
])
def test_neither_ladder_starves_the_other(tmp_path, bots, length):
    engine = bots_on(f"sqlite:///{tmp_path / 'fair.sqlite3'}", bots, (DUO, TRACK))
    try:
        waits = simulate(engine, 48, length, random.Random(bots))
        # A fixture waits only for the fixtures owed on its bots when it was planned: of the
        # other ladder, one per open round and bot, each of its games.
        for game, other in ((DUO, TRACK), (TRACK, DUO)):
            bound = mm.big_table(game) * CONFIG.max_open_rounds * mm.games_per_fixture(
                mm.big_table(other))
            assert waits.longest(game) <= bound, (game, waits)
        closed = closed_rounds(engine)
        fewer, more = sorted([closed[DUO], closed[TRACK]])  # both ladders kept going
        assert fewer >= 4 and more <= 2 * fewer, closed
    finally:
        engine.dispose()


# -- a match in retry -------------------------------------------------------------------------

def dies(engine: Engine, pk: int) -> None:
    """The worker playing ``pk`` dies: its attempt's lease has run out."""
    assert claim(engine, pk, "dead-worker", lease_s=60, now=now_utc() - timedelta(minutes=5))


def play_all_but(engine: Engine, stuck: int, rng: random.Random, rounds: int) -> None:
    """Tick and finish every released match but ``stuck`` until nothing is left to play or
    ``rounds`` rounds have opened."""
    for _ in range(10 * rounds):
        mm.tick(engine, config=CONFIG, rng=rng)
        with engine.connect() as conn:
            released = conn.execute(select(Match.id).where(
                Match.state == SCHEDULED, Match.held.is_(False), Match.id != stuck)
            ).scalars().all()
        if not released or len(rounds_of(engine)) >= rounds:
            return
        for pk in released:
            assert finish_match(engine, pk, rng)
    raise AssertionError("the ladder never settled")


def rounds_of(engine: Engine) -> list[tuple[int, list[int], bool]]:
    """Each round's number, snapshot and whether it is closed."""
    with engine.connect() as conn:
        return [(r.number, sorted(r.eligible), r.closed_at is not None) for r in conn.execute(
            select(Round.number, Round.eligible, Round.closed_at).where(Round.game == DUO)
            .order_by(Round.number))]


def waiting_on(engine: Engine, bots: set[int]) -> set[int]:
    """``bots`` and the bots of every planned fixture with one of them."""
    with engine.connect() as conn:
        planned = conn.execute(select(Fixture.bots).where(
            Fixture.state == mm.Stage.PLANNED, Fixture.kind == mm.Kind.FIXTURE)).scalars().all()
    return bots | {b for table in planned if set(table) & bots for b in table}


def test_a_match_in_retry_does_not_keep_the_next_round_from_opening(db_url):
    engine = bots_on(db_url, 6, (DUO,))
    rng = random.Random(5)
    try:
        first = mm.tick(engine, config=CONFIG, rng=rng).enqueue
        stuck = first[0]
        pair = set(seats_of(engine)[stuck])
        dies(engine, stuck)
        replay = claim(engine, stuck, "next-worker", lease_s=3600)  # the second attempt plays
        assert replay is not None and replay.attempt == 2
        play_all_but(engine, stuck, rng, rounds=5)
        rounds = rounds_of(engine)
        # the bots free of the retry kept playing: round 3 and more opened without the pair
        # and its round-2 partners, who wait with their fixture pending
        assert len(rounds) == 5, rounds
        held = waiting_on(engine, pair)
        assert pair <= held and len(held) <= 4  # the pair, and a partner each at most
        later = [snapshot for number, snapshot, _ in rounds if number >= 3]
        assert all(not set(snapshot) & held for snapshot in later), (held, rounds)
        assert rounds[0][2] is False  # round 1 stays open until the retry is over

        assert finish(engine, replay, fake_log(2, rng))
        play_all_but(engine, -1, rng, rounds=9)
        rounds = rounds_of(engine)
        assert rounds[0][2] and rounds[1][2]
        assert held <= set(rounds[-1][1]) or held <= set(rounds[-2][1]), rounds
        with engine.connect() as conn:
            done = conn.execute(select(Match.state).where(Match.id == stuck)).scalar_one()
        assert done == FINISHED
    finally:
        engine.dispose()


def test_a_match_under_a_live_lease_is_waited_for(tmp_path):
    """Until its lease runs out, a frozen worker cannot be told from a slow match: the round
    waits, as for any match being played."""
    engine = bots_on(f"sqlite:///{tmp_path / 'live.sqlite3'}", 6, (DUO,))
    rng = random.Random(6)
    try:
        stuck = mm.tick(engine, config=CONFIG, rng=rng).enqueue[0]
        assert claim(engine, stuck, "slow-worker", lease_s=3600)
        play_all_but(engine, stuck, rng, rounds=5)
        assert [number for number, _, _ in rounds_of(engine)] == [1, 2]
        # the same state once the lease has run out: the round opens
        later = now_utc() + timedelta(hours=2)
        assert mm.tick(engine, now=later, config=CONFIG, rng=rng).opened
    finally:
        engine.dispose()
