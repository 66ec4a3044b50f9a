"""The Anthropic memory tool's commands, carried out on a memdir directory.

``/memories`` is the memory directory. Paths go through memdir's one containment check, writes
are atomic and locked and pass the directory's write guards, and ``MEMORY.md`` is kept in step:
after ``create``, ``str_replace`` or ``insert`` of a topic file (a ``.md`` file other than an
index) whose frontmatter has a name and a description, its index line is added or replaced;
``delete`` removes the lines of what it deletes; ``rename`` repoints them. The model may still
edit ``MEMORY.md`` itself. Result and error texts follow the SDK's reference implementation
(``BetaLocalFilesystemMemoryTool``) so a model sees the same strings; when the index changed, a
second line says so.

This module needs no SDK: :mod:`memdir.integrations.memory_tool.backend` wraps it in the SDK's classes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memdir.errors import MemdirError, UnsafePathError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.index import IndexEntry, remove_entry, rename_entry, upsert_entry
from memdir.model.markup import neutralise
from memdir.model.memory import Memory
from memdir.recall.selector_protocol import Selector
from memdir.store.directory import MemoryDir
from memdir.store.files import LOCK_NAME, ensure_dir, lock_directory, move_path, remove_file, remove_tree
from memdir.templates import render_template
from memdir.writes.near import identical_refusal, near_lines, near_memories

if TYPE_CHECKING:
    from memdir.memory_session import MemorySession

__all__ = ["MEMORIES_ROOT", "CommandError", "MemoryCommands", "session_commands"]

MEMORIES_ROOT = "/memories"
MAX_LINES = 999_999
_WIDTH = len(str(MAX_LINES))
_SYMLINK_RULES = frozenset({"symlink-escape", "dangling-symlink", "symlink-loop"})


class CommandError(MemdirError):
    """A command the tool refuses; the message goes back to the model as the tool error."""

    rule = "memory-tool"


def _size(n: int) -> str:
    if n == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    i = min((n.bit_length() - 1) // 10, len(units) - 1)
    value = n / (1024**i)
    return f"{int(value)}{units[i]}" if value == int(value) else f"{value:.1f}{units[i]}"


def _numbered(lines: Sequence[str], start: int) -> str:
    return "\n".join(f"{str(n + start).rjust(_WIDTH)}\t{line}" for n, line in enumerate(lines))


@dataclass(frozen=True)
class _Target:
    shown: str  # the path as the model wrote it
    path: str  # absolute
    rel: str  # relative to the memory directory, "" for the root


class MemoryCommands:
    """view / create / str_replace / insert / delete / rename under ``/memories``."""

    def __init__(self, memory_dir: MemoryDir, *, writer_ranker: Callable[[], Selector] | None = None) -> None:
        """``writer_ranker`` builds the offline ranking a new file is checked with (the memories that
        may already say it, :mod:`memdir.writes.near`; default: BM25)."""
        self.memory_dir = memory_dir
        self.writer_ranker = writer_ranker

    # -- paths ---------------------------------------------------------------------------
    def _target(self, shown: str) -> _Target:
        if shown != MEMORIES_ROOT and not shown.startswith(MEMORIES_ROOT + "/"):
            raise CommandError(f"Path must start with /memories, got: {shown}")
        rel = shown[len(MEMORIES_ROOT) :].strip("/")
        if not rel:
            return _Target(shown, self.memory_dir.root, "")
        try:
            path = self.memory_dir.resolve(rel)
        except UnsafePathError as exc:
            if exc.rule in _SYMLINK_RULES:
                raise CommandError("Path would escape /memories directory via symlink", rule=exc.rule) from exc
            if exc.rule in ("name-too-long", "path-too-long"):
                raise CommandError(exc.message, rule=exc.rule) from exc
            raise CommandError(f"Path {shown} would escape /memories directory", rule=exc.rule) from exc
        rel = self.memory_dir.relative(path)
        if rel == ".":
            return _Target(shown, self.memory_dir.root, "")
        return _Target(shown, path, rel)

    def _writable(self, shown: str) -> _Target:
        target = self._target(shown)
        if any(part.startswith(".") for part in target.rel.split("/")) or target.rel.endswith(LOCK_NAME):
            raise CommandError(
                f"The path {shown} is hidden; memdir keeps its lock and temporary files there. Use a name "
                "that does not start with '.'",
                rule="hidden-path",
            )
        return target

    @staticmethod
    def _is_topic(rel: str) -> bool:
        return rel.endswith(".md") and os.path.basename(rel) != ENTRYPOINT_NAME

    # -- index upkeep --------------------------------------------------------------------
    def _edit_index(self, rel: str, change: Callable[[str, str], str]) -> bool:
        index_path, target = self.memory_dir.index_for(rel)
        return self.memory_dir.rewrite_index(lambda text: change(text, target), index_path=index_path)

    def _upsert(self, rel: str) -> bool:
        if not self._is_topic(rel):
            return False
        memory = Memory.parse(self.memory_dir.read_text(rel))
        if not (memory.name and memory.description) or "\n" in memory.description:
            return False
        return self._edit_index(
            rel,
            lambda text, target: upsert_entry(
                text, IndexEntry(title=memory.name or target, file=target, hook=memory.description or "")
            ),
        )

    def _topics_under(self, rel: str) -> list[str]:
        if not rel:
            return []
        if os.path.isdir(os.path.join(self.memory_dir.root, rel)):
            prefix = rel.rstrip("/") + "/"
            return [h.filename for h in self.memory_dir.headers() if h.filename.startswith(prefix)]
        return [rel] if self._is_topic(rel) else []

    @staticmethod
    def _not_the_index(target: _Target) -> None:
        """Refuse to delete or move an index, or to move a file onto one: memdir keeps each
        ``MEMORY.md`` in step with the memories it lists, and a model that removed it would take
        every line away from Claude Code at once."""
        if os.path.basename(target.rel) == ENTRYPOINT_NAME:
            raise CommandError(
                f"{target.shown} is the index memdir keeps in step with the memories; delete or rename the memories "
                "it lists instead (each one's line follows it)",
                rule="index-not-memory",
            )

    def _index_note(self, changed: bool) -> str:
        note = f"\n{MEMORIES_ROOT}/{ENTRYPOINT_NAME} was updated to match." if changed else ""
        if self.memory_dir.proposes:  # memdir.agentWrites is review
            from memdir.store.review import PROPOSED

            note += f"\n{PROPOSED}."
        return note

    # -- commands ------------------------------------------------------------------------
    def view(self, path: str, view_range: Sequence[int] | None = None) -> str:
        target = self._target(path)
        if os.path.isdir(target.path):
            return self._view_dir(target)
        if not os.path.isfile(target.path):
            raise CommandError(f"The path {path} does not exist. Please provide a valid path.")
        lines = self.memory_dir.read_text(target.rel).split("\n")
        if len(lines) > MAX_LINES:
            raise CommandError(f"File {path} exceeds maximum line limit of 999,999 lines.")
        start = 1
        if view_range is not None and len(view_range) == 2:
            first = max(1, view_range[0]) - 1
            last = len(lines) if view_range[1] == -1 else view_range[1]
            lines, start = lines[first:last], first + 1
        return f"Here's the content of {path} with line numbers:\n" + neutralise(_numbered(lines, start))

    def _view_dir(self, target: _Target) -> str:
        rows = [f"{_size(os.stat(target.path).st_size)}\t{target.shown}"]

        def walk(directory: str, prefix: str, depth: int) -> None:
            try:
                names = sorted(os.listdir(directory))
            except OSError:
                return
            for name in names:
                if name.startswith("."):
                    continue
                full = os.path.join(directory, name)
                rel = f"{prefix}/{name}" if prefix else name
                try:
                    self.memory_dir.resolve(self.memory_dir.relative(full))
                    size = os.stat(full).st_size
                except (MemdirError, OSError):
                    continue
                if os.path.isdir(full):
                    rows.append(f"{_size(size)}\t{target.shown}/{rel}/")
                    if depth < 2:
                        walk(full, rel, depth + 1)
                elif os.path.isfile(full):
                    rows.append(f"{_size(size)}\t{target.shown}/{rel}")

        walk(target.path, "", 1)
        # The reference memory tool's wording, kept as data: clients and models expect these replies.
        header = f"Here're the files and directories up to 2 levels deep in {target.shown}, excluding hidden items:"
        return header + "\n" + neutralise("\n".join(rows))  # a file name is data too

    def create(self, path: str, file_text: str) -> str:
        target = self._writable(path)
        if not target.rel:
            raise CommandError(f"File {path} already exists")
        with lock_directory(self.memory_dir.root, timeout=self.memory_dir.lock_timeout):
            if os.path.lexists(target.path):
                raise CommandError(f"File {path} already exists")
            self.memory_dir.check_write(target.rel)  # a refused write says so before anything else
            near = self._near(target.rel, file_text)
            self.memory_dir.write_text(target.rel, file_text)
            changed = self._upsert(target.rel)
        return f"File created successfully at: {path}" + self._index_note(changed) + near

    def _near(self, rel: str, text: str) -> str:
        """A note naming the memories that may already say what a new topic file says, with their
        dates, so the model keeps one memory per fact (the tool cannot ask, so the file is saved);
        a file nearly identical to an existing memory is refused."""
        if not self._is_topic(rel):
            return ""
        try:
            memory = Memory.parse(text)
        except MemdirError:
            return ""
        ranker = self.writer_ranker() if self.writer_ranker is not None else None
        near = near_memories(self.memory_dir, memory, ranker=ranker, exclude=self.memory_dir.resolve(rel))
        refusal = identical_refusal(near, lambda header: f"{MEMORIES_ROOT}/{header.filename}")
        if refusal is not None:
            raise CommandError(refusal)
        if not near:
            return ""
        lines = near_lines(near, lambda header: f"{MEMORIES_ROOT}/{header.filename}", time.time() * 1000)
        return "\n" + render_template("near_duplicate_note", near=lines, path=f"{MEMORIES_ROOT}/{rel}")

    def _existing_file(self, path: str) -> _Target:
        target = self._writable(path)
        if not os.path.exists(target.path):
            raise CommandError(f"The path {path} does not exist. Please provide a valid path.")
        if not os.path.isfile(target.path):
            raise CommandError(f"The path {path} is not a file.")
        return target

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        target = self._existing_file(path)
        changed_line = 0

        def change(content: str) -> str:
            nonlocal changed_line
            count = content.count(old_str)
            if count == 0:
                raise CommandError(
                    f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."
                )
            if count > 1:
                lines, start = [], 0
                while (pos := content.find(old_str, start)) != -1:
                    lines.append(content[:pos].count("\n") + 1)
                    start = pos + 1
                raise CommandError(
                    f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
                    f"{', '.join(map(str, lines))}. Please ensure it is unique"
                )
            changed_line = content[: content.find(old_str)].count("\n")
            return content.replace(old_str, new_str)

        with lock_directory(self.memory_dir.root, timeout=self.memory_dir.lock_timeout):
            self.memory_dir.update_text(target.rel, change)
            new_lines = self.memory_dir.read_text(target.rel).split("\n")
            index_changed = self._upsert(target.rel)
        first = max(0, changed_line - 2)
        last = min(len(new_lines), changed_line + 3)
        snippet = neutralise(_numbered(new_lines[first:last], first + 1))
        return (
            "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
            + snippet
            + self._index_note(index_changed)
        )

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        target = self._existing_file(path)

        def change(content: str) -> str:
            lines = content.split("\n")
            if lines[-1] == "":
                lines.pop()
            if insert_line < 0 or insert_line > len(lines):
                raise CommandError(
                    f"Invalid `insert_line` parameter: {insert_line}. It should be within the range [0, {len(lines)}]."
                )
            lines.insert(insert_line, insert_text.rstrip("\n"))
            text = "\n".join(lines)
            return text if text.endswith("\n") else text + "\n"

        with lock_directory(self.memory_dir.root, timeout=self.memory_dir.lock_timeout):
            self.memory_dir.update_text(target.rel, change)
            index_changed = self._upsert(target.rel)
        return f"The file {path} has been edited." + self._index_note(index_changed)

    def delete(self, path: str) -> str:
        target = self._writable(path) if path.rstrip("/") != MEMORIES_ROOT else self._target(path)
        if not target.rel:
            raise CommandError("Cannot delete the /memories directory itself")
        with lock_directory(self.memory_dir.root, timeout=self.memory_dir.lock_timeout):
            if self._is_topic(target.rel) and (os.path.islink(target.path) or os.path.isfile(target.path)):
                # One memory: the store deletes it with its index line (or proposes that, or refuses).
                result = self.memory_dir.delete(target.rel)
                return f"Successfully deleted {path}" + self._index_note(result.index_changed)
            topics = self._topics_under(target.rel)
            self.memory_dir.check_removal(target.path)
            self._not_the_index(target)
            if os.path.isdir(target.path) and not os.path.islink(target.path):
                remove_tree(target.path)
            elif os.path.lexists(target.path):
                remove_file(target.path)
            else:
                raise CommandError(f"The path {path} does not exist")
            changed = False
            for rel in topics:
                changed = self._edit_index(rel, remove_entry) or changed
        return f"Successfully deleted {path}" + self._index_note(changed)

    def rename(self, old_path: str, new_path: str) -> str:
        old = self._writable(old_path) if old_path.rstrip("/") != MEMORIES_ROOT else self._target(old_path)
        if not old.rel:
            raise CommandError("Cannot rename the /memories directory itself")
        new = self._writable(new_path)
        if not new.rel:
            raise CommandError(f"The destination {new_path} already exists")
        with lock_directory(self.memory_dir.root, timeout=self.memory_dir.lock_timeout):
            if os.path.lexists(new.path):
                raise CommandError(f"The destination {new_path} already exists")
            if not os.path.lexists(old.path):
                raise CommandError(f"The path {old_path} does not exist")
            if new.rel == old.rel or new.rel.startswith(old.rel + "/"):
                raise CommandError(f"Cannot move {old_path} into itself ({new_path})", rule="rename-into-self")
            topics = self._topics_under(old.rel)
            self.memory_dir.check_move(old.path, new.path)
            self._not_the_index(old)
            self._not_the_index(new)
            ensure_dir(os.path.dirname(new.path))
            move_path(old.path, new.path)
            changed = False
            for rel in topics:
                moved = new.rel + rel[len(old.rel) :]
                changed = self._repoint(rel, moved) or changed
        return f"Successfully renamed {old_path} to {new_path}" + self._index_note(changed)

    def _repoint(self, old_rel: str, new_rel: str) -> bool:
        old_index, old_target = self.memory_dir.index_for(old_rel)
        new_index, new_target = self.memory_dir.index_for(new_rel)
        if not self._is_topic(new_rel):
            return self._edit_index(old_rel, remove_entry)
        if old_index == new_index:
            return self.memory_dir.rewrite_index(
                lambda text: rename_entry(text, old_target, new_target), index_path=old_index
            )
        removed = self._edit_index(old_rel, remove_entry)
        return self._upsert(new_rel) or removed

    def clear_all_memory(self) -> str:
        """Remove every file except memdir's own lock, keeping the directory itself."""
        with lock_directory(self.memory_dir.root, timeout=self.memory_dir.lock_timeout):
            names = [name for name in os.listdir(self.memory_dir.root) if name != LOCK_NAME]
            for name in names:  # every refusal (an agent's writes off or in review) before anything goes
                self.memory_dir.check_removal(os.path.join(self.memory_dir.root, name))
            for name in names:
                full = os.path.join(self.memory_dir.root, name)
                if os.path.isdir(full) and not os.path.islink(full):
                    remove_tree(full)
                else:
                    remove_file(full)
        return "All memory cleared"


def session_commands(session: MemorySession) -> MemoryCommands:
    """The commands over the store as agents may change it (``memdir.agentWrites``: directly, as
    proposals, or refused), ranking near memories as the session's writers do."""
    directory = session.agent_dir
    directory.ensure()
    return MemoryCommands(directory, writer_ranker=session.writer_ranker)
