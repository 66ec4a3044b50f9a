"""Checking a memory directory for everything that would make memory silently fail.

A memory that recall cannot describe, an index line pointing nowhere, a symlink out of the
directory, a file that is not UTF-8, a temp file a killed save left behind: each is reported
with the file, the line when there is one, a stable rule id and a fix. ``fix`` repairs the index
(adds missing lines, drops lines to missing files) in batches, taking the directory's lock for
each batch only, so a concurrent save is never starved; and it removes stale temp files. It
never deletes or rewrites a memory. Daily logs (``logs/``) are checked as logs (readable UTF-8),
not as memories. A file holding what reads as a prompt tag is reported (``markup``): shown to a
model it is neutralised, but it was written to speak as the system.

:func:`checked_and_loaded` is what ``memdir doctor`` and the web view's doctor page run: the check,
measured as the Claude Code release sharing the directory measures ``MEMORY.md``, and what that
release loads of it (:mod:`memdir.loaded_index`), measured again when the check fixed something.
"""

from __future__ import annotations

import functools
import os
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import yaml

from memdir.config import MemoryConfig
from memdir.doctor.proposals import Proposal, proposals, store_notes
from memdir.errors import MemdirError
from memdir.loaded_index import ClaudeCodeLoad, claude_code_load
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.frontmatter import decode_memory_bytes
from memdir.model.index import IndexEntry, parse_entries, remove_entries, upsert_entries
from memdir.model.index_load import compact_index, index_load, truncation_message
from memdir.model.markup import describe_markup, find_markup
from memdir.model.memory import Memory
from memdir.model.yaml12 import load_yaml12
from memdir.store.directory import MemoryDir
from memdir.store.files import MAX_MEMORY_FILE_BYTES, read_bytes_limited, remove_stale_temps, stale_temp_files
from memdir.store.scan import HEADER_LINES, LOGS_DIRNAME

# Index lines added or dropped per lock hold by ``fix``: big enough that 10,000 lines take a few
# rewrites, small enough that a save waiting for the lock waits for one batch, not the repair.
FIX_BATCH = 1000
# Fields whose value must be text: recall and the index show them as one line.
_TEXT_FIELDS = ("name", "description", "type")
NOTED_RULES = frozenset({"long-description"})  # reported as notes: the memory is fine to save and recall
_DOUBTFUL_RULES = frozenset({"unquoted-value", "not-text", "multiline-description", "yaml"})
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*):[ \t]*(.*)$")

__all__ = ["DoctorReport", "Problem", "check_memory_dir", "check_memory_text", "checked_and_loaded"]

_FRONTMATTER_OPEN = re.compile(r"^---\s*\n")
_FRONTMATTER_BLOCK = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    rule: str
    message: str

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class DoctorReport:
    problems: tuple[Problem, ...]
    fixed: tuple[str, ...] = ()
    notes: tuple[Problem, ...] = ()  # information about the contents (doctor.proposals), never a failure
    pairs: tuple[Proposal, ...] = ()  # the pairs of memories doctor proposes a person decide on

    @property
    def ok(self) -> bool:
        return not self.problems


Progress = Callable[[int, int], None]


def _walk(root: str) -> tuple[list[str], list[str]]:
    """Every ``.md`` path under root (relative), symlinks included so that bad ones are reported,
    and every stale temp file of a killed save."""
    found: list[str] = []
    temps: list[str] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(directory, d))]
        for name in filenames:
            if name.endswith(".md"):
                found.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
        if any(name.startswith(".") and ".tmp." in name for name in filenames):
            temps.extend(os.path.relpath(path, root).replace(os.sep, "/") for path in stale_temp_files(directory))
    return sorted(found), sorted(temps)


def _is_log(rel: str) -> bool:
    return rel.split("/", 1)[0] == LOGS_DIRNAME and "/" in rel


