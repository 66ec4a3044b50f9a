"""The team dashboard in headless chromium, against `memdir team serve` as a real process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from memdir.server.dashboard import token_id
from memdir.server.storage import open_storage
from memdir.team.protocol import API_PATH
from team_servers import serve_process

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"  # screenshots, not kept in git
SECRET = "gh" + "p_" + "FAKEfake0" * 4


def test_a_person_signs_in_and_sees_files_a_refused_secret_and_the_tokens(
    browser_context_factory: Callable[..., Any], tmp_path: Path
) -> None:
    database = f"sqlite:///{tmp_path / 'team.db'}"
    storage = open_storage(database)
    try:
        member = storage.create_token(["acme/widgets"], name="alice")
        admin = storage.create_token(["*"], admin=True, name="ops")
    finally:
        storage.close()
    with serve_process(database) as server, httpx.Client(base_url=server.url, timeout=30) as api:
        auth = {"Authorization": f"Bearer {member}"}
        entries = {"deploy.md": "---\nname: Deploy\n---\nUse the pipeline.\n", "notes/oncall.md": "Page the SRE.\n"}
        assert api.put(API_PATH, params={"repo": "acme/widgets"}, json={"entries": entries}, headers=auth).is_success
        refused = {"ci.md": f"the bot token\n{SECRET}\n"}
        put = api.put(API_PATH, params={"repo": "acme/widgets"}, json={"entries": refused}, headers=auth)
        assert put.status_code == 422

        context = browser_context_factory(viewport={"width": 1100, "height": 800})
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(server.url + "/dashboard/")
        assert page.get_by_label("Team token").is_visible()
        page.screenshot(path=str(ARTIFACTS / "dashboard-sign-in.png"), full_page=True)
        page.get_by_label("Team token").fill(admin)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_label("Repository").fill("acme/widgets")
        page.get_by_role("button", name="Open").click()
        page.wait_for_url("**/dashboard/repo?name=acme%2Fwidgets")
        assert page.get_by_role("link", name="deploy.md").is_visible()
        refusals = page.locator("table").nth(1).inner_text()
        assert "ci.md" in refusals and "GitHub PAT" in refusals and token_id(member) in refusals
        assert "alice" in refusals
        assert SECRET not in page.content()
        history = page.locator("table").nth(2).inner_text()
        assert "notes/oncall.md" in history and "alice" in history and "written" in history
        page.screenshot(path=str(ARTIFACTS / "dashboard-repo.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        lines = page.eval_on_selector_all("table code", "els => els.map(e => e.getClientRects().length)")
        assert set(lines) == {1}, lines  # every name on one line, not squeezed to a few letters a line
        page.screenshot(path=str(ARTIFACTS / "dashboard-repo-390.png"), full_page=True)
        page.get_by_role("link", name="written: see the diff").first.click()
        page.wait_for_url(lambda url: "/dashboard/change" in url)
        assert page.get_by_role("button", name="Restore").is_visible()
        page.screenshot(path=str(ARTIFACTS / "dashboard-change-390.png"), full_page=True)
        page.go_back()
        page.set_viewport_size({"width": 1100, "height": 800})

        page.get_by_role("link", name="notes/oncall.md").click()
        page.wait_for_url(lambda url: "/dashboard/file" in url)
        assert "Page the SRE." in page.locator("pre").inner_text()

        page.get_by_role("link", name="Tokens").click()
        page.wait_for_url("**/dashboard/tokens")
        tokens = page.locator("table").inner_text()
        assert token_id(member) in tokens and token_id(admin) in tokens and member not in page.content()
        page.screenshot(path=str(ARTIFACTS / "dashboard-tokens.png"), full_page=True)

        page.get_by_role("button", name="Sign out").click()
        page.get_by_label("Team token").wait_for()
