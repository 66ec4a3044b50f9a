"""Which instruction files (CLAUDE.md and friends) reach an agent, in which order, and why.

The order is Claude Code's, because later files weigh more with the model: managed policy, the
user's own files, then the project's files from the filesystem root down to the working directory
(so the most specific instructions come last), extra ``--add-dir`` directories, and finally the
memory indexes. Each file is followed by the files it ``@include``s, depth first.

Trust follows the files' origin: a repository's files may only include files inside the working
directory unless the user approved external includes in a settings file the repository does not
control (local, user, policy or flag settings; never the checked-in ``.claude/settings.json``).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from memdir.config import MemoryConfig
from memdir.containment import dirname_lexical, join_lexical, spell_lexical, spell_real, within
from memdir.envflags import env_truthy
from memdir.environment import VARIABLES
from memdir.instructions.files import (
    InstructionFile,
    InstructionType,
    SkippedFile,
    parse_instruction_text,
    read_instruction_file,
)
from memdir.instructions.globs import glob_matches
from memdir.instructions.includes import extract_include_paths, is_text_file
from memdir.paths import auto_mem_entrypoint, find_canonical_git_root, find_git_root
from memdir.settings import Settings, Source, default_managed_dir
from memdir.settings_table import CLAUDE_MD_EXCLUDES, claude_setting

__all__ = [
    "DISABLE_CLAUDE_MDS_ENV",
    "EXTERNAL_INCLUDES_KEY",
    "MAX_INCLUDE_DEPTH",
    "InstructionChain",
    "load_instruction_files",
    "load_instructions",
]

MAX_INCLUDE_DEPTH = 5
EXTERNAL_INCLUDES_KEY = "hasClaudeMdExternalIncludesApproved"
DISABLE_CLAUDE_MDS_ENV = VARIABLES["disable_claude_mds"]
_EXCLUDABLE = frozenset({InstructionType.USER, InstructionType.PROJECT, InstructionType.LOCAL})


@dataclass(frozen=True)
class InstructionChain:
    """The loaded files in context order, the conditional rules held back, and what was skipped."""

    files: tuple[InstructionFile, ...]
    conditional: tuple[InstructionFile, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    disabled: str | None = None

    def rules_for(self, touched: str) -> list[InstructionFile]:
        """The conditional rules that would be attached when ``touched`` (a file path) is used."""
        target = spell_lexical(os.path.abspath(touched))
        return [rule for rule in self.conditional if _rule_matches(rule, target)]


def _rule_matches(rule: InstructionFile, target: str) -> bool:
    """gitignore-style matching of ``paths:`` globs against the path relative to the rule's base."""
    base = rule.base_dir or "/"
    if not within(target, base):
        return False
    rel = os.path.relpath(target, base).replace(os.sep, "/")
    candidates = [rel]
    parts = rel.split("/")
    candidates.extend("/".join(parts[:n]) for n in range(1, len(parts)))
    for pattern in rule.globs:
        anchored = pattern.lstrip("/")
        if "/" not in anchored.rstrip("/") and not pattern.startswith("/"):
            anchored = "**/" + anchored
        anchored = anchored.rstrip("/")
        if any(glob_matches(candidate, [anchored]) for candidate in candidates):
            return True
    return False


def _excludes(settings: Settings) -> tuple[str, ...]:
    """``claudeMdExcludes`` as patterns, plus the real-path form of absolute ones (``/tmp`` links)."""
    settings_value = claude_setting(settings, CLAUDE_MD_EXCLUDES)
    if not isinstance(settings_value, list):
        return ()
    patterns = [p.replace("\\", "/") for p in settings_value if p]
    for pattern in list(patterns):
        if not pattern.startswith("/"):
            continue
        glob_at = min((pattern.index(c) for c in "*?{[" if c in pattern), default=len(pattern))
        directory = dirname_lexical(pattern[:glob_at])
        real = os.path.realpath(directory)
        if real != directory and os.path.exists(directory):
            patterns.append(real + pattern[len(directory) :])
    return tuple(patterns)


