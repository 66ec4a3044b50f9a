"""Tool descriptions live in prompts/ as one file per tool set, read by ``## heading``."""

import pytest

from memdir.templates import load_sections


@pytest.mark.parametrize("name", ["mcp_server", "file_tools", "agent_tools"])
def test_every_section_of_a_tool_set_has_its_text_and_the_note_above_is_not_sent(name):
    sections = load_sections(name)
    assert sections and all(text and "\n## " not in text for text in sections.values())
    assert not any("text under each heading" in text for text in sections.values())


def test_the_agent_tools_read_the_same_descriptions_in_every_framework():
    from memdir.integrations.frameworks.agent_memory import TOOL_DESCRIPTIONS

    assert list(TOOL_DESCRIPTIONS) == ["recall", "remember", "update", "forget"]
    assert TOOL_DESCRIPTIONS["forget"] == load_sections("agent_tools")["tool forget"]