def _check_file(memory_dir: MemoryDir, rel: str) -> tuple[list[Problem], Memory | None]:
    path = os.path.join(memory_dir.root, rel)
    if os.path.islink(path):
        target = os.path.realpath(path)
        if not os.path.exists(target):
            return [Problem(rel, None, "dangling-symlink", f"{rel} is a symlink to a missing file; remove it")], None
        if not target.startswith(os.path.realpath(memory_dir.root) + os.sep):
            message = f"{rel} is a symlink to {target}, outside the memory directory; recall ignores it"
            return [Problem(rel, None, "symlink-escape", message)], None
    data = b""
    try:
        data = read_bytes_limited(path)  # non-blocking: a FIFO named *.md is reported, not waited on
        text = decode_memory_bytes(data, path=rel)
    except MemdirError as exc:
        if exc.rule == "too-large":
            message = f"{rel} is {os.stat(path).st_size} bytes (limit {MAX_MEMORY_FILE_BYTES}); " + (
                "only its first 200 lines are loaded and memdir cannot repair it: move detail into topic files"
                if os.path.basename(rel) == ENTRYPOINT_NAME
                else "split it into smaller topic files"
            )
            return [Problem(rel, None, "too-large", message)], None
        line = _line_of_offset(data, exc) if exc.rule == "encoding" else None
        message = exc.message.replace(path, rel)
        return [Problem(rel, line, exc.rule, message if rel in message else f"{rel}: {message}")], None
    except OSError as exc:
        return [Problem(rel, None, "unreadable", f"{rel} cannot be read: {exc.strerror}")], None
    if os.path.basename(rel) == ENTRYPOINT_NAME or _is_log(rel):
        return _check_markup(rel, text), None
    return _check_frontmatter(rel, text) + _check_markup(rel, text) + _check_conflict(rel, text), Memory.parse(text)


def _check_conflict(rel: str, text: str) -> list[Problem]:
    """A conflict copy team sync kept: a person has to choose, and the row says how."""
    from memdir.model.conflicts import conflict_of, conflict_original, is_conflict_copy

    if not is_conflict_copy(rel):
        return []
    key = rel.removeprefix("team/")
    original = conflict_of(text) or conflict_original(key) or key
    message = (
        f"{rel} is a conflicting copy of {original} kept by team sync; choose with "
        f"'memdir team resolve {key} --keep mine|theirs|both' (or --edit)"
    )
    return [Problem(rel, None, "conflict-copy", message)]


def _check_markup(rel: str, text: str) -> list[Problem]:
    """A memory that holds what reads as a prompt tag (``</system-reminder>`` in any spelling):
    recall and prompts show it neutralised, but someone wrote it to speak as the system."""
    found = find_markup(text)
    if not found:
        return []
    message = (
        f"{rel} holds {describe_markup(text)}, which reads as a tag of the prompt memory is shown in; memdir shows it "
        "with ‹ › brackets so it cannot act as one. If you did not write it, read the memory and remove it"
    )
    return [Problem(rel, text.count("\n", 0, found[0].start) + 1, "markup", message)]


def _line_of_offset(data: bytes, exc: MemdirError) -> int | None:
    match = re.search(r"byte (?:offset )?(\d+)", exc.message)
    if not match:
        return None
    return data[: int(match.group(1))].count(b"\n") + 1


def _check_frontmatter(rel: str, text: str) -> list[Problem]:
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not _FRONTMATTER_OPEN.match(text):
        return [
            Problem(
                rel,
                1,
                "no-frontmatter",
                f"{rel} has no frontmatter; recall cannot describe it. "
                "Start the file with ---, name:, description:, type:, ---",
            )
        ]
    block = _FRONTMATTER_BLOCK.match(text)
    if block is None:
        return [Problem(rel, 1, "unclosed-frontmatter", f"{rel}: the frontmatter block is never closed with ---")]
    closing_line = text[: block.end()].rstrip("\n").count("\n") + 1
    problems: list[Problem] = []
    if closing_line > HEADER_LINES:
        problems.append(
            Problem(
                rel,
                closing_line,
                "frontmatter-too-long",
                f"{rel}: the frontmatter closes on line {closing_line}; only the first "
                f"{HEADER_LINES} lines are scanned, so recall sees no description. Shorten it",
            )
        )
    memory = Memory.parse(text)
    if (
        block.group(1).strip()
        and memory.name is None
        and memory.description is None
        and memory.type is None
        and not memory.extra
    ):
        problems.append(
            Problem(
                rel,
                2,
                "yaml",
                f"{rel}: the frontmatter is not valid YAML; quote values that contain ': ', '#', braces or brackets",
            )
        )
        return problems
    found, not_text = _check_values(rel, block.group(1))
    problems.extend(found)
    flagged = {p.rule for p in problems} | {f"missing-{key}" for key in not_text}
    for rule, message in memory.problems():
        if rule not in flagged:
            problems.append(Problem(rel, None, rule, f"{rel}: {message}"))
    return problems


