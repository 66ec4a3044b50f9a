"""Tool descriptions live in prompts/ as one file per tool set, read by ``## heading``."""

import pytest

from memdir.templates import load_sections


@pytest.mark.parametrize("name", ["mcp_server", "file_tools", "memory_tools"])
def test_every_section_of_a_tool_set_has_its_text_and_the_note_above_is_not_sent(name):
    sections = load_sections(name)
    assert sections and all(text and "\n## " not in text for text in sections.values())
    assert not any("text under each heading" in text for text in sections.values())


def test_every_declared_tool_and_argument_has_its_words_and_the_words_are_all_used():
    import typing

    from memdir.tools.declared import AGENT_TOOLS, TOOLS, Arg
    from memdir.tools.toolbox import MemoryToolbox

    words = load_sections("memory_tools")
    assert [tool.name for tool in AGENT_TOOLS] == ["recall", "remember", "update", "forget"]
    used = {f"tool {tool.name}" for tool in TOOLS} | {"tool memory"}
    for tool in TOOLS:
        hints = typing.get_type_hints(getattr(MemoryToolbox, tool.method), include_extras=True)
        used |= {
            meta.about for hint in hints.values() for meta in getattr(hint, "__metadata__", ()) if isinstance(meta, Arg)
        }
    assert used == set(words)
