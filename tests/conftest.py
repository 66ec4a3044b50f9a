"""Suite-wide settings."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from memdir.llm import FORBID_ENV_VAR, forbid_real_model_calls

# Set at import so subprocesses started by tests inherit it too. Calls to a loopback base URL
# (the wire-format test servers) stay allowed; see memdir.llm.base.check_model_call_allowed.
os.environ[FORBID_ENV_VAR] = "1"


@pytest.fixture(autouse=True)
def _no_real_model_calls() -> Iterator[None]:
    with forbid_real_model_calls(True):
        yield
