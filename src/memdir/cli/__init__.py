"""The ``memdir`` command line: the root group plus one module per noun group.

Importing a command module registers its commands on the root group; the root group imports the
module of the command being run, and no other (see :data:`memdir.cli.main.COMMAND_MODULES`).
``memdir hook <event>``, which Claude Code runs for every prompt, skips click altogether (see
:mod:`memdir.cli.hook_entry`), so this package imports click only when ``cli`` is asked for.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from memdir.lazy import lazy_exports

if TYPE_CHECKING:
    from memdir.cli.main import cli as cli

__getattr__, _lazy = lazy_exports(__name__, {"memdir.cli.main": ["cli"]})
__all__ = ["main", *_lazy]


def main() -> None:
    """The console script: a hook call runs directly, every other command line goes to click.

    A hook call ends with ``os._exit`` once its answer is flushed: Claude Code waits for the
    process to exit, and tearing the interpreter down (freeing every module and object) cost
    about 7 ms of every hook, a sixth of a prompt's. Nothing needs it: every file the hook writes
    is written and closed where it is written, and the prompt hook closes the derived index."""
    argv = sys.argv[1:]
    if "hook" in argv:
        from memdir.cli.hook_entry import hook_call, run_hook_command

        call = hook_call(argv)
        if call is not None:
            run_hook_command(
                call.event, project=call.project, memory_dir=call.memory_dir, agent=call.agent, detach=True
            )
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
    from memdir.cli.main import main as click_main

    click_main()
