"""Provider-neutral values and rules shared by every chat model.

Nothing here performs I/O or imports a vendor SDK: adapters translate these values to and from
their wire format, and the agents of memdir only ever see these types. The exchange driver lets an
adapter describe its request/fallback logic once, as a generator, and run it with a sync or an
async SDK call without writing the logic twice.
"""

from __future__ import annotations

import ipaddress
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from memdir.environment import VARIABLES
from memdir.errors import ModelCallsForbidden, ModelError, ModelOutputError, ModelTimeout

__all__ = [
    "FORBID_ENV_VAR",
    "ChatModel",
    "ChatRequest",
    "Completion",
    "Message",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "check_model_call_allowed",
    "forbid_real_model_calls",
    "forbids_model_calls",
    "http_error",
    "is_loopback_url",
    "map_sdk_error",
    "model_calls_forbidden",
    "parse_json_text",
    "validate_json_output",
]

FORBID_ENV_VAR = VARIABLES["forbid_model_calls"]
_FALSY = {"", "0", "false", "no", "off"}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: Mapping[str, object]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: Mapping[str, object]


@dataclass(frozen=True)
class ToolResult:
    tool_call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class Message:
    """One conversation turn.

    Tool calls belong to the assistant turn that made them and their results to the next user turn,
    which is how both wire formats pair them.
    """

    role: Literal["user", "assistant"]
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True)
class Usage:
    """Token counts. ``input_tokens`` excludes cache reads, as Anthropic reports it."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    """What a model answered. ``json`` is set, parsed and schema-checked, when a schema was asked for."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    stop_reason: str | None = None
    json: object | None = None


