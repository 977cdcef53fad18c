"""Reading the pages' HTML in tests without a browser: tables, links, attributes (stdlib only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any


@dataclass
class Cell:
    text: str = ""
    links: list[str] = field(default_factory=list)


@dataclass
class Table:
    classes: list[str]
    rows: list[list[Cell]] = field(default_factory=list)

    def column(self, n: int) -> list[str]:
        return [r[n].text for r in self.rows if len(r) > n]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self.open: list[Table] = []
        self.cell: Cell | None = None
        self.head = False
        self.attrs: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        for k, v in values.items():
            self.attrs.append((tag, k, v))
        if tag == "table":
            self.open.append(Table(values.get("class", "").split()))
            self.tables.append(self.open[-1])
        elif tag == "thead":
            self.head = True
        elif tag == "tbody":
            self.head = False
        elif tag == "tr" and self.open and not self.head:
            self.open[-1].rows.append([])
        elif tag == "td" and self.open and not self.head and self.open[-1].rows:
            self.cell = Cell()
            self.open[-1].rows[-1].append(self.cell)
        elif tag == "a" and self.cell is not None and "href" in values:
            self.cell.links.append(values["href"])
        elif tag in ("div", "br", "li", "p") and self.cell is not None:
            self.cell.text += " "  # a block starts a new word

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.open:
            self.open.pop()
        elif tag == "td":
            if self.cell is not None:
                self.cell.text = " ".join(self.cell.text.split())
            self.cell = None
        elif tag == "thead":
            self.head = False

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.text += data


def read(html: str) -> _Reader:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader


def tables(html: str, cls: str) -> list[Table]:
    """Every table with class ``cls``, in document order."""
    return [t for t in read(html).tables if cls in t.classes]


def links(html: str) -> list[str]:
    """Every ``href`` of an ``a`` or ``link`` element, and every form ``action``."""
    return [v for tag, k, v in read(html).attrs
            if (k == "href" and tag in ("a", "link")) or (k == "action" and tag == "form")]


def attributes(html: str, name: str) -> list[tuple[str, str]]:
    """``(tag, value)`` of every attribute called ``name``."""
    return [(tag, v) for tag, k, v in read(html).attrs if k == name]


def page(client: Any, path: str, status: int = 200) -> str:
    answer = client.get(path)
    assert answer.status_code == status, (path, answer.status_code,
                                          answer.get_data(as_text=True)[:2000])
    assert answer.mimetype == "text/html"
    text: str = answer.get_data(as_text=True)
    return text
