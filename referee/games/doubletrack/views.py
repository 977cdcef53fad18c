"""What a seat may see of a Doubletrack game.

Secrets are declared in one place, here: a seat sees only its own hand, and the card on sale only
if it is the seller; the draw pile is shown as a size plus the publicly known cards at its bottom
(played cards go under it face up); other hands as sizes plus the cards everyone saw them draw
from that bottom part. The seed and the generator never leave the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.games.doubletrack.board import NO_ONE, TURN_LIMIT

if TYPE_CHECKING:
    from referee.games.doubletrack.state import DoubletrackState

RULES_VERSION = "3"
"""The rules this referee plays: Trade Places and Steal A Gate Pass may be declined (the seed's
可, *may*)."""
FORCED_CARDS_VERSION = "2"
"""The older rules still played to replay their logs: the seed-003 corrections, both cards'
effects forced. A state knows which it plays by ``may_decline``."""


def rules_version(st: DoubletrackState) -> str:
    """The rules version ``st`` is played under, as its view and its log name it."""
    return RULES_VERSION if st.may_decline else FORCED_CARDS_VERSION


def _json(value: Any) -> Any:
    """Steps hold tuples; views carry lists."""
    if isinstance(value, tuple):
        return [_json(v) if isinstance(v, tuple) else v for v in value]
    return value


def build_view(st: DoubletrackState, seat: int | None) -> dict[str, Any]:
    """``seat``'s view (``None``: a spectator's), JSON-ready, events since it last decided."""
    b = st.board
    colours = b.colours
    seats = [
        {
            "seat": s,
            "colour": colours[s],
            "big": b.square_info(st.big[s]),
            "small": st.small[s],
            "money": st.money[s],
            "hand_size": len(st.hands[s]),
            "known_cards": sorted(st.known[s]),
            "gates": [colours[g] for g, c in enumerate(st.gates) if c == s],
        }
        for s in range(st.num_players)
    ]
    on_sale = None
    if st.on_sale is not None:
        on_sale = {"seller": st.seller, "card": st.on_sale if seat == st.seller else None}
    since = st.seen[seat] if seat is not None else 0
    return {
        "game": "doubletrack",
        "rules_version": rules_version(st),
        "board_version": b.version,
        "seat": seat,
        "num_players": st.num_players,
        "turn": st.turns,
        "turn_limit": TURN_LIMIT,
        "active": st.active,
        "seats": seats,
        "gates": {colours[g]: (None if c == NO_ONE else c) for g, c in enumerate(st.gates)},
        "hand": sorted(st.hands[seat]) if seat is not None else None,
        "on_sale": on_sale,
        "draw_pile_size": len(st.pile),
        "pile_bottom": list(st.pile[:st.pile_known]),
        "cards_played": [{"seat": s, "card": c} for s, c in st.played],
        "inner": {"home": b.home,
                  "purple_shortcuts": {str(k): v for k, v in sorted(b.purple.items())}},
        "flow": {"waiting": _json(st.wait), "steps": [_json(x) for x in st.stack]},
        "winner": None if st.winner == NO_ONE else st.winner,
        "over": st.ended is not None,
        "events": st.events[since:],
    }
