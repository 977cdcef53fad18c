"""What the replay viewer must be on a phone, measured in the browser: the text of its drawings
at the size it is rendered, and the size of every control a finger has to hit.

Shared by the viewer's own tests (a ``referee view`` file) and the pages' (a match page of the
site): the same viewer serves both.
"""

from __future__ import annotations

from typing import Any

PHONE = {"width": 390, "height": 844}
MIN_TEXT_PX = 10.0
MIN_CONTROL_PX = 40.0

# Every rendered <text> of the viewer's drawings: its font size times the drawing's scale on
# screen (getScreenCTM), and the height of its box on screen. Text that is not rendered (no
# client rects) is left out; text scrolled out of the board's box is in: it has the same size.
_TEXT_SIZES = """root => Array.from(root.querySelectorAll("svg.rv-board text"))
  .filter(t => t.getClientRects().length && t.textContent.trim())
  .map(t => {
    const m = t.getScreenCTM(), scale = Math.hypot(m.a, m.b);
    return [t.textContent.trim(), parseFloat(getComputedStyle(t).fontSize) * scale,
            t.getBoundingClientRect().height];
  })"""

# Everything in the viewer a finger or a keyboard can act on, with its box on screen.
_CONTROLS = """(root, enabled) => Array.from(root.querySelectorAll(
    "button, select, input, a[href], [tabindex]:not([tabindex='-1'])"))
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden")
  .filter(e => !(enabled && e.disabled))
  .map(e => {
    const r = e.getBoundingClientRect();
    return [e.getAttribute("aria-label") || e.textContent.trim() || e.tagName, r.width, r.height];
  })"""


def text_sizes(page: Any, root: str = "[data-referee-viewer]") -> list[tuple[str, float, float]]:
    """``(text, font size in CSS px, box height in CSS px)`` of every text the viewer draws."""
    return [tuple(row) for row in page.eval_on_selector(root, _TEXT_SIZES)]


def controls(page: Any, root: str = "[data-referee-viewer]", *, enabled: bool = False
             ) -> list[tuple[str, float, float]]:
    """``(name, width, height)`` in CSS px of every visible control of the viewer (only those
    not disabled, when ``enabled``)."""
    return [tuple(row) for row in page.eval_on_selector(root, _CONTROLS, enabled)]


def assert_readable_on_a_phone(page: Any, root: str = "[data-referee-viewer]") -> None:
    """No text of the drawings under 10 CSS px, every control at least 40 x 40 CSS px, and the
    page no wider than the phone."""
    sizes = text_sizes(page, root)
    assert len(sizes) > 100, f"only {len(sizes)} texts drawn"
    small = [s for s in sizes if s[1] < MIN_TEXT_PX or s[2] < MIN_TEXT_PX]
    assert not small, small[:10]
    found = controls(page, root)
    names = {name for name, _, _ in found}
    assert {"previous (\u2190)", "next (\u2192)", "frame", "zoom in"} <= names, names
    tiny = [c for c in found if c[1] < MIN_CONTROL_PX or c[2] < MIN_CONTROL_PX]
    assert not tiny, tiny
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
