import os
import stat

import pytest

from memdir.errors import MemoryFormatError
from memdir.store.files import atomic_write, ensure_dir, lock_directory, read_bytes_limited, remove_file


def test_atomic_write_creates_a_new_file_with_mode_0600(tmp_path):
    target = tmp_path / "a.md"
    atomic_write(target, "hello")
    assert target.read_text(encoding="utf-8") == "hello"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_atomic_write_keeps_the_mode_of_an_existing_file(tmp_path):
    target = tmp_path / "a.md"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    atomic_write(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_atomic_write_leaves_no_temp_file_behind(tmp_path):
    atomic_write(tmp_path / "a.md", "x" * 10_000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_atomic_write_keeps_crlf_bytes_as_given(tmp_path):
    atomic_write(tmp_path / "a.md", b"line\r\nnext\r\n")
    assert (tmp_path / "a.md").read_bytes() == b"line\r\nnext\r\n"


def test_atomic_write_through_a_symlink_replaces_the_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == "new"


def test_ensure_dir_creates_directories_with_mode_0700(tmp_path):
    ensure_dir(tmp_path / "a" / "b")
    assert stat.S_IMODE((tmp_path / "a" / "b").stat().st_mode) == 0o700


def test_read_bytes_limited_refuses_a_huge_file_with_a_specific_error(tmp_path):
    big = tmp_path / "big.md"
    with open(big, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    with pytest.raises(MemoryFormatError) as info:
        read_bytes_limited(big)
    assert info.value.rule == "too-large"
    assert "big.md" in str(info.value)


def test_remove_file_reports_whether_something_was_deleted(tmp_path):
    target = tmp_path / "a.md"
    target.write_text("x", encoding="utf-8")
    assert remove_file(target) is True
    assert remove_file(target) is False


def test_the_directory_lock_is_reentrant_in_one_thread(tmp_path):
    with lock_directory(tmp_path), lock_directory(tmp_path):
        assert os.path.exists(tmp_path / ".memdir.lock")


def test_reading_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(MemoryFormatError) as info:
        read_bytes_limited(fifo)
    assert info.value.rule == "not-a-file"


def test_reading_a_directory_still_raises_is_a_directory(tmp_path):
    with pytest.raises(IsADirectoryError):
        read_bytes_limited(tmp_path)
