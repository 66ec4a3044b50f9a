"""OpenAI and every server that speaks Chat Completions (vLLM, Ollama, llama.cpp) via the ``openai`` SDK.

Local servers differ in how they honour JSON requests, so a JSON call walks down a ladder until a
rung works: ``response_format`` json_schema, then a forced function call, then a plain reply read
tolerantly. The rung that worked is remembered for the model's later calls. Every answer is still
checked against the schema.
"""

from __future__ import annotations

import importlib
import importlib.resources
import json
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

from memdir.environment import VARIABLES
from memdir.errors import ModelOutputError, ModelUnavailable
from memdir.llm.base import (
    ChatRequest,
    Completion,
    ToolCall,
    Usage,
    parse_json_text,
    validate_json_output,
)
from memdir.llm.sdk_model import SdkChatModel

if TYPE_CHECKING:
    from memdir.environment import Environment

__all__ = ["DEFAULT_BASE_URL", "OpenAIModel", "load"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_KEY_ENV = VARIABLES["openai_api_key"]
_NO_KEY = "not-needed"

_Kwargs = dict[str, Any]

# JSON modes, in the order they are tried.
RESPONSE_FORMAT, FORCED_TOOL, PLAIN_TEXT = "response_format", "forced_tool", "plain_text"
_LADDER = (RESPONSE_FORMAT, FORCED_TOOL, PLAIN_TEXT)


def _import_sdk() -> Any:
    try:
        return importlib.import_module("openai")
    except ImportError as exc:
        raise ModelUnavailable(
            "openai models need the openai SDK, which is not installed; run pip install 'memdir[openai]'",
        ) from exc


def _json_instruction(schema: Mapping[str, object]) -> str:
    template = (importlib.resources.files("memdir") / "prompts" / "json_reply.md").read_text(encoding="utf-8")
    return template.replace("{{schema}}", json.dumps(schema, indent=2, sort_keys=True)).strip()


def _messages(request: ChatRequest, system: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    if system:
        out.append({"role": "system", "content": system})
    for message in request.messages:
        for result in message.tool_results:
            content = f"Error: {result.content}" if result.is_error else result.content
            out.append({"role": "tool", "tool_call_id": result.tool_call_id, "content": content})
        if message.role == "assistant":
            entry: dict[str, object] = {"role": "assistant", "content": message.text or None}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(dict(call.input))},
                    }
                    for call in message.tool_calls
                ]
            out.append(entry)
        elif message.text or not message.tool_results:
            out.append({"role": "user", "content": message.text})
    return out


def _function(name: str, description: str, schema: Mapping[str, object]) -> dict[str, object]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": dict(schema)},
    }


def _tool_choice(choice: str | None) -> object:
    if choice is None:
        return None
    if choice == "none":
        return "none"
    if choice == "any":
        return "required"
    return {"type": "function", "function": {"name": choice}}


