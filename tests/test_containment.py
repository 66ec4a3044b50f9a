from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.containment import (
    contain,
    dirname_lexical,
    join_lexical,
    normalize_lexical,
    realpath_deepest_existing,
    resolve_lexical,
    validate_team_mem_key,
    validate_team_mem_write_path,
)
from memdir.errors import PathTraversalError, UnsafePathError


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", "."),
        ("/", "/"),
        ("//server/share", "/server/share"),
        ("///a//b/", "/a/b/"),
        ("/a/../..", "/"),
        ("a/../..", ".."),
        ("./", "./"),
        ("a/./b/.", "a/b"),
        ("/data/../data/mem/", "/data/mem/"),
    ],
)
def test_normalize_lexical_behaves_like_node(raw: str, expected: str) -> None:
    assert normalize_lexical(raw) == expected


def test_lexical_join_resolve_and_dirname_behave_like_node() -> None:
    assert join_lexical("/a/", "b", "", "../c/") == "/a/c/"
    assert resolve_lexical("/a", "/b", "c/") == "/b/c"
    assert resolve_lexical("rel") == str(Path.cwd() / "rel")
    assert dirname_lexical("/a/b") == "/a"
    assert dirname_lexical("/a") == "/"
    assert dirname_lexical("/") == "/"
    assert dirname_lexical("a") == "."


@pytest.fixture
def root(tmp_path: Path) -> Path:
    real = Path(os.path.realpath(tmp_path))
    base = real / "root"
    (base / "sub").mkdir(parents=True)
    (base / "sub" / "note.md").write_text("x", encoding="utf-8")
    (real / "outside").mkdir()
    (real / "root-evil").mkdir()
    (base / "out").symlink_to(real / "outside")
    (base / "inlink").symlink_to(base / "sub")
    (base / "dangling").symlink_to(real / "nowhere")
    (base / "loop1").symlink_to(base / "loop2")
    (base / "loop2").symlink_to(base / "loop1")
    return base


def _rule(root: Path, candidate: str, **kwargs: bool) -> str:
    with pytest.raises(UnsafePathError) as info:
        contain(str(root), candidate, **kwargs)
    assert repr(candidate) in str(info.value) or info.value.path is not None
    return info.value.rule


@pytest.mark.parametrize(
    ("candidate", "rule"),
    [
        ("", "empty"),
        ("a\0b", "nul"),
        ("C:\\x", "windows-drive"),
        ("c:x", "windows-drive"),
        ("\\\\srv\\share", "unc"),
        ("//srv/share", "unc"),
        ("sub\\note.md", "backslash"),
        ("/etc/passwd", "absolute"),
        ("../x", "outside-root"),
        ("sub/../../x", "outside-root"),
        ("../root-evil/x", "outside-root"),
        ("out/secret.md", "symlink-escape"),
        ("out", "symlink-escape"),
        ("dangling", "dangling-symlink"),
        ("dangling/new.md", "dangling-symlink"),
        ("loop1", "symlink-loop"),
        ("loop1/x.md", "symlink-loop"),
    ],
)
def test_contain_rejects_unsafe_names_with_distinct_rules(root: Path, candidate: str, rule: str) -> None:
    assert _rule(root, candidate) == rule


def test_contain_message_names_candidate_rule_and_fix(root: Path) -> None:
    with pytest.raises(UnsafePathError) as info:
        contain(str(root), "../x")
    message = str(info.value)
    assert "'../x'" in message
    assert "outside-root" in message
    assert "remove the '..'" in message


def test_contain_returns_lexical_paths_inside_the_root(root: Path) -> None:
    assert contain(str(root), "sub/note.md") == str(root / "sub" / "note.md")
    assert contain(str(root), "sub/new/deeper.md") == str(root / "sub" / "new" / "deeper.md")
    assert contain(str(root), "inlink/note.md") == str(root / "inlink" / "note.md")
    assert contain(str(root), "sub/../x.md") == str(root / "x.md")
    assert contain(str(root), ".") == str(root)
    assert contain(str(root) + "/", "x.md") == str(root / "x.md")


def test_contain_accepts_absolute_paths_only_when_allowed(root: Path) -> None:
    inside = str(root / "sub" / "note.md")
    assert _rule(root, inside) == "absolute"
    assert contain(str(root), inside, allow_absolute=True) == inside
    assert _rule(root, str(root.parent / "root-evil" / "x"), allow_absolute=True) == "outside-root"


def test_contain_in_a_missing_root_only_needs_lexical_containment(tmp_path: Path) -> None:
    missing = tmp_path / "not" / "yet"
    assert contain(str(missing), "a/b.md") == str(missing / "a" / "b.md")
    assert _rule(missing, "../b.md") == "outside-root"


def test_contain_refuses_a_root_that_is_a_dangling_symlink(tmp_path: Path) -> None:
    (tmp_path / "mem").symlink_to(tmp_path / "gone")
    assert _rule(tmp_path / "mem", "x.md") == "dangling-symlink"


def test_realpath_deepest_existing_reattaches_the_missing_tail(root: Path) -> None:
    assert realpath_deepest_existing(str(root / "inlink" / "a" / "b.md")) == str(root / "sub" / "a" / "b.md")
    assert realpath_deepest_existing(str(root / "out" / "n.md")) == str(root.parent / "outside" / "n.md")
    assert realpath_deepest_existing(str(root / "sub" / "note.md" / "x")) == str(root / "sub" / "note.md" / "x")


