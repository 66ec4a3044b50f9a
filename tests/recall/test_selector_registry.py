import json

from memdir.config import resolve_config
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall import registry
from memdir.recall.analysis_file import AnalysisFile
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.registry import SelectorInputs, build_selector, selector_kinds
from memdir.recall.selector_protocol import Selection, SelectionRequest
from memdir.store.index_db import IndexedMemoryDir


def config_for(tmp_path, settings):
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"memdir": settings}), encoding="utf-8")
    return resolve_config(
        str(project), memory_dir=str(tmp_path / "mem"), env={"CLAUDE_CONFIG_DIR": str(home), "HOME": str(tmp_path)}
    )


class Newest:
    """A selector that surfaces the newest candidate, whatever the query."""

    name = "newest"

    def select(self, request: SelectionRequest) -> Selection:
        files = sorted(request.candidates, key=lambda h: -h.mtime_ms)[:1]
        return Selection(files=tuple(h.filename for h in files), selector=self.name)


def test_a_kind_added_to_the_table_is_what_the_setting_builds(tmp_path, monkeypatch):
    monkeypatch.setitem(registry._selectors, "newest", registry.SelectorKind("newest", lambda inputs: Newest()))
    config = config_for(tmp_path, {"selector": "newest"})
    session = MemorySession(config)
    session.memory_dir.save(
        Memory(name="Deploys", description="How the api is deployed", type=MemoryType.PROJECT, body="x"),
        file="deploy.md",
    )
    result = session.recall("anything at all, really")
    assert result.selector == "newest"
    assert [m.file for m in result.memories] == ["deploy.md"]
    assert "newest" in selector_kinds()


def test_the_lexical_selector_is_called_lexical():
    assert LexicalSelector.name == "lexical"
    assert build_selector("lexical").name == "lexical"


def test_the_derived_index_is_the_selectors_cache_and_the_only_index_object(tmp_path):
    config = config_for(tmp_path, {"derivedIndex": True, "selector": "lexical"})
    session = MemorySession(config)
    assert isinstance(session.memory_dir, IndexedMemoryDir)
    selector = session.selector
    assert isinstance(selector, LexicalSelector)
    assert selector.index.cache is session.memory_dir.index


def test_caches_are_passed_in_not_discovered(tmp_path):
    config = config_for(tmp_path, {"selector": "lexical", "derivedIndex": False})
    session = MemorySession(config)
    assert session.index is None
    cache = session.selector.index.cache
    assert isinstance(cache, AnalysisFile)  # without the derived index, the analyses live in a file
    assert cache.path.startswith(config.config_home)
    marker = object()
    assert build_selector("lexical", SelectorInputs(analyses=marker)).index.cache is marker  # type: ignore[arg-type]
