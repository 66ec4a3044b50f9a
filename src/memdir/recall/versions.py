"""stub: names rule"""
import re
import unicodedata
from memdir.model.analysis import tokenize

_MARK_SPACED = frozenset("after since now updated update new latest current revised changed change actualizado actualizada tras después nach aktualisiert neu aktuell wechsel cambio nuevo 후".split())
_MARK_CJ = ("更新", "变更", "變更", "之后", "以后", "之後", "以後", "后）", "后)", "后的", "現在", "现在", "最新", "後の", "後）", "後)", "変更", "변경", "업데이트", "최신", "현재", "이후")

def _marked(text: str) -> bool:
    folded = unicodedata.normalize("NFKC", text).casefold()
    if any(m in folded for m in _MARK_CJ):
        return True
    words = set(re.findall(r"\w+", folded))
    return bool(words & _MARK_SPACED) or bool(re.search(r"\bv\d+\b", folded))

def same_subject_names(a: str, b: str) -> bool:
    x, y = tokenize(a), tokenize(b)
    if not x or not y:
        return False
    if x == y:
        return True
    (shorter, s_raw), (longer, l_raw) = sorted(((x, a), (y, b)), key=lambda t: len(t[0]))
    if len(shorter) < 2 or len(shorter) == len(longer):
        return False
    if longer[: len(shorter)] != shorter and longer[-len(shorter):] != shorter:
        return False
    return _marked(l_raw) and not _marked(s_raw)
