"""The web view's history pages: a memory's versions (diff, restore), recent changes by run (undo),
and the review of agents' proposals (accept, reject).

Kept apart from :mod:`memdir.ui.app`, which hands these handlers its page helpers; every change
made here goes through the store's history (:mod:`memdir.store.history_ops`) or review
(:mod:`memdir.store.review`), recorded as ``ui``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeVar
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from memdir.store.directory import MemoryDir
from memdir.store.history_ops import HistoryView
from memdir.store.history_records import HistoryError, Run, Version, iso_time
from memdir.store.review import Review, open_review

__all__ = ["HistoryPages", "history_rows"]

T = TypeVar("T")
_RUNS_SHOWN = 50


class VersionRow(NamedTuple):
    file: str
    version: int
    change: str
    by: str
    at: str
    size: int
    run: str
    restorable: bool


def _row(row: Version) -> VersionRow:
    change = (
        row.change
        if not (row.change == "rename" and row.other)
        else f"rename {'from' if row.hash else 'to'} {row.other}"
    )
    return VersionRow(row.file, row.version, change, row.by, iso_time(row.at), row.size, row.run, row.hash is not None)


def history_rows(memory_dir: MemoryDir, file: str, *, limit: int = 20) -> list[VersionRow]:
    """The newest versions of ``file`` for the panel on its page; empty when no history is kept."""
    view = memory_dir.history
    return [] if view is None else [_row(row) for row in view.versions(file, limit=limit)]


class HistoryPages:
    """The routes, built over the app's own render, work and form helpers; a refusal raised here is
    shown by the app's one error page."""

    def __init__(
        self,
        memory_dir: MemoryDir,
        config_home: str,
        *,
        render: Callable[..., Response],
        work: Callable[[Callable[[], Any]], Awaitable[Any]],
        form_of: Callable[[Request], Awaitable[dict[str, str]]],
    ) -> None:
        self.md = memory_dir
        self.config_home = config_home
        self.render = render
        self.work = work
        self.form_of = form_of

    def routes(self) -> list[Route]:
        return [
            Route("/history/{file:path}", self.versions, methods=["GET"]),
            Route("/restore/{file:path}", self.restore, methods=["POST"]),
            Route("/changes", self.changes, methods=["GET"]),
            Route("/undo", self.undo, methods=["POST"]),
            Route("/review", self.review, methods=["GET"]),
            Route("/review", self.settle, methods=["POST"]),
        ]

    def _view(self) -> HistoryView:
        view = self.md.history
        if view is None:
            raise HistoryError(
                "no history is kept for this memory directory (the settings key memdir.history is false)"
            )
        return view

    async def versions(self, request: Request) -> Response:
        file = request.path_params["file"]
        wanted = request.query_params.get("v", "")

        def gather() -> tuple[list[VersionRow], str | None, int | None]:
            view = self._view()
            rows = [_row(row) for row in view.versions(file)]
            if not rows:
                raise HistoryError(f"{file} has no recorded versions")
            number = int(wanted) if wanted.isdigit() else rows[0].version
            return rows, view.diff(file, end=number), number

        rows, diff, number = await self.work(gather)
        return self.render(
            request, "history.html", title=f"History of {file}", file=file, rows=rows, diff=diff, shown=number
        )

    async def restore(self, request: Request) -> Response:
        file = request.path_params["file"]
        form = await self.form_of(request)
        number = form.get("version", "")
        if not number.isdigit():
            raise HistoryError("choose a version to restore")
        row = await self.work(lambda: self._view().restore(file, int(number)))
        return RedirectResponse(f"/history/{quote(row.file)}?restored={number}", status_code=303)

    async def changes(self, request: Request) -> Response:
        def gather() -> list[tuple[Run, list[VersionRow]]]:
            view = self._view()
            runs = view.runs(limit=_RUNS_SHOWN)
            return [(run, [_row(row) for row in view.db.versions(run=run.id)]) for run in runs]

        groups = await self.work(gather)
        undone = request.query_params.get("undone")
        return self.render(request, "changes.html", title="Recent changes", groups=groups, undone=undone, iso=iso_time)

    async def undo(self, request: Request) -> Response:
        form = await self.form_of(request)
        run = form.get("run", "")
        report = await self.work(lambda: self._view().undo(run))
        if report.conflicts:
            names = ", ".join(row.file for row in report.conflicts)
            raise HistoryError(
                f"undid what could be: {', '.join(report.restored) or 'nothing'}; left alone (changed after that run): "
                f"{names}; restore those from their history pages"
            )
        return RedirectResponse(f"/changes?undone={quote(run)}", status_code=303)

    def _review(self) -> Review:
        return open_review(self.md, self.config_home)

    async def review(self, request: Request) -> Response:
        def gather() -> list[dict[str, object]]:
            found = self._review()
            return [found.as_json(proposal) for proposal in found.proposals()]

        proposals = await self.work(gather)
        done = request.query_params.get("done")
        return self.render(request, "review.html", title="Review agents' changes", proposals=proposals, done=done)

    async def settle(self, request: Request) -> Response:
        form = await self.form_of(request)
        action, which = form.get("action", ""), form.get("id", "")
        if action not in ("accept", "reject"):
            raise HistoryError("choose accept or reject")

        def apply() -> str:
            found = self._review()
            if which == "all":
                done, refused = found.settle_all(action == "accept")
                if refused:
                    raise HistoryError("; ".join(f"#{p.id} {p.file}: {why}" for p, why in refused))
                return f"{len(done)} {action}ed"
            if not which.isdigit():
                raise HistoryError("choose a proposal")
            (found.accept if action == "accept" else found.reject)(int(which))
            return f"#{which} {action}ed"

        message = await self.work(apply)
        return RedirectResponse(f"/review?done={quote(message)}", status_code=303)
