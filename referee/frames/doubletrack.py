"""Doubletrack for spectators: seats by colour, both tracks as facts, events in plain words.

Every event type of the engine (``docs/games/doubletrack.md``, Events) has a sentence here,
``pass_left`` (left at an optional TAKE PASS square) and ``card_declined`` (Trade Places or
Steal A Gate Pass declined) among them. One answer is secret: which card a seller puts face
down (``sell_card_choice``); a spectator learns it when the card is played. The options of
``play_card`` and ``sell_card_choice`` are the distinct cards of a hand, so frames do not count
them. Hands are never shown, not even at the end (the game does not reveal them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.frames.kits import Event, Facts, Seats, Section, SpectatorKit, Words, label
from referee.games.doubletrack.board import NUMBER, TAKE_PASS, Board
from referee.games.doubletrack.options import card_label

RECENT_CARDS = 6
"""Cards played listed in the text summary, latest last."""


def board_facts(board: Board) -> dict[str, Any]:
    """Both tracks as the engine reads them: every outer position (main loop, then each gate's
    shortcut) with its square, where the forks and rejoins are, the inner circles' shortcuts."""
    squares = []
    for pos, (kind, lo, hi) in enumerate(board.squares):
        sq: dict[str, Any] = {"pos": pos, "name": board.names[pos], "kind": kind}
        if kind == NUMBER:
            sq.update(lo=lo, hi=hi)
        if kind == TAKE_PASS:
            sq["gate"] = board.colours[board.take_pass_of[pos]]
        info = board.square_infos[pos]
        if "shortcut" in info:
            sq["shortcut"] = dict(info["shortcut"])
        squares.append(sq)
    return {
        "version": board.version,
        "colours": list(board.colours),
        "main_len": board.main_len,
        "quadrant_len": board.quadrant_len,
        "shortcut_len": len(board.shortcut),
        "rejoin_offset": board.rejoin,
        "squares": squares,
        "home": board.home,
        "purple_shortcuts": {str(a): b for a, b in sorted(board.purple.items())},
        "dice": {"count": board.dice_count, "sides": board.dice_sides},
        "money": {"unit": board.unit, "start": board.start_money},
        "hand_size": board.hand_size,
    }


# -- events in words -----------------------------------------------------------------------------

def _circle(board: Mapping[str, Any], n: Any) -> str:
    if n == 0:
        return "START"
    if n == board.get("home"):
        return "HOME"
    return f"circle {n}"


def _card(card: Any) -> str:
    try:
        return card_label(str(card))
    except KeyError:
        return str(card)



def _gate_request(e: Event, s: Seats, b: Facts) -> str:
    if e["ask"]:
        return f"{label(s, e['seat'])} asks to pass the {e['gate']} gate"
    return f"{label(s, e['seat'])} goes around the {e['gate']} gate"


def _gate_offer(e: Event, s: Seats, b: Facts) -> str:
    who, offer = label(s, e["seat"]), e["offer"]
    if offer == "refuse":
        return f"{who} refuses to open the {e['gate']} gate"
    if offer == 0:
        return f"{who} opens the {e['gate']} gate for free"
    return f"{who} asks ${offer} to open the {e['gate']} gate"


def _gate_accept(e: Event, s: Seats, b: Facts) -> str:
    if e["pay"]:
        return f"{label(s, e['seat'])} agrees to pay ${e['fee']} for the {e['gate']} gate"
    return f"{label(s, e['seat'])} will not pay ${e['fee']} and goes around the {e['gate']} gate"


def _roll(e: Event, s: Seats, b: Facts) -> str:
    dice = e["dice"]
    via = "".join(f" by the {g} shortcut" for g in e.get("shortcuts", []))
    return (f"{label(s, e['seat'])} rolls {'+'.join(map(str, dice))} = {sum(dice)}: "
            f"big pawn{via} to square {e['to']}, {e['square'].replace('_', ' ')}")


def _small(e: Event, s: Seats, b: Facts) -> str:
    if e.get("stays"):
        return f"{label(s, e['seat'])}'s small pawn stays on {_circle(b, e['to'])}"
    return f"{label(s, e['seat'])}'s small pawn moves to {_circle(b, e['to'])}"


def _gate_taken(e: Event, s: Seats, b: Facts) -> str:
    was = e.get("was")
    source = "" if was in (None, -1) or was == e["seat"] else f" from {label(s, was)}"
    return f"{label(s, e['seat'])} takes the {e['gate']} gate pass{source}"


def _draw(e: Event, s: Seats, b: Facts) -> str:
    if e.get("card"):
        return (f"{label(s, e['seat'])} draws {_card(e['card'])} "
                "(a card played earlier, known to all)")
    return f"{label(s, e['seat'])} draws a card"


def _bids(e: Event, s: Seats, b: Facts) -> str:
    bids = ", ".join(f"{label(s, seat)} ${bid}" for seat, bid in enumerate(e["bids"])
                     if bid is not None)
    what = {"card": "the card on sale", "pass": "the gate pass", "lead": "the lead"}.get(
        e["auction"], e["auction"])
    return f"Sealed bids for {what}: {bids}; {label(s, e['winner'])} wins"


