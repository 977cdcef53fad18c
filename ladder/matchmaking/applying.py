"""Applying the plan: handing the free slots to waiting fixtures and creating their matches.

Every ladder at once: a fixture's matches are created together (a pair shares one seed, so
both rows must exist before either log is public), the first released to the workers and the
others *held* until the bots have room; a fixture is dispatched only when each of its bots has
fewer than ``max_concurrency`` matches in flight, and the ladders as a whole fewer than
``depth``.  The waiting fixtures of all ladders are served in the order they became due
(fixture ids grow with time; a make-up is due since the fixture it makes up), and one that
cannot start yet *claims* its bots' free slots, so nothing behind it takes them: a table of
four is not starved by pairs that need only two bots free at once, nor one ladder by another
whose matches end more often.  A fixture waiting on a retry claims nothing (it may wait for
minutes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ladder.matchmaking.ladder_state import LadderState
from ladder.matchmaking.slots import Slots
from ladder.matchmaking.state import FIXTURE_KEY, FixtureRow, MatchView, Stage
from ladder.models import SCHEDULED
from ladder.newmatches import NewMatch, insert_matches


def dispatch(ladders: Sequence[LadderState], slots: Slots) -> None:
    """Hand the free slots out, every ladder's waiting fixtures in one order: the one that
    has waited longest first."""
    slots.claimed.clear()
    order = sorted(((lad.since(f), f.id, lad, f) for lad in ladders for f in lad.waiting()),
                   key=lambda item: item[:2])
    chosen: dict[str, list[tuple[FixtureRow, int]]] = defaultdict(list)
    for _, _, lad, f in order:
        if slots.full():
            break
        if not all(b in lad.eligible for b in f.bots):
            continue
        if slots.room(f.bots):
            if f.state == Stage.DISPATCHED:
                release(lad, f)
            else:
                released = 0
                while released < f.games and slots.room(f.bots):
                    slots.reserve(f.bots)
                    released += 1
                chosen[lad.game].append((f, released))
        elif not lad.lagging(f):
            slots.claim(f.bots)
    for lad in ladders:
        if chosen[lad.game]:
            create_matches(lad, chosen[lad.game])


def release(lad: LadderState, f: FixtureRow) -> None:
    """Release ``f``'s held games while its bots and the ladders have room."""
    for m in lad.matches[f.id]:
        if not m.held:
            continue
        if not lad.slots.room(f.bots):
            return
        lad.release_match(m)
        lad.slots.reserve(f.bots)
        lad.update_fixture(f, made=f.made + 1)


def create_matches(lad: LadderState, chosen: list[tuple[FixtureRow, int]]) -> None:
    """All the matches of the chosen fixtures in one batch: the first ``released`` of each go
    to the workers, the rest are held.  A pair plays both seat orders on its one seed."""
    new: list[NewMatch] = []
    owners: list[FixtureRow] = []
    for f, released in chosen:
        if f.seed is None:
            raise ValueError(f"fixture {f.id} ({f.kind}) has no seed: it is not played")
        for i, seats in enumerate([f.bots, f.bots[::-1]][:f.games]):
            new.append(NewMatch(seats, f.seed, f"{FIXTURE_KEY}{f.id}", f.round_id, f.id,
                                held=i >= released))
            owners.append(f)
    ids = insert_matches(lad.conn, lad.game, new, lad.now, rated=True,
                         settings=lad.config.settings)
    lad.result.created += len(ids)
    for pk, f, m in zip(ids, owners, new):
        lad.matches[f.id].append(MatchView(pk, SCHEDULED, None, 0, None, m.held))
        if not m.held:
            lad.result.enqueue.append(pk)
    for f, released in chosen:
        lad.update_fixture(f, state=Stage.DISPATCHED, made=released)
