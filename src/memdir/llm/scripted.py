"""A ChatModel that replays a script and records what it was asked: the test double for agents.

It goes through the same contract as the real adapters (JSON answers are parsed and checked
against the requested schema, failures raise the same exceptions), so an agent tested against a
script behaves the same against a provider. It never touches the network, so the switch that
forbids real model calls does not apply to it.

Script file format::

    {"responses": [
        {"text": "plain answer"},
        {"tool_calls": [{"name": "Write", "input": {"file_path": "a.md", "content": "..."}}]},
        {"json": {"selected_memories": ["a.md"]}},
        {"error": "timeout"}            # or "http" (with optional "status", "message"), or "garbage"
    ]}
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import ConfigError, ModelError, ModelOutputError, ModelTimeout
from memdir.llm.base import (
    ChatRequest,
    Completion,
    ToolCall,
    Usage,
    http_error,
    parse_json_text,
    validate_json_output,
)

if TYPE_CHECKING:
    from memdir.environment import Environment

__all__ = ["ScriptedModel", "load"]

_KEYS = {"text", "tool_calls", "json", "error", "status", "message", "stop_reason", "usage"}
_ERRORS = {"timeout", "http", "garbage"}
_USAGE_FIELDS = {f.name for f in fields(Usage)}


def _bad_script(where: str, problem: str) -> ConfigError:
    return ConfigError(
        f'model script {where}: {problem}; each response is an object with "text", "tool_calls" '
        '([{"name", "input"}]), "json" or "error" ("timeout", "http", "garbage")',
        rule="model-script",
        path=where,
    )


def _check_entry(entry: Mapping[str, object], where: str) -> None:
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise _bad_script(where, f"unknown keys {unknown!r}")
    if "text" in entry and not isinstance(entry["text"], str):
        raise _bad_script(where, '"text" must be a string')
    if "error" in entry and entry["error"] not in _ERRORS:
        raise _bad_script(where, f'"error" must be one of {sorted(_ERRORS)!r}')
    usage = entry.get("usage", {})
    if not isinstance(usage, Mapping) or not all(
        k in _USAGE_FIELDS and isinstance(v, int) and not isinstance(v, bool) for k, v in usage.items()
    ):
        raise _bad_script(where, f'"usage" must map some of {sorted(_USAGE_FIELDS)!r} to integers')
    calls = entry.get("tool_calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, Mapping) and isinstance(c.get("name"), str) and isinstance(c.get("input", {}), Mapping)
        for c in calls
    ):
        raise _bad_script(where, '"tool_calls" must be a list of {"name": str, "input": object}')


class ScriptedModel:
    """Replays ``responses`` in order, one per call; ``requests`` records every call made."""

    def __init__(self, responses: Sequence[Completion | Mapping[str, object]], *, spec: str = "scripted") -> None:
        for index, entry in enumerate(responses):
            if not isinstance(entry, Completion):
                _check_entry(entry, f"{spec} response #{index + 1}")
        self.spec = spec
        self.responses: tuple[Completion | Mapping[str, object], ...] = tuple(responses)
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedModel:
        file = Path(path)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(
                f"model script {file}: file not found; check the path in scripted:PATH.json",
                rule="model-script",
                path=str(file),
            ) from exc
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ConfigError(
                f"model script {file}: cannot read it as UTF-8 JSON ({exc}); fix the file",
                rule="model-script",
                path=str(file),
            ) from exc
        responses = data.get("responses") if isinstance(data, dict) else None
        if not isinstance(responses, list) or not all(isinstance(r, dict) for r in responses):
            raise _bad_script(str(file), 'expected {"responses": [ {...}, ... ]}')
        return cls(responses, spec=f"scripted:{file}")

    @property
    def remaining(self) -> int:
        return len(self.responses) - len(self.requests)

    def complete(self, request: ChatRequest) -> Completion:
        with self._lock:
            index = len(self.requests)
            self.requests.append(request)
        if index >= len(self.responses):
            raise ModelError(
                f"model {self.spec!r}: the script has {len(self.responses)} responses and all were used by "
                f"earlier calls (this is call #{index + 1}); add responses to the script",
                rule="model-script-exhausted",
            )
        entry = self.responses[index]
        if isinstance(entry, Completion):
            return self._with_json(entry, request)
        return self._with_json(self._replay(entry, index, request), request)

    async def acomplete(self, request: ChatRequest) -> Completion:
        return self.complete(request)

    def _replay(self, entry: Mapping[str, object], index: int, request: ChatRequest) -> Completion:
        error = entry.get("error")
        if error == "timeout":
            raise ModelTimeout(
                f"model {self.spec!r} (scripted response #{index + 1}) timed out after {request.timeout:g}s"
            )
        if error == "http":
            status = entry.get("status", 500)
            return_message = str(entry.get("message", "scripted server error"))
            raise http_error(
                self.spec,
                status if isinstance(status, int) else 500,
                return_message,
                key_env="the provider's API key variable",
                base_url=None,
            )
        if error == "garbage":
            raise ModelOutputError(
                f"model {self.spec!r} (scripted response #{index + 1}) answered something that is not "
                "what was asked for; retry, or use a model that supports structured output",
            )
        raw_calls = entry.get("tool_calls", [])
        calls = tuple(
            ToolCall(
                id=str(call.get("id", f"call_{index + 1}_{n + 1}")),
                name=str(call["name"]),
                input=dict(call.get("input", {})),
            )
            for n, call in enumerate(raw_calls if isinstance(raw_calls, list) else [])
        )
        usage = entry.get("usage")
        counts = {k: int(v) for k, v in usage.items()} if isinstance(usage, Mapping) else {}
        value = entry.get("json")
        text = entry.get("text")
        if text is None:
            text = json.dumps(value) if "json" in entry else ""
        stop = entry.get("stop_reason")
        return Completion(
            text=str(text),
            tool_calls=calls,
            usage=Usage(**counts),
            stop_reason=str(stop) if stop is not None else ("tool_use" if calls else "end_turn"),
            json=value,
        )

    @staticmethod
    def _with_json(completion: Completion, request: ChatRequest) -> Completion:
        """Give scripted answers the adapters' contract: ``json`` set and checked when a schema was asked."""
        schema = request.json_schema
        if schema is None:
            return completion
        value = completion.json if completion.json is not None else parse_json_text(completion.text)
        validate_json_output(value, schema)
        return Completion(
            text=completion.text,
            tool_calls=completion.tool_calls,
            usage=completion.usage,
            stop_reason=completion.stop_reason,
            json=value,
        )


def load(path: str, environment: Environment) -> ScriptedModel:
    """Registry factory for ``scripted:PATH.json``."""
    return ScriptedModel.from_file(path)
