"""The living ladder's matchmaker: a state machine over joins, leaves, pauses, voids, rating
changes, finished matches and ticks, checking service.md §4.4's properties after each step;
and two ticks at once on both databases."""

from __future__ import annotations

import random
import tempfile
import threading
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from sqlalchemy import select, update

from ladder import matchmaking as mm
from ladder.accounts import now_utc, utc
from ladder.matchmaking import MatchmakerConfig
from ladder.models import FINISHED, RUNNING, SCHEDULED, VOIDED, Fixture, LadderEntry, Rating, Round
from ladder.store import open_db
from ladder.work import claim, void

from service.matchmaking_support import add_bot, add_owner, finish_match, match_rows, seats_of
from support.ladder_db import sqlite_head_url

CONFIG = MatchmakerConfig(depth=6, daily_cap=10_000, placement_games=4, new_version_games=2)


class Ladder(RuleBasedStateMachine):
    """One game's ladder on a fresh SQLite file; the model tracks who should be eligible."""

    head: Path
    """The SQLite file at the head revision that each example copies (set by :func:`head`)."""

    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.TemporaryDirectory()
        self.engine = open_db(sqlite_head_url(self.head, Path(self.dir.name) / "mm.sqlite3"))
        self.rng = random.Random(0)
        self.bots: dict[int, dict[str, Any]] = {}  # id -> owner, cap, state
        self.disturbed: dict[int, int] = {}  # bot -> last round number when it changed
        self.owners: list[int] = []
        self.ticked = False

    def teardown(self) -> None:
        self.engine.dispose()
        self.dir.cleanup()

    @initialize(game=st.sampled_from(["tokaido-duo", "doubletrack"]),
                owners=st.integers(2, 6), seed=st.integers(0, 2**32))
    def setup(self, game: str, owners: int, seed: int) -> None:
        self.game, self.big = game, mm.big_table(game)
        self.k = mm.games_per_fixture(self.big)
        self.rng.seed(seed)
        self.owners = [add_owner(self.engine, f"o{i}") for i in range(owners)]
        for _ in range(5):
            self.join_new(owner=None, cap=1)

    def latest(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(Round.number).where(Round.game == self.game)
                                    .order_by(Round.number.desc())).scalars().first() or 0)

    def eligible(self) -> set[int]:
        return {b for b, s in self.bots.items() if s["state"] == "in"}

    # -- rules --------------------------------------------------------------------------------

    @rule(owner=st.one_of(st.none(), st.integers(0, 5)), cap=st.sampled_from([1, 1, 2]))
    def join_new(self, owner: int | None, cap: int) -> None:
        owner_id = None if owner is None else self.owners[owner % len(self.owners)]
        bot = add_bot(self.engine, f"b{len(self.bots)}", owner_id, cap)
        mm.join(self.engine, bot, self.game, CONFIG)
        self.bots[bot] = {"owner": owner_id, "cap": cap, "state": "in"}
        self.disturbed[bot] = self.latest()

    def pick(self, state: str, index: int) -> int | None:
        found = sorted(b for b, s in self.bots.items() if s["state"] == state)
        return found[index % len(found)] if found else None

    @rule(index=st.integers(0, 50))
    def leave(self, index: int) -> None:
        bot = self.pick("in", index)
        if bot is not None:
            mm.leave(self.engine, bot, self.game)
            self.bots[bot]["state"] = "out"
            self.disturbed[bot] = self.latest()

    @rule(index=st.integers(0, 50))
    def rejoin(self, index: int) -> None:
        bot = self.pick("out", index)
        if bot is not None:
            mm.join(self.engine, bot, self.game, CONFIG)
            self.bots[bot]["state"] = "in"
            self.disturbed[bot] = self.latest()

    @rule(index=st.integers(0, 50))
    def pause(self, index: int) -> None:
        bot = self.pick("in", index)
        if bot is not None:
            mm.pause(self.engine, bot, self.game, "3 failed probes")
            self.bots[bot]["state"] = "paused"
            self.disturbed[bot] = self.latest()

    @rule(index=st.integers(0, 50))
    def resume(self, index: int) -> None:
        bot = self.pick("paused", index)
        if bot is not None:
            mm.resume(self.engine, bot, self.game)
            self.bots[bot]["state"] = "in"
            self.disturbed[bot] = self.latest()

    @rule(index=st.integers(0, 50), elo=st.floats(1000, 2000))
    def rating_changes(self, index: int, elo: float) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(Rating).where(Rating.bot_id == index % (len(self.bots) + 1) + 1,
                                              Rating.game == self.game).values(elo=elo))

    def released(self) -> list[Any]:
        return [m for m in match_rows(self.engine) if m.state in (SCHEDULED, RUNNING)
                and not m.held]

    @rule(index=st.integers(0, 50), many=st.booleans())
    def matches_finish(self, index: int, many: bool) -> None:
        live = self.released()
        for m in (live if many else live[index % len(live):][:1]) if live else []:
            finish_match(self.engine, m.id, self.rng)

    @rule(index=st.integers(0, 50))
    def infrastructure_void(self, index: int) -> None:
        live = self.released()
        if live:
            void(self.engine, live[index % len(live)].id, "no result after 3 attempts")

    @rule(index=st.integers(0, 50))
    def attempt_dies(self, index: int) -> None:
        """A worker dies mid-match: the attempt's lease runs out, the match is in retry (a
        third lost attempt voids it, as the sweeper would)."""
        live = self.released()
        if live:
            claim(self.engine, live[index % len(live)].id, "dead-worker", lease_s=60,
                  now=now_utc() - timedelta(minutes=5))

    @rule(times=st.integers(1, 4))
    def ticks_and_every_released_match_finishes(self, times: int) -> None:
        """Rounds go by (a window long enough for the evenness bound to mean something)."""
        for _ in range(times):
            self.tick()
            for m in self.released():
                finish_match(self.engine, m.id, self.rng)

    @rule()
    def tick(self) -> None:
        before = {m.id for m in self.released()}
        result = mm.tick(self.engine, config=CONFIG, rng=self.rng)
        seats = seats_of(self.engine)
        # property 6: nothing released for a bot that is not eligible now
        for pk in result.enqueue:
            assert pk not in before
            assert set(seats[pk]) <= self.eligible(), (pk, seats[pk])
        self.ticked = True
        again = mm.tick(self.engine, config=CONFIG, rng=self.rng)
        assert again.enqueue == [] and again.created == 0 and again.opened == []  # idempotent
        self.check_snapshots(result.opened)
        self.check_even()

    # -- invariants ---------------------------------------------------------------------------

    def load(self) -> tuple[list[Any], list[Any]]:
        with self.engine.connect() as conn:
            rounds = list(conn.execute(select(Round.id, Round.number, Round.eligible)
                                       .where(Round.game == self.game).order_by(Round.number)))
            fixtures = list(conn.execute(select(Fixture.__table__)
                                         .where(Fixture.game == self.game)))
        return rounds, fixtures

    @invariant()
    def every_eligible_bot_has_one_fixture_or_one_bye(self) -> None:
        if not self.ticked:
            return
        rounds, fixtures = self.load()
        for r in rounds:
            slots = Counter(b for f in fixtures if f.round_id == r.id
                            and (f.kind == mm.Kind.FIXTURE or (f.kind == mm.Kind.BYE and f.makeup_of is None))
                            for b in f.bots)
            assert set(slots) == set(r.eligible) and set(slots.values()) <= {1}, r.number

    @invariant()
    def no_rated_table_with_two_bots_of_one_owner(self) -> None:
        for pk, bots in seats_of(self.engine).items():
            owners = [self.bots[b]["owner"] for b in bots if self.bots[b]["owner"] is not None]
            assert len(owners) == len(set(owners)), (pk, bots)

    @invariant()
    def in_flight_within_each_bots_cap(self) -> None:
        seats = seats_of(self.engine)
        busy = Counter(b for m in self.released() for b in seats[m.id])
        for bot, n in busy.items():
            assert n <= self.bots[bot]["cap"], (bot, n)

    @invariant()
    def a_bot_waits_on_one_fixture_at_most(self) -> None:
        """A bot is given a new round's fixture only once its last one started: its fixtures
        not over are those it plays (its cap) and one waiting, whatever is in retry."""
        _, fixtures = self.load()
        planned: Counter[int] = Counter()
        open_: Counter[int] = Counter()
        for f in fixtures:
            if f.kind == mm.Kind.FIXTURE and f.state in (mm.Stage.PLANNED, mm.Stage.DISPATCHED):
                for b in f.bots:
                    open_[b] += 1
                    planned[b] += f.state == mm.Stage.PLANNED
        for bot, n in open_.items():
            assert planned[bot] <= 1 and n <= self.bots[bot]["cap"] + 1, (bot, n, planned[bot])

    @invariant()
    def seats_balance(self) -> None:
        seats = seats_of(self.engine)
        rows = match_rows(self.engine)
        if self.big == 2:  # a pair is both seat orders: count per fixture
            by_pair = defaultdict(list)
            for m in rows:
                if m.state == FINISHED and m.pair_key:
                    by_pair[m.pair_key].append(seats[m.id])
            for key, games in by_pair.items():
                if len(games) == 2:
                    assert games[0] == games[1][::-1], key
        else:
            with self.engine.connect() as conn:
                for counts in conn.execute(select(LadderEntry.seat_counts).where(
                        LadderEntry.game == self.game)).scalars():
                    if counts and sum(counts) >= 4:
                        assert max(counts[:3]) - min(counts[:3]) <= 2, counts

    def check_snapshots(self, opened: list[int]) -> None:
        """A new round leaves out no eligible bot but one with a fixture or make-up still to
        start (a bot whose fixture was cancelled under it rests first, and plays): the window
        of the evenness bound is not cut short for it."""
        _, fixtures = self.load()
        with self.engine.connect() as conn:
            rounds = conn.execute(select(Round.id, Round.opened_at, Round.eligible)
                                  .where(Round.id.in_(opened))).all()
        for r in rounds:
            at = utc(r.opened_at)
            waiting = {b for f in fixtures if f.kind in (mm.Kind.FIXTURE, mm.Kind.MAKEUP)
                       and f.round_id != r.id and f.state != mm.Stage.CANCELLED
                       and (f.dispatched_at is None or utc(f.dispatched_at) >= at)
                       for b in f.bots}
            left_out = self.eligible() - set(r.eligible) - waiting
            assert not left_out, (r.id, left_out)

    def check_even(self) -> None:
        """Byes rotate and game counts stay even over every window of rounds in which two
        bots were eligible throughout and undisturbed (no join, leave, pause or resume); a
        voided game counts while its make-up is due."""
        rounds, fixtures = self.load()
        if len(rounds) < 2:
            return
        matches = match_rows(self.engine)
        seats = seats_of(self.engine)
        by_fixture: dict[int, list[Any]] = defaultdict(list)
        for m in matches:
            if m.fixture_id is not None:
                by_fixture[m.fixture_id].append(m)
        last = rounds[-1].number
        for start in range(len(rounds)):
            window = rounds[start:]
            ids = {r.id for r in window}
            first = window[0].number
            present = set.intersection(*(set(r.eligible) for r in window))
            present = {b for b in present if self.disturbed.get(b, 0) < first
                       and self.bots[b]["state"] == "in"}
            if len(present) < 2:
                continue
            inside = [f for f in fixtures if f.round_id in ids]
            if any(f.kind == mm.Kind.BYE and f.reason == "forced" for f in inside):
                continue  # an infeasible field (one owner's bots only) is outside the bound
            byes: Counter[int] = Counter()
            games: Counter[int] = Counter()
            rotation: Counter[int] = Counter()
            for f in inside:
                if f.kind == mm.Kind.BYE:
                    byes[f.bots[0]] += 1
                    rotation[f.bots[0]] += f.reason == "rotation"
                elif f.kind == mm.Kind.ORPHAN and f.state == mm.Stage.PLANNED:
                    for b in f.bots:
                        games[b] += f.games  # its make-up is due
                elif f.kind in (mm.Kind.FIXTURE, mm.Kind.MAKEUP) and f.state != mm.Stage.CANCELLED:
                    if f.state == mm.Stage.PLANNED:
                        for b in f.bots:
                            games[b] += f.games
                        continue
                    for m in by_fixture[f.id]:
                        if m.state != VOIDED or f.state == mm.Stage.DISPATCHED:
                            for b in seats[m.id]:
                                games[b] += 1
            for x in present:
                for y in present:
                    assert abs(rotation[x] - rotation[y]) <= 1, (first, last, x, y, rotation)
                    bound = self.k * (1 + abs(byes[x] - byes[y]))
                    assert abs(games[x] - games[y]) <= bound, (first, last, x, y, games, byes)


