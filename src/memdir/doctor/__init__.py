"""``memdir doctor``: the checks of a memory directory's format, with the repairs ``--fix`` makes
(:mod:`memdir.doctor.checks`), and what it tells about the contents, with the pairs it proposes
a person decide about (:mod:`memdir.doctor.proposals`).
"""

from __future__ import annotations

__all__: list[str] = []
