"""A full Doubletrack game rebuilt from what one seat sees: how search bots use the engine.

The public part of the view is copied; the cards the seat cannot place (other hands, the card on
sale, the top of the draw pile) are dealt at random from a seed; the flow of steps is rebuilt
from the view's ``flow`` and the waiting question asked again.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from referee.core import EndReason, RulesError
from referee.games.doubletrack.board import NO_ONE, Board
from referee.games.doubletrack.state import DoubletrackState
from referee.games.doubletrack.steps import FinishCard, Step, step_from_json
from referee.games.doubletrack.views import FORCED_CARDS_VERSION


def determinize(view: Mapping[str, Any], seed: int, board: Board) -> DoubletrackState:
    """A full state agreeing with ``view``; unseen cards dealt at random from ``seed``.

    Raises :class:`RulesError` when the view cannot come from a game on ``board``.
    """
    # the rules the view names (a view without the field is from before it: the current rules)
    st = DoubletrackState(board, int(view["num_players"]), seed, deal=False,
                          may_decline=view.get("rules_version") != FORCED_CARDS_VERSION)
    _copy_public(st, view, board)
    _deal_unseen(st, view, board, st.rng)  # the dice follow the deal, not repeat its numbers
    if view["over"]:
        st.ended = EndReason.NORMAL if st.winner != NO_ONE else EndReason.TURN_LIMIT
    elif view["flow"]["waiting"] is not None:
        st.stack.append(_step(view["flow"]["waiting"]))
        st.resume()  # asks the same question again
    return st


def _step(shown: Sequence[Any]) -> Step:
    try:
        return step_from_json(shown)
    except (KeyError, TypeError, IndexError):
        raise RulesError(f"view: {shown!r} is not a step of the flow") from None


def _cards_in_flow(steps: list[Step]) -> list[str]:
    """Cards being resolved: out of every hand, not yet under the pile (public)."""
    return [s.card for s in steps if isinstance(s, FinishCard)]


def _copy_public(st: DoubletrackState, view: Mapping[str, Any], board: Board) -> None:
    for s, info in enumerate(view["seats"]):
        st.big[s], st.small[s], st.money[s] = info["big"]["pos"], info["small"], info["money"]
        st.known[s] = list(info["known_cards"])
    st.gates = [NO_ONE if view["gates"][c] is None else view["gates"][c] for c in board.colours]
    st.active, st.turns = view["active"], view["turn"]
    st.played = [(p["seat"], p["card"]) for p in view["cards_played"]]
    st.stack = [_step(x) for x in view["flow"]["steps"]]
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
