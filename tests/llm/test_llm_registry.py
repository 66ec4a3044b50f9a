from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

import memdir.llm
from memdir.config import read_environment
from memdir.environment import Environment
from memdir.errors import ConfigError, ModelCallsForbidden, ModelUnavailable
from memdir.llm import (
    ChatModel,
    ChatRequest,
    Message,
    ScriptedModel,
    load_model,
    register_provider,
    registry,
    resolve_model_spec,
)
from memdir.llm.anthropic import AnthropicModel
from memdir.llm.openai import OpenAIModel
from memdir.llm.registry import known_providers


def test_an_unknown_provider_is_refused_listing_the_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        load_model("gemini:pro", read_environment({}))
    assert "unknown provider 'gemini'" in str(info.value)
    assert "anthropic:..., openai:..., scripted:..." in str(info.value)


@pytest.mark.parametrize("spec", ["claude-sonnet-4-6", "anthropic:", ""])
def test_a_spec_without_provider_and_model_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match="PROVIDER:MODEL"):
        load_model(spec, read_environment({}))


def test_a_registered_provider_is_used_for_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_providers", dict(registry._providers))
    seen: list[tuple[str, str | None]] = []

    def factory(rest: str, environment: Environment) -> ChatModel:
        seen.append((rest, environment.openai_api_key))
        return ScriptedModel([{"text": f"echo {rest}"}], spec=f"echo:{rest}")

    register_provider("echo", factory)
    assert "echo" in known_providers()
    model = load_model("echo:some/model:tag", read_environment({"OPENAI_API_KEY": "v"}))
    assert seen == [("some/model:tag", "v")]
    request = ChatRequest(system="", messages=(Message("user", "hi"),))
    assert model.complete(request).text == "echo some/model:tag"


def test_register_provider_refuses_a_prefix_with_a_colon() -> None:
    with pytest.raises(ConfigError):
        register_provider("a:b", lambda rest, environment: ScriptedModel([]))


def test_the_spec_comes_from_the_option_then_the_env_then_settings() -> None:
    from_env = "openai:gpt-4o-mini"
    assert resolve_model_spec("anthropic:claude-haiku-4-5", environment_value=from_env, settings_value="x:y") == (
        "anthropic:claude-haiku-4-5"
    )
    assert resolve_model_spec(None, environment_value=from_env, settings_value="x:y") == "openai:gpt-4o-mini"
    assert resolve_model_spec("", environment_value=" ", settings_value="x:y") == "x:y"
    assert resolve_model_spec(None) is None
    with pytest.raises(ConfigError, match=r"memdir\.model"):
        resolve_model_spec(None, settings_value=["anthropic:x"])


def test_the_env_var_spec_loads_that_model() -> None:
    environment = read_environment({"MEMDIR_MODEL": "openai:gpt-4o-mini", "OPENAI_API_KEY": "sk-test"})
    spec = resolve_model_spec(None, environment_value=environment.model)
    assert spec is not None
    model = load_model(spec, environment)
    assert isinstance(model, OpenAIModel)
    assert model.spec == "openai:gpt-4o-mini"


@pytest.mark.parametrize(
    ("spec", "env_var"),
    [("anthropic:claude-sonnet-4-6", "ANTHROPIC_API_KEY"), ("openai:gpt-4o-mini", "OPENAI_API_KEY")],
)
def test_a_missing_api_key_names_the_variable_to_set(spec: str, env_var: str) -> None:
    with pytest.raises(ModelUnavailable, match=f"set {env_var}"):
        load_model(spec, read_environment({}))


def test_an_openai_compatible_local_server_needs_no_key() -> None:
    model = load_model("openai:llama3.2", read_environment({"OPENAI_BASE_URL": "http://localhost:11434/v1"}))
    assert isinstance(model, OpenAIModel)
    assert model.base_url == "http://localhost:11434/v1"


@pytest.mark.parametrize(
    ("spec", "env"),
    [
        ("anthropic:claude-sonnet-4-6", {"ANTHROPIC_API_KEY": "sk-ant-test"}),
        (
            "openai:gpt-4o-mini",
            {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "https://llm.example.com/v1"},
        ),
    ],
)
def test_calls_to_a_hosted_provider_are_blocked_in_the_test_suite(spec: str, env: dict[str, str]) -> None:
    model = load_model(spec, read_environment(env))
    request = ChatRequest(system="", messages=(Message("user", "hi"),))
    with pytest.raises(ModelCallsForbidden):
        model.complete(request)
    with pytest.raises(ModelCallsForbidden):
        asyncio.run(model.acomplete(request))
    assert isinstance(model, AnthropicModel | OpenAIModel)
    model.close()


@pytest.mark.parametrize(("module", "extra"), [("anthropic", "anthropic"), ("openai", "openai")])
def test_a_missing_sdk_names_the_extra_to_install(module: str, extra: str) -> None:
    code = f"""
import sys
sys.modules[{module!r}] = None
from memdir.errors import ModelUnavailable
from memdir.config import read_environment
from memdir.llm import load_model
try:
    load_model({module + ":some-model"!r}, read_environment({{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}}))
except ModelUnavailable as exc:
    print(exc)
else:
    raise SystemExit("no error")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert f"pip install 'memdir[{extra}]'" in done.stdout


def test_importing_the_model_layer_loads_no_vendor_sdk() -> None:
    code = (
        "import sys, memdir.llm; "
        "print([m for m in sys.modules if m.split('.')[0] in ('anthropic', 'openai', 'httpx', 'httpx2')])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_the_public_surface_of_the_model_layer_is_pinned() -> None:
    assert sorted(memdir.llm.__all__) == sorted(
        [
            "FORBID_ENV_VAR",
            "MODEL_ENV_VAR",
            "SETTINGS_KEY",
            "ChatModel",
            "ChatRequest",
            "Completion",
            "Message",
            "ScriptedModel",
            "ToolCall",
            "ToolResult",
            "ToolSpec",
            "Usage",
            "forbid_real_model_calls",
            "load_model",
            "model_calls_forbidden",
            "register_provider",
            "resolve_model_spec",
            "validate_json_output",
        ]
    )
