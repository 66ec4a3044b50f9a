"""The recorded base of a large repository: updates appended to a journal, folded in atomically."""

import os
from pathlib import Path

from memdir.team.sync_base import JOURNAL_FILE_NAME, base_path, load_base, update_base

REPO = "acme/widgets"
SERVER = "http://s"


def large_base(team: Path, count: int = 4000) -> dict[str, str]:
    base = {f"topic/note{n:05}.md": f"sha256:{n:064x}" for n in range(count)}
    update_base(str(team), SERVER, REPO, base)
    return base


def test_a_small_update_of_a_large_base_is_appended_not_a_rewrite_of_the_whole_file(tmp_path: Path):
    team = tmp_path / "memory" / "team"
    team.mkdir(parents=True)
    base = large_base(team)
    inode = os.stat(base_path(str(team))).st_ino
    update_base(str(team), SERVER, REPO, {"topic/note00007.md": "sha256:new", "topic/note00008.md": None})
    update_base(str(team), SERVER, REPO, {"fresh.md": "sha256:fresh"})
    assert os.stat(base_path(str(team))).st_ino == inode
    assert (team.parent / JOURNAL_FILE_NAME).stat().st_size < 1000
    expected = {**base, "topic/note00007.md": "sha256:new", "fresh.md": "sha256:fresh"}
    del expected["topic/note00008.md"]
    assert load_base(str(team), SERVER, REPO) == expected
    assert load_base(str(team), SERVER, "other/repo") == {}


def test_the_journal_is_folded_into_the_file_once_it_is_as_large(tmp_path: Path):
    team = tmp_path / "memory" / "team"
    team.mkdir(parents=True)
    base = large_base(team)
    for n in range(0, 4000, 50):
        changes = {f"topic/note{k:05}.md": f"sha256:v2-{k}" for k in range(n, n + 50)}
        update_base(str(team), SERVER, REPO, changes)
        base.update(changes)
    journal = team.parent / JOURNAL_FILE_NAME
    assert not journal.exists() or journal.stat().st_size < os.stat(base_path(str(team))).st_size
    assert load_base(str(team), SERVER, REPO) == base


def test_a_journal_line_torn_by_a_crash_is_ignored_and_the_next_update_is_read_whole(tmp_path: Path):
    team = tmp_path / "memory" / "team"
    team.mkdir(parents=True)
    base = large_base(team)
    update_base(str(team), SERVER, REPO, {"kept.md": "sha256:kept"})
    journal = team.parent / JOURNAL_FILE_NAME
    with journal.open("ab") as handle:
        handle.write(b'{"scope": "http://s acme/widgets", "set": {"torn.md": "sha2')
    assert load_base(str(team), SERVER, REPO) == {**base, "kept.md": "sha256:kept"}
    update_base(str(team), SERVER, REPO, {"after.md": "sha256:after"})
    assert load_base(str(team), SERVER, REPO) == {**base, "kept.md": "sha256:kept", "after.md": "sha256:after"}
