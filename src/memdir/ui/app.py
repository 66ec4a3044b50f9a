"""``memdir ui``: the local web view of one project's memory directory.

Every page is rendered on the server from the same library calls the CLI makes: the list is the
store's scan, search is the offline lexical ranking, "what would be recalled" is the project's
own recaller, saving is :meth:`MemoryDir.save` (so the lock, containment, the team secret guard
and the ``MEMORY.md`` line all hold), and the doctor page is :func:`memdir.doctor.checks.check_memory_dir`
with the pairs doctor proposes (:func:`memdir.doctor.proposals.proposals`), each answered by a button.
Store work runs in a worker thread under one lock, because the ranker's index is not shared
between threads. Every expected failure is a page that names it, never a 500.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from memdir.config import MemoryConfig
from memdir.doctor.checks import DoctorReport, checked_and_loaded
from memdir.errors import MemdirError, MemoryNotFound, SyncError
from memdir.loaded_index import ClaudeCodeLoad
from memdir.model.frontmatter import render_scalar
from memdir.model.memory import Memory, long_description_warning
from memdir.model.memory_type import MEMORY_TYPES
from memdir.model.relations import DISTINCT_KEY, REPLACES_KEY
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller, RecallState
from memdir.recall.selector_protocol import Selector
from memdir.recall.surfacing import memory_age
from memdir.store.directory import MemoryDir
from memdir.store.history_records import history_path
from memdir.store.history_watch import record_external
from memdir.store.lookup import find_memory
from memdir.store.merge import merge_memories
from memdir.store.names import default_filename
from memdir.store.provenance import acting_as
from memdir.store.relations import relate
from memdir.store.review import open_review
from memdir.store.scan import MemoryHeader
from memdir.team.local import read_local_team_memory
from memdir.team.resolve import pending_conflicts
from memdir.team.sync import TeamStatus
from memdir.ui.conflicts import ConflictPages
from memdir.ui.gate import TokenGate
from memdir.ui.history_pages import HistoryPages, history_rows
from memdir.ui.links_panel import links_panel
from memdir.ui.listing import list_memories, parse_list_query
from memdir.ui.polish import TypeCounts, highlight, matched_words, render_body, type_counts
from memdir.web.handlers import WebError, error_handlers, static_route, status_of
from memdir.web.pages import csrf_token, page_environment, read_form, render_page
from memdir.writes.near import Near, near_memories, save_unless_identical

__all__ = ["UiServices", "WebView", "create_ui_app"]

T = TypeVar("T")
# The answers a person gives a pair doctor proposes (memdir.doctor.proposals.Proposal.answers).
DECISIONS = ("merge", "replaces", "different")


@dataclass
class UiServices:
    """What the composition root hands the web view: built once, from one configuration."""

    config: MemoryConfig
    memory_dir: MemoryDir
    recaller: Recaller
    ranker: LexicalSelector  # search over every memory
    writer_ranker: Callable[[], Selector]  # what a new memory is checked against (memdir.writes.near)
    team_status: Callable[[], TeamStatus] | None = None  # None: no team server configured
    clock: Callable[[], float] = time.time
    lock: threading.Lock = field(default_factory=threading.Lock)


class WebView:
    """The web view's endpoints, one method each, over the services of one project.

    A method that cannot do what was asked raises (a :class:`WebError`, or the store's own
    refusal); the app's one exception handler shows it as an error page (:meth:`show_error`). The
    history and conflict pages are their own classes, built over this one's helpers."""

    def __init__(self, services: UiServices, *, token: str) -> None:
        self.services = services
        self.md = services.memory_dir
        self.token = token
        self.csrf = csrf_token(token)
        self.pages = page_environment("memdir.ui")
        self.pages.filters["highlight"] = highlight
        self.pages.filters["render_body"] = render_body
        self.pages.filters["matched_words"] = matched_words
        self.type_counts = TypeCounts()  # used inside work(), one at a time

    def routes(self) -> list[Route]:
        helpers: dict[str, Any] = {"render": self.render, "work": self.work, "form_of": self.form_of}
        history = HistoryPages(self.md, self.services.config.config_home, **helpers)
        conflicts = ConflictPages(self.services.config.team_dir, **helpers)
        return [
            *history.routes(),
            Route("/", self.index),
            Route("/new", self.new_form, methods=["GET"]),
            Route("/new", self.create, methods=["POST"]),
            Route("/m/{file:path}", self.show, methods=["GET"]),
            Route("/m/{file:path}", self.save, methods=["POST"]),
            Route("/delete/{file:path}", self.delete, methods=["POST"]),
            Route("/recall", self.recall),
            Route("/doctor", self.doctor, methods=["GET"]),
            Route("/doctor", self.doctor_fix, methods=["POST"]),
            Route("/instructions", self.instructions),
            Route("/doctor/decide", self.doctor_decide, methods=["POST"]),
            Route("/team", self.team),
            *conflicts.routes(),
            static_route(),
        ]

    def app(self) -> TokenGate:
        """The ASGI app, wrapped in the token gate."""
        app = Starlette(routes=self.routes(), exception_handlers=error_handlers(self.show_error))
        return TokenGate(app, token=self.token, pages=self.pages)

    # -- helpers every page uses -------------------------------------------------------------
    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        base = {"csrf": self.csrf, "nav": True, "path": request.url.path, "memory_dir": self.md.root, "status": status}
        return render_page(self.pages, name, {**base, "waiting": self.waiting(), **context}, status=status)

    def waiting(self) -> int:
        """How many agents' proposals wait for review (the Review tab shows it); 0 when none was
        ever made (the history database is not created just to say so) or it cannot be read."""
        home = self.services.config.config_home
        if not os.path.exists(history_path(self.md.root, home)):
            return 0
        review = open_review(self.md, home)
        try:
            return review.count()
        except (MemdirError, sqlite3.Error):
            return 0
        finally:
            review.db.close()

    def show_error(self, request: Request, error: WebError) -> Response:
        """Every expected failure is a page that names it, never a 500."""
        title = error.title or "Cannot do that"
        return self.render(request, "error.html", error.status, title=title, message=error.message)

    async def work(self, fn: Callable[[], T]) -> T:
        """Store work in a worker thread, one at a time (the ranker's index is not shared between
        threads), recorded in the history as the web view's."""
        services, md = self.services, self.md

        def locked() -> T:
            with services.lock, acting_as("ui", label="web view"):
                record_external(md)  # a page shows what is in the history, an outside edit included
                return fn()

        return await run_in_threadpool(locked)

    async def form_of(self, request: Request) -> dict[str, str]:
        """The posted form, refused without this session's security value."""
        form = await read_form(request)
        if form.get("csrf") != self.csrf:
            message = "the form is missing its security value; reload the page and send it again"
            raise WebError(403, message, rule="csrf")
        return form

    # -- list and search -------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        query = parse_list_query(dict(request.query_params))
        md, services = self.md, self.services

        def build() -> Any:
            headers = md.headers()
            store = md.ranked_store() if query.text else None
            now_ms = services.clock() * 1000
            page = list_memories(headers, query, ranker=services.ranker, now_ms=now_ms, store=store)
            return page, self.type_counts(headers) if page.narrowed is None else type_counts(page.narrowed)

        result, counts = await self.work(build)
        return self.render(
            request, "list.html", title="Memories", query=query, result=result, types=MEMORY_TYPES, counts=counts
        )

    # -- one memory --------------------------------------------------------------------------
    def editor(self, request: Request, status: int = 200, **context: Any) -> Response:
        defaults: dict[str, Any] = {"message": None, "error": False, "near": [], "panel": None, "warning": None}
        return self.render(
            request, "memory.html", status, types=MEMORY_TYPES, age=self._age(), **{**defaults, **context}
        )

    def _age(self) -> Callable[[MemoryHeader], str]:
        """How long ago a memory was saved, as the pages say it ("3 days ago")."""
        now_ms = self.services.clock() * 1000
        return lambda header: memory_age(header.time_ms, now_ms)

    def not_saved(
        self, request: Request, status: int, message: str, *, file: str, memory: Memory, new: bool, **context: Any
    ) -> Response:
        """The editor again, with what was typed and why it was not saved."""
        return self.editor(
            request, status, title="Not saved", file=file, memory=memory, extra=[], text=None,
            message=message, error=True, new=new, **{"stamp": "", **context},
        )  # fmt: skip

    async def show(self, request: Request) -> Response:
        file = request.path_params["file"]
        md = self.md
        try:
            record = await self.work(lambda: md.read(file))
        except MemoryNotFound:
            restorable = await self.work(lambda: self.restorable(file))
            if restorable is None:
                raise
            return self.render(
                request, "deleted.html", 404, title="Deleted", result=None, file=file, restorable=restorable
            )
        stamp = str(os.stat(record.path).st_mtime_ns)
        saved = request.query_params.get("saved") == "1"
        versions = await self.work(lambda: history_rows(md, record.file, limit=10))
        panel = await self.work(lambda: links_panel(md, record.file, record.memory))
        return self.editor(
            request,
            title=record.memory.name or record.file,
            file=record.file,
            memory=record.memory,
            extra=_extra_fields(record.memory),
            stamp=stamp,
            text=record.text,
            message="Saved." if saved else None,
            warning=long_description_warning(record.memory.description),
            new=False,
            versions=versions,
            panel=panel,
        )

    async def save(self, request: Request) -> Response:
        file = request.path_params["file"]
        form = await self.form_of(request)
        md = self.md

        def write() -> tuple[str, str | None, Memory]:
            record = md.read(file)
            memory = _memory_from(form, record.memory)
            current = str(os.stat(record.path).st_mtime_ns)
            if current != form.get("stamp"):
                return record.file, "changed", memory
            md.save(memory, file=record.file, force=True)
            return record.file, None, memory

        stamp = form.get("stamp", "")
        try:
            rel, conflict, memory = await self.work(write)
        except MemdirError as exc:
            if isinstance(exc, MemoryNotFound):
                raise
            memory = _memory_from(form, None)
            message = f"Not saved: {exc.message}"
            return self.not_saved(request, status_of(exc), message, file=file, memory=memory, new=False, stamp=stamp)
        if conflict:
            message = (
                "Not saved: the file changed on disk after you opened it. Your text is below; "
                "copy it, reload the page to see the other change, and merge by hand."
            )
            return self.not_saved(request, 409, message, file=rel, memory=memory, new=False, stamp=stamp)
        return RedirectResponse(f"/m/{rel}?saved=1", status_code=303)

    async def new_form(self, request: Request) -> Response:
        blank = Memory(name=None, description=None, type=None, body="")
        return self.editor(request, title="New memory", file="", memory=blank, extra=[], stamp="", text=None, new=True)

    async def create(self, request: Request) -> Response:
        form = await self.form_of(request)
        memory = _memory_from(form, None)
        typed = form.get("file", "")
        if memory.type is None:  # the CLI and MCP refuse an untyped memory too
            message = "Not saved: choose a type (user, feedback, project or reference)."
            return self.not_saved(request, 400, message, file=typed, memory=memory, new=True)
        file = typed.strip() or default_filename(memory.type, memory.name or "")
        md = self.md
        ranker = self.services.writer_ranker
        forced = form.get("force") == "1"
        if not forced:

            def find_near() -> list[Near]:
                md.resolve(file)  # a file name the save would refuse is refused there, with its own message
                return near_memories(md, memory, ranker=ranker())

            try:
                near = await self.work(find_near)
            except MemdirError:
                near = []
            if near:
                # A person decides: the memories that may already say it, with their dates, and a
                # second press of Create to save this one beside them.
                message = (
                    "Not saved yet: these memories may already say it. Open one and update it, "
                    "or press Create again to save this one as a new memory."
                )
                headers = [n.header for n in near]
                return self.not_saved(request, 409, message, file=typed, memory=memory, new=True, near=headers)
        try:
            # Create pressed again beside the near memories shown saves it as it is (an existing file
            # of that name is still refused); a first press is refused by a memory saying it word
            # for word, written since the near memories were looked up.
            result = await self.work(
                lambda: (
                    md.save(memory, file=file)
                    if forced
                    else save_unless_identical(md, memory, file=file, ranker=ranker())[0]
                )
            )
        except MemdirError as exc:
            message = f"Not saved: {exc.message}"
            return self.not_saved(request, status_of(exc), message, file=typed, memory=memory, new=True)
        return RedirectResponse(f"/m/{result.file}?saved=1", status_code=303)

    async def delete(self, request: Request) -> Response:
        file = request.path_params["file"]
        await self.form_of(request)
        md = self.md
        result = await self.work(lambda: md.delete(file))
        restorable = await self.work(lambda: self.restorable(result.file))
        return self.render(
            request, "deleted.html", title="Deleted", result=result, file=result.file, restorable=restorable
        )

    def restorable(self, file: str) -> int | None:
        """The version a restore of the deleted ``file`` brings back; None when it is not deleted,
        or no history is kept."""
        view = self.md.history
        try:
            return None if view is None else view.deleted_version(file)
        except MemdirError:
            return None

    # -- recall, doctor, team --------------------------------------------------------------
    async def recall(self, request: Request) -> Response:
        message = request.query_params.get("message", "")
        result = None
        if message.strip():
            recaller = self.services.recaller
            result = await self.work(lambda: recaller.recall(message, state=RecallState()))
        return self.render(request, "recall.html", title="What would be recalled", message=message, result=result)

    async def doctor(self, request: Request) -> Response:
        report, loaded = await self.work(lambda: self.checked(fix=False))
        decided = request.query_params.get("decided", "")
        return self._doctor_page(request, report, loaded, fixed=None, decided=decided)

    def _doctor_page(
        self,
        request: Request,
        report: DoctorReport,
        loaded: ClaudeCodeLoad,
        *,
        fixed: Any,
        decided: str,
    ) -> Response:
        # A pair's note is shown as the pair itself, with its buttons.
        notes = [note for note in report.notes if note.rule not in ("identical", "same-subject")]
        context = {"report": report, "loaded": loaded, "pairs": report.pairs, "notes": notes, "fixed": fixed}
        context.update(decided=decided, age=self._age())
        return self.render(request, "doctor.html", title="Doctor", **context)

    async def doctor_fix(self, request: Request) -> Response:
        await self.form_of(request)
        report, loaded = await self.work(lambda: self.checked(fix=True))
        return self._doctor_page(request, report, loaded, fixed=report.fixed, decided="")

    def checked(self, *, fix: bool) -> tuple[DoctorReport, ClaudeCodeLoad]:
        """The doctor's report and what Claude Code loads of MEMORY.md (:func:`checked_and_loaded`)."""
        return checked_and_loaded(self.services.config, self.md, fix=fix)

    async def instructions(self, request: Request) -> Response:
        """The CLAUDE.md chain, and beside it the AGENTS.md and GEMINI.md files Codex CLI and Gemini
        CLI load in this project: each agent's own files, read here, never written."""
        from memdir.instructions.agent_files import agent_instruction_files
        from memdir.instructions.discovery import load_instructions

        config = self.services.config

        def gather() -> tuple[Any, Any]:
            return load_instructions(config), agent_instruction_files(config)

        chain, others = await run_in_threadpool(gather)
        groups = [
            ("Claude Code", [(f.type.value, f.path, f.chars, f.reason) for f in chain.files]),
            ("Codex CLI", [(f.scope, f.path, f.chars, f.reason) for f in others if f.agent == "codex"]),
            ("Gemini CLI", [(f.scope, f.path, f.chars, f.reason) for f in others if f.agent == "gemini"]),
        ]
        return self.render(request, "instructions.html", title="Instructions", groups=groups)

    async def doctor_decide(self, request: Request) -> Response:
        """A person's answer to a pair doctor proposed: merge them, the newer replaces the older, or
        they are different facts (never proposed again)."""
        form = await self.form_of(request)
        answer, older, newer = form.get("answer", ""), form.get("older", ""), form.get("newer", "")
        if answer not in DECISIONS or not older or not newer:
            raise WebError(400, "choose merge, replaces or different for two memories", rule="decision")
        md = self.md

        def decide() -> str:
            keep, other = find_memory(md, newer), find_memory(md, older)
            if answer == "merge":
                merge_memories(md, keep, other)
                return f"merged {other} into {keep}"
            key = REPLACES_KEY if answer == "replaces" else DISTINCT_KEY
            relate(md, keep, key, other)
            return f"recorded: {keep} {key} {other}"

        done = await self.work(decide)
        return RedirectResponse(f"/doctor?{urlencode({'decided': done})}", status_code=303)

    async def team(self, request: Request) -> Response:
        services, md = self.services, self.md
        config = services.config

        def gather() -> tuple[list[MemoryHeader], Any, Any]:
            files = [h for h in md.headers() if h.filename.startswith("team/")]
            local = read_local_team_memory(config.team_dir) if os.path.isdir(config.team_dir) else None
            return files, local, pending_conflicts(config.team_dir) if os.path.isdir(config.team_dir) else []

        files, local, conflicts = await self.work(gather)
        status: TeamStatus | None = None
        status_error: str | None = None
        if request.query_params.get("check") == "1" and services.team_status is not None:
            try:
                status = await run_in_threadpool(services.team_status)
            except SyncError as exc:
                status_error = exc.message
        return self.render(
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


def create_ui_app(services: UiServices, *, token: str) -> TokenGate:
    """The ASGI app, wrapped in the token gate."""
    return WebView(services, token=token).app()


def _extra_fields(memory: Memory) -> list[tuple[str, str]]:
    return [(key, render_scalar(value)) for key, value in memory.extra.items()]


def _memory_from(form: dict[str, str], base: Memory | None) -> Memory:
    kind = form.get("type", "")
    return Memory(
        name=form.get("name", "").strip(),
        description=form.get("description", "").strip(),
        type=kind or (base.raw_type if base is not None and base.type is None else None),  # type: ignore[arg-type]
        body=form.get("body", "").replace("\r\n", "\n"),
        extra=base.extra if base is not None else {},
    )
