import json
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdir.model.frontmatter import _plain_mapping, js_key, load_yaml, parse_frontmatter

_VALUE_CHARS = [*"abcXYZ019 .:-#'\"[]{}!&*|>%@,?~\t\\/_=", "é", "日", "😀", "\u00a0", "\u2028", "\x85", "\ufeff", "\r"]
_VALUES = st.one_of(
    st.text(alphabet=st.sampled_from(_VALUE_CHARS), min_size=0, max_size=25),
    st.sampled_from(
        [
            "null",
            "Null",
            "~",
            "True",
            "false",
            "yes",
            "off",
            "1",
            "-1",
            "0o17",
            "0x1F",
            "1e3",
            ".inf",
            ".NaN",
            "...",
            "2026-01-01",
            "a: b",
            "a #b",
            "a#b",
            "'x'",
            "x'y",
            "don't",
            "- x",
            "-x",
            "a:b",
            "a:",
            "http://x.y/z",
            "a  b",
            "a ",
            " a",
            "user",
            "feedback",
            "Use the real DB: always",
            "@x",
            "`x`",
            "%x",
            "x %",
            "x!",
            '"x"',
            '"2026-01-01T10:00:00.000Z"',
            '"1"',
            '""',
            '"a\\"b"',
            '"tab\tx"',
            '"# c"',
            '"x" # c',
            '"a: b"',
            "007",
            "+5",
            "TRUE",
            "1.5",
        ]
    ),
)
_KEYS = st.one_of(
    st.sampled_from(
        [
            "name",
            "description",
            "type",
            "metadata",
            "node_type",
            "originSessionId",
            "true",
            "null",
            "1",
            "x-y",
            "_k",
            "Key",
            "a b",
        ]
    ),
    st.text(alphabet=st.sampled_from([*"abz_-09"]), min_size=1, max_size=6),
)
_LINES = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", _KEYS, _VALUES),
    st.builds(lambda k, v: f"{k}:{v}", _KEYS, _VALUES),
    st.builds(lambda k: f"{k}:", _KEYS),
    st.builds(lambda i, k, v: f"{i}{k}: {v}", st.sampled_from([" ", "  ", "    ", "\t"]), _KEYS, _VALUES),
    st.builds(lambda i, k: f"{i}{k}:", st.sampled_from(["  ", "    "]), _KEYS),
    st.sampled_from(["", "  ", "# a comment", "- item", "---", "  more text"]),
)

_WORDS = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from([*"abcXY019.é日😀"]),
    st.text(alphabet=st.sampled_from([*"abcdefXY019 .:-'\",!&*?/é日😀", " ", " ", "a", "b", "c", "d"]), max_size=20),
)
_PLAIN_KEYS = st.builds(
    lambda a, b: a + b, st.sampled_from([*"abxyzN_"]), st.text(st.sampled_from([*"abxyz_-0"]), max_size=4)
)

_PLAIN_VALUES = st.one_of(_WORDS, _WORDS, _WORDS, _WORDS, _WORDS, _WORDS, _VALUES)


@st.composite
def _plain_blocks(draw):
    """Mostly the shape the fast reader takes: distinct keys, one optional nested section."""
    top = draw(st.dictionaries(_PLAIN_KEYS, _PLAIN_VALUES, min_size=1, max_size=5))
    lines = [f"{key}: {value}" for key, value in top.items()]
    if draw(st.booleans()):
        indent = draw(st.sampled_from(["  ", "    ", " "]))
        nested = draw(st.dictionaries(_PLAIN_KEYS, _PLAIN_VALUES, min_size=0, max_size=4))
        at = draw(st.integers(0, len(lines)))
        section = ["metadata:", *(f"{indent}{key}: {value}" for key, value in nested.items())]
        if draw(st.booleans()) and len(section) > 1:
            section.insert(draw(st.integers(1, len(section))), "")
        lines[at:at] = section
    return "\n".join(lines) + "\n"


_BLOCKS = st.one_of(_plain_blocks(), st.lists(_LINES, min_size=1, max_size=8).map(lambda ls: "\n".join(ls) + "\n"))


def _yaml_reading(block):
    try:
        data = load_yaml(block)
    except ValueError:
        return "error"
    if not isinstance(data, dict):
        return "not a mapping"
    return {js_key(key): value for key, value in data.items()}


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_BLOCKS)
def test_the_fast_frontmatter_reader_agrees_with_the_yaml_reader_on_everything_it_accepts(block):
    fast = _plain_mapping(block)
    if fast is not None:
        assert json.dumps(fast) == json.dumps(_yaml_reading(block)), block


def test_the_stamps_and_numbers_memdir_writes_take_the_fast_reader():
    stamp = '"2026-11-28T13:50:09.155Z"'
    block = f"name: N\nn: 3\nok: true\ncreated: {stamp}\nmetadata:\n  modified: {stamp}\n"
    fast = _plain_mapping(block)
    assert fast == _yaml_reading(block) and fast["n"] == 3 and fast["created"] == "2026-11-28T13:50:09.155Z"


def test_plain_claude_code_headers_take_the_fast_reader_and_read_the_same():
    block = (
        "name: Real DB in tests\ndescription: Integration tests hit a real database, don't mock it\n"
        "type: feedback\nmetadata:\n  node_type: memory\n  originSessionId: 1b2c-77\n  updated: 2026-01-01\n"
    )
    fast = _plain_mapping(block)
    assert fast is not None
    assert fast == _yaml_reading(block)
    assert parse_frontmatter(f"---\n{block}---\n\nbody\n") == (fast, "body\n")


def test_reading_a_plain_header_does_not_import_pyyaml():
    code = (
        "import sys\n"
        "from memdir.model.frontmatter import parse_frontmatter\n"
        "print(parse_frontmatter('---\\nname: x\\ndescription: y\\ntype: user\\n---\\nbody\\n'))\n"
        "print('yaml' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["({'name': 'x', 'description': 'y', 'type': 'user'}, 'body\\n')", "False"]


@given(st.one_of(st.text(max_size=12), _VALUES))
def test_a_scalar_is_a_string_exactly_when_no_core_schema_pattern_matches_it(text):
    from memdir.model.core_schema import BOOL_RE, FLOAT_RE, INT_RE, NULL_RE, plain_is_string

    assert plain_is_string(text) == (not any(p.match(text) for p in (NULL_RE, BOOL_RE, INT_RE, FLOAT_RE)))
