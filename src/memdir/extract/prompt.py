"""The extraction agent's prompt (SPEC §7.5), assembled from package-data templates.

The system prompt holds, in order: the opener (job, tools, turn strategy, stay within the
messages), the existing-memory manifest when there is one, the remember/forget rule, the memory
types (private only, or combined with scopes when team memory is on), what not to save (plus the
no-secrets rule for team memory) and how to save. The conversation itself goes into the user
message, so the system prompt is the same for every run over an unchanged store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memdir.conversation import ConversationMessage, render_conversation
from memdir.templates import frontmatter_type, render_template

__all__ = ["ExtractionPromptConfig", "build_conversation_message", "build_extraction_prompt"]


@dataclass(frozen=True)
class ExtractionPromptConfig:
    memory_dir: str  # with a trailing separator
    team_dir: str | None = None  # set when team memory is on: the combined variant
    skip_index: bool = False
    max_turns: int = 5
    nested_frontmatter: bool = False  # the release keeps a memory's type under metadata: (2.1.330)
    links: bool = False  # the release asks for [[name]] links between related memories (2.1.330)


def build_extraction_prompt(cfg: ExtractionPromptConfig, *, manifest: str, message_count: int) -> str:
    team = cfg.team_dir is not None
    variables = {"memoryDir": cfg.memory_dir, "teamDir": cfg.team_dir or ""}
    blocks = [
        render_template(
            "extract_opener", messageCount=str(message_count), maxTurns=str(cfg.max_turns), memoryDir=cfg.memory_dir
        )
    ]
    if manifest.strip():
        blocks.append(render_template("extract_existing", manifest=manifest))
    blocks.append(render_template("extract_remember"))
    where = render_template("extract_expires_nested") if cfg.nested_frontmatter else ""
    blocks.append(render_template("extract_current", expiresWhere=where))
    if cfg.links:
        blocks.append(render_template("memory_links"))
    if team:
        blocks.append(render_template("scope_combined", **variables))
    blocks.append(render_template("types_combined" if team else "types_individual"))
    secrets_bullet = render_template("team_secrets") if team else ""
    blocks.append(render_template("what_not_to_save", teamBullet=secrets_bullet))
    type_field = frontmatter_type(nested=cfg.nested_frontmatter)
    if cfg.skip_index:
        blocks.append(render_template("how_to_save_skip_index", typeField=type_field))
    else:
        blocks.append(
            render_template("how_to_save_combined" if team else "how_to_save", **variables, typeField=type_field)
        )
    return "\n\n".join(blocks) + "\n"


def build_conversation_message(messages: Sequence[ConversationMessage], *, message_count: int, today: str) -> str:
    """The user message of a run: the new messages as plain text, with today's date for relative dates."""
    return render_template(
        "extract_conversation",
        today=today,
        messageCount=str(message_count),
        conversation=render_conversation(messages) or "(no text in these messages)",
    )
