"""Relations between memories that someone decided: "this one replaces that one", "these are two facts".

Word overlap cannot tell "this fact in other words" from "another fact", so memdir never infers
that one memory replaces another; it records it when a writer, a person or a model decides it.
The relation lives in the frontmatter of the memory that states it, as keys Claude Code ignores:

- ``replaces:`` on the newer memory, naming the memory (or memories) it replaces;
- ``distinct-from:`` on either memory of a pair someone judged to be different facts, so that
  ``doctor`` never proposes the pair again.

A value is a file name relative to the memory directory or a memory's ``name:``, resolved the way
``[[links]]`` are (case, ``.md``, spaces, ``-`` and ``_`` aside), alone or as a list. In the
frontmatter they travel with the file: team sync, a copy, a checkout or Claude Code's own edits
keep them, and the local history records their every change. Keys at the top level are read in
both layouts (and inside ``metadata:`` of the nested one, like ``modified:``).
"""

from __future__ import annotations

from collections.abc import Mapping

from memdir.model.timefields import frontmatter_value

__all__ = ["DISTINCT_KEY", "RELATION_KEYS", "REPLACES_KEY", "relation_targets"]

REPLACES_KEY = "replaces"
DISTINCT_KEY = "distinct-from"
RELATION_KEYS = (REPLACES_KEY, DISTINCT_KEY)
# A relation names a few memories; a longer list is not a decision anyone made one by one.
_MOST_TARGETS = 20


def relation_targets(frontmatter: Mapping[str, object], key: str) -> tuple[str, ...]:
    """The memories a frontmatter's ``key`` names: a string or a list of strings (other values,
    empty strings and the part past the 20th ignored), in order, without repeats."""
    value = frontmatter_value(frontmatter, key)
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    found = [item.strip() for item in items if isinstance(item, str) and item.strip()]
    return tuple(dict.fromkeys(found))[:_MOST_TARGETS]
