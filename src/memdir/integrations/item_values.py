"""Key-value items as memory files: the mapping a store adapter (LangGraph's ``BaseStore``) writes and reads.

A store item is ``(namespace, key, value)`` with ``value`` a JSON object; a memory is a Markdown
file with a frontmatter. The mapping, both ways:

* the file is ``<key>.md`` (a key that already ends in ``.md`` is the file name itself);
* ``value["content"]`` is the body. A string is written as it is (LangMem's default value,
  ``{"content": "..."}``, is a memory as it stands); any other JSON value (LangMem's schema
  memories, ``{"kind": ..., "content": {...}}``) is written as a fenced JSON block with
  ``content_format: json`` in the frontmatter, and read back as the same value;
* ``name``, ``description`` and ``type`` are the frontmatter fields of the same names. Without a
  ``name`` the first line of the content is the name (cut at a word before 60 characters; the
  ``kind`` of JSON content; else the key), since LangMem's keys are UUIDs and the name is the
  index line's title; without a ``description`` the first line of the content is (cut at 150
  characters), because recall matches against it; ``type`` is one of user, feedback, project or
  reference, or absent;
* every other field is a frontmatter key of its own, kept as given (``metadata`` is Claude Code's
  and ``content_format`` is the mapping's, so neither may be a field).

Reading gives ``content``, the three fields when the file has them, and its other frontmatter keys.
A value without ``content`` is refused with an error that says so. The body is stored as a memory
file stores it: without leading blank space or trailing newlines.

:func:`matches` is the ``filter`` of a search, with the operators LangGraph's interface names
(``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``) and exact matching of nested values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from memdir.errors import MemoryFormatError, UnsafePathError
from memdir.integrations.mcp_tools import parse_type
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.memory import Memory
from memdir.model.memory_type import METADATA_KEY

__all__ = ["CONTENT_FORMAT_KEY", "file_for_key", "key_for_file", "matches", "memory_from_value", "value_from_memory"]

CONTENT_FORMAT_KEY = "content_format"
_FIELDS = ("content", "name", "description", "type")
_RESERVED = (METADATA_KEY, CONTENT_FORMAT_KEY)
_DESCRIPTION_LIMIT = 150
_NAME_LIMIT = 60
_FENCE = "```"


def file_for_key(key: str) -> str:
    """The memory file of a key: ``<key>.md``; a key that is not one safe file name is refused."""
    if not isinstance(key, str) or not key.strip():
        raise UnsafePathError("a store key must be a non-empty string", rule="store-key", path=str(key))
    if "/" in key or "\\" in key or "\x00" in key or key.startswith("."):
        raise UnsafePathError(
            f"store key {key!r} must be one file name: no '/', '\\' or NUL, not starting with '.'",
            rule="store-key",
            path=key,
        )
    file = key if key.endswith(".md") else f"{key}.md"
    if file == ENTRYPOINT_NAME:
        raise UnsafePathError(
            f"store key {key!r} names the index, {ENTRYPOINT_NAME}; memdir keeps it in step with the memories",
            rule="store-key",
            path=key,
        )
    return file


def key_for_file(file: str) -> str:
    """The key of a memory file's base name: the name without ``.md``."""
    return file.removesuffix(".md")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line and line != _FENCE and not line.startswith(_FENCE):
            return line if len(line) <= _DESCRIPTION_LIMIT else line[: _DESCRIPTION_LIMIT - 1].rstrip() + "…"
    return ""


def _title(summary: str) -> str:
    """A short title from a content's first line: LangMem's keys are UUIDs, no name for the index."""
    if len(summary) <= _NAME_LIMIT:
        return summary
    cut = summary[:_NAME_LIMIT].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return (cut or summary[: _NAME_LIMIT - 1]) + "…"


def _json_text(value: object, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False)
    except (TypeError, ValueError) as exc:
        raise MemoryFormatError(f"{what} must be JSON data ({exc})", rule="store-value") from exc


