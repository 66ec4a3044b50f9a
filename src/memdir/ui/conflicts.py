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

__all__ = ["conflict_routes"]

Render = Callable[..., Response]
Work = Callable[[Callable[[], Any]], Awaitable[Any]]


def conflict_routes(
    team_dir: str,
    *,
    render: Render,
    work: Work,
    form_of: Callable[[Request], Awaitable[dict[str, str]]],
    page: Callable[[Callable[[Request], Awaitable[Response]]], Any],
) -> list[Route]:
    async def listing(request: Request) -> Response:
        pending = await work(lambda: pending_conflicts(team_dir))
        return render(request, "conflicts.html", title="Conflicts to resolve", pending=pending)

    async def side_by_side(request: Request) -> Response:
        copy = request.path_params["copy"]
        try:
            pair = await work(lambda: conflict_pair(team_dir, copy))
        except MemdirError as exc:
            return render(request, "error.html", 404, title="No such conflict", message=exc.message)
        mine = unmark_conflict_copy(pair.mine)
        return render(request, "conflict.html", title=f"Conflict on {pair.original}", pair=pair, mine=mine)

    async def resolve(request: Request) -> Response:
        copy = request.path_params["copy"]
        form = await form_of(request)
        choice = form.get("keep", "")
        if choice not in {k.value for k in (Keep.MINE, Keep.THEIRS, Keep.BOTH)}:
            return render(request, "error.html", 400, title="Cannot do that", message="keep mine, theirs or both")
        try:
            await work(lambda: resolve_conflict(team_dir, copy, Keep(choice)))
        except MemdirError as exc:
            return render(request, "error.html", 409, title="Not resolved", message=exc.message)
        return RedirectResponse("/conflicts?resolved=" + copy, status_code=303)

    return [
        Route("/conflicts", page(listing), methods=["GET"]),
        Route("/conflicts/{copy:path}", page(side_by_side), methods=["GET"]),
        Route("/conflicts/{copy:path}", page(resolve), methods=["POST"]),
    ]
