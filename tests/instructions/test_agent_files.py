"""Which AGENTS.md (Codex CLI) and GEMINI.md (Gemini CLI) files load in a project, shown beside CLAUDE.md."""

import json
import subprocess

from click.testing import CliRunner

from memdir.cli import cli
from memdir.config import resolve_config
from memdir.instructions.agent_files import agent_instruction_files


def layout(tmp_path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    work = repo / "services" / "api"
    for folder in (home / ".codex", home / ".gemini", work / "handlers", work / "node_modules" / "x", work / ".cache"):
        folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    files = {
        home / ".codex" / "AGENTS.md": "user codex",
        home / ".codex" / "AGENTS.override.md": "user override",
        repo / "AGENTS.md": "repo rules",
        work / "AGENTS.md": "api rules",
        home / ".gemini" / "GEMINI.md": "user gemini",
        repo / "GEMINI.md": "repo gemini",
        work / "handlers" / "GEMINI.md": "below",
        work / "node_modules" / "x" / "GEMINI.md": "never",
        work / ".cache" / "GEMINI.md": "never",
        repo / "CLAUDE.md": "claude rules",
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return home, repo, work


def test_each_cli_loads_its_own_files_from_the_user_and_the_project_in_its_order(tmp_path):
    home, repo, work = layout(tmp_path)
    config = resolve_config(str(work), env={"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    found = [(f.agent, f.scope, f.path) for f in agent_instruction_files(config)]
    assert found == [
        ("codex", "user", str(home / ".codex" / "AGENTS.override.md")),
        ("codex", "project", str(repo / "AGENTS.md")),
        ("codex", "project", str(work / "AGENTS.md")),
        ("gemini", "user", str(home / ".gemini" / "GEMINI.md")),
        ("gemini", "project", str(repo / "GEMINI.md")),
        ("gemini", "below", str(work / "handlers" / "GEMINI.md")),
    ]


def test_gemini_reads_the_file_names_its_settings_give(tmp_path):
    home, repo, work = layout(tmp_path)
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").write_text(json.dumps({"context": {"fileName": ["AGENTS.md"]}}), "utf-8")
    config = resolve_config(str(work), env={"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    gemini = [f.path for f in agent_instruction_files(config) if f.agent == "gemini"]
    assert gemini == [str(repo / "AGENTS.md"), str(work / "AGENTS.md")]


def test_memdir_instructions_lists_them_after_the_claude_md_chain_and_changes_none(tmp_path):
    home, repo, work = layout(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.md")}
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    shown = CliRunner().invoke(cli, ["--project", str(work), "instructions"], env=env)
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines.index("Codex CLI loads:") > next(i for i, line in enumerate(lines) if "CLAUDE.md" in line)
    assert f"  2. [project] {repo / 'AGENTS.md'} (10 chars) - instructions between the project root" in shown.output
    assert "Gemini CLI loads:" in lines
    listed = json.loads(CliRunner().invoke(cli, ["--project", str(work), "instructions", "--json"], env=env).output)
    assert {
        "path": str(work / "handlers" / "GEMINI.md"),
        "type": "gemini-below",
        "agent": "gemini",
        "chars": 5,
    } in listed
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.md")} == before