def _check_values(rel: str, block: str) -> tuple[list[Problem], set[str]]:
    """Values that read as text only by luck or not at all: YAML that is valid only after memdir's
    (and Claude Code's) quote-and-retry pass, a name/description/type that YAML reads as a list,
    a number or a mapping, and a description written over several lines."""
    problems: list[Problem] = []
    not_text: set[str] = set()
    lines = block.split("\n")
    try:
        strict = load_yaml12(block)
    except (yaml.YAMLError, RecursionError, TypeError, ValueError):
        strict = None
        for number, line in enumerate(lines, start=2):
            match = _KEY_LINE.match(line)
            if match is None or not match.group(2) or match.group(2)[0] in "\"'|>":
                continue
            try:
                load_yaml12(line)
            except (yaml.YAMLError, RecursionError, TypeError, ValueError):
                key, value = match.group(1), match.group(2)
                problems.append(
                    Problem(
                        rel,
                        number,
                        "unquoted-value",
                        f"{rel} line {number}: {key}: {value} is not valid YAML (it is read as text only after "
                        f"quoting); write {key}: {_quoted(value)}",
                    )
                )
    if isinstance(strict, dict):
        for key in _TEXT_FIELDS:
            value = strict.get(key)
            if value is not None and not isinstance(value, str):
                kind = {list: "a list", dict: "a mapping", bool: "a boolean"}.get(type(value), "a number")
                not_text.add(key)
                problems.append(
                    Problem(
                        rel,
                        None,
                        "not-text",
                        f"{rel}: {key} is {kind} in YAML, not text; write it as one quoted line",
                    )
                )
    for number, line in enumerate(lines, start=2):
        match = _KEY_LINE.match(line)
        if match is None or match.group(1) != "description":
            continue
        value = match.group(2).strip()
        continued = number - 1 < len(lines) and lines[number - 1][:1] in (" ", "\t") and lines[number - 1].strip()
        if value[:1] in ("|", ">") or continued:
            problems.append(
                Problem(
                    rel,
                    number,
                    "multiline-description",
                    f"{rel} line {number}: the description spans several lines; recall and MEMORY.md show one "
                    "line, so keep it to one",
                )
            )
    return problems, not_text


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# What stops a hand edit from being saved: the memory would lose its name or description, or keep
# a value that reads as text only by luck. A missing or unknown type is reported by doctor only.
_BLOCKING_RULES = frozenset(
    {"no-frontmatter", "unclosed-frontmatter", "frontmatter-too-long", "missing-name", "missing-description"}
    | _DOUBTFUL_RULES
)


def check_memory_text(rel: str, text: str) -> list[str]:
    """The problems that make ``text`` unfit to be saved as the memory ``rel``, one message each."""
    return [p.message for p in _check_frontmatter(rel, text) if p.rule in _BLOCKING_RULES]


def _indexed_by(rel: str, base: str) -> bool:
    """Team files belong to team/MEMORY.md, daily logs to no index, everything else to the root index."""
    top = rel.split("/", 1)[0] if "/" in rel else ""
    if base == "team":
        return top == "team"
    return top not in ("team", "logs")


