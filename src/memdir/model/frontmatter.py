"""Reading and writing the YAML frontmatter of a memory file, the way Claude Code reads it.

Reading follows Claude Code's parser to the letter, its first-``---`` quirk and its
quote-and-retry fallback included, because a file means what Claude Code reads from it. Plain
``key: value`` lines are read without PyYAML; anything else goes to the YAML 1.2 reader. Writing
picks, for every scalar, a spelling that YAML 1.2 parsers read back as the same value and that
never contains ``---``, since the reading regex would stop there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from memdir.errors import MemoryFormatError
from memdir.model.core_schema import plain_is_string
from memdir.model.patterns import LazyPattern

__all__ = [
    "decode_memory_bytes",
    "frontmatter_block",
    "js_key",
    "load_yaml",
    "normalize_newlines",
    "parse_frontmatter",
    "render_frontmatter",
    "render_scalar",
]


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


# Compiled on first use (a hook whose headers come from the scan cache parses no frontmatter).
# JS \s: WhiteSpace and LineTerminator code points (Python's \s is a slightly different set).
_WS = "[\\t\\n\\v\\f\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
_FRONTMATTER_RE = LazyPattern(f"---{_WS}*\\n([\\s\\S]*?)---{_WS}*\\n?")
# JS `.` stops at every line terminator, not only at "\n".
_SIMPLE_LINE_RE = LazyPattern(f"([a-zA-Z_-]+):{_WS}+([^\\n\\r\\u2028\\u2029]+)\\Z")
_YAML_SPECIAL_RE = LazyPattern(r"[{}\[\]*&#!|>%@`]|: ")

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


def load_yaml(text: str) -> object:
    """Parse, or raise ``ValueError`` for anything the YAML engine refuses."""
    import yaml  # only for frontmatter the fast reader below does not take

    from memdir.model.yaml12 import load_yaml12

    try:
        return load_yaml12(text)
    except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from exc


def js_key(key: object) -> str:
    """Object keys are strings in JS: ``1: x`` is read as ``{"1": "x"}``."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


# The fast reader's whole language: ``key: value`` lines at the top level, and one level of such
# lines, indented by spaces, under a ``key:`` line (Claude Code's ``metadata:`` block). A value is a
# plain scalar that starts with no YAML indicator and holds no comment, ``: ``, tab, control or
# line-break character (a string, a boolean, null or a decimal integer), or a double-quoted one
# without escapes; anything else is left to the YAML reader.
_SCALAR = (
    "[^-?:,\\[\\]{}#&*!|>'\"%@`\\s\\x00-\\x1f\\x7f-\\x9f\\ud800-\\udfff\\ufeff\\ufffe\\uffff\\u2028\\u2029]"
    "(?:[^#:\\s\\x00-\\x1f\\x7f-\\x9f\\ud800-\\udfff\\ufeff\\ufffe\\uffff\\u2028\\u2029]|:(?=[^\\s])| +(?=[^ ]))*"
)
# A double-quoted scalar without escapes, on one line: its text is what stands between the quotes
# (how memdir writes a time stamp, which would otherwise read as a date in YAML 1.1).
_QUOTED = '"[^"\\\\\\x00-\\x1f\\x7f-\\x9f\\ud800-\\udfff\\ufeff\\ufffe\\uffff\\u2028\\u2029]*"'
_PLAIN_LINE_RE = LazyPattern(f"( *)([A-Za-z_][A-Za-z0-9_-]{{0,99}}):(?: +({_SCALAR}|{_QUOTED}))?")
_DECIMAL = LazyPattern(r"[-+]?[0-9]+")
_NOT_READ = object()


def _scalar(text: str) -> object:
    """A value of the fast reader's language as the YAML 1.2 core schema reads it: the text between
    double quotes, or a plain scalar's string, boolean, null or decimal integer; anything else
    (floats, octal and hex) is ``_NOT_READ``, left to the YAML reader."""
    from memdir.model.core_schema import BOOL_RE, NULL_RE

    if text.startswith('"'):
        return text[1:-1]
    if plain_is_string(text):
        return text
    if BOOL_RE.match(text):
        return text[0] in "tT"
    if NULL_RE.match(text):
        return None
    if _DECIMAL.fullmatch(text):
        return int(text)
    return _NOT_READ


