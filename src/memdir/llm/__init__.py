"""The model layer: one small ChatModel protocol, provider adapters behind a registry, a scripted double.

Vendor SDKs are imported only when a model of theirs is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.llm.base import FORBID_ENV_VAR as FORBID_ENV_VAR
    from memdir.llm.base import ChatModel as ChatModel
    from memdir.llm.base import ChatRequest as ChatRequest
    from memdir.llm.base import Completion as Completion
    from memdir.llm.base import Message as Message
    from memdir.llm.base import ToolCall as ToolCall
    from memdir.llm.base import ToolResult as ToolResult
    from memdir.llm.base import ToolSpec as ToolSpec
    from memdir.llm.base import Usage as Usage
    from memdir.llm.base import forbid_real_model_calls as forbid_real_model_calls
    from memdir.llm.base import model_calls_forbidden as model_calls_forbidden
    from memdir.llm.base import validate_json_output as validate_json_output
    from memdir.llm.registry import MODEL_ENV_VAR as MODEL_ENV_VAR
    from memdir.llm.registry import SETTINGS_KEY as SETTINGS_KEY
    from memdir.llm.registry import load_model as load_model
    from memdir.llm.registry import register_provider as register_provider
    from memdir.llm.registry import resolve_model_spec as resolve_model_spec
    from memdir.llm.scripted import ScriptedModel as ScriptedModel

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.llm.base": [
            "FORBID_ENV_VAR",
            "ChatModel",
            "ChatRequest",
            "Completion",
            "Message",
            "ToolCall",
            "ToolResult",
            "ToolSpec",
            "Usage",
            "forbid_real_model_calls",
            "model_calls_forbidden",
            "validate_json_output",
        ],
        "memdir.llm.registry": [
            "MODEL_ENV_VAR",
            "SETTINGS_KEY",
            "load_model",
            "register_provider",
            "resolve_model_spec",
        ],
        "memdir.llm.scripted": ["ScriptedModel"],
    },
)
