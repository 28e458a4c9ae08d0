"""Find where a value sits inside a container tree, for error messages.

Only used when something has already failed, so it may be slow; it never runs
on the success path. :func:`attach_path` completes a SerializationError with
the path of its value inside the object given to ``serialize``.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator, Optional

from ..errors import SerializationError

_MAX_VISITS = 1_000_000


def _key_text(key: Any) -> str:
    # Double quotes for str keys, as a user writes them: obj["rows"][3].
    return json.dumps(key, ensure_ascii=False) if type(key) is str else repr(key)


def _children(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for i, (key, value) in enumerate(node.items()):
            yield f"<key {i}: {_key_text(key)}>", key
            yield f"[{_key_text(key)}]", value
    elif isinstance(node, (list, tuple)):
        for i, item in enumerate(node):
            yield f"[{i}]", item
    elif isinstance(node, (set, frozenset)):
        for i, item in enumerate(node):
            yield f"<member {i}>", item


def _matches(root: Any, predicate: Callable[[object], bool], root_name: str) -> Iterator[tuple[str, Any]]:
    """(path, value) of each value, depth first, for which ``predicate`` is true. Cycles are visited once."""
    stack = [(root_name, root)]
    seen = set()
    visits = 0
    while stack and visits < _MAX_VISITS:
        path, node = stack.pop()
        visits += 1
        try:
            if predicate(node):
                yield path, node
        except Exception:
            pass
        if id(node) in seen:
            continue
        seen.add(id(node))
        children = list(_children(node))
        for suffix, child in reversed(children):
            stack.append((path + suffix, child))


def locate(root: Any, predicate: Callable[[object], bool], root_name: str = "obj") -> Optional[str]:
    """Return the path (``obj["rows"][3]``) of the first value, depth first, for which
    ``predicate`` is true, or None. Cycles are visited once."""
    return next((path for path, _ in _matches(root, predicate, root_name)), None)


def find(root: Any, predicate: Callable[[object], bool]) -> Any:
    """The first value inside ``root`` (``root`` itself included), depth first, for which
    ``predicate`` is true, or None."""
    return next((node for _, node in _matches(root, predicate, "obj")), None)


def locate_identity(root: Any, target: Any, root_name: str = "obj") -> Optional[str]:
    """The path of ``target`` (compared by identity) inside ``root``."""
    return locate(root, lambda node: node is target, root_name)


def attach_path(error: SerializationError, root: Any) -> None:
    """Give ``error`` the path of its value inside ``root`` (the outermost serialize call wins)."""
    inner_root = error.path_root
    if inner_root is root:
        return
    if error.path is None:
        target = error.value if error.value is not None else root
        found = locate_identity(root, target)
        error.path = found if found is not None else "obj"
    elif inner_root is not None:
        # The error was located inside a value that a serializer serialized with a
        # nested serialize() call; prefix the path of that value, or of the value
        # whose serializer made the call, marked <TypeName>.
        inner = error.path[len("obj"):]
        prefix = locate_identity(root, inner_root)
        via = error.via
        if prefix is None and via is not None:
            via_path = locate_identity(root, via)
            if via_path is not None:
                prefix = f"{via_path}<{type(via).__name__}>"
        if prefix is not None:
            error.path = prefix + inner
        error.via = None
    error.path_root = root
