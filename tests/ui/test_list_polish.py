"""The list a person enjoys: a colour per type, counts, day groups, highlighted matches, broken
memories flagged, and a New form that requires a type; in process and in headless chromium."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def test_the_list_counts_types_groups_by_day_and_flags_a_broken_memory(client: TestClient, memory_root: Path):
    (memory_root / "project_broken.md").write_text("---\nname: Broken\ntype: project\n---\n\nno description\n")
    page = client.get("/").text
    assert 'class="tag tag-feedback" href="/?type=feedback">feedback <strong>1</strong>' in page
    assert "<h2>Today</h2>" in page
    assert "needs a description" in page and "type-project broken" in page


def test_the_counts_per_type_follow_every_change_to_the_store(client: TestClient, memory_root: Path):
    def feedback_count() -> str:
        page = client.get("/").text
        return page.split('href="/?type=feedback">feedback <strong>', 1)[1].split("<", 1)[0]

    assert feedback_count() == feedback_count() == "1"
    note = "---\nname: Reviews\ndescription: Reviews are short\ntype: feedback\n---\n\nKeep them short.\n"
    (memory_root / "feedback_reviews.md").write_text(note)
    assert feedback_count() == "2"
    (memory_root / "saved.tmp").write_text(note.replace("type: feedback", "type: project"))
    (memory_root / "saved.tmp").replace(memory_root / "feedback_reviews.md")  # an editor's save
    assert feedback_count() == "1"


def test_a_search_highlights_the_matched_words_and_says_which_words_matched_not_a_score(client: TestClient):
    page = client.get("/", params={"q": "the payments reviews"}).text
    assert "<mark>payments</mark>" in page and "<mark>reviews</mark>" in page
    assert "· matched on payments, reviews</p>" in page
    assert not re.search(r"matched \d", page)  # no raw ranking score
    assert "<mark>" not in client.get("/", params={"q": "<script>"}).text.split("</form>", 1)[1]


def test_the_type_chips_count_the_results_shown_and_keep_the_search(client: TestClient):
    page = client.get("/", params={"q": "payments"}).text
    chips = dict(re.findall(r'href="/\?q=payments&amp;type=(\w*)">\w+ <strong>(\d+)</strong>', page))
    assert chips == {"user": "1", "feedback": "0", "project": "0", "reference": "0"}
    assert 'aria-label="Results by type"' in page
    whole = client.get("/").text
    assert 'href="/?type=feedback">feedback <strong>1</strong>' in whole and 'aria-label="Memories by type"' in whole


def test_the_words_recall_matched_on_leave_out_words_like_the() -> None:
    from memdir.ui.polish import matched_words

    assert matched_words("how should the tests treat the database?", "The database tests") == "tests, database"


def test_links_in_a_memorys_body_are_clickable(client: TestClient, memory_root: Path):
    (memory_root / "project_links.md").write_text(
        "---\nname: Links\ndescription: links elsewhere\ntype: project\n---\n\nSee [[Role]], [[user_role|the lead]] "
        "and [[nothing-yet]].\n"
    )
    page = client.get("/m/project_links.md").text
    body = page.split('<div class="body">', 1)[1].split("</div>", 1)[0]
    assert '<a class="memory-link" href="/m/user_role.md">Role</a>' in body
    assert '<a class="memory-link" href="/m/user_role.md">the lead</a>' in body
    assert '<span class="dangling" title="no memory named nothing-yet yet">[[nothing-yet]]</span>' in body


def test_the_review_tab_says_how_many_proposals_wait(client: TestClient, memory_root: Path, services: Any):
    from memdir.store.review import open_review

    assert "badge" not in client.get("/").text.split("</nav>", 1)[0]
    review = open_review(services.memory_dir, services.config.config_home)
    review.propose("project_new.md", "---\nname: New\ndescription: proposed\ntype: project\n---\n\nx\n")
    review.propose("user_role.md", None)
    nav = client.get("/recall").text.split("</nav>", 1)[0]
    assert 'Review <span class="badge">2<span class="visually-hidden"> waiting</span></span>' in nav


def test_the_new_form_requires_a_type(client: TestClient, memory_root: Path):
    form = client.get("/new").text
    assert '<select id="type" name="type" required>' in form and "choose a type" in form
    csrf = form.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    refused = client.post("/new", data={"csrf": csrf, "name": "Untyped", "description": "no type given", "body": "x"})
    assert refused.status_code == 400 and "choose a type" in refused.text
    assert not list(memory_root.glob("*untyped*"))


def test_a_memory_reads_rendered_above_its_editor_with_an_edit_button(client: TestClient, memory_root: Path):
    (memory_root / "project_x.md").write_text(
        "---\nname: X\ndescription: x things\ntype: project\n---\n\n**Why:** it `matters`.\n\n- one\n- <b>two</b>\n"
    )
    page = client.get("/m/project_x.md").text
    rendered = page.split('<article class="rendered type-project"', 1)[1].split("</article>", 1)[0]
    assert "<strong>Why:</strong> it <code>matters</code>." in rendered
    assert "<li>one</li><li>&lt;b&gt;two&lt;/b&gt;</li>" in rendered
    assert '<a class="button" href="#editor">Edit</a>' in rendered


def test_the_recall_preview_says_which_words_each_memory_matched_on(client: TestClient):
    page = client.get("/recall", params={"message": "who leads the payments team?"}).text
    assert "Matched on <strong>" in page and "payments" in page.split("Matched on <strong>", 1)[1].split("</strong>")[0]


@pytest.fixture
def ui_url(memory_root: Path, tmp_path: Path) -> Iterator[str]:
    (memory_root / "project_deploy.md").write_text(
        "---\nname: Deploy window\ndescription: payments deploys go out on Tuesdays\ntype: project\n---\n\nTue.\n"
    )
    (memory_root / "reference_runbook.md").write_text(
        "---\nname: Runbook\ndescription: the payments runbook lives in the wiki\ntype: reference\n---\n\nSee wiki.\n"
    )
    (memory_root / "project_broken.md").write_text("---\nname: Broken\ntype: project\n---\n\nno description\n")
    command = [sys.executable, "-m", "memdir", "--memory-dir", str(memory_root), "ui", "--no-browser"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as process:
        try:
            assert process.stdout is not None
            yield process.stdout.readline().strip()
        finally:
            process.terminate()
            process.wait(timeout=30)


@pytest.mark.parametrize("width", [1280, 390])
def test_each_page_reads_well_at_desktop_and_phone_width(
    browser_context_factory: Callable[..., Any], ui_url: str, width: int
) -> None:
    context = browser_context_factory(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(ui_url)
    base = ui_url.split("?", 1)[0].rstrip("/")
    colours = page.eval_on_selector_all(
        ".memories .tag-project, .memories .tag-user", "els => els.map(e => getComputedStyle(e).color)"
    )
    assert len(set(colours)) == 2, colours
    for name, path in [("list", "/"), ("search", "/?q=payments"), ("memory", "/m/project_deploy.md"), ("new", "/new"),
                       ("recall", "/recall?message=when+do+payments+deploy"), ("doctor", "/doctor")]:  # fmt: skip
        page.goto(base + path)
        page.wait_for_load_state()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), name
        page.screenshot(path=str(ARTIFACTS / f"polish-{name}-{width}.png"), full_page=True)
    page.goto(base + "/?q=payments")
    assert page.locator("mark").count() >= 2


def test_a_conflict_is_resolved_from_a_side_by_side_page(client: TestClient, memory_root: Path):
    from memdir.model.conflicts import mark_conflict_copy

    team = memory_root / "team"
    team.mkdir()
    theirs = "---\nname: Deploys\ndescription: when we deploy\ntype: project\n---\n\nWednesdays.\n"
    mine = "---\nname: Deploys\ndescription: when we deploy\ntype: project\n---\n\nThursdays.\n"
    (team / "MEMORY.md").write_text("- [Deploys](project_deploys.md) — when we deploy\n")
    (team / "project_deploys.md").write_text(theirs)
    copy = "project_deploys.conflict-20261126T005331Z.md"
    (team / copy).write_text(mark_conflict_copy(mine, "project_deploys.md", "2026-11-26 00:53 UTC", "bob@laptop"))
    assert "1 conflicting copy to resolve" in client.get("/team").text
    assert f'href="/conflicts/{copy}"' in client.get("/conflicts").text
    page = client.get(f"/conflicts/{copy}").text
    assert "Thursdays." in page and "Wednesdays." in page and 'value="mine"' in page
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    done = client.post(f"/conflicts/{copy}", data={"csrf": csrf, "keep": "mine"}, follow_redirects=False)
    assert done.status_code == 303
    assert (team / "project_deploys.md").read_text() == mine and not (team / copy).exists()
    assert "conflict" not in (team / "MEMORY.md").read_text()
