"""Text analysis for recall: the terms a memory or a query is made of, in every script.

Words written with spaces between them (English, Korean, Russian, Hindi…) are split at spaces and
punctuation, camelCase and snake_case included. Scripts written without spaces (Chinese, Japanese,
Thai, Lao, Khmer, Myanmar) give no word boundaries to split at, so each run of them becomes the
overlapping pairs of its characters (``集成测试`` → ``集成 成测 测试``), as Lucene's CJK analyzer
does; a lone character stands for itself. Korean is written with spaces, but its particles and
endings are glued to the word (``데이터베이스를``, ``데이터베이스에서``), so Hangul runs get pairs
too, and a word matches its other forms through the pairs of its stem. A run mixing scripts, as
developers write (``帮我把这个PR的CI修一下``), is split where the script changes: ``pr`` and ``ci``
are English words, the rest pairs.

Pairs need no dictionary and no extra package, and they find the words of a paraphrase where a
segmenter would have to agree with itself on two different sentences; on the multilingual recall
benchmark (``bench/recall_multilingual.py``) they rank as well as jieba's words for Chinese.

Stop words and stemming stay per language: English words lose English stop words and a light
suffix stemmer; a pair or character made only of grammatical characters of Chinese or Japanese
(``的``, ``了``, ``して``, ``です``) or a pair of Korean particles and endings (``에서``, ``니다``)
is dropped, and nothing is stemmed outside English.
"""

from __future__ import annotations

import re
import unicodedata

from memdir.model.patterns import LazyPattern

__all__ = [
    "ANALYSIS_FORMAT",
    "STOP_WORDS",
    "has_unspaced_words",
    "is_pair",
    "spaced_pairs",
    "stem",
    "tokenize",
]