@dataclass
class _Loader:
    cwd: str
    home: str
    excludes: tuple[str, ...]
    processed: set[str] = field(default_factory=set)
    skipped: list[SkippedFile] = field(default_factory=list)
    conditional: list[InstructionFile] = field(default_factory=list)

    def _excluded(self, path: str, type_: InstructionType) -> bool:
        return type_ in _EXCLUDABLE and bool(self.excludes) and glob_matches(path, self.excludes)

    def process(
        self,
        path: str,
        type_: InstructionType,
        reason: str,
        include_external: bool,
        *,
        depth: int = 0,
        parent: str | None = None,
        base_dir: str | None = None,
    ) -> list[InstructionFile]:
        path = spell_lexical(path)
        resolved = os.path.realpath(path)
        if path in self.processed or resolved in self.processed:
            if parent is not None:
                self.skipped.append(SkippedFile(path, "already-loaded", "already in the chain (or a cycle)", parent))
            return []
        if depth >= MAX_INCLUDE_DEPTH:
            self.skipped.append(SkippedFile(path, "depth", f"includes nest deeper than {MAX_INCLUDE_DEPTH}", parent))
            return []
        if self._excluded(path, type_):
            self.skipped.append(SkippedFile(path, "excluded", "matches claudeMdExcludes", parent))
            return []
        self.processed.update({path, resolved})
        if not is_text_file(path):
            if os.path.isfile(resolved):
                self.skipped.append(SkippedFile(path, "not-text", "not a text file extension", parent))
            return []
        raw = read_instruction_file(path, resolved)
        if raw is None:
            return []
        parsed = parse_instruction_text(raw, type_)
        if not parsed.content.strip():
            return []
        file = InstructionFile(
            path=path,
            type=type_,
            content=parsed.content,
            reason=reason if parent is None else f"included by {parent}",
            included_from=parent,
            globs=parsed.globs,
            base_dir=base_dir if parsed.globs else None,
            raw=raw,
        )
        result = [file]
        for include in extract_include_paths(parsed.body, os.path.dirname(resolved), home=self.home):
            if not include_external and not (
                within(include, self.cwd) and within(os.path.realpath(include), os.path.realpath(self.cwd))
            ):
                self.skipped.append(
                    SkippedFile(
                        include,
                        "external-include",
                        f"outside {self.cwd}; approve with {EXTERNAL_INCLUDES_KEY} in local or user settings",
                        path,
                    )
                )
                continue
            result.extend(
                self.process(include, type_, reason, include_external, depth=depth + 1, parent=path, base_dir=base_dir)
            )
        return result

    def rules(
        self, rules_dir: str, type_: InstructionType, reason: str, include_external: bool, base_dir: str
    ) -> list[InstructionFile]:
        """Unconditional ``*.md`` rules under ``rules_dir`` (recursively, symlinks followed once)."""
        return self._rules(rules_dir, type_, reason, include_external, base_dir, set())

    def _rules(
        self,
        rules_dir: str,
        type_: InstructionType,
        reason: str,
        include_external: bool,
        base_dir: str,
        visited: set[str],
    ) -> list[InstructionFile]:
        real_dir = os.path.realpath(rules_dir)
        if rules_dir in visited or real_dir in visited:
            return []
        visited.update({rules_dir, real_dir})
        try:
            names = sorted(os.listdir(real_dir))
        except OSError:
            return []
        result: list[InstructionFile] = []
        for name in names:
            entry = os.path.realpath(join_lexical(rules_dir, name))
            if os.path.isdir(entry):
                result.extend(self._rules(entry, type_, reason, include_external, base_dir, visited))
            elif os.path.isfile(entry) and name.endswith(".md"):
                loaded = self.process(entry, type_, reason, include_external, base_dir=base_dir)
                if loaded and loaded[0].conditional:
                    self.conditional.append(loaded[0])
                else:
                    result.extend(loaded)
        return result


def _project_dirs(cwd: str) -> list[str]:
    """Every directory from just below the filesystem root down to ``cwd``, outermost first."""
    dirs = []
    current = cwd
    while dirname_lexical(current) != current:
        dirs.append(current)
        current = dirname_lexical(current)
    return list(reversed(dirs))


