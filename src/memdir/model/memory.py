"""A memory file: YAML frontmatter (name, description, type) followed by a Markdown body.

Reading follows Claude Code's parser to the letter, its first-``---`` quirk and its
quote-and-retry fallback included, because a file means what Claude Code reads from it. Writing
picks, for every scalar, a spelling that YAML 1.2 parsers read back as the same value and that
never contains ``---``, since the reading regex would stop there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import yaml

from memdir.errors import MemoryFormatError
from memdir.model.text import utf16_len
from memdir.model.yaml12 import load_yaml12, resolves_to_string

__all__ = [
    "DESCRIPTION_SOFT_LIMIT",
    "MEMORY_TYPES",
    "Memory",
    "MemoryType",
    "decode_memory_bytes",
    "normalize_newlines",
    "parse_frontmatter",
    "parse_memory_type",
    "render_frontmatter",
]


class MemoryType(StrEnum):
    """The closed taxonomy of Claude Code's auto memory."""

    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"


MEMORY_TYPES: tuple[MemoryType, ...] = tuple(MemoryType)
DESCRIPTION_SOFT_LIMIT = 200
_RESERVED_KEYS = ("name", "description", "type")
_JS_SPACE = (
    "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def parse_memory_type(raw: object) -> MemoryType | None:
    """The type only when ``raw`` is exactly one of the four names: ``"Feedback"`` is no type."""
    if isinstance(raw, str) and raw in MemoryType._value2member_map_:
        return MemoryType(raw)
    return None


def normalize_newlines(text: str) -> str:
    """Drop a leading BOM and turn CRLF/CR into LF, so Windows-edited files parse the same."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode_memory_bytes(data: bytes, *, path: str) -> str:
    """UTF-8 text of a memory file, refusing binaries and other encodings at the boundary."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise MemoryFormatError(
            f"{path}: holds a NUL byte at offset {nul}, so it is binary, not a memory; "
            "rule binary; memory files must be UTF-8 Markdown text",
            rule="binary",
            path=path,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemoryFormatError(
            f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "rule encoding; re-save the file as UTF-8",
            rule="encoding",
            path=path,
        ) from exc


# JS \s: WhiteSpace and LineTerminator code points (Python's \s is a slightly different set).
_WS = "[\\t\\n\\v\\f\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
_FRONTMATTER_RE = re.compile(f"---{_WS}*\\n([\\s\\S]*?)---{_WS}*\\n?")
# JS `.` stops at every line terminator, not only at "\n".
_SIMPLE_LINE_RE = re.compile(f"([a-zA-Z_-]+):{_WS}+([^\\n\\r\\u2028\\u2029]+)\\Z")
_YAML_SPECIAL_RE = re.compile(r"[{}\[\]*&#!|>%@`]|: ")

_PLAIN_FIRST_FORBIDDEN = frozenset("-?:,[]{}#&*!|>'\"%@`")
_PLAIN_FORBIDDEN = frozenset('{}[]*&#!|>%@`"')
_FLOW_FORBIDDEN = frozenset(",:?")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
_MAX_IMPLICIT_KEY = 1000


def _quote_problematic_values(frontmatter: str) -> str:
    lines = []
    for line in frontmatter.split("\n"):
        match = _SIMPLE_LINE_RE.match(line)
        if match:
            key, value = match.group(1), match.group(2)
            quoted = (value.startswith('"') and value.endswith('"')) or (value.startswith("'") and value.endswith("'"))
            if not quoted and _YAML_SPECIAL_RE.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                lines.append(f'{key}: "{escaped}"')
                continue
        lines.append(line)
    return "\n".join(lines)


def _load(text: str) -> object:
    """Parse, or raise ``ValueError`` for anything the YAML engine refuses."""
    try:
        return load_yaml12(text)
    except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from exc


def _js_key(key: object) -> str:
    """Object keys are strings in JS: ``1: x`` is read as ``{"1": "x"}``."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def parse_frontmatter(text: str) -> tuple[dict[str, object], str]:
    """Split ``text`` into its frontmatter mapping and the content after it.

    Never raises: YAML that stays malformed after the quote-and-retry pass, or a document that
    is not a mapping, gives ``{}``. Text is taken as is; callers normalise newlines first.
    """
    match = _FRONTMATTER_RE.match(text)
    if match is None:
        return {}, text
    block = match.group(1)
    content = text[match.end() :]
    try:
        data = _load(block)
    except ValueError:
        try:
            data = _load(_quote_problematic_values(block))
        except ValueError:
            return {}, content
    if not isinstance(data, dict):
        return {}, content
    return {_js_key(key): value for key, value in data.items()}, content


def _plain_ok(text: str, *, flow: bool) -> bool:
    if not text or not text.isprintable() or text[0] == " " or text[-1] == " ":
        return False
    if text[0] in _PLAIN_FIRST_FORBIDDEN or text.startswith("..."):
        return False
    if any(ch in _PLAIN_FORBIDDEN for ch in text) or (flow and any(ch in _FLOW_FORBIDDEN for ch in text)):
        return False
    if ": " in text or text.endswith(":") or "---" in text:
        return False
    return resolves_to_string(text)


def _double_quoted(text: str) -> str:
    out = ['"']
    dashes = 0
    for ch in text:
        if ch == "-":
            dashes += 1
            out.append("\\x2D" if dashes >= 3 else "-")
            if dashes >= 3:
                dashes = 0
            continue
        dashes = 0
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            if code <= 0xFF:
                out.append(f"\\x{code:02X}")
            elif code <= 0xFFFF:
                out.append(f"\\u{code:04X}")
            else:
                out.append(f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


def _float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return repr(value)


def render_scalar(value: object, *, flow: bool = False, _seen: frozenset[int] = frozenset()) -> str:
    """One YAML value on one line; lists and mappings are written in flow style."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, str):
        return value if _plain_ok(value, flow=flow) else _double_quoted(value)
    if isinstance(value, list | tuple | Mapping):
        if id(value) in _seen:
            raise MemoryFormatError(
                "frontmatter holds a value that contains itself (a recursive YAML alias); "
                "rule frontmatter-cycle; rewrite that key without aliases",
                rule="frontmatter-cycle",
            )
        seen = _seen | {id(value)}
        if isinstance(value, Mapping):
            items = (
                f"{render_scalar(k, flow=True, _seen=seen)}: {render_scalar(v, flow=True, _seen=seen)}"
                for k, v in value.items()
            )
            return "{" + ", ".join(items) + "}"
        return "[" + ", ".join(render_scalar(v, flow=True, _seen=seen) for v in value) + "]"
    return _double_quoted(str(value))


def render_frontmatter(fields: Mapping[str, object]) -> str:
    """The fenced block, ``---`` lines included; keys keep their order."""
    lines = ["---"]
    for key, value in fields.items():
        rendered_key = render_scalar(key)
        rendered_value = render_scalar(value)
        if len(rendered_key) > _MAX_IMPLICIT_KEY:
            lines.append(f"? {rendered_key}")
            lines.append(f": {rendered_value}")
        else:
            lines.append(f"{rendered_key}: {rendered_value}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _js_text(value: object) -> str | None:
    """A frontmatter value as Claude Code uses it: ``value || null``, then string interpolation."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, bool):
        return "true" if value else None
    if isinstance(value, int):
        return str(value) if value else None
    if isinstance(value, float):
        if math.isnan(value) or value == 0:
            return None
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    return None


@dataclass(frozen=True)
class Memory:
    """One memory file, as Claude Code reads it.

    Values are normalised on construction to what a written file reads back as: an empty name
    or description is absent, and the body loses the leading whitespace that the closing fence
    swallows and its trailing newlines. So ``Memory.parse(m.render()) == m`` always holds.
    ``extra`` keeps every other frontmatter key; ``raw_type`` keeps a ``type`` value outside the
    taxonomy, so rewriting a file never drops what someone else put there.
    """

    name: str | None
    description: str | None
    type: MemoryType | None
    body: str
    extra: Mapping[str, object] = field(default_factory=dict)
    raw_type: object | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name or None)
        object.__setattr__(self, "description", self.description or None)
        if self.type is not None and not isinstance(self.type, MemoryType):
            parsed = parse_memory_type(self.type)
            if parsed is None:
                object.__setattr__(self, "raw_type", self.type)
            object.__setattr__(self, "type", parsed)
        if self.type is not None:
            object.__setattr__(self, "raw_type", None)
        body = normalize_newlines(self.body).lstrip(_JS_SPACE).rstrip("\n")
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "extra", dict(self.extra))

    @classmethod
    def parse(cls, text: str) -> Memory:
        """Read a memory file's text; malformed frontmatter degrades to "no fields", never raises."""
        frontmatter, content = parse_frontmatter(normalize_newlines(text))
        raw_type = frontmatter.get("type")
        memory_type = parse_memory_type(raw_type)
        extra = {
            key: value
            for key, value in frontmatter.items()
            if key not in _RESERVED_KEYS or (key != "type" and not isinstance(value, str))
        }
        return cls(
            name=_js_text(frontmatter.get("name")),
            description=_js_text(frontmatter.get("description")),
            type=memory_type,
            body=content,
            extra=extra,
            raw_type=raw_type if memory_type is None else None,
        )

    def _frontmatter_fields(self) -> dict[str, object]:
        fields: dict[str, object] = {}
        for key, value in (("name", self.name), ("description", self.description)):
            if key in self.extra and _js_text(self.extra[key]) == value:
                fields[key] = self.extra[key]
            elif value is not None:
                fields[key] = value
        if self.type is not None:
            fields["type"] = self.type.value
        elif self.raw_type is not None:
            fields["type"] = self.raw_type
        for key, extra_value in self.extra.items():
            if key not in _RESERVED_KEYS:
                fields[key] = extra_value
        return fields

    def render(self) -> str:
        """The file text: fenced frontmatter, a blank line, the body and one final newline."""
        head = render_frontmatter(self._frontmatter_fields())
        return f"{head}\n{self.body}\n" if self.body else head

    def problems(self) -> list[tuple[str, str]]:
        """``(rule, message)`` pairs for everything that makes this memory less useful to recall."""
        found: list[tuple[str, str]] = []
        if self.name is None:
            found.append(("missing-name", "frontmatter has no name; add `name: <short title>`"))
        if self.description is None:
            found.append(
                (
                    "missing-description",
                    "frontmatter has no description, so recall cannot judge relevance; "
                    "add a specific one-line `description:`",
                )
            )
        else:
            if "\n" in self.description or "\r" in self.description:
                found.append(("multiline-description", "description spans several lines; keep it to one line"))
            if utf16_len(self.description) > DESCRIPTION_SOFT_LIMIT:
                found.append(
                    (
                        "long-description",
                        f"description is {utf16_len(self.description)} characters; "
                        f"keep it under ~{DESCRIPTION_SOFT_LIMIT} and move detail into the body",
                    )
                )
        if self.type is None and self.raw_type is None:
            found.append(("missing-type", f"frontmatter has no type; use one of {_TYPE_LIST}"))
        elif self.type is None:
            found.append(("unknown-type", f"type {self.raw_type!r} is not one of {_TYPE_LIST} (case-sensitive)"))
        return found


_TYPE_LIST = ", ".join(t.value for t in MEMORY_TYPES)
