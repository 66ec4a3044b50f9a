"""The directory name of any user id: safe on every file system, one directory per id."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdir.errors import ConfigError
from memdir.integrations.frameworks.user_dirs import directory_name, fill_template, user_memory_dir


@given(st.text(min_size=1))
def test_any_id_names_one_plain_directory(value: str) -> None:
    name = directory_name(value)
    assert name not in (".", "..") and not name.startswith(".")
    assert not any(ch in name for ch in '/\\\x00:*?"<>|') and name == name.strip()
    assert len(name.encode("utf-8")) <= 64 + 17
    assert name == name.lower()  # a file system blind to case cannot merge two of them


@given(st.text(min_size=1), st.text(min_size=1))
def test_two_ids_never_share_a_directory(one: str, other: str) -> None:
    if one != other:
        assert directory_name(one) != directory_name(other)


@pytest.mark.parametrize("plain", ["ada", "ada@example.com", "u-42", "3f2a9c1e-0b4d-4c57-9a0e-8d1f2b3c4d5e"])
def test_a_plain_lower_case_id_is_its_own_directory(plain: str) -> None:
    assert directory_name(plain) == plain


@pytest.mark.parametrize("value", ["Ada", "con", "nul.txt", "a..b", "a b", "../eve", "用户", "x" * 65, "trailing."])
def test_an_id_that_is_not_plain_gets_a_digest(value: str) -> None:
    assert "+" in directory_name(value)


def test_templates_fill_only_the_names_they_are_given(tmp_path) -> None:
    assert fill_template(str(tmp_path / "{user_id}"), user_id="ada") == str(tmp_path / "ada")
    assert user_memory_dir(str(tmp_path / "{user_id}"), "Bob").startswith(str(tmp_path) + os.sep + "bob+")
    with pytest.raises(ConfigError, match=r"names \{home\}"):
        fill_template(str(tmp_path / "{home}"), user_id="ada")
    with pytest.raises(ConfigError, match="pass user_id"):
        user_memory_dir(str(tmp_path / "{user_id}"), None)
    with pytest.raises(ConfigError, match="needs a memory_dir that names"):
        user_memory_dir(str(tmp_path / "shared"), "ada")
    with pytest.raises(ConfigError, match="not a valid template"):
        user_memory_dir(str(tmp_path / "{user_id"), "ada")
