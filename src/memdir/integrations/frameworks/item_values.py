"""Key-value items as memory files: the mapping a store adapter (LangGraph's ``BaseStore``) writes and reads.

A store item is ``(namespace, key, value)`` with ``value`` a JSON object; a memory is a Markdown
file with a frontmatter. What a ``put`` writes comes back from a ``get`` as it was put, whatever
its shape, and the file is one Claude Code reads as a memory. Two forms (the key's file is
:mod:`memdir.integrations.frameworks.item_keys`'s):

* a memory value, ``{"content": ...}`` with optional ``name``, ``description`` and ``type``
  strings (LangMem's default value is ``{"content": "..."}``): the content is the body (a string
  as it is; any other JSON, such as LangMem's schema memories, a fenced JSON block with
  ``content_format: json``), the three fields are the frontmatter's, and every other field is a
  frontmatter key of its own;
* any other value (``{"food_preference": "pizza"}``, LangGraph's documented example; a field memdir
  uses itself; a body a file would not keep byte for byte): the whole value is the body, a fenced
  JSON block with ``content_format: value``, read back as the same object.

A memory needs a name, a description and (for ``memdir doctor``) a type, which a value need not
say: memdir fills in the name (the content's first line, cut at a word before 60 characters, since
LangMem's keys are UUIDs and the name is the title of the index line), the description (the
first line, cut at 150 characters: recall matches against it) and the store's default type, and
lists what it filled in (``derived:``) so that a ``get`` gives back only what was put. The first
``put`` stamps the time (``created:``), which a ``get`` reads as ``created_at``.

A ``put`` over a file the store did not write (one Claude Code or a person wrote) keeps what the
value does not say: its name, description, type and other frontmatter keys stay unless the value
names them. A ``put`` over a file the store wrote replaces the value, as every store does.

:func:`matches` is the ``filter`` of a search, with the operators LangGraph's interface names
(``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``) and exact matching of nested values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from memdir.errors import MemoryFormatError
from memdir.integrations.frameworks.item_keys import KEY_FIELD, needs_stored_key
from memdir.model.memory import Memory
from memdir.model.memory_type import METADATA_KEY, MemoryType
from memdir.model.timefields import parse_iso_ms
from memdir.tools.toolbox import parse_type

__all__ = [
    "CONTENT_FORMAT_KEY",
    "CREATED_KEY",
    "created_ms",
    "matches",
    "memory_from_value",
    "value_from_memory",
]

CONTENT_FORMAT_KEY = "content_format"
CREATED_KEY = "created"
DERIVED_KEY = "derived"
_FIELDS = ("name", "description", "type")
# Frontmatter keys the file uses itself: a value with a field of one of these names is kept whole.
_RESERVED = (METADATA_KEY, CONTENT_FORMAT_KEY, CREATED_KEY, DERIVED_KEY, KEY_FIELD, "modified")
_DESCRIPTION_LIMIT = 150
_NAME_LIMIT = 60
_FENCE = "```"


def _first_line(text: str) -> str:
    """The first line that says something: not blank, not a fence, not a rule of dashes."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line and not line.startswith(_FENCE) and line.strip("-=*_~ "):
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
        return json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise MemoryFormatError(
            f"{what} must be JSON data (objects, lists, strings, numbers, true, false, null): {exc}",
            rule="store-value",
        ) from exc


