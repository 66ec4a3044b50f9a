import json
import os
import stat

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.config import open_memory_dir, resolve_config
from memdir.errors import ConfigError, MemoryFormatError
from memdir.model.memory_type import FrontmatterLayout
from memdir.paths import sanitize_path
from memdir.releases import (
    NEWEST,
    RELEASE_TABLE,
    IndexOverflow,
    ReleaseHint,
    Version,
    detect_release,
    rules_for,
)
from memdir.settings_table import release_setting

NESTED_FILE = """---
name: deploy-window
description: Deploys happen only in the Tuesday window
metadata:
  type: project
  node_type: memory
  originSessionId: 0b6c1e9e-5f1a-4c1e-9a52-3f2a9d1c7e11
  modified: 2026-11-20T10:00:00.000Z
---

Deploy only Tuesday 10:00-12:00 UTC.
"""


def test_versions_compare_numerically_and_parse_claude_version_output():
    assert Version.parse("2.1.330 (Claude Code)") == Version(2, 1, 330)
    assert Version(2, 1, 88) < Version(2, 1, 330)
    assert Version.parse("no version here") is None


def test_each_release_gets_the_rules_of_the_rows_up_to_it():
    old = rules_for(Version(2, 1, 88))
    assert old.frontmatter is FrontmatterLayout.FLAT
    assert old.session_compaction and old.hook_context_reminders and not old.stamps_modified
    assert old.index_overflow is IndexOverflow.TRUNCATE_WARNING and not old.memory_stores
    middle = rules_for(Version(2, 1, 214))
    assert middle.stamps_modified and middle.memory_stores and middle.index_limits_skip_comments
    assert middle.frontmatter is FrontmatterLayout.FLAT
    new = rules_for(Version(2, 1, 330))
    assert new.frontmatter is FrontmatterLayout.NESTED
    assert not new.session_compaction and not new.hook_context_reminders and not new.dated_memory_headers
    assert new.links_memories and not middle.links_memories and not old.links_memories
    assert rules_for(Version(3, 0, 0)) == new
    assert rules_for(Version(1, 0, 0)) == old
    assert RELEASE_TABLE[-1][0] == NEWEST


def transcript_line(version):
    return json.dumps({"type": "user", "version": version, "message": {"role": "user", "content": "hi"}})


def test_the_setting_wins_then_the_hook_input_then_the_transcript(tmp_path):
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(transcript_line("2.1.200") + "\n" + '{"type":"summary"}\n', encoding="utf-8")
    by_setting = detect_release(ReleaseHint(setting=Version(2, 1, 88), reported="2.1.300", transcript=str(transcript)))
    assert by_setting.version == Version(2, 1, 88) and "setting" in by_setting.source
    assert detect_release(ReleaseHint(setting=NEWEST)).version == NEWEST
    assert detect_release(ReleaseHint(reported="2.1.300", transcript=str(transcript))).version == Version(2, 1, 300)
    from_transcript = detect_release(ReleaseHint(transcript=str(transcript)))
    assert from_transcript.version == Version(2, 1, 200) and str(transcript) in from_transcript.source


def test_the_newest_transcript_of_the_project_names_the_release(tmp_path):
    folder = tmp_path / "projects"
    folder.mkdir()
    (folder / "old.jsonl").write_text(transcript_line("2.1.88") + "\n", encoding="utf-8")
    (folder / "new.jsonl").write_text(transcript_line("2.1.330") + "\n", encoding="utf-8")
    os.utime(folder / "old.jsonl", (1_000_000, 1_000_000))
    assert detect_release(ReleaseHint(transcripts_dir=str(folder))).version == Version(2, 1, 330)