# Bump when tokenize, stem or the stop words change: every derived analysis is made again.
ANALYSIS_FORMAT = "2"

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves s t don shall may might must also ok okay
    please tell know let get got us one want wants wanted need needs like think thing something anything
    really
    """.split()  # noqa: SIM905  (a word list reads better as text)
)

# Characters of Chinese and Japanese that carry grammar rather than topic: a term made only of
# them ("的", "是不", "して", "ます") matches every memory and is dropped. Hiragana is here whole:
# Japanese writes its content words in kanji and katakana, and its particles and endings in kana.
_CJ_GRAMMAR = frozenset(
    "的了是在我你他她它们这那个把被吗呢吧啊呀哦嗯和与及或也都就还又很太要会能可以得地着过"
    "之其该此给让对从向于为么啥怎一下些有没不"
    "ぁあぃいぅうぇえぉおかがきぎくぐけげこごさざしじすずせぜそぞただちぢっつづてでとどなにぬねの"
    "はばぱひびぴふぶぷへべぺほぼぽまみむめもゃやゅゆょよらりるれろゎわゐゑをんゔ"
)
# Korean particles and verb endings: a pair made only of these is grammar ("에서", "니다", "해주").
_KO_GRAMMAR = frozenset("은는이가을를에서의도로와과하고해요세주십시니다합습있것수및좀때게한된되")

_SUFFIXES = (
    "ational",
    "ization",
    "fulness",
    "iveness",
    "ations",
    "ingly",
    "ments",
    "ement",
    "ation",
    "ness",
    "ment",
    "ings",
    "able",
    "ible",
    "ies",
    "ing",
    "ers",
    "est",
    "ied",
    "ed",
    "es",
    "er",
    "ly",
    "s",
)
# The suffixes by their last letter, in the order above: a word is tried only against the suffixes
# it can end with, which gives the same stem as trying them all at a fifth of the cost.
_SUFFIXES_BY_LAST: dict[str, tuple[str, ...]] = {}
for _suffix in _SUFFIXES:
    _SUFFIXES_BY_LAST[_suffix[-1]] = (*_SUFFIXES_BY_LAST.get(_suffix[-1], ()), _suffix)
del _suffix
_STEMS: dict[str, str] = {}
_STEM_CACHE_SIZE = 200_000
# One string object per distinct term: a store repeats a few thousand terms, and a separate
# string for each occurrence was most of the lexical index's memory. (``sys.intern`` would do
# the same; the model layer imports nothing that can touch the outside world.)
_TERMS: dict[str, str] = {}


def intern(term: str) -> str:
    if len(_TERMS) >= _STEM_CACHE_SIZE:
        _TERMS.clear()
    return _TERMS.setdefault(term, term)


def stem(word: str) -> str:
    """A light suffix stripper: enough to match "tests"/"testing"/"tested" without a stemming library."""
    if len(word) <= 3 or not word.isascii():
        return word
    for suffix in _SUFFIXES_BY_LAST.get(word[-1], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix == "ies":
                return base + "y"
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    # A final silent e goes, as in Porter's last step, so "change" meets "changes" ("chang").
    if len(word) >= 5 and word.endswith("e") and not word.endswith("ee"):
        return word[:-1]
    return word


def _stem_into_cache(word: str) -> str:
    if len(_STEMS) >= _STEM_CACHE_SIZE:
        _STEMS.clear()
    stemmed = _STEMS[word] = intern(stem(word))
    return stemmed


# Blocks whose words carry combining marks (accents in NFD, Hebrew and Arabic points, Indic vowel
# signs, Thai and Khmer tone marks): Python's ``\\w`` leaves marks out, and without them ``हिन्दी``
# would fall apart into consonants. Whole blocks rather than each mark keep the expression quick to
# compile; the Devanagari dandas (sentence ends) stay out.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0963\u0966-\u0dff\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u302a-\u302f\u3099\u309a"
)
# Han (with its extensions and compatibility forms), kana, and the iteration and length marks.
_CJ = (
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035\u303b\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)
_HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
# Thai, Lao, Myanmar, Khmer: written without spaces between words.
_SEA = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff"
_ASCII_WORD = re.compile(r"[^\W_]+", re.ASCII)
_CAMEL = re.compile(r"([a-z])([A-Z])")
# The expressions for text beyond ASCII, compiled on first use: their character classes span
# most of Unicode, compiling them took a quarter of a hook process's imports, and English text
# (every ASCII string) never needs them.
_WORD = LazyPattern(rf"(?:[^\W_]|[{_MARKS}])+")
_RUNS = LazyPattern(rf"([{_CJ}]+)|([{_HANGUL}]+)|([{_SEA}][{_SEA}{_MARKS}]*)")
_PAIR_TERM = LazyPattern(rf"[{_CJ}{_HANGUL}{_SEA}][{_CJ}{_HANGUL}{_SEA}{_MARKS}]*")
_UNSPACED_LETTER = LazyPattern(rf"[{_CJ}{_SEA}]")


def is_pair(term: str) -> bool:
    """Whether a term is a pair (or lone character) of a script analysed by pairs, not a word: most
    pairs that straddle two words of a query occur in no memory, which says nothing about the topic."""
    return not term.isascii() and _PAIR_TERM.fullmatch(term) is not None


def has_unspaced_words(text: str) -> bool:
    """Whether ``text`` holds at least two letters of a script written without spaces: a sentence
    in Chinese or Japanese has no whitespace, yet is many words."""
    if text.isascii():
        return False
    letter = _UNSPACED_LETTER
    found = letter.search(text)
    return found is not None and letter.search(text, found.end()) is not None


def _latin(word: str, out: list[str]) -> None:
    word = word.lower()
    if word not in STOP_WORDS:
        out.append(_STEMS.get(word) or _stem_into_cache(word))


def _pairs(units: list[str], grammar: frozenset[str], out: list[str]) -> None:
    """Overlapping pairs of ``units`` (characters, or clusters with their marks); one unit alone
    stands for itself. Terms made only of grammatical characters are left out."""
    if len(units) == 1:
        if units[0] not in grammar:
            out.append(intern(units[0]))
        return
    for first, second in zip(units, units[1:], strict=False):  # noqa: RUF007  (no itertools in the model layer)
        if first in grammar and second in grammar:
            continue
        out.append(intern(first + second))


def _clusters(run: str) -> list[str]:
    """Each letter with the marks that follow it (a Thai consonant with its vowel and tone signs)."""
    units: list[str] = []
    for char in run:
        if units and unicodedata.category(char)[0] == "M":
            units[-1] += char
        else:
            units.append(char)
    return units


def _mixed(word: str, out: list[str]) -> None:
    """One run of letters holding some non-ASCII: English words, pairs of unspaced scripts, and
    words of every other script (lowercased, never stemmed)."""
    start = 0
    for match in _RUNS.finditer(word):
        if match.start() > start:
            _plain(word[start : match.start()], out)
        cj, hangul, sea = match.groups()
        if cj is not None:
            _pairs(list(cj), _CJ_GRAMMAR, out)
        elif hangul is not None:
            _pairs(list(hangul), _KO_GRAMMAR, out)
        elif sea is not None:
            _pairs(_clusters(sea), frozenset(), out)
        start = match.end()
    if start < len(word):
        _plain(word[start:], out)


def _plain(piece: str, out: list[str]) -> None:
    if piece.isascii():
        for word in _ASCII_WORD.findall(piece):
            _latin(word, out)
    elif piece:
        word = piece.lower()
        if word not in STOP_WORDS:
            out.append(intern(word))


def tokenize(text: str) -> list[str]:
    """The terms of ``text``: lowercased English words without stop words, stemmed; camelCase and
    snake_case split; pairs of characters for scripts without spaces and for Korean.

    English text takes the first branch only. Stems go through a cache: a store repeats a few
    thousand words, and stemming each occurrence anew was most of the time indexing took.
    """
    if text.isascii():
        spaced = _CAMEL.sub(r"\1 \2", text)
        cached = _STEMS.get
        return [
            cached(word) or _stem_into_cache(word)
            for word in map(str.lower, _ASCII_WORD.findall(spaced))
            if word not in STOP_WORDS
        ]
    # NFKC: full-width Latin ("ＣＩ") and half-width kana become the forms people usually type.
    spaced = _CAMEL.sub(r"\1 \2", unicodedata.normalize("NFKC", text))
    out: list[str] = []
    for word in _WORD.findall(spaced):
        if word.isascii():
            _latin(word, out)
        else:
            _mixed(word, out)
    return out


def spaced_pairs(text: str) -> str:
    """``text`` with each run of Chinese, Japanese, Korean or Thai letters replaced by its pairs,
    space-separated, and everything else left as it is: what a word-based full-text engine (SQLite's
    FTS5) needs to index and query those scripts the way :func:`tokenize` does."""
    if text.isascii():
        return text

    def pairs(match: re.Match[str]) -> str:
        run = match.group(0)
        units = list(run) if match.group(3) is None else _clusters(run)
        if len(units) == 1:
            return f" {units[0]} "
        joined = [a + b for a, b in zip(units, units[1:], strict=False)]  # noqa: RUF007
        return " " + " ".join(joined) + " "

    return _RUNS.sub(pairs, unicodedata.normalize("NFKC", text))
