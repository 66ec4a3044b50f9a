"""The memory section of an agent's system prompt, and the index delivered as user context.

The system-prompt section tells the model how memory works (SPEC §5.2) and never contains the
index itself; the index reaches the model separately as the AutoMem block of the user context
(§10.3), truncated to 200 lines / 25,000 characters (§3.2). Keeping the two apart lets the
section stay byte-stable for the prompt cache while the index changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memdir.model.frontmatter import parse_frontmatter
from memdir.model.index import truncate_entrypoint_content
from memdir.model.markdown import strip_block_html_comments
from memdir.model.markup import neutralise
from memdir.templates import frontmatter_type, render_template

__all__ = [
    "AUTO_MEM_DESCRIPTION",
    "TEAM_MEM_DESCRIPTION",
    "PromptConfig",
    "build_memory_lines",
    "build_memory_prompt",
    "memory_index_block",
    "render_user_context",
]

# Claude Code's own labels for the index blocks of the user context (SPEC §10.3), kept as data: the
# block must read byte for byte as Claude Code's, so both tools put the same text before the model.
AUTO_MEM_DESCRIPTION = " (user's auto-memory, persists across conversations)"
TEAM_MEM_DESCRIPTION = " (shared team memory, synced across the organization)"


@dataclass(frozen=True)
class PromptConfig:
    """Everything the memory section depends on; equal configs give byte-identical sections."""

    memory_dir: str  # with a trailing separator
    team_dir: str | None = None  # set when team memory is on: selects the combined variant
    display_name: str = "auto memory"
    extra_guidelines: tuple[str, ...] = ()
    skip_index: bool = False
    search_past_context: bool = True
    transcripts_dir: str | None = None  # <configHome>/projects/<sanitized cwd>/
    shell_search: bool = False  # describe searches as grep commands instead of Grep tool calls
    daily_log: bool = False  # long-lived session: append to daily logs, MEMORY.md read-only
    nested_frontmatter: bool = False  # the release keeps a memory's type under metadata: (2.1.330)


def _search_hint(directory: str, glob: str, shell: bool) -> str:
    name = "search_with_grep_command" if shell else "search_with_grep_tool"
    return render_template(name, directory=directory, glob=glob)


def _searching_section(cfg: PromptConfig) -> str:
    transcripts = cfg.transcripts_dir or "the session transcripts directory"
    return render_template(
        "searching",
        memorySearch=_search_hint(cfg.memory_dir, "*.md", cfg.shell_search),
        transcriptSearch=_search_hint(transcripts, "*.jsonl", cfg.shell_search),
    )


def _daily_log_lines(cfg: PromptConfig) -> list[str]:
    """The daily-log variant: append to today's log, leave the index to the nightly dream."""
    blocks = [
        render_template("daily_log", memoryDir=cfg.memory_dir),
        render_template("what_not_to_save", teamBullet=""),
    ]
    if not cfg.skip_index:
        blocks.append(render_template("daily_log_index"))
    blocks.extend(cfg.extra_guidelines)
    if cfg.search_past_context:
        blocks.append(_searching_section(cfg))
    return blocks


def build_memory_lines(cfg: PromptConfig) -> list[str]:
    """The section as a list of blocks, in the order of SPEC §5.2."""
    if cfg.daily_log:
        return _daily_log_lines(cfg)
    team = cfg.team_dir is not None
    variables = {"memoryDir": cfg.memory_dir, "teamDir": cfg.team_dir or ""}
    title = "# Memory" if team and cfg.display_name == "auto memory" else f"# {cfg.display_name}"
    blocks = [title, render_template("intro_combined" if team else "intro", **variables)]
    if team:
        blocks.append(render_template("scope_combined", **variables))
    blocks.append(render_template("types_combined" if team else "types_individual"))
    blocks.append(render_template("what_not_to_save", teamBullet=render_template("team_secrets") if team else ""))
    type_field = frontmatter_type(nested=cfg.nested_frontmatter)
    if cfg.skip_index:
        blocks.append(render_template("how_to_save_skip_index", typeField=type_field))
    else:
        blocks.append(
            render_template("how_to_save_combined" if team else "how_to_save", **variables, typeField=type_field)
        )
    blocks.append(render_template("when_to_access_combined" if team else "when_to_access"))
    blocks.append(render_template("before_recommending"))
    blocks.append(render_template("persistence"))
    blocks.extend(cfg.extra_guidelines)
    if cfg.search_past_context:
        blocks.append(_searching_section(cfg))
    return blocks


def build_memory_prompt(cfg: PromptConfig) -> str:
    return "\n\n".join(build_memory_lines(cfg)) + "\n"


def memory_index_block(index_path: str, raw: str, *, team: bool = False) -> str | None:
    """The user-context block for one ``MEMORY.md``: frontmatter and block comments dropped,
    truncated as §3.2, its tags neutralised (a line cannot close the block it sits in), or None
    when nothing is left to show."""
    _, content = parse_frontmatter(raw)
    content = strip_block_html_comments(content)
    if not content.strip():
        return None
    truncated = neutralise(truncate_entrypoint_content(content).content)
    if team:
        truncated = f'<team-memory-content source="shared">\n{truncated}\n</team-memory-content>'
        description = TEAM_MEM_DESCRIPTION
    else:
        description = AUTO_MEM_DESCRIPTION
    return f"Contents of {index_path}{description}:\n\n{truncated}"


def render_user_context(blocks: Sequence[str]) -> str | None:
    """Wrap instruction and index blocks as the meta user message that carries them to the model.

    The frame (the reminder tag, its first line and the ``# claudeMd`` heading) is Claude Code's
    (SPEC §10.3) and stays here as data, byte for byte; the words around the blocks are ours."""
    if not blocks:
        return None
    body = render_template("user_context", blocks="\n\n".join(blocks))
    return (
        "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n"
        f"# claudeMd\n{body}\n</system-reminder>"
    )