def memory_from_value(key: str, value: Mapping[str, Any], existing: Memory | None = None) -> Memory:
    """The memory a put writes; ``existing`` (the file being replaced) keeps its layout and Claude
    Code's ``metadata:`` block, the bookkeeping the value does not carry."""
    if not isinstance(value, Mapping):
        raise MemoryFormatError(f"a store value must be a JSON object, not {type(value).__name__}", rule="store-value")
    if "content" not in value:
        raise MemoryFormatError(
            f'a memory value needs a "content" field (its text, as LangMem writes it); got the fields '
            f"{sorted(map(str, value))}. See docs/frameworks.md for how a value maps to a memory file.",
            rule="store-value",
        )
    for field in ("name", "description", "type"):
        if value.get(field) is not None and not isinstance(value[field], str):
            raise MemoryFormatError(f'"{field}" must be a string', rule="store-value")
    reserved = sorted(k for k in value if k in _RESERVED)
    if reserved:
        raise MemoryFormatError(
            f"{reserved} cannot be fields of a store value: the memory file uses them itself", rule="store-value"
        )
    extra: dict[str, object] = {}
    for field, item in value.items():
        if field not in _FIELDS:
            _json_text(item, f"the field {field!r}")
            extra[str(field)] = item
    content = value["content"]
    kind = value.get("kind")
    if isinstance(content, str):
        body = content
        summary = title = _first_line(content)
    else:
        body = f"{_FENCE}json\n{_json_text(content, 'content')}\n{_FENCE}"
        extra[CONTENT_FORMAT_KEY] = "json"
        title = _first_line(kind) if isinstance(kind, str) else ""
        summary = title or _first_line(json.dumps(content, ensure_ascii=False))
    name = (value.get("name") or "").strip() or _title(title) or key_for_file(key)
    description = " ".join((value.get("description") or "").split()) or summary or name
    memory_type = parse_type(value.get("type"))
    if existing is None:
        return Memory(name=name, description=description, type=memory_type, body=body, extra=extra)
    if METADATA_KEY in existing.extra:
        extra[METADATA_KEY] = existing.extra[METADATA_KEY]
    return replace(
        existing, name=name, description=description, type=memory_type, raw_type=None, body=body, extra=extra
    )


def _decoded_body(memory: Memory) -> object:
    body = memory.body
    if memory.extra.get(CONTENT_FORMAT_KEY) == "json":
        inner = body.strip()
        if inner.startswith(_FENCE + "json\n") and inner.endswith("\n" + _FENCE):
            try:
                return json.loads(inner[len(_FENCE) + 5 : -len(_FENCE) - 1])
            except ValueError:
                return body  # edited by hand into something else: the text is what there is
    return body


def value_from_memory(memory: Memory) -> dict[str, Any]:
    """The value a get or a search returns for a memory file (any file, not only the store's)."""
    value: dict[str, Any] = {"content": _decoded_body(memory)}
    if memory.name:
        value["name"] = memory.name
    if memory.description:
        value["description"] = memory.description
    if memory.type is not None:
        value["type"] = memory.type.value
    elif isinstance(memory.raw_type, str):
        value["type"] = memory.raw_type
    for field, item in memory.extra.items():
        if field not in _RESERVED and field not in value:
            value[field] = item
    return value


def _compare(operator: str, actual: object, expected: object) -> bool:
    if operator == "$eq":
        return actual == expected
    if operator == "$ne":
        return actual != expected
    if operator in ("$gt", "$gte", "$lt", "$lte"):
        try:
            left, right = float(actual), float(expected)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[operator]
    raise ValueError(f"unsupported filter operator {operator!r}; use $eq, $ne, $gt, $gte, $lt or $lte")


def _match_one(actual: object, expected: object) -> bool:
    if isinstance(expected, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in expected):
            return all(_compare(op, actual, operand) for op, operand in expected.items())
        return isinstance(actual, Mapping) and all(_match_one(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(_match_one(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return actual == expected


def matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a search filter (every field must match)."""
    if not filter:
        return True
    return all(_match_one(value.get(field), expected) for field, expected in filter.items())