def test_realpath_deepest_existing_fails_closed(root: Path) -> None:
    with pytest.raises(UnsafePathError) as info:
        realpath_deepest_existing(str(root / "dangling" / "x"))
    assert info.value.rule == "dangling-symlink"
    with pytest.raises(UnsafePathError) as info:
        realpath_deepest_existing(str(root / "loop2"))
    assert info.value.rule == "symlink-loop"


# Root ignores directory permissions, so as root the check runs in a child that drops to an
# unprivileged user after importing memdir (the checkout may not be readable by that user).
UNVERIFIABLE_CHILD = """
import os, sys
from memdir.errors import UnsafePathError
from memdir.containment import contain, realpath_deepest_existing
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
rules = []
checks = (lambda: realpath_deepest_existing(sys.argv[1] + "/inner/x.md"), lambda: contain(sys.argv[1], "inner/x.md"))
for check in checks:
    try:
        rules.append("allowed " + check())
    except UnsafePathError as exc:
        rules.append(exc.rule)
print(" ".join(rules))
"""


def test_a_directory_that_cannot_be_examined_is_refused_not_trusted() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        base.chmod(0o755)  # reachable by the unprivileged user; only "locked" is closed
        locked = base / "locked"
        (locked / "inner").mkdir(parents=True)
        locked.chmod(0)
        try:
            done = subprocess.run(
                [sys.executable, "-c", UNVERIFIABLE_CHILD, str(locked)],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        finally:
            locked.chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["cannot-verify", "cannot-verify"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("tree")))
    root = base / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "f.md").write_text("x", encoding="utf-8")
    (base / "outside").mkdir()
    (base / "root-evil").mkdir()
    (root / "up").symlink_to(base)
    (root / "a" / "out").symlink_to(base / "outside")
    (root / "a" / "in").symlink_to(root / "a" / "b")
    (root / "a" / "rel").symlink_to("../a")
    (root / "dangle").symlink_to(base / "missing")
    (root / "l1").symlink_to(root / "l2")
    (root / "l2").symlink_to(root / "l1")
    return root


_SEGMENTS = st.sampled_from(
    [
        "a",
        "b",
        "f.md",
        "up",
        "out",
        "in",
        "rel",
        "dangle",
        "l1",
        "..",
        ".",
        "",
        "root-evil",
        "outside",
        "é",
        "~",
    ]
)
_CANDIDATES = st.one_of(
    st.lists(_SEGMENTS, min_size=1, max_size=6).map("/".join),
    st.text(alphabet=st.sampled_from(list("./\\:a0~é\0 ")), max_size=12),
    st.text(max_size=20),
)


@settings(max_examples=400, deadline=None)
@given(candidate=_CANDIDATES, absolute=st.booleans())
def test_contain_never_returns_a_path_that_really_leaves_the_root(tree: Path, candidate: str, absolute: bool) -> None:
    if absolute and not candidate.startswith("/"):
        candidate = str(tree) + "/" + candidate
    try:
        result = contain(str(tree), candidate, allow_absolute=absolute)
    except UnsafePathError:
        return
    real = os.path.realpath(result)
    assert real == str(tree) or real.startswith(str(tree) + "/")
    assert result == str(tree) or result.startswith(str(tree) + "/")


TEAM = "/h/.claude/projects/p/memory/team/"


@pytest.mark.parametrize("key", ["MEMORY.md", "sub/dir/x.md", "a%20b.md", "%ZZ.md"])
def test_team_keys_accepted_by_the_reference_are_accepted(key: str) -> None:
    assert validate_team_mem_key(TEAM, key) == TEAM + key


@pytest.mark.parametrize(
    "key",
    ["../evil.md", "%2e%2e%2fevil", "%2Fabs", "．．／x", "\\x.md", "/etc/passwd", "a\0b", "sub/../../x.md"],
)
def test_team_keys_rejected_by_the_reference_are_rejected(key: str) -> None:
    with pytest.raises(PathTraversalError):
        validate_team_mem_key(TEAM, key)


def test_team_key_through_a_symlink_out_of_team_is_rejected(tmp_path: Path) -> None:
    team = Path(os.path.realpath(tmp_path)) / "team"
    team.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (team / "link").symlink_to(tmp_path / "elsewhere")
    (team / "gone").symlink_to(tmp_path / "missing")
    with pytest.raises(PathTraversalError) as info:
        validate_team_mem_key(str(team), "link/x.md")
    assert info.value.rule == "symlink-escape"
    with pytest.raises(PathTraversalError) as info:
        validate_team_mem_key(str(team), "gone")
    assert info.value.rule == "dangling-symlink"
    assert validate_team_mem_key(str(team), "ok.md") == str(team / "ok.md")


def test_team_write_path_must_stay_under_the_team_dir() -> None:
    assert validate_team_mem_write_path(TEAM, TEAM + "x.md") == TEAM + "x.md"
    for bad in ["/h/.claude/projects/p/memory/team-evil/x.md", TEAM + "../x.md", TEAM + "a\0.md"]:
        with pytest.raises(PathTraversalError):
            validate_team_mem_write_path(TEAM, bad)
    with pytest.raises(PathTraversalError):
        validate_team_mem_write_path(TEAM.rstrip("/"), "/h/.claude/projects/p/memory/team-evil/x.md")
