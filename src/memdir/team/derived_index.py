"""``team/MEMORY.md`` in team sync: derived from the memories present, never a conflict copy.

Every clone appends one line to the shared index for each memory it adds, so two teammates adding
a memory each both edit its last lines: a line merge refuses (the edits are adjacent), and a
conflict copy of the index helps nobody. The index is therefore treated as what it is, a list of
the memories present plus whatever prose a person wrote around it:

- :func:`merge_index` merges two versions over their base as a *set* of entry lines (an entry
  present on either side stays, an entry one side removed goes) and keeps the prose of both;
- :func:`derive_index` then makes the entries match the files actually in ``team/``: a line for
  every memory present (from its frontmatter when it had none), none for a file that is gone, and
  the conflict copies listed under one "Conflicts" note that says how to resolve them.

Pull, restore and resolve call :func:`settle_index` after they change ``team/``, so whatever
happened to the files, the index every agent loads lists exactly the team's memories.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection

from memdir.model.conflicts import is_conflict_copy
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.index import IndexEntry, neutralise_index, parse_entries, remove_entries, upsert_entries
from memdir.store.files import atomic_write, lock_directory, read_bytes_limited
from memdir.team.merge import merge_lines

__all__ = [
    "CONFLICTS_HEADING",
    "derive_index",
    "index_entry_for",
    "is_index_key",
    "merge_index",
    "settle_index",
    "team_memory_keys",
]

CONFLICTS_HEADING = "## Conflicts to resolve"
_CONFLICTS_NOTE = (
    "These are conflicting copies kept by team sync. Resolve each with "
    "`memdir team resolve FILE --keep mine|theirs|both`."
)


def is_index_key(key: str) -> bool:
    """Whether a team key is an index (``MEMORY.md``, at the top or in a folder)."""
    return key.rpartition("/")[2] == ENTRYPOINT_NAME


def _is_local_target(file: str) -> bool:
    """An entry that links to a memory file in ``team/`` (not a URL, an anchor or an absolute path)."""
    return file.endswith(".md") and "://" not in file and not file.startswith(("/", "#"))


def _without_conflicts_section(text: str) -> str:
    """``text`` minus the conflicts note this module writes (from its heading to the next heading)."""
    lines = text.split("\n")
    out: list[str] = []
    inside = False
    for line in lines:
        if line.rstrip("\r") == CONFLICTS_HEADING:
            inside = True
            continue
        if inside and line.startswith("#"):
            inside = False
        if not inside:
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n" if any(line.strip() for line in out) else ""


def _prose(text: str) -> list[str]:
    """The lines of an index that are not entry lines (headings, notes, blank lines)."""
    lines = _without_conflicts_section(text).split("\n")
    entry_lines = {number - 1 for number, _ in parse_entries("\n".join(lines))}
    return [line for number, line in enumerate(lines) if number not in entry_lines]


def _entries(text: str) -> dict[str, IndexEntry]:
    return {entry.file.removeprefix("./"): entry for _, entry in parse_entries(_without_conflicts_section(text))}


def merge_index(base: str | None, mine: str, theirs: str) -> str:
    """Both versions of an index in one: entry lines as a set over ``base`` (present on either side
    stays, removed by either side goes), prose from both (a line merge when the edits do not touch,
    else the server's prose followed by the lines only this side has). Never fails."""
    mine, theirs = _without_conflicts_section(mine), _without_conflicts_section(theirs)
    agreed = _without_conflicts_section(base) if base is not None else ""
    if base is not None and (merged := merge_lines(agreed, mine, theirs)) is not None:
        combined = merged
    elif base is not None and _prose(mine) == _prose(agreed):
        combined = theirs
    elif base is not None and _prose(theirs) == _prose(agreed):
        combined = mine
    else:
        combined = theirs
        have = set(_prose(theirs))
        extra = [line for line in _prose(mine) if line.strip() and line not in have]
        if extra:
            combined = combined.rstrip("\n") + "\n\n" + "\n".join(extra) + "\n"
    base_entries = _entries(agreed)
    mine_entries, theirs_entries = _entries(mine), _entries(theirs)
    removed = {file for file in base_entries if (file not in mine_entries) or (file not in theirs_entries)} - {
        file for file in mine_entries.keys() & theirs_entries.keys()
    }
    present = {**mine_entries, **theirs_entries}
    missing = [entry for file, entry in sorted(present.items()) if file not in removed]
    combined = upsert_entries(combined, [e for e in missing if e.file.removeprefix("./") not in _entries(combined)])
    return remove_entries(combined, removed)


def index_entry_for(file: str, text: str) -> IndexEntry:
    """The index line a memory gets when it has none: its name and description, else its file name."""
    from memdir.model.memory import Memory

    memory = Memory.parse(text)
    title = memory.name or file.rpartition("/")[2].removesuffix(".md")
    hook = (memory.description or "").replace("\r", " ").replace("\n", " ")
    return IndexEntry(title=title, file=file, hook=hook)


def team_memory_keys(team_dir: str) -> list[str]:
    """Every memory file of ``team/`` (``*.md`` but the indexes), as keys with ``/``, sorted."""
    found: list[str] = []
    for directory, _dirs, files in os.walk(team_dir, followlinks=False):
        for name in files:
            if not name.endswith(".md") or name == ENTRYPOINT_NAME or ".tmp." in name:
                continue
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                found.append(os.path.relpath(path, team_dir).replace(os.sep, "/"))
    return sorted(found)


def derive_index(text: str, memories: Collection[str], read: Callable[[str], str]) -> str:
    """``text`` with its entries made to match ``memories`` (their keys; ``read(key)`` gives a
    file's text, read only for the memories that need a new line): a line for each
    memory that has none, no line for a file that is gone, and the conflict copies listed under
    the conflicts note at the end. Prose, headings and the lines of memories present are kept as
    written, neutralised (:func:`neutralise_index`): every word of it came from a teammate, and
    Claude Code loads the file into the prompt as it is."""
    body = _without_conflicts_section(text)
    listed = _entries(body)
    gone = [file for file in listed if _is_local_target(file) and file not in memories]
    copies = [file for file in listed if is_conflict_copy(file)]
    body = remove_entries(body, [*gone, *copies])
    listed = _entries(body)
    missing = [
        index_entry_for(key, read(key)) for key in sorted(memories) if key not in listed and not is_conflict_copy(key)
    ]
    if missing:
        body = upsert_entries(body, missing)
    conflict_lines = [index_entry_for(key, read(key)).render() for key in sorted(memories) if is_conflict_copy(key)]
    if conflict_lines:
        body = (
            (body.rstrip("\n") + "\n\n" if body.strip() else "")
            + "\n".join([CONFLICTS_HEADING, "", _CONFLICTS_NOTE, "", *conflict_lines])
            + "\n"
        )
    return neutralise_index(body)


def _read(path: str) -> str | None:
    try:
        return read_bytes_limited(path).decode("utf-8", "replace")
    except FileNotFoundError:
        return None
    except OSError:
        return None


def settle_index(team_dir: str, start: str | None = None, *, expected: str | None = None) -> tuple[str | None, bool]:
    """Rewrite ``team/MEMORY.md`` so it lists exactly the memories present, under the memory
    directory's lock; returns the index text now on disk (None when there is none) and whether it
    was derived from ``start``. A team folder without an index (and no ``start``) is not given one.

    ``start`` is the text to derive from (a pulled or merged index), used only while the file on
    disk still has the hash ``expected`` (what the sync classified): an edit saved meanwhile is
    derived from instead, never overwritten.
    """
    from memdir.team.protocol import hash_content

    index_path = os.path.join(team_dir, ENTRYPOINT_NAME)
    with lock_directory(os.path.dirname(team_dir.rstrip(os.sep))):
        current = _read(index_path)
        text = current or ""
        used = start is not None and (None if current is None else hash_content(current)) == expected
        if used:
            text = start or ""
        derived = derive_index(text, team_memory_keys(team_dir), lambda key: _read(os.path.join(team_dir, key)) or "")
        if current is None and (start is None or not derived.strip()):
            return None, used
        if used and not start and not derived.strip():  # deleted there, and no memory left to list
            os.unlink(index_path)
            return None, used
        if derived != current:
            atomic_write(index_path, derived)
        return derived, used
