"""A leaderboard page's order and filter: ``?sort=COLUMN&order=asc|desc`` and ``?owner=NAME``.

Sorting is server-side so that the column headers are plain links (no script).  It reorders
rows only: every row keeps its rank, which stays the rating model's.  Each column has the order
a reader expects first (the best first: highest rating, fewest strikes); a row without a value
in the column sorts last either way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

Row = Mapping[str, Any]
Extras = Mapping[int, Mapping[str, Any]]
ASC, DESC = "asc", "desc"


@dataclass(frozen=True)
class Column:
    label: str
    first: str
    """The order of the first click: ``desc`` where more is better."""
    value: Callable[[Row, Mapping[str, Any]], Any]
    """The sort value of a row (given its extras), or None when it has none."""
    words: tuple[str, str] = ("lowest first", "highest first")
    """How each order reads: ascending, descending."""


def _share(row: Row, _: Mapping[str, Any]) -> float | None:
    """W-D-L as one number: points per game, a draw half a point."""
    return (row["wins"] + row["draws"] / 2) / row["games"] if row.get("games") else None


ALPHABET = ("A to Z", "Z to A")
COLUMNS: dict[str, Column] = {
    "rank": Column("rank", ASC, lambda r, x: r.get("rank"), ("best first", "worst first")),
    "bot": Column("bot", ASC, lambda r, x: r["bot"]["name"].casefold(), ALPHABET),
    "owner": Column("owner", ASC, lambda r, x: r["owner"]["name"].casefold()
                    if r.get("owner") else None, ALPHABET),
    "rating": Column("rating", DESC, lambda r, x: r.get("rating")),
    "games": Column("games", DESC, lambda r, x: r.get("games")),
    "wdl": Column("points per game", DESC, _share),
    "place": Column("mean place", ASC, lambda r, x: r.get("mean_place")),
    "firsts": Column("first places", DESC, lambda r, x: x.get("firsts")),
    "strikes": Column("strikes per game", ASC, lambda r, x: r.get("strikes_per_game")),
    "forfeits": Column("forfeits", ASC, lambda r, x: r.get("forfeit_rate")),
    "trend": Column("trend", DESC, lambda r, x: x.get("trend")),
    "last": Column("last played", DESC, lambda r, x: r.get("last_played"),
                   ("longest ago first", "most recent first")),
    "elo": Column("live Elo", DESC, lambda r, x: r.get("elo")),
}
DEFAULT = "rank"


def sort_rows(rows: list[dict[str, Any]], key: str, order: str, extras: Extras
              ) -> list[dict[str, Any]]:
    """``rows`` ordered by column ``key``; rows without a value last, ties by rank then
    name (a stable, repeatable order)."""
    column = COLUMNS[key]
    valued = [(column.value(r, extras.get(r["bot"]["id"], {})), r) for r in rows]
    present = [(v, r) for v, r in valued if v is not None]
    present.sort(key=lambda vr: (vr[1].get("rank") or 0, vr[1]["bot"]["name"]))
    present.sort(key=lambda vr: vr[0], reverse=order == DESC)
    return [r for _, r in present] + [r for v, r in valued if v is None]


def owners(board: Mapping[str, Any]) -> list[str]:
    """The owners with a bot anywhere on the board, alphabetically."""
    rows = list(board["items"]) + list(board["provisional"]) + list(board["paused"])
    return sorted({r["owner"]["name"] for r in rows if r.get("owner")}, key=str.casefold)


def of_owner(board: Mapping[str, Any], owner: str | None) -> dict[str, Any]:
    """The board with only ``owner``'s bots in each section (all of them for None)."""
    if owner is None:
        return dict(board)

    def mine(rows: Any) -> list[Any]:
        return [r for r in rows if r.get("owner") and r["owner"]["name"] == owner]

    return {**board, "items": mine(board["items"]), "provisional": mine(board["provisional"]),
            "paused": mine(board["paused"])}


@dataclass(frozen=True)
class Sorting:
    """What the page's headers need: the current column and order, and each header's link."""

    path: str
    key: str
    order: str
    owner: str | None

    def link(self, key: str) -> str:
        """The header's link: this column in its first order, or the other order when it is
        the column sorted by now."""
        column = COLUMNS[key]
        order = (DESC if self.order == ASC else ASC) if key == self.key else column.first
        params = {"owner": self.owner} if self.owner else {}
        if key != DEFAULT or order != COLUMNS[DEFAULT].first:
            params.update(sort=key, order=order)
        return self.path + ("?" + urlencode(params) if params else "")

    def aria(self, key: str) -> str:
        """The header's ``aria-sort`` value."""
        if key != self.key:
            return "none"
        return "ascending" if self.order == ASC else "descending"

    def arrow(self, key: str) -> str:
        if key != self.key:
            return ""
        return "\u25b2" if self.order == ASC else "\u25bc"

    def said(self) -> str:
        """How the table is ordered, in words (empty for the default order)."""
        if self.key == DEFAULT and self.order == COLUMNS[DEFAULT].first:
            return ""
        column = COLUMNS[self.key]
        return f"sorted by {column.label}, {column.words[self.order == DESC]}"
