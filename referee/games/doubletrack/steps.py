"""The steps a Doubletrack game keeps on its stack: one small named tuple per kind.

The stack holds what has to wait: the questions (kinds named ``ask_*``) and what follows them
(the end of the turn, a played card going under the pile), plus the entry points a position can
start from (a turn, a route, a square). :mod:`.flow` says what each kind does. Each step is a
``NamedTuple`` whose first field is its kind's name, so underneath it is the plain tuple
``(name, *args)``: a state clones by copying a list, a view shows the flow as JSON lists, and
:func:`step_from_json` turns such a list back into the step (which is how ``determinize``
rebuilds the flow). Steps hold only public, JSON-able values.

The ``name`` field is typed as a ``Literal``, so mypy refuses a step built with another kind's
name. Kinds without arguments exist once, as constants (they are pushed every turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple, get_args, get_type_hints

Passage = tuple[int, int, int, int]
"""One fork's agreed route: (gate, takes the shortcut 0/1, fee, payee) (payee: NO_ONE if free)."""
Agreed = tuple[Passage, ...]
"""The routes agreed so far for the coming move, one per fork in reach."""


# -- turn and route -------------------------------------------------------------------------------

class Turn(NamedTuple):
    """Begin the active seat's turn."""
    name: Literal["turn"]


class EndTurn(NamedTuple):
    """End the turn: the turn limit, or the next seat clockwise."""
    name: Literal["end_turn"]


class Route(NamedTuple):
    """Agree the route past each fork in reach, then roll and resolve the square."""
    name: Literal["route"]
    agreed: Agreed


class AskGateRequest(NamedTuple):
    """Another seat's gate is ahead: the active seat asks its controller or goes around."""
    name: Literal["ask_gate_request"]
    agreed: Agreed
    gate: int


class AskGateOffer(NamedTuple):
    """The controller of ``gate`` refuses, lets the active seat through free, or names a fee."""
    name: Literal["ask_gate_offer"]
    agreed: Agreed
    gate: int


class AskGateAccept(NamedTuple):
    """The active seat pays ``fee`` (if it enters the shortcut) or goes around."""
    name: Literal["ask_gate_accept"]
    agreed: Agreed
    gate: int
    fee: int




class Square(NamedTuple):
    """Resolve the square the active seat's big pawn stands on."""
    name: Literal["square"]


# -- squares --------------------------------------------------------------------------------------

class AskNumber(NamedTuple):
    """A NUMBER lo-hi square: the active seat picks how far its small pawn moves."""
    name: Literal["ask_number"]
    lo: int
    hi: int


class AskTakePass(NamedTuple):
    """TAKE THE (colour) GATE PASS: the active seat may take control of ``gate``."""
    name: Literal["ask_take_pass"]
    gate: int


class AskTake25(NamedTuple):
    """TAKE $25 FROM AN OPPONENT: the active seat picks the opponent."""
    name: Literal["ask_take25"]


class AskSellCard(NamedTuple):
    """SELL A CARD: the active seat puts one hand card face down for sale."""
    name: Literal["ask_sell_card"]


class AskSellPass(NamedTuple):
    """SELL A PASS with several gates held: the active seat picks the one to auction."""
    name: Literal["ask_sell_pass"]


class AskBids(NamedTuple):
    """A sealed auction of ``auction`` ("card", "pass" or "lead"); ``gate`` for a pass, else
    NO_ONE."""
    name: Literal["ask_bids"]
    auction: str
    gate: int


# -- the inner track and cards ------------------------------------------------------------------



class AskInnerRoute(NamedTuple):
    """A forward move of ``steps`` starts on a purple circle: ``seat`` picks shortcut or path."""
    name: Literal["ask_inner_route"]
    seat: int
    steps: int


class AskPlayCard(NamedTuple):
    """PLAY A CARD: the active seat picks the hand card to play."""
    name: Literal["ask_play_card"]




class FinishCard(NamedTuple):
    """A resolved ``card`` goes under the draw pile face up; ``drawer`` draws one."""
    name: Literal["finish_card"]
    card: str
    drawer: int


class AskTradeTarget(NamedTuple):
    """Trade Places With Any Player: ``seat`` picks the opponent (or declines)."""
    name: Literal["ask_trade_target"]
    seat: int


class AskStealTarget(NamedTuple):
    """Steal A Gate Pass: ``seat`` picks the opponent's gate (or declines)."""
    name: Literal["ask_steal_target"]
    seat: int


Step = (Turn | EndTurn | Route | Square | AskGateRequest | AskGateOffer | AskGateAccept
        | AskNumber | AskTakePass | AskTake25 | AskSellCard | AskSellPass | AskBids
        | AskInnerRoute | AskPlayCard | FinishCard | AskTradeTarget | AskStealTarget)

TURN = Turn("turn")
END_TURN = EndTurn("end_turn")
ROUTE_START = Route("route", ())
SQUARE = Square("square")
ASK_TAKE25 = AskTake25("ask_take25")
ASK_SELL_CARD = AskSellCard("ask_sell_card")
ASK_SELL_PASS = AskSellPass("ask_sell_pass")
ASK_PLAY_CARD = AskPlayCard("ask_play_card")



def _name_of(kind: type) -> str:
    """The kind's name: the one value its ``name: Literal[...]`` field admits."""
    name: str = get_args(get_type_hints(kind)["name"])[0]
    return name


KINDS: dict[str, type[Step]] = {_name_of(kind): kind for kind in get_args(Step)}
"""Every step kind by name."""


def step_from_json(value: Sequence[Any]) -> Step:
    """The step a view shows as ``[name, *args]`` (JSON lists back to tuples).

    Raises ``KeyError`` for an unknown name and ``TypeError`` for a wrong number of arguments.
    """
    return KINDS[value[0]](*[_tuple(v) for v in value])


def _tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuple(v) for v in value)
    return value
