"""Recall in Chinese, Japanese, Korean and mixed Chinese–English, through every way in: the CLI,
the MCP server over real stdio, and the Claude Code hook."""

import json
import os
import sys

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from memdir.cli import cli
from memdir.config import open_memory_dir, read_environment, resolve_config
from memdir.integrations.hooks.events import run_hook
from memdir.llm import FORBID_ENV_VAR
from memdir.paths import sanitize_path

# language -> (memories as (type, name, description, body), a question that paraphrases the first)
STORES = {
    "zh": (
        [
            (
                "feedback",
                "集成测试用真实数据库",
                "集成测试必须连接真实的数据库，禁止使用mock",
                "上次 mock 掩盖了迁移失败。",
            ),
            ("feedback", "代码审查规则", "审查时先看测试再看实现", "评审要先确认覆盖。"),
            ("project", "支付服务发布冻结", "支付服务周五发布前冻结，合并需要负责人批准", "保护季度结算。"),
        ],
        "我应该怎么写集成测试？",
    ),
    "ja": (
        [
            (
                "feedback",
                "結合テストは本物のDB",
                "結合テストでは本物のデータベースに接続し、モックは使わない",
                "モックで移行の失敗を見逃した。",
            ),
            (
                "project",
                "決済サービスのリリース凍結",
                "決済サービスは金曜リリースのため木曜からコード凍結",
                "請求処理を守るため。",
            ),
            ("feedback", "コミット前にリンター", "コミット前に必ずruffとmypyを実行する", "CIが落ちるから。"),
        ],
        "結合テストでデータベースをモックしてもいい？",
    ),
    "ko": (
        [
            (
                "feedback",
                "통합 테스트는 실제 DB",
                "통합 테스트는 반드시 실제 데이터베이스에 연결한다",
                "목이 마이그레이션 오류를 숨겼다.",
            ),
            (
                "project",
                "결제 서비스 릴리스 동결",
                "결제 서비스는 금요일 배포라 목요일부터 코드 동결",
                "분기 정산 보호.",
            ),
            ("feedback", "커밋 전에 린터 실행", "커밋하기 전에 항상 ruff와 mypy를 돌린다", "CI가 거부한다."),
        ],
        "통합 테스트에서 데이터베이스는 어떻게 해야 해?",
    ),
    "mix": (
        [
            ("feedback", "CI 挂了先看日志", "CI 失败先看 GitHub Actions 的 log，不要直接 rerun", "盲目重跑浪费队列。"),
            ("feedback", "PR description 要短", "PR description 写短点：改了啥、怎么 test", "reviewer 不看长文。"),
            ("project", "payment release freeze", "支付 service 周五 release，周四 code freeze", "季度结算。"),
        ],
        "帮我把这个PR的CI修一下",
    ),
}
LANGUAGES = sorted(STORES)


def add_all(invoke, language):
    files = []
    for kind, name, description, body in STORES[language][0]:
        result = invoke("add", "--type", kind, "--name", name, "--description", description, "--body", body)
        assert result.exit_code == 0, result.output
        files.append(os.path.basename(result.stdout.strip()))
    return files


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cli_saves_each_memory_under_its_own_name_and_recalls_it_from_a_paraphrase(tmp_path, monkeypatch, language):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    mem = tmp_path / "mem"

    def invoke(*args):
        return CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], catch_exceptions=False)

    files = add_all(invoke, language)
    assert len(set(files)) == len(files) == len(STORES[language][0])
    assert all(name != f"{kind}_memory.md" for name, (kind, *_) in zip(files, STORES[language][0], strict=True))
    recalled = invoke("recall", "--json", STORES[language][1])
    assert recalled.exit_code == 0, recalled.output
    surfaced = [os.path.basename(item["path"]) for item in json.loads(recalled.stdout)["memories"]]
    assert files[0] in surfaced


def test_the_issue_examples_work(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    mem = tmp_path / "mem"

    def invoke(*args):
        return CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], catch_exceptions=False)

    add_all(invoke, "zh")
    assert (mem / "feedback_集成测试用真实数据库.md").is_file()
    assert (mem / "feedback_代码审查规则.md").is_file()
    asked = invoke("recall", "我应该怎么写集成测试？")
    assert "single-word" not in asked.output and "集成测试必须连接真实的数据库" in asked.stdout
    lexical = invoke("recall", "支付 发布", "--selector", "lexical")
    assert "支付服务周五发布前冻结" in lexical.stdout


def test_the_mcp_server_over_stdio_remembers_and_recalls_in_every_language(tmp_path, env):
    mem = tmp_path / "mem"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir.cli", "--memory-dir", str(mem), "mcp"],
        env={**env, FORBID_ENV_VAR: "1", "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(tmp_path),
    )

    async def main():
        saved, recalled = {}, {}
        with anyio.fail_after(60):
            async with Client(params) as client:
                for language in LANGUAGES:
                    memories, query = STORES[language]
                    saved[language] = []
                    for kind, name, description, body in memories:
                        args = {"type": kind, "name": name, "description": description, "body": body}
                        result = await client.call_tool("remember", args)
                        saved[language].append(result.structured_content["file"])
                    recalled[language] = await client.call_tool("recall", {"query": query})
        return saved, recalled

    saved, recalled = anyio.run(main)
    every = [file for files in saved.values() for file in files]
    assert len(set(every)) == len(every)
    for language in LANGUAGES:
        first_body = STORES[language][0][0][3]
        assert first_body in recalled[language].content[0].text, language


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_prompt_hook_surfaces_the_memory_a_sentence_without_spaces_asks_about(tmp_path, env, language):
    project = os.path.realpath(tmp_path / "repo")
    os.makedirs(project)
    directory = open_memory_dir(resolve_config(project, env=env))
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType

    for kind, name, description, body in STORES[language][0]:
        directory.save(Memory(name=name, description=description, type=MemoryType(kind), body=body))
    folder = tmp_path / "claude" / "projects" / sanitize_path(project)
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / "s1.jsonl"
    transcript.write_text('{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}\n')
    data = {"session_id": "s1", "transcript_path": str(transcript), "cwd": project, "prompt": STORES[language][1]}
    result = run_hook("user-prompt-submit", data, environment=read_environment(env))
    context = result.output["hookSpecificOutput"]["additionalContext"]
    assert STORES[language][0][0][3] in context
