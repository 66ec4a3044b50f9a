"""The YAML 1.2 core schema's implicit types, as patterns that need no YAML library.

A plain scalar matching one of these reads as null, a boolean, an integer or a float; any other
plain scalar is a string. Shared by the YAML reader (:mod:`memdir.model.yaml12`) and the
frontmatter reader's fast path, which must agree with it exactly. They compile on first use: a
prompt hook whose headers come from the derived index never reads a plain scalar.
"""

from __future__ import annotations

from memdir.model.patterns import LazyPattern

__all__ = ["BOOL_RE", "FLOAT_RE", "INT_RE", "NULL_RE", "plain_is_string"]

NULL_RE = LazyPattern(r"^(?:~|null|Null|NULL|)$")
BOOL_RE = LazyPattern(r"^(?:true|True|TRUE|false|False|FALSE)$")
INT_RE = LazyPattern(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
FLOAT_RE = LazyPattern(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


# The first characters a null, a boolean or a number can start with: a scalar starting with any
# other is a string, known without trying the four patterns (a header holds a dozen scalars).
_MAYBE_NOT_STRING = frozenset("~nNtTfF0123456789+-.")


def plain_is_string(text: str) -> bool:
    """True when ``text`` written as a plain scalar reads as a string in the 1.2 core schema."""
    if text and text[0] not in _MAYBE_NOT_STRING:
        return True
    return not any(pattern.match(text) for pattern in (NULL_RE, BOOL_RE, INT_RE, FLOAT_RE))
