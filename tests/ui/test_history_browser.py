"""The history pages in a real browser: a memory's versions, diff and restore; recent changes grouped
by run, with undo; and the review of an agent's proposals."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memdir.store.directory import MemoryDir
from memdir.store.provenance import acting_as
from memdir.store.review import open_review

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
FILE = "feedback_real_db_in_tests.md"


@pytest.fixture
def history_ui(memory_root: Path, tmp_path: Path) -> Iterator[str]:
    """``memdir ui`` over a directory with one proposal from an extraction run waiting for review."""
    home = tmp_path / "c"
    proposal = (memory_root / "user_role.md").read_text(encoding="utf-8").replace("payments", "billing")
    with acting_as("extract:s-1234"):
        open_review(MemoryDir(memory_root), str(home)).propose("user_role.md", proposal)
    command = [sys.executable, "-m", "memdir", "--memory-dir", str(memory_root), "ui", "--no-browser"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(home)}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as process:
        try:
            assert process.stdout is not None
            yield process.stdout.readline().strip()
        finally:
            process.terminate()
            process.wait(timeout=30)


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"ui-{name}.png"), full_page=True)


def test_a_person_sees_diffs_restores_undoes_a_run_and_reviews_a_proposal_in_chromium(
    browser_context_factory: Callable[..., Any], history_ui: str, memory_root: Path
) -> None:
    context = browser_context_factory(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.on("dialog", lambda dialog: dialog.accept())
    original = (memory_root / FILE).read_text(encoding="utf-8")

    page.goto(history_ui)
    page.goto(history_ui.split("/?")[0] + f"/m/{FILE}")
    page.get_by_label("Text").fill("Never mock the database.\n**Why:** changed in the browser.")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"**/m/{FILE}?saved=1")
    panel = page.get_by_role("region", name="History")
    assert "v2" in panel.inner_text() and "ui" in panel.inner_text() and "external" in panel.inner_text()
    shot(page, "history-panel")

    page.get_by_role("link", name="All versions, diffs and restore").click()
    page.get_by_text("+**Why:** changed in the browser.").wait_for()
    shot(page, "history-diff")
    page.get_by_role("button", name="Restore v1").click()
    page.wait_for_url("**/history/*restored=1")
    assert (memory_root / FILE).read_text(encoding="utf-8") == original

    page.get_by_role("link", name="Changes").click()
    page.get_by_role("heading", name="ui · web view").first.wait_for()
    shot(page, "changes")
    page.get_by_role("button", name="Undo this run").first.click()
    page.wait_for_url("**/changes?undone=*")
    assert "changed in the browser" in (memory_root / FILE).read_text(encoding="utf-8"), "the restore was undone"

    page.get_by_role("link", name="Review").click()
    page.get_by_text("extract:s-1234").wait_for()
    assert "+description: Leads the billing team" in page.locator("pre.diff").inner_text()
    shot(page, "review")
    page.get_by_role("button", name="Accept #1").click()
    page.wait_for_url("**/review?done=*")
    assert "billing" in (memory_root / "user_role.md").read_text(encoding="utf-8")
    assert "billing" in (memory_root / "MEMORY.md").read_text(encoding="utf-8")
    assert page.get_by_text("No proposals to review.").is_visible()
