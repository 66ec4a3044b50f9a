"""The public import path of one memory directory per user (``from memdir.integrations.user_dirs import
user_memory_dir``); it lives in :mod:`memdir.integrations.frameworks.user_dirs`, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.integrations.frameworks.user_dirs import check_template as check_template
    from memdir.integrations.frameworks.user_dirs import directory_name as directory_name
    from memdir.integrations.frameworks.user_dirs import fill_template as fill_template
    from memdir.integrations.frameworks.user_dirs import placeholders as placeholders
    from memdir.integrations.frameworks.user_dirs import user_memory_dir as user_memory_dir

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "memdir.integrations.frameworks.user_dirs": [
            "check_template",
            "directory_name",
            "fill_template",
            "placeholders",
            "user_memory_dir",
        ],
    },
)