def _check_index(
    memory_dir: MemoryDir,
    index_rel: str,
    memories: dict[str, Memory],
    fix: bool,
    doubtful: frozenset[str] = frozenset(),
    full_indexes: list[Problem] | None = None,
    skip_comments: bool = False,
) -> tuple[list[Problem], list[str]]:
    """Problems of one MEMORY.md against the topic files it should list (relative to its folder)."""
    index_path = os.path.join(memory_dir.root, index_rel)
    base = os.path.dirname(index_rel)
    try:
        text = memory_dir.index_text(index_path)
    except MemdirError:
        return [], []  # too large, not UTF-8 or not a file: the file check has reported it
    problems: list[Problem] = []
    fixed: list[str] = []
    if fix and memory_dir.rewrite_index(
        functools.partial(compact_index, skip_comments=skip_comments), index_path=index_path
    ):
        fixed.append(index_rel)
        text = memory_dir.index_text(index_path)
    load = index_load(text, skip_comments=skip_comments)
    if load.truncated:
        problems.append(Problem(index_rel, load.last_line, "index-truncated", truncation_message(index_rel, load)))
    listed: set[str] = set()
    dangling: list[str] = []
    for line_number, entry in parse_entries(text):
        target = entry.file
        listed.add(target)
        full = f"{base}/{target}" if base else target
        if full not in memories and not os.path.exists(os.path.join(memory_dir.root, full)):
            problems.append(
                Problem(
                    index_rel,
                    line_number,
                    "index-dangling",
                    f"{index_rel} line {line_number} points to {target}, which does not exist",
                )
            )
            dangling.append(target)
    missing = []
    for rel, memory in memories.items():
        if not _indexed_by(rel, base):
            continue
        target = rel[len(base) + 1 :] if base else rel
        if target not in listed:
            why = ""
            if not (memory.name and memory.description):
                why = "; --fix cannot add its line until the file's frontmatter has a name and a description"
            elif rel in doubtful:
                why = "; --fix cannot add its line until the file's frontmatter reads cleanly (see its other problem)"
            problems.append(Problem(rel, None, "index-missing", f"{rel} is not listed in {index_rel}{why}"))
            missing.append((target, memory))
    if fix and (dangling or missing):
        entries = [
            IndexEntry(m.name, target, m.description)
            for target, m in missing
            if m.name and m.description and (f"{base}/{target}" if base else target) not in doubtful
        ]
        changed, refusal = _repair_index(memory_dir, index_path, dangling, entries)
        if changed and index_rel not in fixed:
            fixed.append(index_rel)
        if refusal is not None:
            message = (
                f"{index_rel} is full ({refusal.message.removeprefix(index_rel + ': ')}); memories without a line "
                "stay listed as index-missing: merge or shorten index lines, or move old memories out"
            )
            if full_indexes is not None:
                full_indexes.append(Problem(index_rel, None, "index-full", message))
    return problems, fixed


def _repair_index(
    memory_dir: MemoryDir, index_path: str, dangling: list[str], entries: list[IndexEntry]
) -> tuple[bool, MemdirError | None]:
    """Drop ``dangling`` lines and add ``entries``, one batch per lock hold, each batch one pass
    over the index (linear in its size).

    Lines are added only while the index stays what can be written: under the size memdir reads
    back and, when the directory checks it, under what Claude Code loads. A batch the check
    refuses is retried in halves, so the index fills up to the limit; the refusal is returned
    and what did not fit stays reported as index-missing.
    """
    changed = False
    refusal: MemdirError | None = None
    for start in range(0, max(len(dangling), len(entries)), FIX_BATCH):
        drop = dangling[start : start + FIX_BATCH]
        queue = [] if refusal is not None else entries[start : start + FIX_BATCH]
        size = max(len(queue), 1)
        while drop or queue:
            add = queue[:size]
            try:
                changed = (
                    memory_dir.rewrite_index(
                        functools.partial(_batch, folder=os.path.dirname(index_path), drop=drop, add=add),
                        index_path=index_path,
                    )
                    or changed
                )
            except MemdirError as exc:
                if exc.rule != "index-too-long":
                    raise
                if size > 1:
                    size //= 2
                    continue
                refusal, queue = exc, []  # not one more line fits: keep the drop, stop adding
                continue
            drop, queue = [], queue[len(add) :]
    return changed, refusal


def _batch(current: str, *, folder: str, drop: list[str], add: list[IndexEntry]) -> str:
    """One batch of a repair, run under the directory's lock: the files are looked at again here,
    so a memory deleted since the scan (an MCP ``forget`` a moment earlier) gets no line back, and
    one that appeared since keeps its line."""
    drop = [file for file in drop if not os.path.lexists(os.path.join(folder, file))]
    add = [entry for entry in add if os.path.isfile(os.path.join(folder, entry.file))]
    kept = remove_entries(current, drop) if drop else current
    budget = MAX_MEMORY_FILE_BYTES - len(kept.encode("utf-8"))
    fitting: list[IndexEntry] = []
    for entry in add:
        budget -= len(entry.render().encode("utf-8")) + 1
        if budget < 0:
            break
        fitting.append(entry)
    return upsert_entries(kept, fitting) if fitting else kept