@pytest.fixture(autouse=True)
def head(sqlite_head_template: Path) -> None:
    """A state machine takes no fixtures: its class gets the template."""
    Ladder.head = sqlite_head_template


Ladder.TestCase.settings = settings(max_examples=10, stateful_step_count=25, deadline=None,
                                    phases=[Phase.explicit, Phase.reuse, Phase.generate])
test_ladder_state_machine = Ladder.TestCase


# -- two ticks at once ------------------------------------------------------------------------

def ladder_of(url: str, bots: int, game: str) -> Any:
    engine = open_db(url)
    owners = [add_owner(engine, f"owner{i}") for i in range(bots)]
    for i, owner in enumerate(owners):
        mm.join(engine, add_bot(engine, f"bot{i}", owner), game)
    return engine


@pytest.mark.parametrize("game, created", [("tokaido-duo", 8), ("doubletrack", 2)])
def test_two_ticks_at_once_schedule_one_ticks_worth(db_url, game, created):
    engine = ladder_of(db_url, 8, game)
    try:
        barrier = threading.Barrier(2)
        results: list[Any] = []
        errors: list[BaseException] = []

        def run() -> None:
            try:
                barrier.wait()
                results.append(mm.tick(engine, config=MatchmakerConfig(depth=100)))
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        # 8 bots: Duo is 4 pairs (2 games each, the second held), Doubletrack 2 tables of 4;
        # round 2 opens at once but its bots are busy: one tick's worth, never two
        assert sum(r.created for r in results) == created
        assert sorted(len(r.opened) for r in results) == [0, 2]
        released = sorted(pk for r in results for pk in r.enqueue)
        assert len(released) == len(set(released)) == (4 if game == "tokaido-duo" else 2)
        with engine.connect() as conn:
            assert conn.execute(select(Round.number).where(Round.game == game)
                                ).scalars().all() == [1, 2]
    finally:
        engine.dispose()


