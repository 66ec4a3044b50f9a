"""``memdir team watch``: keep ``team/`` in sync while the process runs (SPEC §9.7).

A thin driver: an initial pull, then watchfiles' change events fed to a
:class:`~memdir.team.scheduler.PushScheduler`, which decides when to sync. Both go through the
three-way classification of :mod:`memdir.team.sync`, so a pull during a watch never drops an
unpushed local change and each debounced sync also brings in what teammates pushed meanwhile. Stopping (the
``stop`` event, set by SIGINT/SIGTERM in the CLI) flushes pending changes before returning.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

from memdir.errors import MemdirError, SyncError
from memdir.store.files import ensure_dir
from memdir.store.provenance import acting_as, current
from memdir.team.client import TeamClient
from memdir.team.local import is_sync_ignored
from memdir.team.pull import pull
from memdir.team.scheduler import DEFAULT_DELAY, PushScheduler, is_permanent_failure
from memdir.team.state import PullResult, SyncState
from memdir.team.sync import sync

__all__ = ["watch_team_memory"]

log = logging.getLogger("memdir.team")


def _watch_filter(_change: object, path: str) -> bool:
    return not is_sync_ignored(os.path.basename(path))


def watch_team_memory(
    client: TeamClient,
    team_dir: str,
    *,
    stop: threading.Event,
    delay: float = DEFAULT_DELAY,
    report: Callable[[str], None] = log.info,
    on_push: Callable[[object, BaseException | None], None] | None = None,
    on_ready: Callable[[PushScheduler], None] | None = None,
) -> SyncState:
    """Run until ``stop`` is set; returns the session's final sync state.

    A permanent failure of the initial pull (bad token, repository refused) is raised, since
    nothing the watcher does later can succeed; a transient one is reported and watching goes on.
    """
    try:
        import watchfiles
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        message = "memdir team watch needs watchfiles: pip install 'memdir[watch]'"
        raise SyncError(message, rule="sync-dependency") from exc

    state = SyncState()
    try:
        pulled = pull(client, state, team_dir)
        report(_describe_pull(pulled))
    except SyncError as exc:
        if is_permanent_failure(exc):
            raise
        report(f"initial pull failed, watching anyway: {exc.message}")
    ensure_dir(team_dir)

    who = current()  # the scheduler's thread does not inherit it: each sync is a run of its own

    def push_once() -> object:
        with acting_as(who.by, label="team watch"):
            return sync(client, state, team_dir)

    scheduler = PushScheduler(push_once, delay=delay, on_done=on_push)
    ready = False
    try:
        # yield_on_timeout: the first (possibly empty) batch proves the OS watch is in place, so
        # "watching" is only announced once no change can be missed any more.
        for changes in watchfiles.watch(
            team_dir,
            watch_filter=_watch_filter,
            stop_event=stop,
            step=50,
            rust_timeout=200,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if not ready:
                ready = True
                if on_ready is not None:
                    on_ready(scheduler)
                report(f"watching {team_dir} (push {delay:g}s after the last change)")
            if not changes:
                continue
            _record_outside_changes(team_dir)
            deleted = any(change == watchfiles.Change.deleted and not os.path.lexists(path) for change, path in changes)
            if deleted:
                scheduler.notify_deletion()
            else:
                scheduler.notify_change()
            report(f"{len(changes)} change(s) in team/; push in {delay:g}s")
    finally:
        try:
            flushed = scheduler.shutdown()
        except MemdirError as exc:  # pragma: no cover - shutdown catches push errors itself
            report(f"final push failed: {exc.message}")
        else:
            if flushed:
                report("pushed pending changes before stopping")
    return state


def _record_outside_changes(team_dir: str) -> None:
    """A change the watcher sees that memdir did not make (an editor, Claude Code) goes into the
    memory directory's history now, as ``external``, before a sync can replace it."""
    import sqlite3

    from memdir.store.files import observer_for

    found = observer_for(os.path.dirname(team_dir.rstrip(os.sep)))
    record = getattr(found, "sync", None)
    if callable(record):
        try:
            record()
        except (sqlite3.Error, OSError, MemdirError) as exc:  # a record, never a reason for the watch to stop
            log.warning("memdir history could not record changes in %s: %s", team_dir, exc)


def _describe_pull(result: PullResult) -> str:

    if result.not_modified:
        return "pull: nothing new on the server"
    skipped = f", {len(result.skipped)} skipped" if result.skipped else ""
    deleted = f", {len(result.deleted)} deleted" if result.deleted else ""
    conflicts = f", {len(result.conflicts)} conflict(s)" if result.conflicts else ""
    return f"pull: {len(result.written)} written, {result.unchanged} unchanged{deleted}{conflicts}{skipped}"