def checked_and_loaded(
    config: MemoryConfig, memory_dir: MemoryDir, *, fix: bool, progress: Progress | None = None
) -> tuple[DoctorReport, ClaudeCodeLoad]:
    """The report on ``memory_dir`` (:func:`check_memory_dir`) by the measure of the Claude Code
    release (it may skip the index's frontmatter and comments), and what that release loads of
    ``MEMORY.md``, after the fix when there was one."""
    loaded = claude_code_load(config)
    report = check_memory_dir(memory_dir, fix=fix, progress=progress, skip_index_comments=loaded.skip_comments)
    return report, claude_code_load(config) if report.fixed else loaded


def check_memory_dir(
    memory_dir: MemoryDir, *, fix: bool = False, progress: Progress | None = None, skip_index_comments: bool = False
) -> DoctorReport:
    """Every problem in the directory; with ``fix``, repair the indexes first and report what is left.

    ``progress(done, total)`` is called as files are checked, for a progress bar on large stores.
    ``skip_index_comments``: the Claude Code release measures ``MEMORY.md`` without its frontmatter
    and comments (``ReleaseRules.index_limits_skip_comments``).
    """
    if not os.path.isdir(memory_dir.root):
        return DoctorReport(problems=())
    problems: list[Problem] = []
    memories: dict[str, Memory] = {}
    files, temps = _walk(memory_dir.root)
    for done, rel in enumerate(files, start=1):
        found, memory = _check_file(memory_dir, rel)
        problems.extend(found)
        if memory is not None:
            memories[rel] = memory
        if progress is not None:
            progress(done, len(files))
    swept: list[str] = []
    if fix and temps:
        for directory in sorted({os.path.dirname(os.path.join(memory_dir.root, rel)) for rel in temps}):
            swept.extend(memory_dir.relative(path) for path in remove_stale_temps(directory))
    for rel in temps:
        if rel not in swept:
            message = f"{rel} is a temp file left by a save that was killed; the next save removes it (or doctor --fix)"
            problems.append(Problem(rel, None, "stale-temp", message))
    indexes = [ENTRYPOINT_NAME]
    if os.path.isdir(os.path.join(memory_dir.root, "team")):
        indexes.append(f"team/{ENTRYPOINT_NAME}")
    # A line is not added for a memory whose fields are in doubt: it would copy "[unclosed" into MEMORY.md.
    doubtful = frozenset(p.file for p in problems if p.rule in _DOUBTFUL_RULES)
    fixed: list[str] = []
    index_problems: list[Problem] = []
    full: list[Problem] = []  # indexes --fix could not add every line to
    for index_rel in indexes:
        found, repaired = _check_index(memory_dir, index_rel, memories, fix, doubtful, full, skip_index_comments)
        index_problems.extend(found)
        fixed.extend(repaired)
    if fixed:
        index_problems = []
        for index_rel in indexes:
            found, _ = _check_index(memory_dir, index_rel, memories, False, skip_comments=skip_index_comments)
            index_problems.extend(found)
    history = memory_dir.history
    if history is not None:  # a damaged history stops no write, but versions are only in the set-aside copy
        problems.extend(Problem(path, None, "history-damaged", message) for path, message in history.damage(fix=fix))
    headers = memory_dir.headers()
    pairs = tuple(proposals(headers))
    notes = tuple(Problem(*note) for note in store_notes(headers, memories, time.strftime("%Y-%m-%d"), pairs))
    # Every write path saves a long description (with a warning, as Claude Code saves one): doctor
    # notes it too rather than failing on what the writes accept.
    noted = tuple(p for p in problems if p.rule in NOTED_RULES)
    problems = [p for p in problems if p.rule not in NOTED_RULES]
    return DoctorReport(
        problems=tuple(problems + full + index_problems), fixed=tuple(fixed + swept), notes=noted + notes, pairs=pairs
    )
