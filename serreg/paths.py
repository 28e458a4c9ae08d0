"""Find where a value sits inside a container tree, for error messages.

Only used when something has already failed, so it may be slow; it never runs
on the success path.
"""

from __future__ import annotations

import json
from typing import Callable, Optional

_MAX_VISITS = 1_000_000


def _key_text(key) -> str:
    # Double quotes for str keys, as a user writes them: obj["rows"][3].
    return json.dumps(key, ensure_ascii=False) if type(key) is str else repr(key)


def _children(node):
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


def locate(root, predicate: Callable[[object], bool], root_name: str = "obj") -> Optional[str]:
    """Return the path (``obj["rows"][3]``) of the first value, depth first, for which
    ``predicate`` is true, or None. Cycles are visited once."""
    stack = [(root_name, root)]
    seen = set()
    visits = 0
    while stack and visits < _MAX_VISITS:
        path, node = stack.pop()
        visits += 1
        try:
            if predicate(node):
                return path
        except Exception:
            pass
        if id(node) in seen:
            continue
        seen.add(id(node))
        children = list(_children(node))
        for suffix, child in reversed(children):
            stack.append((path + suffix, child))
    return None


def locate_identity(root, target, root_name: str = "obj") -> Optional[str]:
    """The path of ``target`` (compared by identity) inside ``root``."""
    return locate(root, lambda node: node is target, root_name)
