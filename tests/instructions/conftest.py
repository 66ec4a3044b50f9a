from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from memdir.config import MemoryConfig, resolve_config
from memdir.instructions import InstructionChain, load_instructions
from memdir.paths import clear_git_root_cache


@dataclass
class Tree:
    root: Path
    home: Path
    config_home: Path
    managed: Path
    project: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.config_home),
            "MEMDIR_MANAGED_DIR": str(self.managed),
        }

    def write(self, path: Path | str, text: str) -> Path:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def settings(self, kind: str, data: dict[str, object]) -> None:
        name = {"local": "settings.local.json", "project": "settings.json"}[kind]
        self.write(self.project / ".claude" / name, json.dumps(data))

    def config(self, cwd: Path | None = None, **env: str) -> MemoryConfig:
        clear_git_root_cache()
        return resolve_config(str(cwd or self.project), env={**self.env, **env})

    def load(self, cwd: Path | None = None, **options: object) -> InstructionChain:
        env = {**self.env, **options.pop("env", {})}  # type: ignore[dict-item]
        clear_git_root_cache()
        config = resolve_config(str(cwd or self.project), env=env)
        return load_instructions(config, **options)  # type: ignore[arg-type]

    def paths(self, chain: InstructionChain) -> list[str]:
        return [str(Path(f.path).relative_to(self.root)) for f in chain.files]


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    root = tmp_path.resolve()
    home = root / "home"
    project = root / "work" / "app"
    for directory in (home, project):
        directory.mkdir(parents=True)
    return Tree(root=root, home=home, config_home=home / ".claude", managed=root / "managed", project=project)
