"""File names for new memories: readable in every script, safe on every file system, and distinct.

A name keeps the letters and digits of whatever script it is written in (``项目_发布冻结.md``,
``feedback_テストは実DB.md``), so a store written in Chinese is as browsable as one written in
English. Latin letters with accents and compatibility forms (full-width ``Ａ``, ligatures) are
folded to ASCII, which is what names made before kept. Everything else (punctuation, spaces,
symbols, emoji) becomes one ``_``. The slug is cut at a byte budget, not a character count, after
NFC: file systems limit a name to 255 bytes, and a CJK character takes three.

Two different memories whose names slug alike get a short suffix (``_2``, ``_3``…) instead of
a refusal; see :meth:`memdir.store.directory.MemoryDir.save`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from memdir.model.memory_type import MemoryType

__all__ = ["SLUG_MAX_BYTES", "default_filename", "slugify", "unique_filename"]

# A slug's budget in UTF-8 bytes: 16 CJK characters or 64 ASCII ones. With a type prefix, a
# suffix and ".md" a name stays far below the 255-byte limit of ext4, APFS and NTFS.
SLUG_MAX_BYTES = 64
# Device names Windows refuses as a file name whatever the extension.
_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"com{i}" for i in range(1, 10)] + [f"lpt{i}" for i in range(1, 10)]
)


def _fold(char: str) -> str:
    """One character of a slug: ASCII when it folds to ASCII, itself when it is a letter, digit or
    combining mark of another script, else a separator."""
    if char.isascii():
        return char.lower() if char.isalnum() else "_"
    folded = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode("ascii")
    if folded.isalnum():
        return folded.lower()
    if unicodedata.category(char)[0] in "LNM":
        return char.lower()
    return "_"


def _cut(slug: str, max_bytes: int) -> str:
    """The longest prefix within ``max_bytes`` UTF-8 bytes that does not split a character or strand
    a combining mark from its base (a Thai vowel sign, a Devanagari matra)."""
    if len(slug.encode("utf-8")) <= max_bytes:
        return slug
    out = slug.encode("utf-8")[:max_bytes].decode("utf-8", "ignore")
    end = len(out)
    while end < len(slug) and end > 0 and unicodedata.category(slug[end])[0] == "M":
        end -= 1
    return out[:end]


def slugify(text: str, *, max_bytes: int = SLUG_MAX_BYTES) -> str:
    """A file-name-safe slug in the name's own script: lowercase, words joined by ``_``, NFC,
    at most ``max_bytes`` bytes; ``memory`` when nothing of the name is left."""
    folded = "".join(map(_fold, unicodedata.normalize("NFC", text)))
    slug = "_".join(part for part in unicodedata.normalize("NFC", folded).split("_") if part)
    slug = _cut(slug, max_bytes).strip("_")
    if not slug:
        return "memory"
    return f"{slug}_memory" if slug in _RESERVED else slug


def default_filename(memory_type: MemoryType | None, name: str) -> str:
    """``<type>_<slug>.md``, the naming Claude Code suggests (``user_role.md``, ``feedback_testing.md``)."""
    prefix = f"{memory_type.value}_" if memory_type is not None else ""
    return f"{prefix}{slugify(name)}.md"


def unique_filename(file: str, taken: Callable[[str], bool]) -> str:
    """``file``, or the first of ``<stem>_2.md``, ``<stem>_3.md``… that ``taken`` says is free."""
    if not taken(file):
        return file
    stem = file.removesuffix(".md")
    number = 2
    while taken(f"{stem}_{number}.md"):
        number += 1
    return f"{stem}_{number}.md"