def _one_line(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and "\n" not in value and "\r" not in value


def _kept_as_body(content: str) -> bool:
    """Whether a file keeps ``content`` byte for byte as its body (it drops leading blank space and
    trailing newlines, and writes ``\\n`` line ends)."""
    return Memory(name=None, description=None, type=None, body=content).body == content


def _memory_shaped(value: Mapping[str, Any]) -> bool:
    """Whether ``value`` is a memory value (see the module docstring) that a file keeps as it is."""
    content = value.get("content")
    if "content" not in value or (isinstance(content, str) and not _kept_as_body(content)):
        return False
    if any(field in value and not _one_line(value[field]) for field in _FIELDS):
        return False
    if "type" in value and getattr(_type_or_none(value["type"]), "value", None) != value["type"]:
        return False  # not one of the four as written: kept whole, so it reads back as given
    return not any(field in value for field in _RESERVED) and all(isinstance(field, str) for field in value)


def _type_or_none(value: str) -> MemoryType | None:
    try:
        return parse_type(value)
    except MemoryFormatError:
        return None


def _summary(value: Mapping[str, Any]) -> str:
    """One line that says what a value of any shape holds: its scalar fields, ``field: value``."""
    parts = [f"{field}: {item}" for field, item in value.items() if isinstance(item, str | int | float | bool)]
    return _first_line(" · ".join(" ".join(str(part).split()) for part in parts))


def _derived(memory: Memory) -> set[str]:
    listed = memory.extra.get(DERIVED_KEY)
    return {part.strip() for part in listed.split(",")} if isinstance(listed, str) else set()


def memory_from_value(
    key: str,
    value: Mapping[str, Any],
    existing: Memory | None = None,
    *,
    default_type: MemoryType | None = None,
    now: str | None = None,
) -> Memory:
    """The memory a put of ``value`` under ``key`` writes over ``existing`` (None for a new file):
    see the module docstring. ``now`` is the creation stamp of a new file (an ISO time)."""
    if not isinstance(value, Mapping):
        raise MemoryFormatError(f"a store value must be a JSON object, not {type(value).__name__}", rule="store-value")
    extra: dict[str, object] = {}
    given: dict[str, str] = {}
    if _memory_shaped(value):
        body, title, summary = _content_body(value, extra)
        given = {field: value[field] for field in _FIELDS if field in value}
        for field, item in value.items():
            if field not in _FIELDS and field != "content":
                _json_text(item, f"the field {field!r}")
                extra[field] = item
    else:
        body = f"{_FENCE}json\n{_json_text(dict(value), 'a store value')}\n{_FENCE}"
        extra[CONTENT_FORMAT_KEY] = "value"
        title = summary = _summary(value)
    # A file the store did not write keeps what the value does not say; one it wrote is replaced.
    earlier = existing if existing is not None and CREATED_KEY not in existing.extra else None
    kept_fields: dict[str, object] = {}
    if earlier is not None:
        extra = {**{k: v for k, v in earlier.extra.items() if k not in _RESERVED}, **extra}
        filled = _derived(earlier)
        kept_fields = {
            "name": None if "name" in filled else earlier.name,
            "description": None if "description" in filled else earlier.description,
            "type": None if "type" in filled else earlier.type,
        }
    derived: list[str] = []
    label = _title(" ".join(key.split())) or "item"  # a key with nothing to show: "item"
    made = {"name": _title(title) or label, "description": " ".join((summary or _title(title)).split()) or label}
    chosen: dict[str, str] = {}
    for field in ("name", "description"):
        kept = kept_fields.get(field)
        chosen[field] = given.get(field) or (kept if isinstance(kept, str) else None) or made[field]
        if field not in given and not kept:
            derived.append(field)
    memory_type = parse_type(given["type"]) if "type" in given else kept_fields.get("type")
    odd_type = earlier is not None and earlier.type is None and earlier.raw_type is not None and "type" not in given
    if not isinstance(memory_type, MemoryType) and default_type is not None and not odd_type:
        memory_type = default_type
        derived.append("type")
    if derived:
        extra[DERIVED_KEY] = ", ".join(derived)
    if needs_stored_key(key):
        extra[KEY_FIELD] = key
    if existing is not None and METADATA_KEY in existing.extra:
        extra[METADATA_KEY] = existing.extra[METADATA_KEY]
    if earlier is None:
        stamp = existing.extra.get(CREATED_KEY) if existing is not None else None
        if stamp is not None or now is not None:
            extra[CREATED_KEY] = stamp if stamp is not None else now
    kind = memory_type if isinstance(memory_type, MemoryType) else None
    # A type outside the four that a person wrote stays when the value names none.
    raw_type = earlier.raw_type if earlier is not None and "type" not in given and kind is None else None
    if existing is None:
        return Memory(name=chosen["name"], description=chosen["description"], type=kind, body=body, extra=extra)
    return replace(
        existing,
        name=chosen["name"],
        description=chosen["description"],
        type=kind,
        raw_type=raw_type,
        body=body,
        extra=extra,
    )


def _content_body(value: Mapping[str, Any], extra: dict[str, object]) -> tuple[str, str, str]:
    """(body, title, summary) of a memory value's content: a string as it is, other JSON fenced."""
    content = value["content"]
    if isinstance(content, str):
        summary = _first_line(content)
        return content, summary, summary
    extra[CONTENT_FORMAT_KEY] = "json"
    kind = value.get("kind")
    title = _first_line(kind) if isinstance(kind, str) else ""
    summary = title or _first_line(json.dumps(content, ensure_ascii=False))
    return f"{_FENCE}json\n{_json_text(content, 'content')}\n{_FENCE}", title, summary


def _fenced_json(body: str) -> tuple[bool, object]:
    inner = body.strip()
    if inner.startswith(_FENCE + "json\n") and inner.endswith("\n" + _FENCE):
        try:
            return True, json.loads(inner[len(_FENCE) + 5 : -len(_FENCE) - 1])
        except ValueError:
            pass
    return False, None


def value_from_memory(memory: Memory) -> dict[str, Any]:
    """The value a get or a search returns for a memory file (any file, not only the store's)."""
    form = memory.extra.get(CONTENT_FORMAT_KEY)
    if form in ("json", "value"):
        ok, decoded = _fenced_json(memory.body)
        if ok and form == "value" and isinstance(decoded, dict):
            return decoded
        content: object = decoded if ok and form == "json" else memory.body  # edited by hand: the text is what there is
    else:
        content = memory.body
    value: dict[str, Any] = {"content": content}
    derived = _derived(memory)
    if memory.name and "name" not in derived:
        value["name"] = memory.name
    if memory.description and "description" not in derived:
        value["description"] = memory.description
    if "type" not in derived:
        if memory.type is not None:
            value["type"] = memory.type.value
        elif isinstance(memory.raw_type, str):
            value["type"] = memory.raw_type
    for field, item in memory.extra.items():
        if field not in _RESERVED and field not in value:
            value[field] = item
    return value


def created_ms(memory: Memory) -> float | None:
    """When the store first wrote this memory (``created:``), in milliseconds; None for a file it
    did not write."""
    return parse_iso_ms(memory.extra.get(CREATED_KEY))


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
