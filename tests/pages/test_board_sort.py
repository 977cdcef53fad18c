"""The leaderboard's sort and filter on plain rows: rows without a value sort last both ways,
ties keep the rank order, the links flip the order of the column sorted by now."""

from __future__ import annotations

from api.pages.board import ASC, DESC, Sorting, of_owner, owners, sort_rows


def row(name: str, rank: int | None, games: int, owner: str | None = None) -> dict:
    return {"bot": {"id": rank or 99, "name": name}, "rank": rank, "games": games,
            "owner": {"id": 1, "name": owner} if owner else None, "wins": 0, "draws": 0}


ROWS = [row("c", 1, 10, "ann"), row("a", 2, 30), row("b", 3, 10, "bo")]


def test_rows_without_a_value_sort_last_both_ways():
    extras = {1: {"trend": 5.0}, 3: {"trend": -2.0}}  # "a" has no trend
    assert [r["bot"]["name"] for r in sort_rows(ROWS, "trend", DESC, extras)] == ["c", "b", "a"]
    assert [r["bot"]["name"] for r in sort_rows(ROWS, "trend", ASC, extras)] == ["b", "c", "a"]
    assert [r["bot"]["name"] for r in sort_rows(ROWS, "owner", ASC, {})] == ["c", "b", "a"]


def test_ties_keep_the_rank_order_either_way():
    assert [r["bot"]["name"] for r in sort_rows(ROWS, "games", DESC, {})] == ["a", "c", "b"]
    assert [r["bot"]["name"] for r in sort_rows(ROWS, "games", ASC, {})] == ["c", "b", "a"]


def test_header_links_start_in_the_columns_order_and_flip_the_current_one():
    now = Sorting("/leaderboards/g", "games", DESC, "bo")
    assert now.link("games") == "/leaderboards/g?owner=bo&sort=games&order=asc"
    assert now.link("rating") == "/leaderboards/g?owner=bo&sort=rating&order=desc"
    assert now.link("rank") == "/leaderboards/g?owner=bo"  # the default order needs nothing
    assert now.aria("games") == "descending" and now.aria("rank") == "none"
    assert now.said() == "sorted by games, highest first"
    assert Sorting("/x", "rank", ASC, None).said() == ""


def test_the_owner_filter_keeps_one_owners_bots_in_every_section():
    board = {"items": ROWS, "provisional": [row("d", None, 2, "bo")],
             "paused": [{**row("e", None, 0, "ann"), "row": None}]}
    assert owners(board) == ["ann", "bo"]
    mine = of_owner(board, "bo")
    assert [r["bot"]["name"] for r in mine["items"] + mine["provisional"]] == ["b", "d"]
    assert mine["paused"] == [] and of_owner(board, None)["items"] == ROWS
