"""The root ``memdir`` command: global options, error reporting, and the registry of noun groups.

Every command resolves the project's configuration through :class:`CliState`, so ``--project``
and ``--memory-dir`` mean the same everywhere. Every failure is one line on stderr in one style,
``memdir: <message>``: a :class:`~memdir.errors.MemdirError` or an operating-system error exits
1, a mistake in the command line (unknown option, missing argument) exits 2, as the README says.

Commands live in one module per noun group and register themselves on :data:`cli` when that
module is imported. :data:`COMMAND_MODULES` says which module holds which command, so a run
imports only the module of the command it runs: a Claude Code hook starts a process per event,
and importing every command (the team server, the agents, the SDKs) cost more than the hook's work.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from memdir.errors import MemdirError
from memdir.model.printable import printable

if TYPE_CHECKING:
    from memdir.config import MemoryConfig
    from memdir.memory_session import MemorySession
    from memdir.store.directory import MemoryDir

__all__ = [
    "COMMAND_MODULES",
    "EXIT_ERROR",
    "EXIT_USAGE",
    "CliState",
    "MemdirGroup",
    "cli",
    "echo_json",
    "fail",
    "main",
    "pass_state",
]

EXIT_ERROR = 1
EXIT_USAGE = 2


def fail(message: str, *, code: int = EXIT_ERROR) -> None:
    """Print ``memdir: <message>`` (one line) on stderr and exit: the only way the CLI reports failure."""
    click.echo(f"memdir: {printable(' '.join(message.split()))}", err=True)  # a server's words, a file's name
    sys.exit(code)


# command name -> module of memdir.cli that defines it; a new command adds its line here
COMMAND_MODULES: Mapping[str, str] = {
    "add": "memories",
    "diff": "history",
    "agent": "agent",
    "doctor": "inspect",
    "dream": "journal",
    "edit": "edit",
    "export": "transfer",
    "extract": "extract",
    "hook": "hooks",
    "history": "history",
    "hooks": "hooks",
    "import": "transfer",
    "init": "inspect",
    "instructions": "instructions",
    "list": "memories",
    "log": "journal",
    "merge": "edit",
    "mcp": "mcp",
    "mv": "edit",
    "path": "inspect",
    "prompt": "inspect",
    "recall": "inspect",
    "reindex": "index",
    "relate": "edit",
    "restore": "history",
    "review": "review",
    "rm": "memories",
    "session": "session",
    "show": "memories",
    "team": "team",
    "ui": "ui",
    "undo": "history",
}


class MemdirGroup(click.Group):
    """A click group that imports a command's module only when that command is asked for, and whose
    every failure is one ``memdir: <message>`` line with a documented exit status."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMAND_MODULES) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if cmd_name not in self.commands and module is not None:
            importlib.import_module(f"memdir.cli.{module}")
        return self.commands.get(cmd_name)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        from memdir.store.provenance import acting_as

        words = list(sys.argv[1:] if args is None else args)
        with acting_as("cli", label=_command_label(words)):
            return self._main(words, prog_name, complete_var, standalone_mode, **extra)

    def _main(
        self, args: list[str], prog_name: str | None, complete_var: str | None, standalone_mode: bool, **extra: Any
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            words = exc.ctx.command_path.split()[1:] if exc.ctx is not None else []
            where = " ".join(["memdir", *words])
            message = _without_clicks_guess(exc).rstrip(".") + _did_you_mean(exc)
            fail(f"{message} (see '{where} --help')", code=EXIT_USAGE)
        except click.ClickException as exc:
            fail(exc.format_message(), code=exc.exit_code)
        except click.Abort:
            fail("aborted")
        except MemdirError as exc:
            fail(exc.message)
        except OSError as exc:
            fail(_os_error_line(exc))
        sys.exit(code if isinstance(code, int) else 0)


_GLOBAL_OPTIONS = ("--project", "--memory-dir")


def _without_clicks_guess(exc: click.UsageError) -> str:
    """The message without click's own guess at an unknown command: click guesses only among the
    commands already imported and lists them alphabetically ('dream' before 'recall' for
    'recal'); memdir's guess, nearest first, comes from every command."""
    message = exc.format_message()
    if message.startswith("No such command"):
        return re.sub(r"\s*\(?Did you mean [^?]*\?\)?$", "", message)
    return message


def _did_you_mean(exc: click.UsageError) -> str:
    """``; did you mean 'list'?`` for an unknown command or a value outside a choice, else ""."""
    from memdir.store.lookup import suggest

    message = _without_clicks_guess(exc)
    if "did you mean" in message.casefold():
        return ""
    command = re.match(r"No such command '(?P<given>[^']*)'", message)
    if command is not None and exc.ctx is not None and isinstance(exc.ctx.command, click.Group):
        return suggest(command.group("given"), exc.ctx.command.list_commands(exc.ctx))
    choice = re.search(r"'(?P<given>[^']*)' is not one of (?P<choices>'.*')", message)
    if choice is not None:
        return suggest(choice.group("given"), re.findall(r"'([^']*)'", choice.group("choices")))
    return ""


def _command_label(args: Sequence[str]) -> str:
    """The command a run of the CLI was (``add``, ``team pull``), which the history shows beside
    its changes: the first two words of the command line after the global options."""
    words: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _GLOBAL_OPTIONS:
            skip = True
        elif arg.startswith("-"):
            if words:
                break
        else:
            words.append(arg)
            if len(words) == 2:
                break
    return " ".join(words)


def _os_error_line(exc: OSError) -> str:
    """An operating-system failure as one line naming the file, instead of a traceback."""
    reason = exc.strerror or (os.strerror(exc.errno) if exc.errno else str(exc))
    return f"{exc.filename}: {reason}" if exc.filename else reason


@dataclass
class CliState:
    project: str | None
    memory_dir_option: str | None
    _config: MemoryConfig | None = field(default=None, repr=False)
    _dir: MemoryDir | None = field(default=None, repr=False)

    @property
    def config(self) -> MemoryConfig:
        if self._config is None:
            from memdir.config import resolve_config

            self._config = resolve_config(self.project, memory_dir=self.memory_dir_option)
        return self._config

    @property
    def memory_dir(self) -> MemoryDir:
        """The store, opened by the composition root (:class:`~memdir.memory_session.MemorySession`)."""
        if self._dir is None:
            self._dir = self.session().memory_dir
        return self._dir

    def session(self, **options: Any) -> MemorySession:
        """The composition root over this command's configuration and directory; ``options`` are
        :class:`~memdir.memory_session.MemorySession` keywords (``model_spec`` for ``--model``, ...)."""
        from memdir.memory_session import MemorySession

        return MemorySession(self.config, memory_dir=self._dir, **options)


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
