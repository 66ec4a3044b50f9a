"""Whether a question asks about the past: the one case where the newer memory must not come first.

"Which HTTP client does the billing worker use?" wants today's answer, and the time-aware stage
(:mod:`memdir.recall.currency`) puts the newest memory on its subject first. "Which HTTP client did
it use before httpx?", "when did we move to Node 20?" or "what has Melanie painted?" want an older
memory or a list of them, and reordering by time would push the answer down: on LoCoMo, whose
questions are mostly about past events, the stage without this check cost 2 to 6 points of evid@5.

The words are kept as data, per language: a question is about the past when it holds a word of the
past and no word of the present ("what did the checkout API's p95 come down to *now*?" still asks
about the present). English auxiliaries of the past and perfect count ("did", "was", "has ...
painted"), except a final "have", which is a main verb ("what p95 does the API have?"). Plain
set and substring tests, no regular expression: the prompt hook asks this on every prompt.
"""

from __future__ import annotations

__all__ = ["asks_about_the_past"]

# The word lists are data, one line per language or kind; kept compact for reading.
# fmt: off
# English: auxiliaries of the past and the perfect, and words that point back in time.
_PAST_EN = frozenset((
    "did", "didn't", "was", "wasn't", "were", "weren't", "had", "hadn't", "ago", "before", "previously",
    "originally", "formerly", "first", "last", "yesterday", "earlier", "ever", "since", "history",
))
_PERFECT_EN = frozenset(("has", "have", "hasn't", "haven't"))
_PRESENT_EN = frozenset(("now", "currently", "current", "nowadays", "still", "today", "latest", "anymore"))
_PHRASES_PAST_EN = ("used to",)
_PHRASES_PRESENT_EN = ("these days", "right now")
# Chinese, Japanese and Korean: written without spaces, so matched as substrings.
_PAST_CJK = (
    "以前", "之前", "当时", "當時", "曾经", "曾經", "上次", "原来", "原來", "最初", "第一次", "过吗", "過嗎",  # Chinese
    "ました", "でした", "前に", "昔",  # Japanese
    "했", "었", "았", "예전", "당시", "처음",  # Korean
)
_PRESENT_CJK = ("现在", "現在", "目前", "如今", "当前", "當前", "最新", "今", "지금", "현재")
# fmt: on
# ASCII punctuation but the apostrophe ("didn't"), and the full-width marks; spelt out rather than
# taken from the string module, which compiles a regular expression on import (about 1 ms a prompt).
_SPACES = str.maketrans({mark: " " for mark in '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~？。，！、'})


def asks_about_the_past(question: str) -> bool:
    """Whether ``question`` asks what was true before, rather than what is true now."""
    lowered = question.lower()
    words = lowered.translate(_SPACES).split()
    if (
        not _PRESENT_EN.isdisjoint(words)
        or any(phrase in lowered for phrase in _PHRASES_PRESENT_EN)
        or any(mark in question for mark in _PRESENT_CJK)
    ):
        return False
    if not _PAST_EN.isdisjoint(words) or any(phrase in lowered for phrase in _PHRASES_PAST_EN):
        return True
    if any(word in _PERFECT_EN for word in words[:-1]):  # a final "have" is a main verb
        return True
    return any(mark in question for mark in _PAST_CJK)
