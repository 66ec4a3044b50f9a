"""A memory file: YAML frontmatter (name, description, type) followed by a Markdown body.

Two layouts exist. Claude Code up to 2.1.88 writes ``type:`` at the top level; 2.1.330 nests it
in a ``metadata:`` block beside keys of its own (``node_type``, ``originSessionId``,
``modified``). Both are read; a file is written in the layout its :class:`Memory` carries, and the
entries of a ``metadata:`` block that memdir does not change are written back byte for byte.

Reading follows Claude Code's parser to the letter, its first-``---`` quirk and its
quote-and-retry fallback included, because a file means what Claude Code reads from it. Writing
picks, for every scalar, a spelling that YAML 1.2 parsers read back as the same value and that
never contains ``---``, since the reading regex would stop there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from memdir.model.frontmatter import (
    frontmatter_block,
    js_key,
    load_yaml,
    normalize_newlines,
    parse_frontmatter,
    render_frontmatter,
    render_scalar,
)
from memdir.model.memory_type import (
    MEMORY_TYPES,
    METADATA_KEY,
    NODE_TYPE,
    FrontmatterLayout,
    MemoryType,
    parse_memory_type,
    type_from_frontmatter,
)
from memdir.model.patterns import LazyPattern
from memdir.model.text import utf16_len

__all__ = ["DESCRIPTION_SOFT_LIMIT", "Memory", "long_description_warning"]


DESCRIPTION_SOFT_LIMIT = 200


def long_description_warning(description: str | None) -> str | None:
    """What every write path says when a description is longer than reads well in recall and the
    index, or None.

    The memory is still saved (Claude Code writes such memories too) and ``doctor`` notes it the
    same way, never as a failure; but the index and recall show a description, not a paragraph, so
    each surface says so in the same words, at the same limit.
    """
    size = utf16_len(description or "")
    if size <= DESCRIPTION_SOFT_LIMIT:
        return None
    return (
        f"the description is {size} characters, over the {DESCRIPTION_SOFT_LIMIT} that read well in recall and "
        "the index (long-description, a doctor note): keep it to one specific line and move the detail into the body"
    )


_RESERVED_KEYS = ("name", "description", "type")
_JS_SPACE = (
    "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


_TOP_METADATA_RE = LazyPattern(r"""(["']?)metadata\1[ \t]*:[ \t]*(#.*)?\Z""")
_CHILD_KEY_RE = LazyPattern(r"""([ \t]+)(["']?)([^\s"'#:][^"':]*?)\2[ \t]*:(?:[ \t]|\Z)""")


@dataclass(frozen=True)
class MetadataSource:
    """The ``metadata:`` block as written: its indentation and each entry's lines, by key.

    Kept so that a rewrite copies the entries memdir did not change byte for byte (comments,
    quoting, key order and all), whatever another tool put there.
    """

    indent: str
    entries: Mapping[str, tuple[str, ...]]

    @classmethod
    def read(cls, block: str) -> MetadataSource | None:
        """The source of a block-style ``metadata:`` mapping in frontmatter text, or None."""
        lines = block.split("\n")
        start = next((i for i, line in enumerate(lines) if _TOP_METADATA_RE.match(line)), None)
        if start is None:
            return None
        indent: str | None = None
        entries: dict[str, list[str]] = {}
        current: str | None = None
        pending: list[str] = []
        for line in lines[start + 1 :]:
            stripped = line.strip()
            if line and not line[0].isspace() and not stripped.startswith("#"):
                break  # the next top-level key
            if not stripped or stripped.startswith("#"):
                (entries[current] if current is not None else pending).append(line)
                continue
            lead = line[: len(line) - len(line.lstrip())]
            indent = lead if indent is None else indent
            match = _CHILD_KEY_RE.match(line)
            if lead == indent and match is not None:
                current = match.group(3)
                entries[current] = [*pending, line]
                pending = []
            elif current is not None and lead.startswith(indent) and len(lead) > len(indent):
                entries[current].append(line)
            else:
                return None  # a shape this reader does not follow: nothing is copied verbatim
        if indent is None:
            return None
        kept = {}
        for key, chunk in entries.items():
            while chunk and not chunk[-1].strip():
                chunk.pop()
            kept[key] = tuple(chunk)
        return cls(indent=indent, entries=kept)

    def verbatim(self, key: str, value: object) -> tuple[str, ...] | None:
        """The entry's original lines when they still say ``value``; None when it must be rewritten."""
        chunk = self.entries.get(key)
        if not chunk:
            return None
        try:
            parsed = load_yaml("metadata:\n" + "\n".join(chunk))
        except ValueError:
            return None
        if not isinstance(parsed, dict) or not isinstance(parsed.get("metadata"), dict):
            return None
        section = {js_key(k): v for k, v in parsed["metadata"].items()}
        if key not in section or section[key] != value or type(section[key]) is not type(value):
            return None
        return chunk


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
    taxonomy, so rewriting a file never drops what someone else put there. ``layout`` says where
    the type is written; in the nested layout ``extra["metadata"]`` holds the other keys of the
    ``metadata:`` block (never ``type``), and ``metadata_source`` their original lines.
    """

    name: str | None
    description: str | None
    type: MemoryType | None
    body: str
    extra: Mapping[str, object] = field(default_factory=dict)
    raw_type: object | None = None
    layout: FrontmatterLayout = FrontmatterLayout.FLAT
    metadata_source: MetadataSource | None = field(default=None, compare=False, repr=False)

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
        extra = dict(self.extra)
        metadata = extra.get(METADATA_KEY)
        if self.layout is FrontmatterLayout.NESTED:
            if metadata is not None and not isinstance(metadata, Mapping):
                object.__setattr__(self, "layout", FrontmatterLayout.FLAT)  # no block to nest the type in
            elif isinstance(metadata, Mapping) and "type" in metadata:
                extra[METADATA_KEY] = {k: v for k, v in metadata.items() if k != "type"}
        object.__setattr__(self, "extra", extra)

    @classmethod
    def parse(cls, text: str) -> Memory:
        """Read a memory file's text; malformed frontmatter degrades to "no fields", never raises."""
        normalized = normalize_newlines(text)
        frontmatter, content = parse_frontmatter(normalized)
        raw_type, layout = type_from_frontmatter(frontmatter)
        memory_type = parse_memory_type(raw_type)
        extra = {
            key: value
            for key, value in frontmatter.items()
            if key not in _RESERVED_KEYS or (key != "type" and not isinstance(value, str))
        }
        source = None
        if isinstance(frontmatter.get(METADATA_KEY), Mapping):
            block = frontmatter_block(normalized)
            source = MetadataSource.read(block) if block is not None else None
        return cls(
            name=_js_text(frontmatter.get("name")),
            description=_js_text(frontmatter.get("description")),
            type=memory_type,
            body=content,
            extra=extra,
            raw_type=raw_type if memory_type is None else None,
            layout=layout,
            metadata_source=source,
        )

    def written_for(self, layout: FrontmatterLayout, *, modified: str | None = None) -> Memory:
        """This memory as a Claude Code release writes it: its type in ``layout``, and ``modified``
        (an ISO time) stamped where that layout keeps it, when the release stamps writes."""
        extra = dict(self.extra)
        metadata = extra.get(METADATA_KEY)
        if layout is FrontmatterLayout.NESTED and (metadata is None or isinstance(metadata, Mapping)):
            nested = dict(metadata or {})
            nested.setdefault("node_type", NODE_TYPE)
            if modified is not None:
                nested["modified"] = modified
            extra[METADATA_KEY] = nested
            if modified is not None and "modified" in extra:
                extra["modified"] = modified
            return replace(self, layout=layout, extra=extra)
        if modified is not None:
            extra["modified"] = modified
            if isinstance(metadata, Mapping) and "modified" in metadata:
                extra[METADATA_KEY] = {**metadata, "modified": modified}
        return replace(self, layout=FrontmatterLayout.FLAT, extra=extra)

    @property
    def modified(self) -> str | None:
        """The ``modified:`` time a release recorded (top level or in ``metadata``), if any."""
        metadata = self.extra.get(METADATA_KEY)
        value = metadata.get("modified") if isinstance(metadata, Mapping) else None
        value = self.extra.get("modified", value)
        return value if isinstance(value, str) and value else None

    def _frontmatter_fields(self) -> dict[str, object]:
        fields: dict[str, object] = {}
        for key, value in (("name", self.name), ("description", self.description)):
            if key in self.extra and _js_text(self.extra[key]) == value:
                fields[key] = self.extra[key]
            elif value is not None:
                fields[key] = value
        type_value = self.type.value if self.type is not None else self.raw_type
        nested = self.layout is FrontmatterLayout.NESTED
        if type_value is not None and not nested:
            fields["type"] = type_value
        if nested and (type_value is not None or self.extra.get(METADATA_KEY)) and METADATA_KEY not in self.extra:
            fields[METADATA_KEY] = {}
        for key, extra_value in self.extra.items():
            if key not in _RESERVED_KEYS:
                fields[key] = extra_value
        return fields

    def _metadata_block(self) -> list[str]:
        """The ``metadata:`` block: every entry, copied as written when its value is unchanged, and
        in the nested layout the type: where the file had it, else after ``node_type`` (as Claude
        Code writes it), else first."""
        source = self.metadata_source
        indent = source.indent if source is not None else "  "
        lines = [f"{METADATA_KEY}:"]
        type_value = self.type.value if self.type is not None else self.raw_type
        type_lines: list[str] = []
        if type_value is not None and self.layout is FrontmatterLayout.NESTED:
            kept_type = source.verbatim("type", type_value) if source is not None else None
            type_lines = list(kept_type or [f"{indent}type: {render_scalar(type_value)}"])
        metadata = self.extra.get(METADATA_KEY)
        entries = list(metadata.items()) if isinstance(metadata, Mapping) else []
        position = self._type_position([key for key, _ in entries])
        for index, (key, value) in enumerate(entries):
            if index == position:
                lines.extend(type_lines)
                type_lines = []
            kept = source.verbatim(key, value) if source is not None else None
            if kept is not None:
                lines.extend(kept)
            else:
                lines.append(f"{indent}{render_scalar(key)}: {render_scalar(value)}")
        lines.extend(type_lines)
        return lines if len(lines) > 1 else [f"{METADATA_KEY}: {{}}"]

    def _type_position(self, keys: list[str]) -> int:
        """Index of the metadata entry the ``type`` line goes before (``len(keys)``: at the end)."""
        source = self.metadata_source
        if source is not None and "type" in source.entries:
            written = list(source.entries)
            before = written[: written.index("type")]
            return max((keys.index(key) + 1 for key in before if key in keys), default=0)
        return keys.index("node_type") + 1 if "node_type" in keys else 0

    def render(self) -> str:
        """The file text: fenced frontmatter, a blank line, the body and one final newline."""
        fields = self._frontmatter_fields()
        blocks = None
        block_style = self.layout is FrontmatterLayout.NESTED or self.metadata_source is not None
        if block_style and isinstance(fields.get(METADATA_KEY), Mapping):
            blocks = {METADATA_KEY: self._metadata_block()}
        head = render_frontmatter(fields, blocks)
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
