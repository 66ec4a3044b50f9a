"""Memory stores stranded under the config home, and moving their memories where they belong.

Claude Code files a project's memory under ``<memory base>/projects/<sanitized root>/memory/``,
the root being the main checkout of a git repository. Sessions of releases (or setups) that keyed
memory to the folder they ran in left stores of their own for worktrees and sub-folders, and a
worktree's store outlives the worktree: its memories are no longer loaded anywhere. One user
found twelve such stores holding fifteen files.

:func:`find_stranded` looks at every store and finds the project it was written for, from what
Claude Code left beside it (the ``cwd`` of its transcripts, the projects of ``.claude.json``) or
from its name. A store is stranded when that project is a worktree of another repository or a
folder inside one (its memories belong to that repository's store), or when the project is gone.
A gone project is traced to the repository it came from when it can be: a Claude Code worktree
(``<repo>/.claude/worktrees/<name>``), a worktree git still lists, or a branch its sessions ran on
that exactly one known repository still has; otherwise the store is listed with no destination.

:func:`move_memories` moves one store's memories into another with memdir's own writes: each
write and removal is recorded in the history of its directory, the destination's ``MEMORY.md``
gets a line for every memory moved in, a file that exists there with other content is kept as a
second file beside it (never overwritten), and the memories that say nearly what one already there
says are named, to be merged. A memory is removed from the stranded store only once it is written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memdir.containment import spell_lexical
from memdir.environment import Environment
from memdir.errors import MemdirError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.index import parse_entries
from memdir.model.memory import Memory
from memdir.paths import (
    AUTO_MEM_DIRNAME,
    auto_mem_path,
    clear_git_root_cache,
    find_canonical_git_root,
    find_git_root,
    memory_base,
    projects_dir,
    sanitize_path,
)
from memdir.settings import Settings
from memdir.store.directory import MemoryDir
from memdir.store.files import read_bytes_limited, remove_file
from memdir.store.scan import LOGS_DIRNAME
from memdir.writes.near import near_memories

__all__ = ["MoveResult", "StrandedStore", "find_stranded", "move_memories", "store_files"]

_TRANSCRIPT_LINES = 50  # lines of a transcript read to find its cwd and branch
_MAIN_BRANCHES = frozenset({"main", "master", "HEAD", "trunk", "develop"})
_SKIPPED_TOPS = frozenset({"team", LOGS_DIRNAME})  # team sync's files and daily logs are not moved


@dataclass(frozen=True)
class StrandedStore:
    """One store whose memories no session of their project loads."""

    store: str  # the memory directory
    project: str | None  # the folder it was written for, when known
    why: str  # in words: "a worktree of /repo", "its project /tmp/x is gone", …
    target: str | None  # the project whose store its memories belong in, None when unknown
    target_store: str | None  # that project's memory directory
    memories: int
    unindexed: int  # memories its MEMORY.md does not list

    def as_json(self) -> dict[str, object]:
        return {
            "store": self.store,
            "project": self.project,
            "why": self.why,
            "target": self.target,
            "target_store": self.target_store,
            "memories": self.memories,
            "unindexed": self.unindexed,
        }


@dataclass
class MoveResult:
    """What one move did, file by file (paths relative to the stores)."""

    moved: list[str] = field(default_factory=list)  # written into the destination
    kept_both: list[str] = field(default_factory=list)  # "a.md -> a.from-wt.md": another a.md was there
    already_there: list[str] = field(default_factory=list)  # the same bytes were there already
    left: list[str] = field(default_factory=list)  # "a.md: why": not moved, still in the stranded store
    indexed: list[str] = field(default_factory=list)  # destination lines added
    near: list[str] = field(default_factory=list)  # "a.md may say what b.md says"


def _memory_files(store: str) -> Iterator[str]:
    """The memories of a store, relative paths, as found: every ``.md`` but the indexes, hidden
    files and folders, symlinks, team files and logs."""
    for directory, dirnames, filenames in os.walk(store):
        rel_dir = os.path.relpath(directory, store)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in _SKIPPED_TOPS and not d.startswith(".")]
        else:
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".md") and name != ENTRYPOINT_NAME and not name.startswith("."):
                rel = os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")
                if not os.path.islink(os.path.join(directory, name)):
                    yield rel


def store_files(store: str) -> list[str]:
    """The memories of a store, relative paths, sorted (:func:`_memory_files`)."""
    return sorted(_memory_files(store))


def _has_memories(store: str) -> bool:
    """Whether the store holds a memory at all, looking no further than the first one."""
    return next(_memory_files(store), None) is not None


def _listed(store: str) -> set[str]:
    try:
        text = read_bytes_limited(os.path.join(store, ENTRYPOINT_NAME)).decode("utf-8", "replace")
    except (OSError, MemdirError):
        return set()
    return {entry.file.removeprefix("./") for _, entry in parse_entries(text)}


def _transcript_facts(folder: str) -> tuple[list[str], list[str]]:
    """The working directories and git branches the folder's transcripts name, from the newest
    transcript that names a directory (a store's sessions all ran in one folder)."""
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".jsonl")]
    except OSError:
        return [], []
    paths = sorted((os.path.join(folder, n) for n in names), key=_mtime, reverse=True)
    cwds: list[str] = []
    branches: list[str] = []
    for path in paths[:20]:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for _, line in zip(range(_TRANSCRIPT_LINES), handle, strict=False):
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(entry, dict):
                        continue
                    for key, bucket in (("cwd", cwds), ("gitBranch", branches)):
                        value = entry.get(key)
                        if isinstance(value, str) and value and value not in bucket:
                            bucket.append(value)
        except OSError:
            continue
        if cwds:
            break
    return cwds, branches


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _known_projects(claude_json: str) -> list[str]:
    """The project folders Claude Code's global config remembers (its ``projects`` keys)."""
    try:
        with open(claude_json, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return []
    projects = data.get("projects") if isinstance(data, dict) else None
    return [p for p in projects if isinstance(p, str)] if isinstance(projects, dict) else []


def _project_of(name: str, cwds: Sequence[str], known: Iterable[str]) -> str | None:
    """The folder a store named ``name`` was written for: a transcript's cwd, a known project, or
    an existing folder whose name sanitizes to it."""
    for candidate in [*cwds, *known]:
        if sanitize_path(spell_lexical(candidate)) == name:
            return spell_lexical(candidate)
    return _existing_folder(name)


def _existing_folder(name: str) -> str | None:
    """The existing folder whose sanitized path is ``name``, found by walking down from ``/`` along
    the folders whose names fit the next part of it (a ``-`` stands for ``/`` and for any other
    character, so a name alone cannot be read back)."""
    if not name.startswith("-") or len(name) > 200:
        return None

    def walk(path: str, rest: str) -> str | None:
        if not rest:
            return path
        try:
            entries = sorted(os.listdir(path))
        except OSError:
            return None
        for entry in entries:
            piece = "-" + sanitize_path(entry)
            if rest.startswith(piece) and os.path.isdir(os.path.join(path, entry)):
                found = walk(os.path.join(path, entry), rest[len(piece) :])
                if found is not None:
                    return found
        return None

    return walk("/", name)


def _git_dir(repo: str) -> str:
    return os.path.join(repo, ".git")


def _lists_worktree(repo: str, project: str) -> bool:
    """Whether git in ``repo`` still has the worktree at ``project`` on its list (removed by hand)."""
    folder = os.path.join(_git_dir(repo), "worktrees")
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        try:
            gitdir = Path(folder, name, "gitdir").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if os.path.dirname(gitdir) == project:
            return True
    return False


def _has_branch(repo: str, branch: str) -> bool:
    if os.path.isfile(os.path.join(_git_dir(repo), "refs", "heads", *branch.split("/"))):
        return True
    try:
        packed = Path(_git_dir(repo), "packed-refs").read_text(encoding="utf-8")
    except OSError:
        return False
    return any(line.endswith(f" refs/heads/{branch}") for line in packed.splitlines())


def _origin_of_gone(project: str, branches: Sequence[str], repos: Sequence[str]) -> tuple[str, str] | None:
    """The repository a gone folder came from, and how that is known; None when it cannot be told."""
    marker = f"{os.sep}.claude{os.sep}worktrees{os.sep}"
    if marker in project:
        parent = project.split(marker, 1)[0]
        if os.path.isdir(parent):
            return find_canonical_git_root(parent) or parent, f"a Claude Code worktree of {parent}"
    listing = [repo for repo in repos if _lists_worktree(repo, project)]
    if len(listing) == 1:
        return listing[0], f"git in {listing[0]} still lists it as a worktree"
    for branch in branches:
        if branch in _MAIN_BRANCHES:
            continue
        having = [repo for repo in repos if _has_branch(repo, branch)]
        if len(having) == 1:
            return having[0], f"its sessions ran on branch {branch}, which {having[0]} has"
    return None


@dataclass(frozen=True)
class _Store:
    name: str
    store: str
    project: str | None
    branches: tuple[str, ...]


def find_stranded(
    *,
    config_home: str,
    settings: Settings,
    environment: Environment,
    claude_json: str,
    in_use: Sequence[str] = (),
    projects: Sequence[str] = (),
    into: str | None = None,
) -> list[StrandedStore]:
    """Every stranded store under the memory base (see the module docstring), by store path.

    ``settings`` and ``environment`` decide where a project's memory lives today (the user's
    settings: a project's own settings file cannot move its memory); ``in_use`` are stores known
    to be a project's own and ``projects`` folders known to be projects (those of the project the
    command runs in). With ``into``, only the stores whose memories belong in that memory
    directory are listed (the others' memories are not counted nor their indexes read)."""
    clear_git_root_cache()  # a worktree added or removed a moment ago must be seen as it is now
    root = os.path.join(memory_base(environment), "projects")
    own = {os.path.normpath(path) for path in in_use}
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    known = [*projects, *_known_projects(claude_json)]
    stores: list[_Store] = []
    for name in names:
        store = os.path.join(root, name, AUTO_MEM_DIRNAME)
        if not os.path.isdir(store) or not _has_memories(store):
            continue
        cwds, branches = _transcript_facts(os.path.join(projects_dir(config_home), name))
        stores.append(_Store(name, store, _project_of(name, cwds, known), tuple(branches)))
    repos = sorted(
        {
            find_canonical_git_root(s.project) or s.project
            for s in stores
            if s.project and os.path.isdir(s.project) and find_git_root(s.project)
        }
        | {find_canonical_git_root(p) or p for p in known if os.path.isdir(p) and find_git_root(p)}
    )
    found = []
    for entry in stores:
        if os.path.normpath(entry.store) in own:
            continue
        judged = _judge(entry, repos)
        if judged is None:
            continue
        why, target = judged
        target_store = auto_mem_path(target, settings=settings, environment=environment) if target else None
        if target_store is not None and os.path.normpath(target_store) == os.path.normpath(entry.store):
            continue
        if into is not None and (target_store is None or os.path.normpath(target_store) != os.path.normpath(into)):
            continue
        files = store_files(entry.store)
        listed = _listed(entry.store)
        unindexed = sum(1 for f in files if f not in listed)
        found.append(StrandedStore(entry.store, entry.project, why, target, target_store, len(files), unindexed))
    return found


def _judge(entry: _Store, repos: Sequence[str]) -> tuple[str, str | None] | None:
    """Why the store is stranded and the project it belongs to (None: unknown), or None when it is not."""
    project = entry.project
    if project is None:
        return "the folder it was written for is not known", None
    if os.path.isdir(project):
        git_root = find_git_root(project)
        canonical = find_canonical_git_root(project)
        if git_root is None or canonical is None:
            return None
        if canonical != git_root:
            return f"{project} is a worktree of {canonical}", canonical
        if os.path.normpath(git_root) != os.path.normpath(project):
            return f"{project} is a folder inside {git_root}", canonical
        return None
    origin = _origin_of_gone(project, entry.branches, repos)
    if origin is None:
        return f"{project} is gone", None
    repo, how = origin
    return f"{project} is gone ({how})", repo


# -- moving ----------------------------------------------------------------------------------------


def _free_name(target: MemoryDir, rel: str, label: str) -> str:
    stem = rel.removesuffix(".md")
    for n in range(1, 10_000):
        candidate = f"{stem}.from-{label}{'' if n == 1 else f'-{n}'}.md"
        if not os.path.lexists(target.resolve(candidate)):
            return candidate
    raise MemdirError(f"no free name for {rel} in {target.root}", rule="stranded-name")


def move_memories(source: MemoryDir, target: MemoryDir, *, label: str) -> MoveResult:
    """Move every memory of ``source`` into ``target`` (see the module docstring).

    ``label`` names the origin in the name of a second file kept beside one of the same name
    (``a.from-<label>.md``). The stranded store's ``MEMORY.md`` loses the lines of what moved and
    is removed once no memory is left and it lists nothing; the folder stays (:func:`_remove_if_empty`)."""
    result = MoveResult()
    target.ensure()
    before = {h.filename for h in target.headers() if not h.filename.startswith(("team/", f"{LOGS_DIRNAME}/"))}
    written: list[str] = []
    for rel in store_files(source.root):
        try:
            data = read_bytes_limited(source.resolve(rel))
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            result.left.append(f"{rel}: not UTF-8 text (memdir doctor reports it)")
            continue
        except MemdirError as exc:
            result.left.append(f"{rel}: {exc.message}")
            continue
        except OSError as exc:
            result.left.append(f"{rel}: {exc.strerror}")
            continue
        destination = target.resolve(rel)
        name = rel
        if os.path.lexists(destination):
            try:
                same = read_bytes_limited(destination) == data
            except (OSError, MemdirError):
                same = False
            if same:
                result.already_there.append(rel)
                _delete_moved(source, rel, f"already in {target.root}", result)
                continue
            name = _free_name(target, rel, label)
        try:
            target.write_text(name, text)
        except MemdirError as exc:
            result.left.append(f"{rel}: {exc.message}")
            continue
        (result.moved if name == rel else result.kept_both).append(rel if name == rel else f"{rel} -> {name}")
        written.append(name)
        _delete_moved(source, rel, f"copied into {target.root}", result)
    result.indexed = list(target.add_missing_index_lines(written))
    result.near = _near(target, written, before)
    _remove_if_empty(source)
    return result


def _delete_moved(source: MemoryDir, rel: str, done: str, result: MoveResult) -> None:
    """Remove a memory from the stranded store once it is in the destination; when the store
    refuses (its index is read-only in daily-log mode), say what was done and why it stays."""
    try:
        source.delete(rel)
    except MemdirError as exc:
        result.left.append(f"{rel}: {done}; {exc.message}")


def _near(target: MemoryDir, written: Sequence[str], before: set[str]) -> list[str]:
    """The moved memories that may say what a memory already there says (memdir.writes.near):
    both are kept, the pair named for a person to merge or relate."""
    found = []
    for rel in written:
        try:
            memory = Memory.parse(read_bytes_limited(target.resolve(rel)).decode("utf-8"))
        except (OSError, UnicodeDecodeError, MemdirError):
            continue
        near = [n for n in near_memories(target, memory, exclude=target.resolve(rel)) if n.header.filename in before]
        if near:
            said = "says nearly word for word" if near[0].identical else "may say"
            found.append(f"{rel} {said} what {near[0].header.filename} says")
    return found


def _remove_if_empty(source: MemoryDir) -> None:
    """Take away the stranded store's index when it lists nothing any more (the folder stays: no
    session loads it, and it may hold Claude Code's own files)."""
    if store_files(source.root):
        return
    try:
        if os.path.isfile(source.entrypoint) and not source.index_text().strip():
            remove_file(source.entrypoint)
    except MemdirError:
        return