class OpenAIModel(SdkChatModel):
    """A ChatModel backed by Chat Completions at OPENAI_BASE_URL (OpenAI itself when unset)."""

    _key_env = _KEY_ENV
    _sync_client = "OpenAI"
    _async_client = "AsyncOpenAI"

    def __init__(
        self, model: str, *, api_key: str | None = None, base_url: str | None = None, max_retries: int = 2
    ) -> None:
        """``api_key`` is OPENAI_API_KEY, ``base_url`` OPENAI_BASE_URL (a local server needs no key).
        Empty counts as unset."""
        self.spec = f"openai:{model}"
        self.model = model
        self._sdk = _import_sdk()
        custom_url = base_url or None
        api_key = api_key or None
        if api_key is None and custom_url is None:
            raise ModelUnavailable(
                f"model {self.spec!r} needs an API key: set {_KEY_ENV}, or set OPENAI_BASE_URL to a "
                "local server (vLLM, Ollama, llama.cpp), or choose another model with --model or "
                "MEMDIR_MODEL",
            )
        self.base_url = custom_url or DEFAULT_BASE_URL
        # OpenAI itself wants max_completion_tokens; local servers still read max_tokens.
        self._tokens_field = "max_tokens" if custom_url else "max_completion_tokens"
        self._client_args: _Kwargs = {
            "api_key": api_key or _NO_KEY,
            "base_url": self.base_url,
            "max_retries": max_retries,
        }
        self.json_mode: str | None = None

    @staticmethod
    def _endpoint(client: Any) -> Any:
        return client.chat.completions.create

    # -- one exchange, run by either driver --------------------------------------------------------

    def _exchange(self, request: ChatRequest) -> Generator[_Kwargs, object, Completion]:
        schema = request.json_schema
        if schema is None:
            return self._completion(self._check(request, (yield self._kwargs(request))))
        start = _LADDER.index(self.json_mode) if self.json_mode else 0
        for mode in _LADDER[start:]:
            outcome = yield self._json_kwargs(request, schema, mode)
            if mode != PLAIN_TEXT and isinstance(outcome, self._sdk.BadRequestError):
                continue
            completion = self._completion(self._check(request, outcome))
            value, hide = self._json_answer(request, schema, mode, completion)
            self.json_mode = mode
            return Completion(
                text=completion.text,
                tool_calls=tuple(c for c in completion.tool_calls if c.name != hide),
                usage=completion.usage,
                stop_reason=completion.stop_reason,
                json=validate_json_output(value, schema),
            )
        raise AssertionError("the plain-text rung always returns or raises")

    def _json_answer(
        self, request: ChatRequest, schema: Mapping[str, object], mode: str, completion: Completion
    ) -> tuple[object, str | None]:
        if mode == FORCED_TOOL:
            for call in completion.tool_calls:
                if call.name == request.schema_name:
                    return dict(call.input), call.name
            # Some servers (llama.cpp) treat a named tool_choice as "auto" and answer in text.
            return parse_json_text(completion.text, tolerant=True), None
        if completion.stop_reason == "length":
            raise ModelOutputError(
                f"model {self.spec!r} ran out of tokens before finishing its JSON answer; raise max_tokens",
                rule="model-output-json",
            )
        return parse_json_text(completion.text, tolerant=mode == PLAIN_TEXT), None

    def _json_kwargs(self, request: ChatRequest, schema: Mapping[str, object], mode: str) -> _Kwargs:
        if mode == RESPONSE_FORMAT:
            kwargs = self._kwargs(request)
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": dict(schema), "strict": True},
            }
            return kwargs
        if mode == FORCED_TOOL:
            kwargs = self._kwargs(request)
            tool = _function(request.schema_name, f"Give the answer as {request.schema_name}.", schema)
            kwargs["tools"] = [*kwargs.get("tools", []), tool]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": request.schema_name}}
            return kwargs
        system = "\n\n".join(part for part in (request.system, _json_instruction(schema)) if part)
        return self._kwargs(request, system=system)

    def _kwargs(self, request: ChatRequest, *, system: str | None = None) -> _Kwargs:
        kwargs: _Kwargs = {
            "model": self.model,
            "messages": _messages(request, request.system if system is None else system),
            self._tokens_field: request.max_tokens,
            "timeout": request.timeout,
        }
        if request.tools:
            kwargs["tools"] = [_function(t.name, t.description, t.input_schema) for t in request.tools]
        choice = _tool_choice(request.tool_choice)
        if choice is not None:
            kwargs["tool_choice"] = choice
        return kwargs

    def _completion(self, response: Any) -> Completion:
        if not response.choices:
            raise ModelOutputError(f"model {self.spec!r} returned no choices; retry", rule="model-output")
        choice = response.choices[0]
        message = choice.message
        if getattr(message, "refusal", None):
            raise ModelOutputError(f"model {self.spec!r} refused: {message.refusal}", rule="model-refusal")
        calls = tuple(self._tool_call(call) for call in message.tool_calls or ())
        usage = response.usage
        cached = 0
        if usage is not None and usage.prompt_tokens_details is not None:
            cached = usage.prompt_tokens_details.cached_tokens or 0
        return Completion(
            text=message.content or "",
            tool_calls=calls,
            usage=Usage(
                input_tokens=max((usage.prompt_tokens or 0) - cached, 0) if usage else 0,
                output_tokens=(usage.completion_tokens or 0) if usage else 0,
                cache_read_input_tokens=cached,
            ),
            stop_reason=choice.finish_reason,
        )

    def _tool_call(self, call: Any) -> ToolCall:
        arguments = call.function.arguments or "{}"
        try:
            value = json.loads(arguments)
        except ValueError as exc:
            raise ModelOutputError(
                f"model {self.spec!r} called {call.function.name!r} with arguments that are not JSON "
                f"({exc}); retry, or use a model with reliable tool calling",
                rule="model-output-json",
            ) from exc
        if not isinstance(value, dict):
            raise ModelOutputError(
                f"model {self.spec!r} called {call.function.name!r} with {type(value).__name__} arguments "
                "instead of a JSON object; retry, or use a model with reliable tool calling",
                rule="model-output-json",
            )
        return ToolCall(id=call.id, name=call.function.name, input=value)


def load(model: str, environment: Environment) -> OpenAIModel:
    """Registry factory for ``openai:MODEL``."""
    return OpenAIModel(model, api_key=environment.openai_api_key, base_url=environment.openai_base_url)
