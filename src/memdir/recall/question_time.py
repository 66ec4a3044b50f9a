"""Whether a question asks about the past: the one case where the newer memory must not come first.

"Which HTTP client does the billing worker use?" wants today's answer, and the time-aware stage
(:mod:`memdir.recall.currency`) puts the newest memory on its subject first. "Which HTTP client did
it use before httpx?", "when did we move to Node 20?" or "what has Melanie painted?" want an older
memory or a list of them, and reordering by time would push the answer down: on LoCoMo, whose
questions are mostly about past events, the stage without this check cost 2 to 6 points of evid@5.

The words are kept as data, per language: a question is about the past when it holds a word of the
past and no word of the present ("what did the checkout API's p95 come down to *now*?" still asks
about the present). English auxiliaries of the past and perfect count ("did", "was", "has ...
painted"), except a final "have", which is a main verb ("what p95 does the API have?").
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["asks_about_the_past"]

# English: auxiliaries of the past and the perfect, and words that point back in time.
_PAST_EN = (
    "did didn't was wasn't were weren't had hadn't ago before previously originally formerly "
    "first last yesterday earlier ever since history"
)
_PRESENT_EN = "now currently current nowadays still today latest anymore"
# Chinese, Japanese and Korean: written without spaces, so matched as substrings.
_PAST_CJK = (
    "以前 之前 当时 當時 曾经 曾經 上次 原来 原來 最初 第一次 过吗 過嗎 "  # Chinese
    "ました でした 前に 当時 昔 最初 "  # Japanese
    "했 었 았 예전 당시 처음"  # Korean
)
_PRESENT_CJK = "现在 現在 目前 如今 当前 當前 最新 今 지금 현재"


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Compiled on first use: the prompt hook imports this module on every prompt."""
    past = "|".join(_PAST_EN.split())
    present = "|".join(_PRESENT_EN.split())
    words_past = rf"\b(?:{past})\b|\bused to\b|\b(?:has|have|hasn't|haven't)\b(?!\s*[?？]?\s*$)"
    cjk_past = "|".join(map(re.escape, _PAST_CJK.split()))
    cjk_present = "|".join(map(re.escape, _PRESENT_CJK.split()))
    return (
        re.compile(rf"{words_past}|{cjk_past}", re.IGNORECASE),
        re.compile(rf"\b(?:{present})\b|\bthese days\b|\bright now\b|{cjk_present}", re.IGNORECASE),
    )


def asks_about_the_past(question: str) -> bool:
    """Whether ``question`` asks what was true before, rather than what is true now."""
    past, present = _patterns()
    return past.search(question) is not None and present.search(question) is None
