"""Shared hypothesis helpers for the parser fuzz tests."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
"""Any JSON value, small: what a damaged document may hold in place of a figure."""


def replace_somewhere(doc: Any, data: st.DataObject, value: Any, depth: int) -> Any:
    """``doc`` with the value at a random path (up to ``depth`` keys deep) replaced by ``value``."""
    node, path = doc, []
    for _ in range(data.draw(st.integers(1, depth))):
        if isinstance(node, dict) and node:
            key = data.draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            key = data.draw(st.integers(0, len(node) - 1))
        else:
            break
        path.append((node, key))
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = value
    return doc
