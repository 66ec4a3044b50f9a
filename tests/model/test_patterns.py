import re

from hypothesis import given
from hypothesis import strategies as st

from memdir.model.patterns import LazyPattern

SOURCE = r"([a-z]+)@([0-9]+)|集成"


@given(st.text(alphabet="ab1@ 集成x9", max_size=40))
def test_a_lazy_pattern_answers_exactly_as_the_compiled_expression(text):
    lazy, compiled = LazyPattern(SOURCE), re.compile(SOURCE)
    assert bool(lazy.match(text)) == bool(compiled.match(text))
    assert bool(lazy.fullmatch(text)) == bool(compiled.fullmatch(text))
    assert (lazy.search(text) or re.match("", "")).span() == (compiled.search(text) or re.match("", "")).span()
    assert lazy.findall(text) == compiled.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.sub("-", text) == compiled.sub("-", text)
    assert lazy.sub(lambda m: m.group(0).upper(), text) == compiled.sub(lambda m: m.group(0).upper(), text)


def test_a_lazy_pattern_compiles_once_and_keeps_its_flags():
    lazy = LazyPattern("abc", re.IGNORECASE)
    assert lazy.match("ABC") is not None
    assert lazy.compiled is lazy.compiled and lazy.compiled.flags & re.IGNORECASE
