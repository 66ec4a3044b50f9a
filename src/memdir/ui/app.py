"""``memdir ui``: the local web view of one project's memory directory.

Every page is rendered on the server from the same library calls the CLI makes: the list is the
store's scan, search is the offline lexical ranking, "what would be recalled" is the project's
own recaller, saving is :meth:`MemoryDir.save` (so the lock, containment, the team secret guard
and the ``MEMORY.md`` line all hold), and the doctor page is :func:`memdir.doctor.check_memory_dir`.
Store work runs in a worker thread under one lock, because the ranker's index is not shared
between threads. Every expected failure is a page that names it, never a 500.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from memdir.config import MemoryConfig
from memdir.doctor import check_memory_dir
from memdir.errors import (
    LockTimeout,
    MemdirError,
    MemoryExists,
    MemoryNotFound,
    SecretDetected,
    SyncError,
)
from memdir.model.frontmatter import render_scalar
from memdir.model.memory import Memory, long_description_warning
from memdir.model.memory_type import MEMORY_TYPES
from memdir.recall.recaller import Recaller, RecallState
from memdir.recall.selectors import LexicalSelector
from memdir.recall.similar import Near, near_memories
from memdir.store.history_watch import record_external
from memdir.store.memdir import MemoryDir, default_filename
from memdir.store.provenance import acting_as
from memdir.store.scan import MemoryHeader
from memdir.team.local import read_local_team_memory
from memdir.team.resolve import pending_conflicts
from memdir.team.sync import TeamStatus
from memdir.ui.conflicts import conflict_routes
from memdir.ui.gate import TokenGate
from memdir.ui.history_pages import HistoryPages, history_rows
from memdir.ui.links_panel import links_panel
from memdir.ui.listing import list_memories, parse_list_query
from memdir.ui.polish import highlight, matched_words, render_body, type_counts
from memdir.ui.web import FormTooLarge, csrf_token, page_environment, read_form, render_page, static_response

__all__ = ["UiServices", "create_ui_app"]

T = TypeVar("T")
Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class UiServices:
    """What the composition root hands the web view: built once, from one configuration."""

    config: MemoryConfig
    memory_dir: MemoryDir
    recaller: Recaller
    ranker: LexicalSelector  # search over every memory
    team_status: Callable[[], TeamStatus] | None = None  # None: no team server configured
    clock: Callable[[], float] = time.time
    lock: threading.Lock = field(default_factory=threading.Lock)


class _PageError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _status_of(exc: MemdirError) -> int:
    if isinstance(exc, MemoryNotFound):
        return 404
    if isinstance(exc, MemoryExists):
        return 409
    if isinstance(exc, SecretDetected):
        return 422
    if isinstance(exc, LockTimeout):
        return 503
    return 400


def _os_message(exc: OSError, what: str) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return f"{what}: the name is too long for the file system; choose a shorter file name"
    return f"{what}: {exc.strerror or exc}"


def create_ui_app(services: UiServices, *, token: str) -> TokenGate:
    """The ASGI app, wrapped in the token gate."""
    pages = page_environment("memdir.ui")
    pages.filters["highlight"] = highlight
    pages.filters["render_body"] = render_body
    pages.filters["matched_words"] = matched_words
    csrf = csrf_token(token)
    md = services.memory_dir

    def render(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        base = {"csrf": csrf, "nav": True, "path": request.url.path, "memory_dir": md.root, "status": status}
        return render_page(pages, name, {**base, **context}, status=status)

    async def work(fn: Callable[[], T]) -> T:
        def locked() -> T:
            with services.lock, acting_as("ui", label="web view"):
                record_external(md)  # a page shows what is in the history, an outside edit included
                return fn()

        return await run_in_threadpool(locked)

    def page(handler: Handler) -> Handler:
        """Turn expected failures into pages that name them."""

        async def wrapped(request: Request) -> Response:
            try:
                return await handler(request)
            except _PageError as exc:
                return render(request, "error.html", exc.status, title="Cannot do that", message=exc.message)
            except MemdirError as exc:
                status = _status_of(exc)
                return render(request, "error.html", status, title="Cannot do that", message=exc.message)
            except FormTooLarge:
                return render(request, "error.html", 413, title="Too large", message="the form is over 1 MB")
            except OSError as exc:
                message = _os_message(exc, request.url.path)
                return render(request, "error.html", 400, title="Cannot do that", message=message)

        return wrapped

    async def form_of(request: Request) -> dict[str, str]:
        form = await read_form(request)
        if form.get("csrf") != csrf:
            raise _PageError(403, "the form is missing its security value; reload the page and send it again")
        return form

    # -- list and search -------------------------------------------------------------------
    async def index(request: Request) -> Response:
        query = parse_list_query(dict(request.query_params))

        def build() -> Any:
            headers = md.list()
            store = md.ranked_store() if query.text else None
            now_ms = services.clock() * 1000
            page = list_memories(headers, query, ranker=services.ranker, now_ms=now_ms, store=store)
            return page, type_counts(headers)

        result, counts = await work(build)
        return render(
            request, "list.html", title="Memories", query=query, result=result, types=MEMORY_TYPES, counts=counts
        )

    # -- one memory --------------------------------------------------------------------------
    def editor(request: Request, status: int = 200, **context: Any) -> Response:
        defaults: dict[str, Any] = {"message": None, "error": False, "near": [], "panel": None, "warning": None}
        return render(request, "memory.html", status, types=MEMORY_TYPES, **{**defaults, **context})

    def extra_fields(memory: Memory) -> list[tuple[str, str]]:
        return [(key, render_scalar(value)) for key, value in memory.extra.items()]

    async def show(request: Request) -> Response:
        file = request.path_params["file"]
        record = await work(lambda: md.read(file))
        stamp = str(os.stat(record.path).st_mtime_ns)
        saved = request.query_params.get("saved") == "1"
        versions = await work(lambda: history_rows(md, record.file, limit=10))
        panel = await work(lambda: links_panel(md, record.file, record.memory))
        return editor(
            request,
            title=record.memory.name or record.file,
            file=record.file,
            memory=record.memory,
            extra=extra_fields(record.memory),
            stamp=stamp,
            text=record.text,
            message="Saved." if saved else None,
            warning=long_description_warning(record.memory.description),
            new=False,
            versions=versions,
            panel=panel,
        )

    def memory_from(form: dict[str, str], base: Memory | None) -> Memory:
        kind = form.get("type", "")
        return Memory(
            name=form.get("name", "").strip(),
            description=form.get("description", "").strip(),
            type=kind or (base.raw_type if base is not None and base.type is None else None),  # type: ignore[arg-type]
            body=form.get("body", "").replace("\r\n", "\n"),
            extra=base.extra if base is not None else {},
        )

    async def save(request: Request) -> Response:
        file = request.path_params["file"]
        form = await form_of(request)

        def write() -> tuple[str, str | None, Memory]:
            record = md.read(file)
            memory = memory_from(form, record.memory)
            current = str(os.stat(record.path).st_mtime_ns)
            if current != form.get("stamp"):
                return record.file, "changed", memory
            md.save(memory, file=record.file, force=True)
            return record.file, None, memory

        try:
            rel, conflict, memory = await work(write)
        except MemdirError as exc:
            if isinstance(exc, MemoryNotFound):
                raise
            return editor(
                request,
                _status_of(exc),
                title="Not saved",
                file=file,
                memory=memory_from(form, None),
                extra=[],
                stamp=form.get("stamp", ""),
                text=None,
                message=f"Not saved: {exc.message}",
                error=True,
                new=False,
            )
        if conflict:
            message = (
                "Not saved: the file changed on disk after you opened it. Your text is below; "
                "copy it, reload the page to see the other change, and merge by hand."
            )
            return editor(
                request,
                409,
                title="Not saved",
                file=rel,
                memory=memory,
                extra=[],
                stamp=form.get("stamp", ""),
                text=None,
                message=message,
                error=True,
                new=False,
            )
        return RedirectResponse(f"/m/{rel}?saved=1", status_code=303)

    async def new_form(request: Request) -> Response:
        blank = Memory(name=None, description=None, type=None, body="")
        return editor(request, title="New memory", file="", memory=blank, extra=[], stamp="", text=None, new=True)

    async def create(request: Request) -> Response:
        form = await form_of(request)
        memory = memory_from(form, None)
        if memory.type is None:  # the CLI and MCP refuse an untyped memory too
            return editor(
                request,
                400,
                title="Not saved",
                file=form.get("file", ""),
                memory=memory,
                extra=[],
                stamp="",
                text=None,
                message="Not saved: choose a type (user, feedback, project or reference).",
                error=True,
                new=True,
            )
        file = form.get("file", "").strip() or default_filename(memory.type, memory.name or "")
        if form.get("force") != "1":

            def find_near() -> list[Near]:
                md.resolve(file)  # a file name the save would refuse is refused there, with its own message
                return near_memories(md.list(), memory.name, memory.description, memory.body)

            try:
                near = await work(find_near)
            except MemdirError:
                near = []
            if near:
                return editor(
                    request,
                    409,
                    title="Not saved",
                    file=form.get("file", ""),
                    memory=memory,
                    extra=[],
                    stamp="",
                    text=None,
                    message="Not saved: a memory already says nearly the same. Open it and update it, "
                    "or press Create again to save this one anyway.",
                    error=True,
                    new=True,
                    near=[n.header for n in near],
                )
        try:
            result = await work(lambda: md.save(memory, file=file))
        except MemdirError as exc:
            return editor(
                request,
                _status_of(exc),
                title="Not saved",
                file=form.get("file", ""),
                memory=memory,
                extra=[],
                stamp="",
                text=None,
                message=f"Not saved: {exc.message}",
                error=True,
                new=True,
            )
        return RedirectResponse(f"/m/{result.file}?saved=1", status_code=303)

    async def delete(request: Request) -> Response:
        file = request.path_params["file"]
        await form_of(request)
        result = await work(lambda: md.delete(file))
        return render(request, "deleted.html", title="Deleted", result=result)

    # -- recall, doctor, team --------------------------------------------------------------
    async def recall(request: Request) -> Response:
        message = request.query_params.get("message", "")
        result = None
        if message.strip():
            result = await work(lambda: services.recaller.recall(message, state=RecallState()))
        return render(request, "recall.html", title="What would be recalled", message=message, result=result)

    async def doctor(request: Request) -> Response:
        report = await work(lambda: check_memory_dir(md))
        return render(request, "doctor.html", title="Doctor", report=report, fixed=None)

    async def doctor_fix(request: Request) -> Response:
        await form_of(request)
        report = await work(lambda: check_memory_dir(md, fix=True))
        return render(request, "doctor.html", title="Doctor", report=report, fixed=report.fixed)

    async def team(request: Request) -> Response:
        config = services.config

        def gather() -> tuple[list[MemoryHeader], Any, Any]:
            files = [h for h in md.list() if h.filename.startswith("team/")]
            local = read_local_team_memory(config.team_dir) if os.path.isdir(config.team_dir) else None
            return files, local, pending_conflicts(config.team_dir) if os.path.isdir(config.team_dir) else []

        files, local, conflicts = await work(gather)
        status: TeamStatus | None = None
        status_error: str | None = None
        if request.query_params.get("check") == "1" and services.team_status is not None:
            try:
                status = await run_in_threadpool(services.team_status)
            except SyncError as exc:
                status_error = exc.message
        return render(
            request,
            "team.html",
            title="Team memory",
            enabled=config.team_enabled,
            team_dir=config.team_dir,
            files=files,
            local=local,
            configured=services.team_status is not None,
            sync=status,
            sync_error=status_error,
            conflicts=conflicts,
        )

    async def static(request: Request) -> Response:
        return static_response(request.path_params["name"])

    async def not_found(request: Request, exc: Exception) -> Response:
        return render(request, "error.html", 404, title="Not found", message=f"no page at {request.url.path}")

    async def method_not_allowed(request: Request, exc: Exception) -> Response:
        return render(request, "error.html", 405, title="Not allowed", message=f"{request.method} is not used here")

    history = HistoryPages(md, services.config.config_home, render=render, work=work, form_of=form_of, page=page)
    routes = [
        *history.routes(),
        Route("/", page(index)),
        Route("/new", page(new_form), methods=["GET"]),
        Route("/new", page(create), methods=["POST"]),
        Route("/m/{file:path}", page(show), methods=["GET"]),
        Route("/m/{file:path}", page(save), methods=["POST"]),
        Route("/delete/{file:path}", page(delete), methods=["POST"]),
        Route("/recall", page(recall)),
        Route("/doctor", page(doctor), methods=["GET"]),
        Route("/doctor", page(doctor_fix), methods=["POST"]),
        Route("/team", page(team)),
        *conflict_routes(services.config.team_dir, render=render, work=work, form_of=form_of, page=page),
        Route("/static/{name}", static),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: method_not_allowed})
    return TokenGate(app, token=token, pages=pages)
