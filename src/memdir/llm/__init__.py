"""The model layer: one small ChatModel protocol, provider adapters behind a registry, a scripted double.

Vendor SDKs are imported only when a model of theirs is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.llm.base import (
        FORBID_ENV_VAR,
        ChatModel,
        ChatRequest,
        Completion,
        Message,
        ToolCall,
        ToolResult,
        ToolSpec,
        Usage,
        forbid_real_model_calls,
        model_calls_forbidden,
        validate_json_output,
    )
    from memdir.llm.registry import (
        MODEL_ENV_VAR,
        SETTINGS_KEY,
        load_model,
        register_provider,
        resolve_model_spec,
    )
    from memdir.llm.scripted import ScriptedModel

__all__ = [
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

_resolve = lazy_exports(
    __name__,
    {
        "FORBID_ENV_VAR": "memdir.llm.base",
        "ChatModel": "memdir.llm.base",
        "ChatRequest": "memdir.llm.base",
        "Completion": "memdir.llm.base",
        "Message": "memdir.llm.base",
        "ToolCall": "memdir.llm.base",
        "ToolResult": "memdir.llm.base",
        "ToolSpec": "memdir.llm.base",
        "Usage": "memdir.llm.base",
        "forbid_real_model_calls": "memdir.llm.base",
        "model_calls_forbidden": "memdir.llm.base",
        "validate_json_output": "memdir.llm.base",
        "MODEL_ENV_VAR": "memdir.llm.registry",
        "SETTINGS_KEY": "memdir.llm.registry",
        "load_model": "memdir.llm.registry",
        "register_provider": "memdir.llm.registry",
        "resolve_model_spec": "memdir.llm.registry",
        "ScriptedModel": "memdir.llm.scripted",
    },
)


def __getattr__(name: str) -> Any:
    return _resolve(name)
