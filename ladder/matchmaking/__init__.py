"""The living ladder's scheduler: rounds of fixtures, kept topped up by an idempotent tick.

:func:`tick` is run by ``referee beat`` (every 20 s), after every finished match that freed
something of a ladder (:func:`ladder.work.may_reschedule`), by ``referee ladder tick`` and by
the embedded server's ticker thread.  Each run covers every
ladder (a bot's slots are shared by its ladders, so only a tick that sees them all can share
them fairly), in one transaction holding the matchmaker's lock (``pg_advisory_xact_lock`` on
PostgreSQL; on SQLite the transaction's ``BEGIN IMMEDIATE`` is the lock), so two ticks at
once never schedule more than one tick's worth:

1. **cancel** what can no longer be played as planned: a planned fixture with a bot that is
   no longer eligible is cancelled (so is a not-yet-released game of a dispatched pair); the
   other bots in it become *orphans*;
2. **settle** fixtures whose matches are all over: placement counts down per finished game;
   a match voided for an infrastructure reason gets a **make-up** (same bots, same seat
   order, fresh seed) filed under the same round; when a bot of it is gone, the others are
   orphans instead;
3. **orphans** of a round are seated together (pairs or tables, one owner per table) as
   make-ups; those left take a bye when nothing else of their round waits, or at the latest
   when the next round opens (so they play it: a bot is never left out of a round because it
   was waiting for a partner);
4. **release and dispatch**, every ladder at once: a fixture's matches are created together
   (a pair shares one seed, so both rows must exist before either log is public), the first
   released to the workers and the others *held* until the bots have room; a fixture is
   dispatched only when each of its bots has fewer than ``max_concurrency`` matches in
   flight, and the ladders as a whole have fewer than ``depth`` (workers x slots).  The
   waiting fixtures of all ladders are served in the order they became due (fixture ids grow
   with time; a make-up is due since the fixture it makes up), and one that cannot start yet
   *claims* its bots' free slots, so nothing behind it takes them: a table of four is not
   starved by pairs that need only two bots free at once, nor one ladder by another whose
   matches end more often;
5. **open** round r+1 once every fixture of round r has started, with at most two rounds
   open, from the eligible bots under their daily cap that have no fixture waiting to start
   (:mod:`ladder.pairing` plans it).  A fixture *waiting on a retry* (a match of it lost an
   attempt: its lease ran out, or a later attempt is playing; or it has not started and one
   of its bots sits in such a match, of any game) is treated like a make-up: round r+1 does
   not wait for it, a round left with only such fixtures does not count as open (it stays
   open until they are over), and it claims no slot (its bots sit new rounds out until it
   starts, then it goes first on them);
6. **close** rounds whose fixtures are all over.

The rooms: :mod:`~ladder.matchmaking.state` (the typed working state: fixtures, their matches,
the names of kinds and stages, the configuration), :mod:`~ladder.matchmaking.entries` (joining,
leaving, pausing; placement), :mod:`~ladder.matchmaking.ladder_state` (one ladder in a tick:
reading it, and the writes that keep rows and memory in step), :mod:`~ladder.matchmaking.slots`
(caps and depth), :mod:`~ladder.matchmaking.makeups` (steps 1 to 3),
:mod:`~ladder.matchmaking.applying` (step 4), :mod:`~ladder.matchmaking.planning` (steps 5 and
6), :mod:`~ladder.matchmaking.loop` (the tick: it raises :class:`UnsettledError` rather than
end a tick that has not settled within its bound) and :mod:`~ladder.matchmaking.rounds` (the
rounds endpoints' reads).  A match names its fixture in ``matches.fixture_id`` and is *held*
in ``matches.held``, which the sweeper (:func:`ladder.work.sweep`) reads by name.

Eligible (service.md §4.4): bot active, ladder entry active and not paused, owner not
suspended, the last three health probes not all failed, and under the daily cap of rated
matches.  The returned :class:`TickResult` lists the match ids to enqueue (after commit).

The guarantees (checked by ``tests/service/test_matchmaker.py`` after every step of a state
machine): every bot of a round's snapshot has exactly one fixture or one bye in it; over any
stretch of rounds in which two bots stayed eligible and undisturbed, their rotation byes
differ by at most one and their rated games by at most ``k (1 + |byes(x) - byes(y)|)``
(k = 2 for a pair, 1 for a table), a voided game counting while its make-up is due; pairs
play both seat orders, tables even out seat counts; no rated table holds two bots of one
owner; nothing is released for a bot that is not eligible; no bot has more matches in flight
than its ``max_concurrency``, nor more than one fixture waiting to start; a second tick right
after one does nothing.  A fixture waits only for those due before it on its bots (of the
other ladders: at most one per open round and bot, each of its games): no ladder starves
another (``tests/service/test_matchmaker_fairness.py``, which also plays a match in retry).

Deviations from service.md §4.4, and why:

* Make-ups are filed under the round whose slot they fill (not "the next round"), and that
  round stays open until they are over: the evenness bound then holds per round, and being
  due since the fixture they make up, they go before the fixtures of later rounds.
* A match whose attempt was lost is retried under its own id and seed, not made up, but the
  round treats it like a make-up (above).  A frozen worker cannot be told from a slow match
  until its lease runs out: until then the round waits for it as for any match in play.
* Byes rotate least-recently-rested first (joining and resuming count as a rest) rather than
  "most rated games first": the same intent, and "byes differ by at most one over any window"
  becomes a theorem.  A bye given to an orphan (a bot whose fixture was cancelled because of
  another bot, with no other orphan to play) is counted as a bye but leaves the rotation alone.
* Seeds are random (``secrets``), not derived from a master seed and the fixture id: a derived
  seed is only as secret as the master seed, and nothing needs to re-derive one.
* No extra placement fixture per round: a bot in placement plays its one fixture a round
  against the spread of the field (so placement does not touch the evenness bound).
* The daily cap is applied when a round is planned (a capped bot is left out of the snapshot,
  counting the games already planned for it), so a planned fixture never waits for a cap.
"""

from __future__ import annotations

from ladder.matchmaking.entries import (
    JOINABLE, join, latest_round, leave, pause, pause_entries, placement_due, placement_left,
    resume, resume_entries,
)
from ladder.matchmaking.loop import MAX_PASSES, tick
from ladder.matchmaking.rounds import list_rounds, round_detail
from ladder.matchmaking.state import (
    DEFAULT_DEPTH, LOCK, Kind, MatchmakerConfig, Stage, TickResult, UnsettledError, big_table,
    games_per_fixture,
)

__all__ = [
    "DEFAULT_DEPTH", "JOINABLE", "LOCK", "MAX_PASSES", "Kind", "MatchmakerConfig", "Stage",
    "TickResult", "UnsettledError", "big_table", "games_per_fixture", "join", "latest_round",
    "leave", "list_rounds", "pause", "pause_entries", "placement_due", "placement_left",
    "resume", "resume_entries", "round_detail", "tick",
]