def _plain_mapping(block: str) -> dict[str, object] | None:
    """``block`` read without PyYAML when it is only plain ``key: value`` lines, else None.

    A hook process reads hundreds of headers, and importing PyYAML alone cost several bare
    interpreter starts; on everything it accepts this gives exactly what the YAML reader gives.
    """
    data: dict[str, object] = {}
    section: dict[str, object] | None = None
    indent = ""
    for line in block.split("\n"):
        if not line:
            continue
        match = _PLAIN_LINE_RE.fullmatch(line)
        if match is None:
            return None
        lead, key, text = match.groups()
        if not plain_is_string(key):
            return None
        value = _NOT_READ if text is None else _scalar(text)
        if text is not None and value is _NOT_READ:
            return None
        if not lead:
            if section is not None and not section:
                return None  # ``key:`` with nothing under it
            if key in data:
                return None
            if text is None:
                section, indent = {}, ""
                data[key] = section
            else:
                section = None
                data[key] = value
            continue
        if section is None or text is None or (indent and lead != indent) or key in section:
            return None
        indent = lead
        section[key] = value
    if not data or (section is not None and not section):
        return None
    return data


def parse_frontmatter(text: str) -> tuple[dict[str, object], str]:
    """Split ``text`` into its frontmatter mapping and the content after it.

    Never raises: YAML that stays malformed after the quote-and-retry pass, or a document that
    is not a mapping, gives ``{}``. Text is taken as is; callers normalise newlines first.
    Scanned headers are stored from its result (``store.scan.HEADER_FORMAT``, the derived
    index's ``SCHEMA_VERSION``): a change to it bumps both.
    """
    match = _FRONTMATTER_RE.match(text)
    if match is None:
        return {}, text
    block = match.group(1)
    content = text[match.end() :]
    plain = _plain_mapping(block)
    if plain is not None:
        return plain, content
    try:
        data = load_yaml(block)
    except ValueError:
        try:
            data = load_yaml(_quote_problematic_values(block))
        except ValueError:
            return {}, content
    if not isinstance(data, dict):
        return {}, content
    return {js_key(key): value for key, value in data.items()}, content


def _plain_ok(text: str, *, flow: bool) -> bool:
    if not text or not text.isprintable() or text[0] == " " or text[-1] == " ":
        return False
    if text[0] in _PLAIN_FIRST_FORBIDDEN or text.startswith("..."):
        return False
    if any(ch in _PLAIN_FORBIDDEN for ch in text) or (flow and any(ch in _FLOW_FORBIDDEN for ch in text)):
        return False
    if ": " in text or text.endswith(":") or "---" in text:
        return False
    from memdir.model.yaml12 import resolves_to_string

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


def render_frontmatter(fields: Mapping[str, object], blocks: Mapping[str, Sequence[str]] | None = None) -> str:
    """The fenced block, ``---`` lines included; keys keep their order.

    A key in ``blocks`` is written as the given lines (a block mapping) instead of ``key: value``.
    """
    lines = ["---"]
    for key, value in fields.items():
        if blocks is not None and key in blocks:
            lines.extend(blocks[key])
            continue
        rendered_key = render_scalar(key)
        rendered_value = render_scalar(value)
        if len(rendered_key) > _MAX_IMPLICIT_KEY:
            lines.append(f"? {rendered_key}")
            lines.append(f": {rendered_value}")
        else:
            lines.append(f"{rendered_key}: {rendered_value}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def frontmatter_block(text: str) -> str | None:
    """The raw text between the opening and closing ``---``, or None when there is none."""
    match = _FRONTMATTER_RE.match(text)
    return match.group(1) if match else None
