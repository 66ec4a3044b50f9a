"""Sandboxed file tools for background agents, confined to one memory directory.

The tools are named and shaped like Claude Code's (``Read``, ``Write``, ``Edit``, ``Grep``,
``Glob``) so a model trained on those uses them well, plus ``LS`` and ``Delete``. They are
plain Python over :class:`~memdir.store.directory.MemoryDir`: every path goes through the one
containment check, every write is atomic and locked, the directory's write guards (the team
secret scanner) apply, and no shell ever runs. A refused call is answered with a tool error that
says why, and recorded as a :class:`Denial`.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from memdir.background.loop import ToolOutcome
from memdir.errors import MemdirError
from memdir.llm.base import ToolSpec
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.markup import neutralise
from memdir.model.memory import Memory
from memdir.model.memory_type import FrontmatterLayout
from memdir.recall.selector_protocol import Selector
from memdir.recall.surfacing import memory_freshness_note
from memdir.store.directory import MemoryDir
from memdir.store.files import LOCK_NAME, remove_file
from memdir.store.provenance import current
from memdir.templates import load_sections, render_template
from memdir.writes.near import identical_refusal, near_lines, near_memories

__all__ = ["ALL_TOOLS", "Denial", "EditCheck", "FileTool", "MemoryFileTools"]

ALL_TOOLS = ("Read", "Write", "Edit", "Grep", "Glob", "LS", "Delete")
_READ_LINES = 2000
_GREP_MAX_RESULTS = 200
log = logging.getLogger("memdir.background")

# (absolute path, text before, text after) -> a refusal reason, or None to allow the edit.
EditCheck = Callable[[str, str, str], "str | None"]


def _mtime(path: str) -> float:
    """A dangling symlink has no mtime; it sorts last instead of failing the whole Glob."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


@dataclass(frozen=True)
class Denial:
    tool: str
    reason: str


@dataclass(frozen=True)
class FileTool:
    spec: ToolSpec
    run: Callable[[Mapping[str, object]], ToolOutcome]

    def __call__(self, arguments: Mapping[str, object]) -> ToolOutcome:
        return self.run(arguments)


class _Refused(Exception):
    """A call the sandbox refuses; the message goes back to the model as the tool error."""


def _schema(properties: Mapping[str, object], required: Collection[str]) -> Mapping[str, object]:
    return {"type": "object", "properties": dict(properties), "required": list(required)}


def _describe(tool: str) -> str:
    """What the model reads about ``tool`` (prompts/file_tools.md)."""
    return load_sections("file_tools")[f"tool {tool}"]


def _path_argument() -> dict[str, str]:
    return {"type": "string", "description": load_sections("file_tools")["argument file_path"]}


