"""Reading YAML that strangers wrote (``--board FILE``) as plain JSON-ready data, safely.

``yaml.safe_load`` is safe against code execution, not against size: aliases expand on every
copy of the data (a 5 KB "billion laughs" file becomes gigabytes when the board is copied or
logged), nesting a few thousand levels deep raises ``RecursionError``, an integer of more than
4,300 digits raises a ``ValueError`` about ``sys.set_int_max_str_digits``, and a date becomes a
``datetime.date`` that no JSON encoder takes. So the document is first *composed* (a node graph
in which an alias is the same node twice: nothing is expanded yet), the graph is walked once and
anything that is not plain data is refused with a message naming its line, and only then are
Python values built. libyaml's C parser is used where PyYAML has it: it composes a 600 KB file
in well under a second where the pure-Python parser takes half a minute.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_DEPTH = 64
"""Nesting levels a data file may use; real boards use fewer than ten."""
MAX_INT_DIGITS = 100
"""Digits an integer may have; far below Python's 4,300-digit conversion limit."""

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # type: ignore[assignment]
_TAG = "tag:yaml.org,2002:"
_SCALARS = {_TAG + kind for kind in ("str", "int", "float", "bool", "null")}
_NON_FINITE = {".inf", "+.inf", "-.inf", ".nan"}


class YamlDataError(ValueError):
    """A YAML text that is not plain data; the message is one line naming the problem."""


def load(text: str) -> Any:
    """The plain data (dicts, lists, strings, numbers, booleans, None) of one YAML document.

    Raises :class:`YamlDataError` for a syntax error, an alias, nesting over
    :data:`MAX_DEPTH`, an integer over :data:`MAX_INT_DIGITS` digits, a non-finite float, a
    date, or any other tag (binary, set, ...).
    """
    loader = _LOADER(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as exc:
            raise YamlDataError(f"not valid YAML: {_first_line(exc)}") from None
        except RecursionError:  # the pure-Python composer recurses per level
            raise YamlDataError(f"nested deeper than {MAX_DEPTH} levels") from None
        if node is None:
            return None
        check(node)
        try:
            return loader.construct_document(node)
        except yaml.YAMLError as exc:  # e.g. a list used as a mapping key
            raise YamlDataError(f"not plain data: {_first_line(exc)}") from None
    finally:
        loader.dispose()


def check(root: yaml.Node) -> None:
    """Refuse every node that would not become plain, bounded data (iteratively: a deep
    document must not hit the recursion limit here either)."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            raise YamlDataError(f"{_where(node)}: aliases (*name) are not allowed; "
                                "write the data out in full")
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise YamlDataError(f"{_where(node)}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, yaml.ScalarNode):
            _check_scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            _check_tag(node, "seq")
            stack.extend((child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            _check_tag(node, "map")
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    raise YamlDataError(f"{_where(key)}: a mapping key must be a plain value")
                stack.extend(((key, depth + 1), (value, depth + 1)))


def _check_tag(node: yaml.Node, kind: str) -> None:
    if node.tag != _TAG + kind:
        raise YamlDataError(f"{_where(node)}: tag {node.tag} is not allowed here")


def _check_scalar(node: yaml.ScalarNode) -> None:
    tag, value = node.tag, str(node.value)
    if tag == _TAG + "timestamp":
        raise YamlDataError(f"{_where(node)}: {value[:40]!r} reads as a date; quote it to "
                            "make it text")
    if tag == _TAG + "merge":
        raise YamlDataError(f"{_where(node)}: merge keys (<<) are not allowed; write the data "
                            "out in full")
    if tag not in _SCALARS:
        raise YamlDataError(f"{_where(node)}: tag {tag} is not allowed (only text, numbers, "
                            "booleans, null, lists and mappings)")
    if tag == _TAG + "int" and sum(ch.isdigit() for ch in value) > MAX_INT_DIGITS:
        raise YamlDataError(f"{_where(node)}: an integer of more than {MAX_INT_DIGITS} digits")
    if tag == _TAG + "float" and value.lower() in _NON_FINITE:
        raise YamlDataError(f"{_where(node)}: {value} is not a finite number")


def _where(node: yaml.Node) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}" if mark is not None else "somewhere"


def _first_line(exc: yaml.YAMLError) -> str:
    """PyYAML's messages span lines ("while scanning ... in <unicode string>, line 3 ...");
    the problem and its line are what a reader needs, on one line."""
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if problem:
        return f"{problem}" + (f" (line {mark.line + 1})" if mark is not None else "")
    return " ".join(str(exc).split()) or type(exc).__name__
