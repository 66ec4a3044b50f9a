"""When the team-memory watcher pushes (SPEC §9.7), independent of how changes are noticed.

A push runs ``delay`` seconds after the last change; a change during a push re-arms the timer
instead of starting a second push; a permanent failure (bad token, no repository, a 4xx other
than 409/429) suppresses pushes until a file is deleted or the process restarts; shutdown
awaits the push in flight and flushes one more if changes are pending.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from memdir.errors import MemdirError, SyncAuthError, SyncError

__all__ = ["DEFAULT_DELAY", "PushScheduler", "is_permanent_failure"]

DEFAULT_DELAY = 2.0
log = logging.getLogger("memdir.team")


def is_permanent_failure(error: BaseException) -> bool:
    """Failures that pushing again cannot fix without the user changing something."""
    if isinstance(error, SyncAuthError):
        return True
    if isinstance(error, SyncError):
        if error.rule in ("sync-no-repo", "sync-no-server"):
            return True
        status = error.status
        return status is not None and 400 <= status < 500 and status not in (409, 429)
    return False


class PushScheduler:
    """Debounced pushes on one background thread; ``push`` is called with no overlap."""

    def __init__(
        self,
        push: Callable[[], object],
        *,
        delay: float = DEFAULT_DELAY,
        clock: Callable[[], float] = time.monotonic,
        on_done: Callable[[object, BaseException | None], None] | None = None,
    ) -> None:
        self._push = push
        self._delay = delay
        self._clock = clock
        self._on_done = on_done
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._suppressed = False
        self._closed = False
        self.attempts = 0
        self._thread = threading.Thread(target=self._run, name="memdir-team-push", daemon=True)
        self._thread.start()

    @property
    def suppressed(self) -> bool:
        with self._cond:
            return self._suppressed

    @property
    def pending(self) -> bool:
        with self._cond:
            return self._deadline is not None

    def notify_change(self) -> None:
        """A file in team/ changed (or a tool just wrote one): push after the quiet period."""
        with self._cond:
            if not self._closed:
                self._deadline = self._clock() + self._delay
                self._cond.notify_all()

    def notify_deletion(self) -> None:
        """A file disappeared: the user acted, so a suppressed watcher tries again."""
        with self._cond:
            if self._suppressed:
                log.info("team push suppression lifted by a deletion")
            self._suppressed = False
        self.notify_change()

    def wait_for(self, predicate: Callable[[PushScheduler], bool], timeout: float) -> bool:
        """Block until ``predicate(self)`` holds after some push finished (tests and shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self), timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._closed:
                        return
                    if self._deadline is None:
                        self._cond.wait()
                        continue
                    remaining = self._deadline - self._clock()
                    if remaining > 0:
                        self._cond.wait(remaining)
                        continue
                    self._deadline = None
                    if self._suppressed:
                        log.info("team push suppressed after a permanent failure; delete a file or restart")
                        self._cond.notify_all()
                        continue
                    break
            self._attempt()

    def _attempt(self) -> None:
        result: object = None
        error: BaseException | None = None
        try:
            result = self._push()
        except (MemdirError, OSError) as exc:
            error = exc
        with self._cond:
            self.attempts += 1
            if error is not None and is_permanent_failure(error):
                self._suppressed = True
            if self._deadline is not None and self._deadline <= self._clock():
                self._deadline = self._clock() + self._delay
            self._cond.notify_all()
        if self._on_done is not None:
            self._on_done(result, error)
        elif error is not None:
            log.warning("team push failed: %s", getattr(error, "message", error))

    def shutdown(self, budget: float = DEFAULT_DELAY) -> bool:
        """Stop the timer, await the push in flight (up to ``budget`` seconds), then flush one push
        if changes are pending and pushes are not suppressed. Returns whether it flushed."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(budget)
        with self._cond:
            if self._thread.is_alive() or self._deadline is None or self._suppressed:
                return False
            self._deadline = None
        self._attempt()
        return True
