"""What a seat may see of a Doubletrack game, and how a search bot rebuilds a game from it.

Secrets are declared in one place, here: a seat sees only its own hand, and the card on sale only
if it is the seller; the draw pile is shown as a size plus the publicly known cards at its bottom
(played cards go under it face up); other hands as sizes plus the cards everyone saw them draw
from that bottom part. The seed and the generator never leave the state.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from referee.core import EndReason, RulesError
from referee.games.doubletrack.board import Board
from referee.games.doubletrack.state import NO_ONE, TURN_LIMIT, DoubletrackState


def _json(value: Any) -> Any:
    """Steps hold tuples; views carry lists."""
    if isinstance(value, tuple):
        return [_json(v) if isinstance(v, tuple) else v for v in value]
    return value


def _tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuple(v) for v in value)
    return value


def build_view(st: DoubletrackState, seat: int | None) -> dict[str, Any]:
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


def _cards_in_flow(steps: list[tuple[Any, ...]]) -> list[str]:
    """Cards being resolved: out of every hand, not yet under the pile (public)."""
    return [s[1] for s in steps if s[0] == "finish_card"]


def determinize(view: Mapping[str, Any], seed: int, board: Board) -> DoubletrackState:
    """A full state agreeing with ``view``; unseen cards dealt at random from ``seed``.

    Raises :class:`RulesError` when the view cannot come from a game on ``board``.
    """
    st = DoubletrackState(board, int(view["num_players"]), seed, deal=False)
    _copy_public(st, view, board)
    _deal_unseen(st, view, board, st.rng)  # the dice follow the deal, not repeat its numbers
    if view["over"]:
        st.ended = EndReason.NORMAL if st.winner != NO_ONE else EndReason.TURN_LIMIT
    elif view["flow"]["waiting"] is not None:
        st.stack.append(_tuple(view["flow"]["waiting"]))
        st._run()  # asks the same question again
    return st


def _copy_public(st: DoubletrackState, view: Mapping[str, Any], board: Board) -> None:
    for s, info in enumerate(view["seats"]):
        st.big[s], st.small[s], st.money[s] = info["big"]["pos"], info["small"], info["money"]
        st.known[s] = list(info["known_cards"])
    st.gates = [NO_ONE if view["gates"][c] is None else view["gates"][c] for c in board.colours]
    st.active, st.turns = view["active"], view["turn"]
    st.played = [(p["seat"], p["card"]) for p in view["cards_played"]]
    st.stack = [_tuple(x) for x in view["flow"]["steps"]]
    st.winner = NO_ONE if view["winner"] is None else view["winner"]
    st.pile_known = len(view["pile_bottom"])
    if view["on_sale"] is not None:
        st.seller = view["on_sale"]["seller"]
        st.on_sale = view["on_sale"]["card"]  # None unless the viewer sells it: dealt below
    if view["seat"] is not None:
        st.hands[view["seat"]] = list(view["hand"])


def _deal_unseen(st: DoubletrackState, view: Mapping[str, Any], board: Board,
                 rng: random.Random) -> None:
    """Unseen cards are the deck less everything the viewer can place: its hand (and the card
    it sells), cards publicly known in other hands, the known bottom of the pile and cards
    being resolved. They fill the other hands, the card on sale and the top of the pile."""
    me = view["seat"]
    pool = Counter(board.deck)
    pool.subtract(view["pile_bottom"])
    pool.subtract(_cards_in_flow(st.stack))
    if me is not None:
        pool.subtract(st.hands[me])
    if st.on_sale is not None:
        pool.subtract([st.on_sale])
    for s in range(st.num_players):
        if s != me:
            pool.subtract(st.known[s])
    if any(v < 0 for v in pool.values()):
        raise RulesError("view is inconsistent with the deck: a card is counted twice")
    unseen = sorted(pool.elements())
    rng.shuffle(unseen)
    for s, info in enumerate(view["seats"]):
        if s == me:
            continue
        selling = st.on_sale is None and st.seller == s
        missing = info["hand_size"] + selling - len(st.known[s])
        if missing < 0 or missing > len(unseen):
            raise RulesError(f"view is inconsistent: seat {s}'s hand cannot be dealt")
        cards = st.known[s] + [unseen.pop() for _ in range(missing)]
        if selling:  # the seller's face-down card is any of its hand's cards
            rng.shuffle(cards)
            st.on_sale = cards.pop()
        st.hands[s] = cards
    if len(unseen) + st.pile_known != view["draw_pile_size"]:
        raise RulesError("view is inconsistent: draw pile size does not match the unseen cards")
    st.pile = list(view["pile_bottom"]) + unseen
