"""The root ``memdir`` command: global options, error reporting, and the registry of noun groups.

Every command resolves the project's configuration through :class:`CliState`, so ``--project``
and ``--memory-dir`` mean the same everywhere. A :class:`~memdir.errors.MemdirError` becomes
one line on stderr and a non-zero exit; nothing else in the CLI prints tracebacks for expected
failures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import click

from memdir.config import MemoryConfig, open_memory_dir, resolve_config
from memdir.errors import MemdirError
from memdir.store.memdir import MemoryDir

__all__ = ["CliState", "MemdirGroup", "cli", "echo_json", "main", "pass_state"]

EXIT_ERROR = 1


class MemdirGroup(click.Group):
    """A click group that turns memdir's own errors into one clear line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemdirError as exc:
            click.echo(f"memdir: error: {exc.message}", err=True)
            ctx.exit(EXIT_ERROR)


@dataclass
class CliState:
    project: str | None
    memory_dir_option: str | None
    _config: MemoryConfig | None = field(default=None, repr=False)
    _dir: MemoryDir | None = field(default=None, repr=False)

    @property
    def config(self) -> MemoryConfig:
        if self._config is None:
            self._config = resolve_config(self.project, memory_dir=self.memory_dir_option)
        return self._config

    @property
    def memory_dir(self) -> MemoryDir:
        if self._dir is None:
            self._dir = open_memory_dir(self.config)
        return self._dir


pass_state = click.make_pass_decorator(CliState)


def echo_json(value: object) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


@click.group(cls=MemdirGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--project",
    type=click.Path(file_okay=False),
    default=None,
    help="Project directory whose memory to use (default: the current directory).",
)
@click.option(
    "--memory-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Use this memory directory directly, skipping path resolution.",
)
@click.version_option(package_name="memdir")
@click.pass_context
def cli(ctx: click.Context, project: str | None, memory_dir: str | None) -> None:
    """memdir: long-term, file-based memory for LLM agents.

    Memories are Markdown files with a small frontmatter, indexed by MEMORY.md, in the same
    directory Claude Code uses for the project, so both can share them.

    \b
    Examples:
      memdir path
      memdir add --type feedback --name "Real DB in tests" --description "Integration tests hit a real database"
      memdir recall "how should I write the integration tests?"
    """
    ctx.obj = CliState(project=project, memory_dir_option=memory_dir)


def main() -> None:
    cli(prog_name="memdir")


if __name__ == "__main__":  # pragma: no cover
    main()
