"""The web view in a real browser (headless chromium): what a person clicks, end to end.

Each page is also saved as a screenshot under tests/artifacts/ for a person to look at.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"  # screenshots, not kept in git


@pytest.fixture
def ui_url(memory_root: Path, tmp_path: Path) -> Iterator[str]:
    """``memdir ui`` as a child process; yields the tokened address it printed first."""
    team = memory_root / "team"
    team.mkdir()
    (team / "project_deploy.md").write_text(
        "---\nname: Deploy\ndescription: how we deploy the payments service\ntype: project\n---\n\nUse the pipeline.\n",
        "utf-8",
    )
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (team / "reference_ci.md").write_text(
        f"---\nname: CI\ndescription: the CI token\ntype: reference\n---\n\ntoken {secret}\n", "utf-8"
    )
    (memory_root / "project_orphan.md").write_text(
        "---\nname: Orphan\ndescription: a memory missing from the index\ntype: project\n---\n\nbody\n", "utf-8"
    )
    command = [sys.executable, "-m", "memdir", "--memory-dir", str(memory_root), "ui", "--no-browser"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as process:
        try:
            assert process.stdout is not None
            yield process.stdout.readline().strip()
        finally:
            process.terminate()
            process.wait(timeout=30)


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"ui-{name}.png"), full_page=True)


def test_a_person_browses_searches_edits_and_checks_memory_in_chromium(
    browser_context_factory: Callable[..., Any], ui_url: str, memory_root: Path
) -> None:
    context = browser_context_factory(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)

    page.goto(ui_url)
    assert "token=" not in page.url
    assert page.get_by_role("heading", name="Memories").is_visible()
    assert page.get_by_role("link", name="Real DB in tests").is_visible()
    shot(page, "list")

    page.get_by_label("Search").fill("database mocks")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url("**/?q=database+mocks*")
    assert "match" in page.get_by_role("status").inner_text()
    shot(page, "search")

    page.get_by_role("link", name="Real DB in tests").click()
    page.wait_for_url("**/m/feedback_real_db_in_tests.md")
    assert page.get_by_label("Name", exact=True).input_value() == "Real DB in tests"
    page.get_by_label("Description").fill("Integration tests hit a real PostgreSQL, never mocks")
    page.get_by_label("Text").fill("Never mock the database.\n**Why:** edited in chromium.")
    shot(page, "edit")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url("**/m/feedback_real_db_in_tests.md?saved=1")
    assert page.get_by_role("status").inner_text() == "Saved."
    on_disk = (memory_root / "feedback_real_db_in_tests.md").read_text(encoding="utf-8")
    assert "edited in chromium" in on_disk and "real PostgreSQL" in on_disk
    assert "real PostgreSQL" in (memory_root / "MEMORY.md").read_text(encoding="utf-8")
    shot(page, "saved")

    page.get_by_role("link", name="Recall").click()
    page.get_by_label("A message from the user").fill("should the integration tests use a real database?")
    page.get_by_role("button", name="Show what recall would add").click()
    page.wait_for_url("**/recall?message=*")
    assert "<system-reminder>" in page.locator("pre").first.inner_text()
    shot(page, "recall")

    page.get_by_role("link", name="Doctor").click()
    page.get_by_text("index-missing").first.wait_for()  # waits for the new page, unlike is_visible()
    shot(page, "doctor")
    page.get_by_role("button", name="Fix the indexes").click()
    page.get_by_text("Repaired MEMORY.md").wait_for()
    assert "project_orphan.md" in (memory_root / "MEMORY.md").read_text(encoding="utf-8")
    shot(page, "doctor-fixed")

    page.get_by_role("link", name="Team").click()
    page.get_by_role("link", name="Deploy").wait_for()
    alert = page.get_by_role("alert").inner_text()
    assert "reference_ci.md" in alert and "ghp_" not in page.content()
    shot(page, "team")

    page.get_by_role("link", name="New").click()
    page.get_by_label("Name", exact=True).fill("Release freeze")
    page.get_by_label("Description").fill("No merges after Thursday")
    page.get_by_label("Type", exact=True).select_option("project")
    page.get_by_label("Text").fill("The mobile team cuts the branch.")
    page.get_by_role("button", name="Create").click()
    page.wait_for_url("**/m/project_release_freeze.md?saved=1")
    assert (memory_root / "project_release_freeze.md").is_file()

    page.on("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete this memory").click()
    page.get_by_text("Deleted").first.wait_for()
    assert not (memory_root / "project_release_freeze.md").exists()


@pytest.fixture
def pair_root(memory_root: Path) -> Path:
    """Two memories whose names say one subject, written a month apart: doctor proposes the pair."""
    import os
    import time

    for file, name, description, days in (
        ("project_dashboard_latency.md", "Dashboard API latency", "Dashboard API p95 is 800 ms", 30),
        ("project_dashboard_latency_cached.md", "Dashboard API latency after caching", "Now 250 ms", 1),
    ):
        path = memory_root / file
        path.write_text(f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n\nLoad test.\n", "utf-8")
        stamp = time.time() - days * 86_400
        os.utime(path, (stamp, stamp))
    return memory_root


def test_a_person_answers_a_pair_doctor_proposes(
    browser_context_factory: Callable[..., Any], pair_root: Path, ui_url: str
) -> None:
    context = browser_context_factory(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(ui_url)
    page.get_by_role("link", name="Doctor").click()
    page.get_by_role("heading", name="To decide").wait_for()
    assert "may be versions of one subject" in page.locator(".pair").first.inner_text()
    shot(page, "doctor-pairs")
    page.get_by_role("button", name="Different facts").click()
    page.get_by_text("Done: recorded").wait_for()
    older = (pair_root / "project_dashboard_latency.md").read_text(encoding="utf-8")
    newer = (pair_root / "project_dashboard_latency_cached.md").read_text(encoding="utf-8")
    assert "distinct-from: [project_dashboard_latency.md]" in newer and "distinct-from" not in older
    assert page.get_by_role("heading", name="To decide").count() == 0  # decided: never proposed again
    shot(page, "doctor-decided")


def test_the_view_fits_a_phone_screen(
    browser_context_factory: Callable[..., Any], ui_url: str, memory_root: Path
) -> None:
    long_name = "project_integration_tests_database_migration_checklist_for_the_payments_service.md"
    (memory_root / long_name).write_text(
        "---\nname: Integration test database checklist\ndescription: What the integration tests need from the "
        "database\ntype: project\n---\n\nRun https://ci.example.com/pipelines/payments-service/integration-database"
        "-migrations-checklist before merging.\n",
        "utf-8",
    )
    context = browser_context_factory(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(ui_url)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, "phone-list")
    page.get_by_role("link", name="Real DB in tests").click()
    page.wait_for_url("**/m/feedback_real_db_in_tests.md")  # evaluating during the navigation would fail
    page.wait_for_load_state()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, "phone-memory")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(ui_url.split("?", 1)[0] + "recall?message=how+should+the+integration+tests+treat+the+database%3F")
    page.wait_for_load_state()
    assert page.get_by_text("Matched on").first.is_visible()
    # A phone zooms out to show what is too wide, so the page's own width cannot tell: no element
    # may reach past the 390 pixels of the screen.
    wide = page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391)"
        ".map(e => e.tagName + ' ' + e.textContent.slice(0, 40))"
    )
    assert wide == []
    shot(page, "phone-recall")


def test_without_the_token_the_browser_gets_the_403_page(
    browser_context_factory: Callable[..., Any], ui_url: str
) -> None:
    context = browser_context_factory()
    page = context.new_page()
    response = page.goto(ui_url.split("?", 1)[0])
    assert response is not None and response.status == 403
    assert page.get_by_role("alert").is_visible()
    assert "Real DB" not in page.content()
    shot(page, "forbidden")


def test_the_browser_memdir_ui_opens_lands_signed_in_on_the_memories(
    browser_context_factory: Callable[..., Any], memory_root: Path, tmp_path: Path
) -> None:
    """``memdir ui`` hands the browser a local page holding the one-time code (never a command
    line); from there chromium reaches the view signed in, its SameSite=Strict cookie and all."""
    recorder = tmp_path / "browser.sh"
    recorder.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" > "{tmp_path / "opened"}"\n', encoding="utf-8")
    recorder.chmod(0o700)
    command = [sys.executable, "-m", "memdir", "--memory-dir", str(memory_root), "ui"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}
    env["BROWSER"] = str(recorder)
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as process:
        try:
            assert process.stdout is not None
            process.stdout.readline()  # the address: printed after the browser was handed its page
            opened = (tmp_path / "opened").read_text(encoding="utf-8").strip()
            assert opened.startswith("file:///") and "code=" not in opened
            page = browser_context_factory().new_page()
            page.set_default_timeout(30_000)
            page.goto(opened)
            page.wait_for_url("http://127.0.0.1:*/")
            assert page.get_by_role("heading", name="Memories").is_visible()
        finally:
            process.terminate()
            process.wait(timeout=30)
