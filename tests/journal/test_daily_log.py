import json
import threading
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.config import resolve_config
from memdir.errors import ConfigError, MemoryFormatError
from memdir.journal import append_log, list_logs
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir

TZ = timezone(timedelta(hours=-7))


def at(day, hour, minute=0):
    return lambda: datetime(2026, 3, day, hour, minute, tzinfo=TZ)


def test_bullets_go_to_the_local_days_file_and_a_new_day_starts_a_new_file(tmp_path):
    memory = MemoryDir(tmp_path / "mem")
    first = append_log(memory, "User prefers squash merges", now=at(9, 23, 50))
    second = append_log(memory, "Deploys freeze on Fridays", now=at(9, 23, 59))
    third = append_log(memory, "Rolled over", now=at(10, 0, 1))
    assert first.file == "logs/2026/03/2026-03-09.md" and first.created
    assert second.file == first.file and not second.created
    assert third.file == "logs/2026/03/2026-03-10.md" and third.created
    text = (tmp_path / "mem" / first.file).read_text(encoding="utf-8")
    assert text == "# 2026-03-09\n\n- 23:50 User prefers squash merges\n- 23:59 Deploys freeze on Fridays\n"
    assert list_logs(memory) == ["logs/2026/03/2026-03-09.md", "logs/2026/03/2026-03-10.md"]


def test_appends_never_rewrite_what_the_log_holds(tmp_path):
    memory = MemoryDir(tmp_path)
    entry = append_log(memory, "one", now=at(1, 8))
    path = tmp_path / entry.file
    path.write_text(path.read_text(encoding="utf-8") + "hand-written line without newline", encoding="utf-8")
    before = path.read_bytes()
    append_log(memory, "two\nwith detail\n\nand more", now=at(1, 9))
    after = path.read_bytes()
    assert after.startswith(before)
    assert after[len(before) :].decode("utf-8") == "\n- 09:00 two\n  with detail\n\n  and more\n"


def test_empty_and_oversized_entries_are_refused(tmp_path):
    memory = MemoryDir(tmp_path)
    with pytest.raises(MemoryFormatError):
        append_log(memory, "  \n ")
    with pytest.raises(MemoryFormatError):
        append_log(memory, "x" * 5000)


def test_concurrent_appends_keep_every_bullet_whole(tmp_path):
    memory = MemoryDir(tmp_path)
    barrier = threading.Barrier(8)

    def worker(n):
        barrier.wait(timeout=10)
        for k in range(5):
            append_log(memory, f"worker {n} entry {k} " + "x" * 200, now=at(2, 12))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    lines = (tmp_path / "logs/2026/03/2026-03-02.md").read_text(encoding="utf-8").splitlines()
    bullets = [line for line in lines if line.startswith("- ")]
    assert len(bullets) == 40
    assert all(line.endswith("x" * 200) for line in bullets)


def config_env(tmp_path, **extra):
    return {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"), **extra}


def test_daily_log_mode_is_a_setting_or_an_env_var_and_refuses_team_memory(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    assert not resolve_config(str(project), env=config_env(tmp_path)).daily_log
    assert resolve_config(str(project), env=config_env(tmp_path, MEMDIR_DAILY_LOG="1")).daily_log
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"memdir": {"dailyLog": True}}), "utf-8")
    assert resolve_config(str(project), env=config_env(tmp_path)).daily_log
    with pytest.raises(ConfigError) as error:
        resolve_config(str(project), env=config_env(tmp_path, MEMDIR_TEAM_SERVER="http://127.0.0.1:9"))
    assert "dailyLog" in error.value.message and "teamServer" in error.value.message


def test_in_daily_log_mode_the_prompt_is_the_log_variant_and_the_index_is_read_only(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    session = MemorySession(resolve_config(str(project), env=config_env(tmp_path, MEMDIR_DAILY_LOG="1")))
    section = session.system_prompt_section()
    assert section is not None and section.startswith("# auto memory\n")
    assert f"`{session.config.memory_dir}logs/YYYY/MM/YYYY-MM-DD.md`" in section
    assert "## What to log" in section and "## MEMORY.md" in section and "## Searching past context" in section
    assert "## How to save memories" not in section

    memory = session.memory_dir
    with pytest.raises(ConfigError) as refused:
        memory.save(Memory(name="Role", description="Backend lead", type=MemoryType.USER, body=""))
    assert refused.value.rule == "index-read-only"
    with pytest.raises(ConfigError):
        memory.write_text("MEMORY.md", "- [x](x.md) — y")
    with pytest.raises(ConfigError):
        memory.rewrite_index(lambda text: text + "x")
    saved = memory.save(Memory(name="Role", description="Backend lead", type=MemoryType.USER, body=""), index=False)
    assert not saved.index_changed and not memory.as_path().joinpath("MEMORY.md").exists()


def test_skip_index_drops_the_memory_md_section_of_the_log_prompt(tmp_path):
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"memdir": {"skipIndex": True}}), "utf-8")
    session = MemorySession(resolve_config(str(project), env=config_env(tmp_path, MEMDIR_DAILY_LOG="1")))
    section = session.system_prompt_section()
    assert section is not None and "## MEMORY.md" not in section and "## What to log" in section


def test_the_cli_appends_to_the_log(tmp_path, monkeypatch):
    runner = CliRunner()
    result = runner.invoke(cli, ["--memory-dir", str(tmp_path / "m"), "log", "--json", "Prefers tabs"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["created"] and data["file"].startswith("logs/") and data["line"].endswith(" Prefers tabs")
    piped = runner.invoke(cli, ["--memory-dir", str(tmp_path / "m"), "log", "-"], input="from stdin\n")
    assert piped.exit_code == 0
    assert "from stdin" in (tmp_path / "m" / data["file"]).read_text(encoding="utf-8")
