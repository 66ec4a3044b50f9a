"""The model layer: one small ChatModel protocol, provider adapters behind a registry, a scripted double.

Vendor SDKs are imported only when a model of theirs is built.
"""

from __future__ import annotations

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