def test_a_pair_shares_a_seed_and_its_second_game_waits_for_the_bots(db_url):
    engine = ladder_of(db_url, 2, "tokaido-duo")
    try:
        first = mm.tick(engine)
        assert len(first.enqueue) == 1 and first.created == 2
        rows = sorted(match_rows(engine), key=lambda m: m.id)
        assert rows[0].pair_key == rows[1].pair_key
        seats = seats_of(engine)
        assert seats[rows[0].id] == seats[rows[1].id][::-1]
        assert mm.tick(engine).enqueue == []  # the bots are busy
        assert finish_match(engine, first.enqueue[0], random.Random(1))
        second = mm.tick(engine)
        assert second.enqueue == [rows[1].id] and second.created == 0
    finally:
        engine.dispose()


def test_a_voided_game_is_made_up_and_a_paused_bot_leaves_an_orphan(db_url):
    engine = ladder_of(db_url, 4, "tokaido-duo")
    rng = random.Random(2)
    try:
        first = mm.tick(engine)
        assert len(first.enqueue) == 2
        voided = first.enqueue[0]
        void(engine, voided, "no result after 3 attempts")
        finish_match(engine, first.enqueue[1], rng)
        for pk in mm.tick(engine).enqueue:  # the pairs' second games
            finish_match(engine, pk, rng)
        mm.tick(engine)
        with engine.connect() as conn:
            makeups = conn.execute(select(Fixture.__table__).where(Fixture.kind == mm.Kind.MAKEUP)).all()
        assert len(makeups) == 1 and makeups[0].games == 1
        assert makeups[0].bots == seats_of(engine)[voided]
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_tick_after_a_match_skips_while_another_tick_holds_the_lock(pg_head_url):
    from sqlalchemy import text

    from ladder.db import lock_key

    engine = ladder_of(pg_head_url, 4, "tokaido-duo")
    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": lock_key(mm.LOCK)})
            skipped = mm.tick(engine, wait=False)
            assert skipped.opened == [] and skipped.created == 0
        assert mm.tick(engine, wait=False).opened
    finally:
        engine.dispose()