@dataclass(frozen=True)
class ChatRequest:
    """One model call. ``tool_choice``: None = model decides, "none", "any", or a tool name."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    json_schema: Mapping[str, object] | None = None
    schema_name: str = "output"
    max_tokens: int = 1024
    timeout: float = 60.0
    tool_choice: str | None = None


class ChatModel(Protocol):
    spec: str

    def complete(self, request: ChatRequest) -> Completion: ...

    async def acomplete(self, request: ChatRequest) -> Completion: ...


# --- the switch that keeps test suites away from paid, networked models -------------------------

_forbidden = False


def forbids_model_calls(value: str | None) -> bool:
    """Whether a value of MEMDIR_FORBID_MODEL_CALLS switches real model calls off: anything set but
    ``0``, ``false``, ``no`` or ``off``. The composition root (:func:`memdir.config.read_environment`)
    reads the variable and turns the switch on; nothing here reads the environment."""
    return value is not None and value.strip().lower() not in _FALSY


def model_calls_forbidden() -> bool:
    """True while the process-wide switch is on (:class:`forbid_real_model_calls`)."""
    return _forbidden


class forbid_real_model_calls:
    """Switch real model calls off (or back on) now; used with ``with``, the old state returns on exit."""

    def __init__(self, forbid: bool = True) -> None:
        global _forbidden
        self._previous = _forbidden
        _forbidden = forbid

    def __enter__(self) -> forbid_real_model_calls:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _forbidden
        _forbidden = self._previous


def is_loopback_url(url: str | None) -> bool:
    host = urlsplit(url).hostname if url else None
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_model_call_allowed(spec: str, base_url: str | None) -> None:
    """Refuse a real model call while the switch is on, unless it goes to a loopback address.

    A server on 127.0.0.1 is a wire-format test double or a local model: it costs nothing and no
    data leaves the machine, so the test suite can drive the real SDK clients against it while
    every call to a hosted provider stays blocked.
    """
    if _forbidden and not is_loopback_url(base_url):
        raise ModelCallsForbidden(
            f"model {spec!r}: real model calls are switched off ({FORBID_ENV_VAR}=1 or "
            "forbid_real_model_calls()); use a scripted:PATH.json model in tests, point the provider's "
            "base URL at a local server, or unset the switch",
        )


# --- JSON output checks --------------------------------------------------------------------------

_TYPE_CHECKS: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and math.isfinite(v) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _json_type_name(value: object) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPE_CHECKS[name](value):
            return name
    return type(value).__name__


def _check(value: object, schema: Mapping[str, object], where: str) -> None:
    expected = schema.get("type")
    if expected is not None:
        listed = [str(n) for n in expected] if isinstance(expected, list) else [str(expected)]
        names = [n for n in listed if n in _TYPE_CHECKS]
        if names and not any(_TYPE_CHECKS[n](value) for n in names):
            raise ModelOutputError(
                f"model output at {where}: expected {' or '.join(map(str, names))}, got "
                f"{_json_type_name(value)}; the model did not follow the JSON schema — retry, or use a "
                "model that supports structured output",
                rule="model-output-schema",
            )
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        raise ModelOutputError(f"model output at {where}: {value!r} is not one of {enum!r}", rule="model-output-schema")
    if isinstance(value, dict):
        properties = schema.get("properties")
        props: Mapping[str, object] = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        for key in required if isinstance(required, list) else []:
            if key not in value:
                raise ModelOutputError(
                    f"model output at {where}: required key {key!r} is missing", rule="model-output-schema"
                )
        if schema.get("additionalProperties") is False:
            extra = sorted(k for k in value if k not in props)
            if extra:
                raise ModelOutputError(
                    f"model output at {where}: unexpected keys {extra!r} (additionalProperties is false)",
                    rule="model-output-schema",
                )
        for key, sub in props.items():
            if key in value and isinstance(sub, Mapping):
                _check(value[key], sub, f"{where}.{key}")
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            for index, item in enumerate(value):
                _check(item, items, f"{where}[{index}]")


def validate_json_output(value: object, schema: Mapping[str, object]) -> object:
    """Check a parsed model answer against the subset of JSON Schema memdir's prompts use.

    Structured output is enforced by some servers and only suggested to others, so the answer is
    always checked here before an agent acts on it.
    """
    _check(value, schema, "$")
    return value


def parse_json_text(text: str, *, tolerant: bool = False) -> object:
    """Read a model's JSON answer.

    Strict for servers that enforce structured output. The tolerant read is the last resort for
    servers that only follow an instruction: it drops Markdown code fences and prose around the
    first JSON value, and the result still goes through :func:`validate_json_output`.
    """
    body = text.strip()
    try:
        return json.loads(body)
    except ValueError as exc:
        if not tolerant:
            raise ModelOutputError(
                f"model output is not valid JSON ({exc}): {_excerpt(body)}; retry, raise max_tokens if "
                "the answer was cut off, or use a model that supports structured output",
                rule="model-output-json",
            ) from exc
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if starts:
        try:
            value, _end = json.JSONDecoder().raw_decode(body, min(starts))
        except ValueError:
            pass
        else:
            return value
    raise ModelOutputError(
        f"model output holds no JSON value: {_excerpt(text)}; retry, or use a model that supports "
        "structured output (response_format json_schema or tool calls)",
        rule="model-output-json",
    )


def _excerpt(text: str, limit: int = 200) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


_STATUS_FIXES: dict[int, str] = {
    400: "the server rejected the request; check the model name and that it supports the features used",
    401: "the API key was refused; check {key_env}",
    403: "the API key may not use this model; check {key_env} and the account's permissions",
    404: "model or endpoint not found; check the model name in the spec and the base URL",
    408: "the server timed out; retry, or raise the timeout",
    413: "the request is too large; send less context",
    429: "rate limit or quota reached; wait and retry, or check the account's limits",
}


def http_error(spec: str, status: int, provider_message: str, *, key_env: str, base_url: str | None) -> ModelError:
    """Turn an HTTP failure into a ModelError naming the status, the provider's words and a fix."""
    fix = _STATUS_FIXES.get(status)
    if fix is None:
        fix = (
            "the provider had a server error; retry later"
            if status >= 500
            else "check the request and the provider's documentation"
        )
    where = f" at {base_url}" if base_url else ""
    return ModelError(
        f"model {spec!r}{where}: HTTP {status}: {provider_message or 'no message'}; {fix.format(key_env=key_env)}",
        rule="model-http",
    )


def _provider_message(body: object, fallback: str) -> str:
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return fallback


def map_sdk_error(
    sdk: Any, exc: BaseException, *, spec: str, key_env: str, base_url: str | None, timeout: float
) -> ModelError:
    """Translate an exception of the anthropic or openai SDK (both share one error tree) to memdir's.

    ``sdk`` is the imported SDK module, passed in so this module never imports a vendor package.
    """
    if isinstance(exc, sdk.APITimeoutError):
        return ModelTimeout(
            f"model {spec!r} did not answer within {timeout:g}s; raise the timeout, ask for fewer "
            f"max_tokens, or check the server at {base_url}",
        )
    if isinstance(exc, sdk.APIConnectionError):
        return ModelError(
            f"model {spec!r}: cannot reach {base_url} ({exc}); check the base URL and the network",
            rule="model-connection",
        )
    if isinstance(exc, sdk.APIStatusError):
        message = _provider_message(exc.body, str(exc))
        return http_error(spec, int(exc.status_code), message, key_env=key_env, base_url=base_url)
    if isinstance(exc, sdk.APIResponseValidationError):
        return ModelOutputError(
            f"model {spec!r}: the server at {base_url} answered in an unexpected format ({exc}); check "
            "that the base URL points at a compatible API",
        )
    return ModelError(f"model {spec!r}: {exc}")