def load_instructions(
    config: MemoryConfig,
    *,
    cwd: str | None = None,
    add_dirs: Sequence[str] = (),
    disabled_sources: Collection[Source] = (),
    managed_dir: str | None = None,
    include_external: bool | None = None,
) -> InstructionChain:
    """Load the whole instruction chain for a session started in ``cwd`` (the project root by default).

    ``disabled_sources`` switches off the file types of disabled settings sources (user, project,
    local); ``include_external`` overrides the approval read from settings. The switches of the
    environment (bare mode, no CLAUDE.md files, ``--add-dir`` files) come from ``config.environment``.
    """
    environment = config.environment
    if env_truthy(environment.disable_claude_mds):
        return InstructionChain(files=(), disabled=f"{DISABLE_CLAUDE_MDS_ENV} is set")
    origin = spell_real(cwd or config.project_root)
    settings = config.settings
    approved = settings.first_trusted(EXTERNAL_INCLUDES_KEY) is True
    external = approved if include_external is None else include_external
    loader = _Loader(
        cwd=origin,
        home=environment.home,
        excludes=_excludes(settings),
    )
    files: list[InstructionFile] = []
    bare = env_truthy(environment.simple)

    if not bare:
        managed = managed_dir or default_managed_dir(environment.managed_dir)
        files += loader.process(join_lexical(managed, "CLAUDE.md"), InstructionType.MANAGED, "managed policy", external)
        files += loader.rules(
            join_lexical(managed, ".claude", "rules"), InstructionType.MANAGED, "managed rule", external, origin
        )
        if Source.USER not in disabled_sources:
            home = config.config_home
            files += loader.process(join_lexical(home, "CLAUDE.md"), InstructionType.USER, "user instructions", True)
            files += loader.rules(join_lexical(home, "rules"), InstructionType.USER, "user rule", True, origin)
        files += _project_files(loader, origin, external, disabled_sources)

    if bare or env_truthy(environment.additional_directories_claude_md):
        for directory in add_dirs:
            root = spell_real(directory)
            why = f"--add-dir {root}"
            files += loader.process(join_lexical(root, "CLAUDE.md"), InstructionType.PROJECT, why, external)
            files += loader.process(join_lexical(root, ".claude", "CLAUDE.md"), InstructionType.PROJECT, why, external)
            files += loader.rules(join_lexical(root, ".claude", "rules"), InstructionType.PROJECT, why, external, root)

    if config.enabled:
        files += _index_file(auto_mem_entrypoint(config.memory_dir), InstructionType.AUTO_MEM, "auto memory index")
    if config.team_enabled:
        files += _index_file(join_lexical(config.team_dir, "MEMORY.md"), InstructionType.TEAM_MEM, "team memory index")
    return InstructionChain(files=tuple(files), conditional=tuple(loader.conditional), skipped=tuple(loader.skipped))


def _project_files(
    loader: _Loader, origin: str, external: bool, disabled_sources: Collection[Source]
) -> list[InstructionFile]:
    git_root = find_git_root(origin)
    canonical = find_canonical_git_root(origin)
    nested_worktree = (
        git_root is not None and canonical is not None and git_root != canonical and within(git_root, canonical)
    )
    files: list[InstructionFile] = []
    for directory in _project_dirs(origin):
        skip_project = (
            nested_worktree
            and canonical is not None
            and git_root is not None
            and within(directory, canonical)
            and not within(directory, git_root)
        )
        if Source.PROJECT not in disabled_sources and not skip_project:
            why = f"project instructions in {directory}"
            files += loader.process(join_lexical(directory, "CLAUDE.md"), InstructionType.PROJECT, why, external)
            files += loader.process(
                join_lexical(directory, ".claude", "CLAUDE.md"), InstructionType.PROJECT, why, external
            )
            files += loader.rules(
                join_lexical(directory, ".claude", "rules"),
                InstructionType.PROJECT,
                f"project rule in {directory}",
                external,
                directory,
            )
        if Source.LOCAL not in disabled_sources:
            files += loader.process(
                join_lexical(directory, "CLAUDE.local.md"),
                InstructionType.LOCAL,
                f"local instructions in {directory}",
                external,
            )
    return files


def _index_file(path: str, type_: InstructionType, reason: str) -> list[InstructionFile]:
    """A ``MEMORY.md`` entrypoint: no includes, no exclusion, truncated like the index always is."""
    raw = read_instruction_file(path, path)
    if raw is None:
        return []
    content = parse_instruction_text(raw, type_).content
    if not content.strip():
        return []
    return [InstructionFile(path=path, type=type_, content=content, reason=reason, raw=raw)]


def load_instruction_files(
    config: MemoryConfig,
    *,
    cwd: str | None = None,
    add_dirs: Sequence[str] = (),
    disabled_sources: Collection[Source] = (),
    managed_dir: str | None = None,
    include_external: bool | None = None,
) -> list[InstructionFile]:
    """The loaded files of :func:`load_instructions`, in context order."""
    chain = load_instructions(
        config,
        cwd=cwd,
        add_dirs=add_dirs,
        disabled_sources=disabled_sources,
        managed_dir=managed_dir,
        include_external=include_external,
    )
    return list(chain.files)