@dataclass
class MemoryFileTools:
    """The tool set of one background run, and the record of what it did."""

    memory_dir: MemoryDir
    allowed: Collection[str] = ALL_TOOLS
    writable_files: Collection[str] | None = None  # when set, only these absolute paths may change
    edit_check: EditCheck | None = None
    # path the model names -> the file actually used (session notes drafted beside summary.md)
    aliases: Mapping[str, str] = field(default_factory=dict)
    clock: Callable[[], float] = time.time
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    denials: list[Denial] = field(default_factory=list)
    # Name, in a Write's answer, the memories that may already say what a new topic file says, and
    # refuse one nearly identical to a memory (extraction and the dream: :mod:`memdir.writes.near`).
    show_near: bool = False
    writer_ranker: Callable[[], Selector] | None = None

    # -- plumbing ------------------------------------------------------------------------
    def tools(self) -> list[FileTool]:
        makers = {
            "Read": self._read_tool,
            "Write": self._write_tool,
            "Edit": self._edit_tool,
            "Grep": self._grep_tool,
            "Glob": self._glob_tool,
            "LS": self._ls_tool,
            "Delete": self._delete_tool,
        }
        return [makers[name]() for name in ALL_TOOLS if name in self.allowed]

    def _wrap(self, name: str, body: Callable[[Mapping[str, object]], str]) -> Callable[..., ToolOutcome]:
        def run(arguments: Mapping[str, object]) -> ToolOutcome:
            try:
                return ToolOutcome(body(arguments))
            except (_Refused, MemdirError) as exc:
                reason = exc.message if isinstance(exc, MemdirError) else str(exc)
                self.denials.append(Denial(tool=name, reason=reason))
                log.warning("memdir sandbox refused %s: %s", name, reason)
                return ToolOutcome(reason, is_error=True)

        return run

    def _text_arg(self, arguments: Mapping[str, object], key: str, *, required: bool = True) -> str:
        value = arguments.get(key)
        if value is None and not required:
            return ""
        if not isinstance(value, str):
            raise _Refused(f"argument {key!r} must be a string")
        return value

    def _path(self, arguments: Mapping[str, object], key: str = "file_path") -> str:
        raw = self._text_arg(arguments, key)
        try:
            resolved = self.memory_dir.resolve(raw)
            return self.aliases.get(resolved, resolved)
        except MemdirError as exc:
            raise _Refused(
                f"{raw!r} is outside the memory directory {self.memory_dir.path} ({exc.rule}); "
                "only files inside it can be used"
            ) from exc

    def _check_writable(self, path: str) -> None:
        name = os.path.basename(path)
        if name == LOCK_NAME or name.startswith(".") or ".tmp." in name:
            raise _Refused(f"{name} is internal to memdir and cannot be written")
        if any(part.startswith(".") for part in self.memory_dir.relative(path).split("/")):
            raise _Refused(f"{path} is inside a hidden directory, which is internal to memdir and cannot be written")
        if self.writable_files is not None and path not in self.writable_files:
            allowed = ", ".join(sorted(self.writable_files))
            raise _Refused(f"only {allowed} may be changed in this context")

    def _with_origin(self, path: str, content: str) -> str:
        """A memory an extraction writes in the nested layout (Claude Code 2.1.330) records the session
        it came from in ``metadata.originSessionId``, as Claude Code's own writes do, when the run
        knows it (its provenance carries the session: ``memdir extract`` of a Claude Code transcript,
        an extractor given ``session_id``) and the text does not say already. A run that knows no
        session (a framework's extraction, recorded as ``extract:<framework>``) writes none."""
        session = current().session
        if not session or not path.endswith(".md") or os.path.basename(path) == ENTRYPOINT_NAME:
            return content
        if self.memory_dir.layout is not FrontmatterLayout.NESTED:
            return content
        from dataclasses import replace

        try:
            memory = Memory.parse(content)
        except MemdirError:
            return content
        metadata = memory.extra.get("metadata")
        if memory.layout is not FrontmatterLayout.NESTED or not isinstance(metadata, Mapping):
            return content
        if "originSessionId" in metadata:
            return content
        return replace(memory, extra={**memory.extra, "metadata": {**metadata, "originSessionId": session}}).render()

    def _record(self, path: str) -> None:
        if path not in self.written:
            self.written.append(path)

    # -- tools -----------------------------------------------------------------------------
    def _read_tool(self) -> FileTool:
        def body(arguments: Mapping[str, object]) -> str:
            path = self._path(arguments)
            offset = arguments.get("offset", 1)
            limit = arguments.get("limit", _READ_LINES)
            if not isinstance(offset, int) or not isinstance(limit, int) or offset < 1 or limit < 1:
                raise _Refused("offset and limit must be positive integers")
            text = self.memory_dir.read_text(path)
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()
            shown = lines[offset - 1 : offset - 1 + limit]
            numbered = "\n".join(f"{offset + i:>6}\t{line}" for i, line in enumerate(shown))
            note = ""
            if path.endswith(".md"):
                # a file only proposed (review mode) is not on disk yet: it is as fresh as can be
                written = _mtime(path) or self.clock()
                note = memory_freshness_note(written * 1000, self.clock() * 1000)
            return note + (neutralise(numbered) or "(empty file)")

        spec = ToolSpec(
            "Read",
            _describe("Read"),
            _schema(
                {"file_path": _path_argument(), "offset": {"type": "integer"}, "limit": {"type": "integer"}},
                ["file_path"],
            ),
        )
        return FileTool(spec, self._wrap("Read", body))

    def _write_tool(self) -> FileTool:
        def body(arguments: Mapping[str, object]) -> str:
            path = self._path(arguments)
            content = self._text_arg(arguments, "content")
            self._check_writable(path)
            existed = os.path.exists(path)
            note = self._near(path, content) if self.show_near and not existed else ""
            if self.edit_check is not None:
                before = self.memory_dir.read_text(path) if existed else ""
                refusal = self.edit_check(path, before, content)
                if refusal:
                    raise _Refused(refusal)
            self.memory_dir.write_text(path, self._with_origin(path, content))
            self._record(path)
            return f"{'Updated' if existed else 'Created'} {path}{note}"

        spec = ToolSpec(
            "Write",
            _describe("Write"),
            _schema({"file_path": _path_argument(), "content": {"type": "string"}}, ["file_path", "content"]),
        )
        return FileTool(spec, self._wrap("Write", body))

    def _near(self, path: str, content: str) -> str:
        """The note a Write of a new topic file answers with: the memories that may already say what
        it says, with their dates and how to keep one memory per fact; a file nearly identical to a
        memory is refused."""
        rel = self.memory_dir.relative(path)
        if not rel.endswith(".md") or os.path.basename(rel) == ENTRYPOINT_NAME or rel.startswith("logs/"):
            return ""
        try:
            memory = Memory.parse(content)
        except MemdirError:
            return ""
        ranker = self.writer_ranker() if self.writer_ranker is not None else None
        near = near_memories(self.memory_dir, memory, ranker=ranker, exclude=path)
        refusal = identical_refusal(near, lambda header: header.path)
        if refusal is not None:
            raise _Refused(refusal)
        if not near:
            return ""
        lines = near_lines(near, lambda header: header.path, self.clock() * 1000)
        return "\n" + render_template("near_duplicate_note", near=lines, path=path)

    def _edit_tool(self) -> FileTool:
        def body(arguments: Mapping[str, object]) -> str:
            path = self._path(arguments)
            old = self._text_arg(arguments, "old_string")
            new = self._text_arg(arguments, "new_string")
            replace_all = arguments.get("replace_all", False) is True
            self._check_writable(path)
            if old == new:
                raise _Refused("old_string and new_string are identical; nothing to change")
            if old == "" and not os.path.exists(path):
                return self._write_tool()(dict(file_path=path, content=new)).content

            def change(text: str) -> str:
                count = text.count(old)
                if count == 0:
                    raise _Refused("old_string was not found in the file; Read it again and copy the text exactly")
                if count > 1 and not replace_all:
                    raise _Refused(
                        f"old_string occurs {count} times; add surrounding lines to make it unique or set replace_all"
                    )
                updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
                if self.edit_check is not None:
                    refusal = self.edit_check(path, text, updated)
                    if refusal:
                        raise _Refused(refusal)
                return updated

            self.memory_dir.update_text(path, change)
            self._record(path)
            return f"Edited {path}"

        spec = ToolSpec(
            "Edit",
            _describe("Edit"),
            _schema(
                {
                    "file_path": _path_argument(),
                    "old_string": {"type": "string"},
                    "new_string": {"type": "string"},
                    "replace_all": {"type": "boolean"},
                },
                ["file_path", "old_string", "new_string"],
            ),
        )
        return FileTool(spec, self._wrap("Edit", body))

    def _files_under(self, base: str) -> list[str]:
        found = []
        for directory, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(directory, d)))
            for name in sorted(filenames):
                if name == LOCK_NAME or ".tmp." in name:
                    continue
                found.append(os.path.join(directory, name))
        return found

    def _base(self, arguments: Mapping[str, object]) -> str:
        raw = arguments.get("path")
        if raw is None or raw == "":
            return self.memory_dir.root
        return self._path(arguments, "path")

    def _grep_tool(self) -> FileTool:
        def body(arguments: Mapping[str, object]) -> str:
            pattern = self._text_arg(arguments, "pattern")
            flags = re.IGNORECASE if arguments.get("-i") is True else 0
            try:
                regex = re.compile(pattern, flags)
            except re.error as exc:
                raise _Refused(f"invalid regular expression: {exc}") from exc
            glob = self._text_arg(arguments, "glob", required=False)
            mode = arguments.get("output_mode", "files_with_matches")
            hits: list[str] = []
            for path in self._files_under(self._base(arguments)):
                if glob and not fnmatch.fnmatch(os.path.basename(path), glob):
                    continue
                try:
                    text = self.memory_dir.read_text(path)
                except MemdirError:
                    continue
                lines = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if regex.search(line)]
                if not lines:
                    continue
                if mode == "content":
                    hits.extend(neutralise(f"{path}:{n}:{line}") for n, line in lines)
                elif mode == "count":
                    hits.append(f"{path}:{len(lines)}")
                else:
                    hits.append(path)
                if len(hits) >= _GREP_MAX_RESULTS:
                    hits.append(f"(stopped after {_GREP_MAX_RESULTS} results)")
                    break
            return "\n".join(hits) if hits else "No matches found"

        spec = ToolSpec(
            "Grep",
            _describe("Grep"),
            _schema(
                {
                    "pattern": {"type": "string"},
                    "path": {"type": "string"},
                    "glob": {"type": "string"},
                    "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"]},
                    "-i": {"type": "boolean"},
                },
                ["pattern"],
            ),
        )
        return FileTool(spec, self._wrap("Grep", body))

    def _glob_tool(self) -> FileTool:
        def body(arguments: Mapping[str, object]) -> str:
            pattern = self._text_arg(arguments, "pattern")
            base = self._base(arguments)
            matches = []
            for path in self._files_under(base):
                rel = os.path.relpath(path, base).replace(os.sep, "/")
                if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern.removeprefix("**/")):
                    matches.append(path)
            matches.sort(key=_mtime, reverse=True)
            return "\n".join(matches) if matches else "No files found"

        spec = ToolSpec(
            "Glob",
            _describe("Glob"),
            _schema({"pattern": {"type": "string"}, "path": {"type": "string"}}, ["pattern"]),
        )
        return FileTool(spec, self._wrap("Glob", body))

    def _ls_tool(self) -> FileTool:
        def body(arguments: Mapping[str, object]) -> str:
            base = self._base(arguments)
            if not os.path.isdir(base):
                raise _Refused(f"{base} is not a directory")
            entries = []
            for entry in sorted(os.scandir(base), key=lambda e: e.name):
                if entry.name == LOCK_NAME or ".tmp." in entry.name:
                    continue
                entries.append(entry.name + ("/" if entry.is_dir(follow_symlinks=False) else ""))
            return "\n".join(entries) if entries else "(empty directory)"

        spec = ToolSpec(
            "LS",
            _describe("LS"),
            _schema({"path": {"type": "string"}}, []),
        )
        return FileTool(spec, self._wrap("LS", body))

    def _delete_tool(self) -> FileTool:
        def body(arguments: Mapping[str, object]) -> str:
            path = self._path(arguments)
            self._check_writable(path)
            rel = self.memory_dir.relative(path)
            if not os.path.lexists(path):
                raise _Refused(f"{path} does not exist")
            if os.path.isdir(path) and not os.path.islink(path):
                raise _Refused(f"{path} is a directory; delete the files in it one by one")
            if rel.endswith(".md") and os.path.basename(rel) != ENTRYPOINT_NAME:
                self.memory_dir.delete(rel)
                note = " and its line in MEMORY.md"
            else:
                self.memory_dir.check_removal(path)
                remove_file(path)
                note = ""
            if path not in self.deleted:
                self.deleted.append(path)
            return f"Deleted {path}{note}"

        spec = ToolSpec(
            "Delete",
            _describe("Delete"),
            _schema({"file_path": _path_argument()}, ["file_path"]),
        )
        return FileTool(spec, self._wrap("Delete", body))
