"""Tournaments and the SPRT: deterministic schedules of matches, played in parallel, resumable.

Above the match-execution layer (``arena``: every match is played by ``arena.play_match``) and
below the ladder, which records their results in its database through a hook; nothing here
touches a database. The modules, each on the ones before it:

- ``errors``: :class:`TournamentError` (the user's) and :class:`Interrupted` (Ctrl-C);
- ``stats``: Elo with error bars, likelihood of superiority, pentanomial counts, the SPRT maths;
- ``plan``: entrants (each maybe with its own time per decision) and the terms of every match,
  round-robin or gauntlet, or an SPRT's terms (:class:`~tournaments.plan.Plan`);
- ``fixtures``: the schedule (one :class:`~tournaments.fixtures.Fixture` per match, each an
  ``arena.MatchDescription``) and each match's :class:`~tournaments.fixtures.Outcome`;
- ``pool``: fixtures played in worker processes (HTTP bots: on threads, one process per core);
- ``standings``: scores, crosstable and per-block samples;
- ``store``: the state store interface and its JSON-lines file (what ``--resume`` reads);
- ``tournament``: a tournament bound to its store, run and reported;
- ``sprt``: game pairs of two entrants until the SPRT decides, kept in the same store (so an
  SPRT resumes as a tournament does).
"""

from __future__ import annotations

from tournaments.errors import Interrupted, TournamentError

__all__ = ["Interrupted", "TournamentError"]