def _pass_sold(e: Event, s: Seats, b: Facts) -> str:
    if e["winner"] == e.get("was"):
        return f"{label(s, e['winner'])} keeps the {e['gate']} gate pass"
    return f"{label(s, e['winner'])} wins the {e['gate']} gate pass from {label(s, e.get('was'))}"


def _roll_off(e: Event, s: Seats, b: Facts) -> str:
    rolls = ", ".join(f"{label(s, seat)} {r}" for seat, r in zip(e["seats"], e["rolls"]))
    return f"Roll-off among the last: {rolls} (lowest takes the money)"


def _pass_left(e: Event, s: Seats, b: Facts) -> str:
    holder = e.get("holder")
    kept = "nobody" if holder in (None, -1) else label(s, holder)
    return f"{label(s, e['seat'])} leaves the {e['gate']} gate pass with {kept}"


def _w(text: str) -> Words:
    """A sentence with ``{who}`` for the event's seat, ``{card}`` as the card's name, and the
    event's other fields by name (seat fields as colours)."""
    def words(e: Event, s: Seats, b: Facts) -> str:
        fields = dict(e)
        for key in ("to", "victim", "other", "first", "was"):
            if key in fields:
                fields[key] = label(s, fields[key])
        if "card" in fields:
            fields["card"] = _card(fields["card"])
        return text.format(who=label(s, e.get("seat")), **fields)
    return words


_WORDS: dict[str, Words] = {
    "start": _w("{first} goes first"),
    "turn": _w("Turn {turn}: {who} to play"),
    "gate_request": _gate_request,
    "gate_offer": _gate_offer,
    "gate_accept": _gate_accept,
    "roll": _roll,
    "fee": _w("{who} pays ${amount} to {to} for the {gate} gate"),
    "small": _small,
    "gate_taken": _gate_taken,
    "gate_stolen": _w("{who} steals the {gate} gate pass from {was}"),
    "take": _w("{who} takes ${amount} from {victim}"),
    "card": _w("{who} plays {card}"),
    "draw": _draw,
    "card_on_sale": _w("{who} puts a card face down for sale"),
    "bids": _bids,
    "pass_sold": _pass_sold,
    "roll_off": _roll_off,
    "lead_paid": _w("{to}, last, receives the ${amount} of bids"),
    "no_pass_to_sell": _w("{who} holds no gate pass to sell"),
    "no_effect": _w("{who}'s {card} has no effect"),
    "card_declined": _w("{who} declines {card}: nothing happens"),
    "trade": _w("{who} trades places with {other}"),
    "home": _w("{who} reaches HOME and wins"),
    "turn_limit": _w("{turns} turns played without a pawn at HOME: the game ends"),
    "pass_left": _pass_left,
}


# -- the no-JavaScript summary ---------------------------------------------------------------------

def summary(frame: Mapping[str, Any], seats: Sequence[Mapping[str, Any]],
            board: Mapping[str, Any]) -> list[Section]:
    view = frame["view"]
    state = ("game over" if view["over"] else
             f"{label(seats, view['active'])} on turn")
    table = [f"Turn {view['turn']} of at most {view['turn_limit']}, {state}"]
    if view.get("on_sale"):
        table.append(f"On sale: a face-down card from {label(seats, view['on_sale']['seller'])}")
    table.append(f"Draw pile: {view['draw_pile_size']} cards")
    played = view["cards_played"][-RECENT_CARDS:]
    if played:
        table.append("Cards played (latest last): " + ", ".join(
            f"{label(seats, c['seat'])} {_card(c['card'])}" for c in played))
    table.append("Gates: " + "; ".join(
        f"{g} gate {'closed (nobody controls it)' if c is None else 'held by ' + label(seats, c)}"
        for g, c in view["gates"].items()))
    out: list[Section] = [("Table", table)]
    for s in view["seats"]:
        known = (f"; known cards {', '.join(map(_card, s['known_cards']))}"
                 if s["known_cards"] else "")
        out.append((f"{s['colour']} ({seats[s['seat']]['name']})", [
            f"Big pawn on square {s['big']['pos']} ({s['big']['square'].replace('_', ' ')}); "
            f"small pawn on {_circle(board, s['small'])}",
            f"${s['money']}, {s['hand_size']} cards in hand{known}",
            "Gate passes: " + (", ".join(s["gates"]) or "none"),
        ]))
    return out


class DoubletrackKit(SpectatorKit):
    words = _WORDS
    secret_answers = {"sell_card_choice": "puts a card face down for sale"}
    secret_options = frozenset({"play_card", "sell_card_choice"})  # one option per distinct card

    def seats(self, log: Mapping[str, Any], view: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"seat": s["seat"], "name": log["players"][s["seat"]]["name"],
                 "label": s["colour"], "colour": s["colour"], "engine": False}
                for s in view["seats"]]

    def board_facts(self, board: Board, options: Mapping[str, Any]) -> dict[str, Any]:
        return board_facts(board)

    def turn(self, view: Mapping[str, Any]) -> int | None:
        return int(view["turn"])

    def summary(self, frame: Mapping[str, Any], doc: Mapping[str, Any]) -> list[Section]:
        return summary(frame, doc["match"]["seats"], doc["board"])


KIT = DoubletrackKit()
