import asyncio
import json

import pytest

from memdir.config import resolve_config
from memdir.errors import ModelNotConfigured
from memdir.llm.scripted import ScriptedModel
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType


def make_session(tmp_path, **env):
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    environ = {"CLAUDE_CONFIG_DIR": str(tmp_path / "home"), "HOME": str(tmp_path), **env}
    return MemorySession(resolve_config(str(project), env=environ))


def test_the_section_is_built_once_and_rebuilt_after_clear_and_compact(tmp_path):
    session = make_session(tmp_path)
    first = session.system_prompt_section()
    assert first is not None and first is session.system_prompt_section()
    assert session.user_context() is None
    session.memory_dir.save(Memory(name="Role", description="Backend lead", type=MemoryType.USER, body=""))
    assert session.user_context() is None  # cached for the session
    session.compact()
    context = session.user_context()
    assert context is not None and "[Role](user_role.md)" in context
    session.clear()
    assert session.system_prompt_section() == first


def test_building_the_section_creates_the_directory(tmp_path):
    session = make_session(tmp_path)
    session.system_prompt_section()
    assert (tmp_path / "home" / "projects").is_dir()
    assert session.memory_dir.as_path().is_dir()


def test_disabled_memory_gives_no_section_and_no_recall(tmp_path):
    session = make_session(tmp_path, CLAUDE_CODE_DISABLE_AUTO_MEMORY="1")
    assert session.system_prompt_section() is None
    result = session.recall("what do you remember about me?")
    assert result.skipped is not None and "disabled" in result.skipped


def test_recall_dedups_across_turns_of_one_session(tmp_path):
    session = make_session(tmp_path)
    session.memory_dir.save(
        Memory(
            name="Freeze",
            description="Mobile release freeze on 2026-03-05",
            type=MemoryType.PROJECT,
            body="No API changes.",
        )
    )
    assert len(session.recall("when is the mobile release freeze?").memories) == 1
    assert session.recall("tell me about the mobile release freeze").memories == ()
    session.compact()
    assert len(session.recall("tell me about the mobile release freeze").memories) == 1


def test_lifting_the_scan_cap_makes_recall_cover_the_whole_store_through_the_derived_index(tmp_path):
    import json
    import os

    from memdir.store.index_db import IndexedMemoryDir

    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"memdir": {"scanCap": None}}))
    session = make_session(tmp_path)
    assert isinstance(session.memory_dir, IndexedMemoryDir)
    assert session.memory_dir.scan_cap is None
    for index in range(210):
        session.memory_dir.save(
            Memory(name=f"Note {index}", description=f"routine note number {index}", type=MemoryType.PROJECT, body="")
        )
    old = session.memory_dir.save(
        Memory(name="Kiwi", description="The staging database is called kiwi", type=MemoryType.REFERENCE, body="")
    )
    os.utime(old.path, (1_000_000, 1_000_000))  # the oldest of 211: outside a 200-file cap
    result = session.recall("which database is kiwi?")
    assert [m.file for m in result.memories] == ["reference_kiwi.md"]
    assert str(tmp_path / "home" / "memdir" / "index") in session.memory_dir.index.path


def test_the_model_comes_from_the_option_then_memdir_model_env_then_the_setting_and_is_built_once(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"memdir": {"model": "scripted:/s.json"}}), "utf-8")
    assert make_session(tmp_path).model_spec == "scripted:/s.json"
    assert make_session(tmp_path, MEMDIR_MODEL="scripted:/e.json").model_spec == "scripted:/e.json"
    config = make_session(tmp_path, MEMDIR_MODEL="scripted:/e.json").config
    assert MemorySession(config, model_spec="scripted:/o.json").model_spec == "scripted:/o.json"
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "hi"}]}), "utf-8")
    session = make_session(tmp_path, MEMDIR_MODEL=f"scripted:{script}")
    assert session.model is session.model and session.model.spec == f"scripted:{script}"


def test_without_a_model_the_session_says_how_to_configure_one_and_still_answers_what_needs_none(tmp_path):
    session = make_session(tmp_path)
    assert session.model_spec is None
    for build in (lambda: session.model, session.extractor):
        with pytest.raises(ModelNotConfigured) as caught:
            build()
        assert all(way in caught.value.message for way in ("--model", "MEMDIR_MODEL", "memdir.model"))
    assert session.session_notes("s1").model is None  # reading and compaction need no model
    assert not session.dream().ran  # not due: no model needed


def test_the_session_dreams_with_its_model_in_sync_and_async_loops(tmp_path):
    reports = []
    for name, answer in (("sync", "nothing to merge"), ("async", "still nothing")):
        (tmp_path / name).mkdir()
        session = MemorySession(make_session(tmp_path / name).config, model=ScriptedModel([{"text": answer}]))
        reports.append(session.dream(force=True) if name == "sync" else asyncio.run(session.adream(force=True)))
    assert [report.summary for report in reports] == ["nothing to merge", "still nothing"]
