"""Lets the integration tests reuse the wire-format test server of the model-layer tests."""

from __future__ import annotations

import sys
from pathlib import Path

_LLM_TESTS = str(Path(__file__).resolve().parent.parent / "llm")
if _LLM_TESTS not in sys.path:
    sys.path.insert(0, _LLM_TESTS)
