"""A memory directory with its history under a private config home, and ways to look into it
(the ``place`` fixture of this folder's conftest)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from memdir.cli import cli
from memdir.store.history import History
from memdir.store.history_records import history_path


class Place:
    """One project's memory directory, config home and CLI."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.memory = root / "mem"
        self.project = root / "proj"
        self.project.mkdir()

    @property
    def env(self) -> dict[str, str]:
        return {"CLAUDE_CONFIG_DIR": str(self.home), "HOME": str(self.root)}

    def run(self, *args: str, input: str | None = None, ok: bool = True) -> object:
        result = CliRunner().invoke(cli, ["--memory-dir", str(self.memory), *args], input=input, catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output + (result.stderr if result.stderr_bytes else "")
        return result

    def json(self, *args: str) -> object:
        return json.loads(self.run(*args, "--json").stdout)  # type: ignore[attr-defined]

    def history(self) -> History:
        return History(str(self.memory), history_path(str(self.memory), str(self.home)))

    def contents(self) -> set[str]:
        """The hash of every content the history holds."""
        db = self.history()
        try:
            return {str(row[0]) for row in db._connect().execute("SELECT hash FROM blobs")}
        finally:
            db.close()

    def file(self, name: str) -> str:
        return (self.memory / name).read_text(encoding="utf-8")


def digest(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


def pull_into_team(team: Path, key: str, text: str) -> None:
    """What a team pull does to one file: the server's ``text`` replaces ``team/<key>`` through
    the sync's own local writer (``apply_local``), checked against the file's current content."""
    from memdir.team.local import LocalOp, apply_local
    from memdir.team.protocol import hash_content

    path = team / key
    current = hash_content(path.read_text(encoding="utf-8")) if path.is_file() else None
    outcome = apply_local(str(team), [LocalOp(key, current, text)])
    assert not outcome.skipped, outcome.skipped
