"""The replay viewer as HTML: a self-contained page, or a fragment for the service's pages.

The viewer is one framework-free script (``static/viewer.js``) and a style sheet, shipped as
package data: no CDN, no Node toolchain. A page gets:

- frame N rendered here as text with links to the frames either side (``?ply=N``), which is
  what a browser without JavaScript shows;
- the frames document (:func:`referee.frames.build_frames`) inline as JSON, or the URL the
  script fetches it from;
- the script, which hides the text, draws the board as SVG and steps through the frames.

:func:`render_page` gives one HTML file that works offline (``referee view``).
:func:`render_fragment` gives the viewer alone as :class:`markupsafe.Markup`, so that a Flask
page can write ``{{ viewer }}`` in its own template and serve :func:`viewer_js` and
:func:`viewer_css` (or inline them) once per page.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from referee.frames.kits import kit_for

__all__ = ["clamp_ply", "render_fragment", "render_page", "viewer_css", "viewer_js"]


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("api.viewer", "templates"),
                              autoescape=True, undefined=jinja2.StrictUndefined)


@cache
def viewer_js() -> str:
    """The viewer script (it mounts itself on every ``[data-referee-viewer]`` element)."""
    return resources.files("api.viewer").joinpath("static/viewer.js").read_text("utf-8")


@cache
def viewer_css() -> str:
    return resources.files("api.viewer").joinpath("static/viewer.css").read_text("utf-8")


def clamp_ply(doc: Mapping[str, Any], ply: Any) -> int:
    """``ply`` as a frame number of ``doc``: a number out of range is the nearest frame; anything
    that is not a whole number is frame 0 (a bad ``?ply=`` must still show the match)."""
    try:
        n = int(ply)
    except (TypeError, ValueError):
        return 0
    return max(0, min(len(doc["frames"]) - 1, n))


def frames_json(doc: Mapping[str, Any]) -> str:
    """The frames as JSON that is safe inside a ``<script>`` element: ``<``, ``>`` and ``&``
    (possible in bot names and labels) are escaped, so no text can close the element."""
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_fragment(doc: Mapping[str, Any], ply: Any = 0, *, frames_url: str | None = None,
                    element_id: str = "referee-viewer",
                    link: Callable[[int], str] | None = None, autofocus: bool = False) -> Markup:
    """The viewer of ``doc`` at frame ``ply``: text for frame ``ply`` with previous/next links,
    the script's mount point, and the frames inline (or ``frames_url`` for the script to fetch).

    ``link(n)`` makes the URL of frame ``n`` for the no-JavaScript links (default ``?ply=n``).
    ``autofocus`` gives the viewer the keyboard on opening: only for a page that is nothing but
    the viewer, since the viewer takes the arrow keys, Space, Home and End while it has focus.
    """
    n = clamp_ply(doc, ply)
    frame = doc["frames"][n]
    match = doc["match"]
    html = _env().get_template("viewer_fragment.html").render(
        element_id=element_id, ply=n, last=len(doc["frames"]) - 1, frame=frame,
        turn_name=match.get("turn_name", "turn"), outcome=match.get("outcome", ""),
        sections=kit_for(match["game"]).summary(frame, doc),
        frames_url=frames_url, frames_json=Markup(frames_json(doc)) if not frames_url else "",
        link=link or (lambda k: f"?ply={k}"), autofocus=autofocus,
    )
    return Markup(html)


def render_page(doc: Mapping[str, Any], ply: Any = 0, *, frames_url: str | None = None) -> str:
    """One self-contained HTML page: style, viewer, frames (unless ``frames_url``) inline."""
    match = doc["match"]
    title = f"{match['title']}: " + " vs ".join(s["name"] for s in match["seats"])
    return _env().get_template("viewer_page.html").render(
        title=title, match=match, css=Markup(viewer_css()), js=Markup(_script_safe(viewer_js())),
        fragment=render_fragment(doc, ply, frames_url=frames_url, autofocus=True),
    )


def _script_safe(js: str) -> str:
    """The script, checked to be inlinable: it must not contain ``</script``."""
    if "</script" in js.lower():
        raise ValueError("viewer.js contains '</script' and cannot be inlined")
    return js
