"""The web view's conflict pages: every conflict copy team sync kept, and one page per copy with
both versions side by side and the choices of ``memdir team resolve`` (mine, theirs, both).

The resolution is written into ``team/`` (the index follows); the next ``memdir team sync`` (or a
running ``memdir team watch``) sends it to the team, which the page says.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from memdir.errors import MemdirError
from memdir.model.conflicts import unmark_conflict_copy
from memdir.team.resolve import Keep, conflict_pair, pending_conflicts, resolve_conflict
from memdir.web.handlers import WebError

__all__ = ["ConflictPages"]

Render = Callable[..., Response]
Work = Callable[[Callable[[], Any]], Awaitable[Any]]


class ConflictPages:
    """The routes, built over the app's own render, work and form helpers; a refusal raised here is
    shown by the app's one error page."""

    def __init__(
        self,
        team_dir: str,
        *,
        render: Render,
        work: Work,
        form_of: Callable[[Request], Awaitable[dict[str, str]]],
    ) -> None:
        self.team_dir = team_dir
        self.render = render
        self.work = work
        self.form_of = form_of

    def routes(self) -> list[Route]:
        return [
            Route("/conflicts", self.listing, methods=["GET"]),
            Route("/conflicts/{copy:path}", self.side_by_side, methods=["GET"]),
            Route("/conflicts/{copy:path}", self.resolve, methods=["POST"]),
        ]

    async def listing(self, request: Request) -> Response:
        team_dir = self.team_dir
        pending = await self.work(lambda: pending_conflicts(team_dir))
        return self.render(request, "conflicts.html", title="Conflicts to resolve", pending=pending)

    async def side_by_side(self, request: Request) -> Response:
        copy, team_dir = request.path_params["copy"], self.team_dir
        try:
            pair = await self.work(lambda: conflict_pair(team_dir, copy))
        except MemdirError as exc:
            raise WebError(404, exc.message, rule=exc.rule, title="No such conflict") from exc
        mine = unmark_conflict_copy(pair.mine)
        return self.render(request, "conflict.html", title=f"Conflict on {pair.original}", pair=pair, mine=mine)

    async def resolve(self, request: Request) -> Response:
        copy, team_dir = request.path_params["copy"], self.team_dir
        form = await self.form_of(request)
        choice = form.get("keep", "")
        if choice not in {k.value for k in (Keep.MINE, Keep.THEIRS, Keep.BOTH)}:
            raise WebError(400, "keep mine, theirs or both", rule="invalid-choice")
        try:
            await self.work(lambda: resolve_conflict(team_dir, copy, Keep(choice)))
        except MemdirError as exc:
            raise WebError(409, exc.message, rule=exc.rule, title="Not resolved") from exc
        return RedirectResponse("/conflicts?resolved=" + copy, status_code=303)
