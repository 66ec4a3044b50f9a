"""Claude through the official ``anthropic`` SDK (Messages API).

JSON answers use structured output (``output_config``); a server or proxy that refuses it with a
400 gets a forced call of a tool named after the schema instead, and the adapter remembers that
for later calls. The SDK is imported when a model is built, never when memdir is imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from memdir.environment import VARIABLES
from memdir.errors import ModelOutputError, ModelUnavailable
from memdir.llm.base import (
    ChatRequest,
    Completion,
    Message,
    ToolCall,
    Usage,
    parse_json_text,
    validate_json_output,
)
from memdir.llm.sdk_model import SdkChatModel

if TYPE_CHECKING:
    from memdir.environment import Environment

__all__ = ["DEFAULT_BASE_URL", "AnthropicModel", "load"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
_KEY_ENV = VARIABLES["anthropic_api_key"]

_Kwargs = dict[str, Any]


def _import_sdk() -> Any:
    try:
        return importlib.import_module("anthropic")
    except ImportError as exc:
        raise ModelUnavailable(
            "anthropic models need the anthropic SDK, which is not installed; run pip install 'memdir[anthropic]'",
        ) from exc


def _content(message: Message) -> list[dict[str, object]] | str:
    blocks: list[dict[str, object]] = [
        {
            "type": "tool_result",
            "tool_use_id": result.tool_call_id,
            "content": result.content,
            "is_error": result.is_error,
        }
        for result in message.tool_results
    ]
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    blocks.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.input)} for call in message.tool_calls
    )
    if not message.tool_results and not message.tool_calls:
        return message.text
    return blocks


def _tool_choice(choice: str | None) -> dict[str, str] | None:
    if choice is None:
        return None
    if choice in ("none", "any"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


class AnthropicModel(SdkChatModel):
    """A ChatModel backed by the Anthropic Messages API (or any server speaking it)."""

    _key_env = _KEY_ENV
    _sync_client = "Anthropic"
    _async_client = "AsyncAnthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        auth_token: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
    ) -> None:
        """``api_key`` (ANTHROPIC_API_KEY) or ``auth_token`` (ANTHROPIC_AUTH_TOKEN) authenticates;
        ``base_url`` (ANTHROPIC_BASE_URL) points the client at another server. Empty counts as unset."""
        self.spec = f"anthropic:{model}"
        self.model = model
        self._sdk = _import_sdk()
        api_key = api_key or None
        auth_token = auth_token or None
        if api_key is None and auth_token is None:
            raise ModelUnavailable(
                f"model {self.spec!r} needs an API key: set {_KEY_ENV} (or ANTHROPIC_AUTH_TOKEN), or "
                "choose another model with --model or MEMDIR_MODEL",
            )
        self.base_url = base_url or DEFAULT_BASE_URL
        self._client_args: _Kwargs = {
            "api_key": api_key,
            "auth_token": None if api_key else auth_token,
            "base_url": self.base_url,
            "max_retries": max_retries,
        }
        # None until a JSON call shows whether the server accepts output_config.
        self.structured_output: bool | None = None

    @staticmethod
    def _endpoint(client: Any) -> Any:
        return client.messages.create

    # -- one exchange, run by either driver --------------------------------------------------------

    def _exchange(self, request: ChatRequest) -> Generator[_Kwargs, object, Completion]:
        kwargs = self._base_kwargs(request)
        schema = request.json_schema
        if schema is None:
            return self._completion(self._check(request, (yield kwargs)))
        if self.structured_output is not False:
            structured = {
                **kwargs,
                "output_config": {"format": {"type": "json_schema", "schema": dict(schema)}},
            }
            outcome = yield structured
            if not self._is_bad_request(outcome):
                message = self._check(request, outcome)
                self.structured_output = True
                value = parse_json_text(self._text(message))
                return self._completion(message, json_value=validate_json_output(value, schema))
            self.structured_output = False
        tool = {
            "name": request.schema_name,
            "description": f"Give the answer as {request.schema_name}.",
            "input_schema": dict(schema),
        }
        forced = {
            **kwargs,
            "tools": [*kwargs.get("tools", []), tool],
            "tool_choice": {"type": "tool", "name": request.schema_name, "disable_parallel_tool_use": True},
        }
        message = self._check(request, (yield forced))
        for block in message.content:
            if block.type == "tool_use" and block.name == request.schema_name:
                value = validate_json_output(block.input, schema)
                return self._completion(message, json_value=value, hide_tool=request.schema_name)
        raise ModelOutputError(
            f"model {self.spec!r} did not call the forced {request.schema_name!r} tool "
            f"(stop_reason {message.stop_reason!r}); raise max_tokens if the answer was cut off, or retry",
            rule="model-output-json",
        )

    def _base_kwargs(self, request: ChatRequest) -> _Kwargs:
        kwargs: _Kwargs = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": m.role, "content": _content(m)} for m in request.messages],
            "timeout": request.timeout,
        }
        if request.system:
            kwargs["system"] = request.system
        if request.tools:
            kwargs["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
                for t in request.tools
            ]
        choice = _tool_choice(request.tool_choice)
        if choice is not None:
            kwargs["tool_choice"] = choice
        return kwargs

    def _is_bad_request(self, outcome: object) -> bool:
        return isinstance(outcome, self._sdk.BadRequestError)

    @staticmethod
    def _text(message: Any) -> str:
        return "".join(block.text for block in message.content if block.type == "text")

    def _completion(
        self, message: Any, *, json_value: object | None = None, hide_tool: str | None = None
    ) -> Completion:
        calls = tuple(
            ToolCall(id=block.id, name=block.name, input=dict(block.input))
            for block in message.content
            if block.type == "tool_use" and block.name != hide_tool
        )
        usage = message.usage
        return Completion(
            text=self._text(message),
            tool_calls=calls,
            usage=Usage(
                input_tokens=usage.input_tokens or 0,
                output_tokens=usage.output_tokens or 0,
                cache_read_input_tokens=usage.cache_read_input_tokens or 0,
                cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
            ),
            stop_reason=message.stop_reason,
            json=json_value,
        )


def load(model: str, environment: Environment) -> AnthropicModel:
    """Registry factory for ``anthropic:MODEL``."""
    return AnthropicModel(
        model,
        api_key=environment.anthropic_api_key,
        auth_token=environment.anthropic_auth_token,
        base_url=environment.anthropic_base_url,
    )
