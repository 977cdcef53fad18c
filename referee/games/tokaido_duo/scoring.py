"""Final scores: pilgrim (temple x garden) + merchant (slab table) + artist (gift table).

Highest total wins; a tie goes to more coins left; still tied, both win (rules page).  In solo
play the Automa scores the sum of its three ranks, and the player wins a tie when holding any
coin, else it is a shared result (seed 002).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.core import EndReason, Result, SeatResult, ranks_from_keys

from .board import AUTOMA_NUMBERS, CHARACTERS

if TYPE_CHECKING:
    from .state import TokaidoState


def breakdown(s: TokaidoState, seat: int) -> dict[str, int]:
    """A seat's score by character (the Automa: its three ranks)."""
    if s.automa is not None and seat == 1:
        return {c: s.automa.rank(i) for i, c in enumerate(CHARACTERS)}
    b = s.board
    slabs = min(s.slabs[seat], b.limits["slabs"])  # slabs past the last slot score as the last
    return {"pilgrim": s.temple[seat] * s.garden[seat],
            "merchant": b.merchant_score[slabs],
            "artist": b.artist_score[s.gifts[seat]]}


def result(s: TokaidoState) -> Result:
    """The finished game's result: ranks by score, then the tie rule of the variant."""
    parts = [breakdown(s, seat) for seat in (0, 1)]
    scores = [sum(p.values()) for p in parts]
    if s.automa is not None:
        keys = [(scores[0], int(s.coins[0] > 0)), (scores[1], 0)]
    else:
        keys = [(scores[0], s.coins[0]), (scores[1], s.coins[1])]
    ranks = ranks_from_keys(keys)
    seats = tuple(SeatResult(i, scores[i], parts[i], ranks[i]) for i in (0, 1))
    winners = tuple(i for i in (0, 1) if ranks[i] == 1)
    extra: dict[str, Any] = {"coins": list(s.coins)}
    if s.automa is not None:
        extra.update(automa_seat=1, automa_level=s.automa.level, automa_numbers=AUTOMA_NUMBERS)
    reason = "; ".join(s.triggers) + "; round played out"
    return Result(seats, winners, EndReason.NORMAL, s.round, reason, extra)
