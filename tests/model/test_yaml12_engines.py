import math

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.model.yaml12 import Yaml12Loader, load_yaml12

_TEXT = st.text(
    alphabet=st.sampled_from([*"abcXYZ019 .:-#'\"[]{}!&*|>%@,?~\t\\", "é", "日", "😀", "\u00a0"]),
    max_size=30,
)


def _read(text, engine):
    try:
        return ("ok", engine(text))
    except yaml.YAMLError:
        return ("error", None)


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b and type(a) is type(b)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["name", "description", "type", "x", "1", "- a", "  b"]), _TEXT), max_size=5))
def test_the_fast_frontmatter_reader_reads_what_the_pure_python_one_reads(pairs):
    text = "\n".join(f"{key}: {value}" for key, value in pairs)
    fast = _read(text, load_yaml12)
    slow = _read(text, lambda t: yaml.load(t, Loader=Yaml12Loader))
    assert fast[0] == slow[0], text
    assert _same(fast[1], slow[1]), text