def test_claude_on_path_is_asked_for_its_version(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text("#!/bin/sh\necho '2.1.88 (Claude Code)'\n", encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    found = detect_release(ReleaseHint(path=str(bin_dir)))
    assert found.version == Version(2, 1, 88) and found.source == "claude --version"
    assert detect_release(ReleaseHint(path=str(bin_dir), run_claude=False)).version == NEWEST


def test_without_any_claude_code_the_newest_rules_apply(tmp_path):
    found = detect_release(ReleaseHint(transcripts_dir=str(tmp_path / "none"), path=str(tmp_path)))
    assert found.version == NEWEST and "newest" in found.source
    notes = tmp_path / ".claude.json"
    notes.write_text(json.dumps({"lastReleaseNotesSeen": "2.1.172"}), encoding="utf-8")
    assert detect_release(ReleaseHint(claude_json=str(notes))).version == Version(2, 1, 172)


def test_a_bad_version_setting_is_a_clear_error():
    assert release_setting("2.1.88") == Version(2, 1, 88) and release_setting("newest") == NEWEST
    assert release_setting(None) is None
    with pytest.raises(ConfigError, match=r'memdir\.claudeCodeVersion must be a version such as "2\.1\.88"'):
        release_setting("latest-ish")


@pytest.fixture
def run(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    project = tmp_path / "repo"
    project.mkdir()

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, ["--project", str(project), *args], input=input, catch_exceptions=False)

    def use(version):
        home.mkdir(exist_ok=True)
        (home / "settings.json").write_text(json.dumps({"memdir": {"claudeCodeVersion": version}}), encoding="utf-8")

    invoke.use = use
    invoke.mem = lambda: resolve_config(str(project)).memory_dir
    invoke.project = str(project)
    invoke.home = home
    return invoke


def read(run, name):
    with open(os.path.join(run.mem(), name), encoding="utf-8") as handle:
        return handle.read()


ADD = ("add", "--type", "feedback", "--name", "Real DB")
ADD += ("--description", "Tests hit a real DB", "--body", "Never mock.")


def test_memdir_writes_the_flat_layout_for_claude_code_2_1_88(run):
    run.use("2.1.88")
    assert run(*ADD).exit_code == 0
    text = read(run, "feedback_real_db.md")
    assert text == "---\nname: Real DB\ndescription: Tests hit a real DB\ntype: feedback\n---\n\nNever mock.\n"


def test_memdir_writes_the_nested_layout_with_a_modified_stamp_for_claude_code_2_1_330(run):
    run.use("2.1.330")
    assert run(*ADD).exit_code == 0
    text = read(run, "feedback_real_db.md")
    head, _, body = text.partition("---\n\n")
    assert head.startswith("---\nname: Real DB\ndescription: Tests hit a real DB\nmetadata:\n  node_type: memory\n")
    assert "  node_type: memory\n  type: feedback\n  modified: " in head and "\ntype:" not in head
    assert body == "Never mock.\n"


def test_memdir_writes_modified_at_the_top_level_from_2_1_214(run):
    run.use("2.1.214")
    assert run(*ADD).exit_code == 0
    text = read(run, "feedback_real_db.md")
    assert "\ntype: feedback\nmodified: " in text and "metadata" not in text


def test_the_newest_transcript_decides_the_layout_when_nothing_is_set(run):
    folder = run.home / "projects" / sanitize_path(run.project)
    folder.mkdir(parents=True)
    (folder / "s1.jsonl").write_text(transcript_line("2.1.88") + "\n", encoding="utf-8")
    assert run(*ADD).exit_code == 0
    assert "\ntype: feedback\n" in read(run, "feedback_real_db.md")


def test_list_show_and_doctor_see_the_type_of_a_file_claude_code_2_1_330_wrote(run):
    mem = run.mem()
    os.makedirs(mem, exist_ok=True)
    with open(os.path.join(mem, "deploy-window.md"), "w", encoding="utf-8") as handle:
        handle.write(NESTED_FILE)
    with open(os.path.join(mem, "MEMORY.md"), "w", encoding="utf-8") as handle:
        handle.write("- [Deploy window](deploy-window.md) — Deploys happen only in the Tuesday window\n")
    listed = json.loads(run("list", "--json").stdout)
    assert [(m["file"], m["type"]) for m in listed] == [("deploy-window.md", "project")]
    assert run("show", "deploy-window.md").stdout.startswith(NESTED_FILE.rstrip("\n"))
    doctor = run("doctor", "--json")
    assert "missing-type" not in doctor.stdout


def long_index(lines):
    return "".join(f"- [Memory {n}](memory_{n}.md) — one line about memory number {n}\n" for n in range(lines))


def test_a_save_that_would_push_memory_md_past_the_limit_keeps_the_memory_without_a_line_for_2_1_210(run):
    run.use("2.1.210")
    mem = run.mem()
    os.makedirs(mem, exist_ok=True)
    index = os.path.join(mem, "MEMORY.md")
    with open(index, "w", encoding="utf-8") as handle:
        handle.write(long_index(200))
    result = CliRunner().invoke(cli, ["--project", run.project, *ADD])
    assert result.exit_code == 0, result.output
    assert "without an index line" in result.output
    assert "rule index-too-long" in result.output and "200 lines" in result.output
    assert os.path.exists(os.path.join(mem, "feedback_real_db.md"))
    with open(index, encoding="utf-8") as handle:
        assert handle.read() == long_index(200)


def test_a_model_write_of_memory_md_past_the_limit_is_refused_for_2_1_210(run):
    run.use("2.1.210")
    mem = run.mem()
    os.makedirs(mem, exist_ok=True)
    index = os.path.join(mem, "MEMORY.md")
    with open(index, "w", encoding="utf-8") as handle:
        handle.write(long_index(200))
    directory = open_memory_dir(resolve_config(run.project))
    with pytest.raises(MemoryFormatError) as refused:
        directory.write_text("MEMORY.md", long_index(201))
    assert refused.value.rule == "index-too-long"
    with open(index, encoding="utf-8") as handle:
        assert handle.read() == long_index(200)


def test_before_2_1_210_an_over_long_index_is_written_and_claude_code_loads_its_head(run):
    run.use("2.1.88")
    mem = run.mem()
    os.makedirs(mem, exist_ok=True)
    with open(os.path.join(mem, "MEMORY.md"), "w", encoding="utf-8") as handle:
        handle.write(long_index(200))
    assert run(*ADD).exit_code == 0
    assert read(run, "MEMORY.md").endswith("(feedback_real_db.md) — Tests hit a real DB\n")


def test_from_2_1_211_frontmatter_and_html_comments_do_not_count_against_the_limit(run):
    mem = run.mem()
    os.makedirs(mem, exist_ok=True)
    comment = "<!--\n" + "a note for humans\n" * 50 + "-->\n"
    with open(os.path.join(mem, "MEMORY.md"), "w", encoding="utf-8") as handle:
        handle.write("---\nowner: team\n---\n" + comment + long_index(190))
    run.use("2.1.210")
    counted = CliRunner().invoke(cli, ["--project", run.project, *ADD])
    assert "without an index line" in counted.output
    run.use("2.1.211")
    assert "without an index line" not in run(*ADD, "--force").output
    assert read(run, "MEMORY.md").endswith("(feedback_real_db.md) — Tests hit a real DB\n")


def test_memory_stores_parse_paths_objects_and_derived_mounts():
    from memdir.memory_stores import MemoryStore, parse_memory_stores

    stores = parse_memory_stores('["/v1/stores/team.docs", {"path": "/v1/s/x", "mode": "ro", "mount": "handbook"}]')
    assert stores == (
        MemoryStore(path="/v1/stores/team.docs", mount="team-docs", read_only=False),
        MemoryStore(path="/v1/s/x", mount="handbook", read_only=True),
    )
    assert parse_memory_stores("") == () and parse_memory_stores(None) == ()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("{not json", "is not valid JSON"),
        ('{"path": "/a"}', "is not a JSON list"),
        ('[{"path": "/a", "mode": "rx"}]', "has mode 'rx'"),
        ('["/a/x", "/b/x"]', "mounts two stores at team/x"),
        ('[{"path": "/a", "mount": "no/slash"}]', "a mount matches"),
        ('["relative"]', 'needs a "path" starting with /'),
    ],
)
def test_a_bad_memory_stores_value_is_one_clear_error(value, problem):
    from memdir.memory_stores import parse_memory_stores

    with pytest.raises(ConfigError, match="CLAUDE_MEMORY_STORES") as info:
        parse_memory_stores(value)
    assert problem in info.value.message


def test_memdir_refuses_to_write_into_a_read_only_store_mount(run, monkeypatch):
    monkeypatch.setenv("CLAUDE_MEMORY_STORES", '[{"path": "/v1/stores/handbook", "mode": "ro"}]')
    args = (*ADD, "--file", "team/handbook/feedback_real_db.md")
    run.use("2.1.172")
    refused = CliRunner().invoke(cli, ["--project", run.project, *args])
    assert refused.exit_code != 0 and "rule read-only-store" in refused.output
    assert not os.path.exists(os.path.join(run.mem(), "team", "handbook", "feedback_real_db.md"))
    run.use("2.1.171")  # before memory stores existed, the folder is an ordinary one
    assert run(*args).exit_code == 0
