"""Every route of the local web view, in process: the token gate, forms, errors as pages."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.ui.app import UiServices, create_ui_app

TOKEN = "test-token-0123456789"  # the token the client fixture visits with


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert match, html
    return match.group(1)


def stamp_of(html: str) -> str:
    match = re.search(r'name="stamp" value="(\d*)"', html)
    assert match, html
    return match.group(1)


@pytest.mark.parametrize("path", ["/", "/m/user_role.md", "/recall", "/doctor", "/team", "/new", "/nowhere"])
def test_every_page_is_403_without_the_token(services: UiServices, path: str) -> None:
    with TestClient(create_ui_app(services, token=TOKEN)) as anonymous:
        response = anonymous.get(path)
    assert response.status_code == 403
    assert "access token" in response.text
    assert "Role" not in response.text


def test_a_wrong_token_is_403_and_sets_no_cookie(services: UiServices) -> None:
    with TestClient(create_ui_app(services, token=TOKEN)) as anonymous:
        response = anonymous.get("/?token=guess", follow_redirects=False)
        assert response.status_code == 403
        assert "set-cookie" not in response.headers
        assert anonymous.get("/").status_code == 403


def test_the_token_in_the_address_becomes_a_cookie_and_leaves_the_address(services: UiServices) -> None:
    with TestClient(create_ui_app(services, token=TOKEN), base_url="http://127.0.0.1:8123") as c:
        response = c.get(f"/recall?token={TOKEN}&message=x", follow_redirects=False)
        assert response.status_code == 303
        assert response.headers["location"] == "/recall?message=x"
        cookie = response.headers["set-cookie"]
        assert "memdir_ui_8123=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert c.get("/").status_code == 200


def test_the_stylesheet_is_served_without_the_token(services: UiServices) -> None:
    with TestClient(create_ui_app(services, token=TOKEN)) as anonymous:
        assert anonymous.get("/static/style.css").headers["content-type"].startswith("text/css")
        assert anonymous.get("/static/app.js").status_code == 200
        assert anonymous.get("/static/../app.py").status_code in (403, 404)
        assert anonymous.get("/static/secrets.txt").status_code == 404


def test_the_list_shows_type_age_and_description(client: TestClient) -> None:
    page = client.get("/").text
    assert "2 of 2 memories, newest first" in page
    assert 'href="/m/feedback_real_db_in_tests.md"' in page
    assert "tag-feedback" in page and "today" in page
    assert "Leads the payments team" in page


def test_search_ranks_with_the_offline_recall_and_filters_by_type(client: TestClient) -> None:
    page = client.get("/", params={"q": "database mocks"}).text
    assert "1 of 2 memories match" in page
    assert "feedback_real_db_in_tests.md" in page and "user_role.md" not in page
    assert "0 of 2" in client.get("/", params={"q": "database", "type": "user"}).text
    assert "1 of 2" in client.get("/", params={"type": "user"}).text


def test_date_filters_keep_memories_changed_in_the_range(client: TestClient) -> None:
    assert "0 of 2" in client.get("/", params={"until": "2001-01-01"}).text
    assert "2 of 2" in client.get("/", params={"since": "2001-01-01"}).text


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"type": "secret"}, "type 'secret' is not one of"),
        ({"since": "yesterday"}, "since 'yesterday' is not a date"),
        ({"page": "-1"}, "page '-1' is not a page number"),
        ({"q": "x" * 3000}, "the limit is 2000"),
    ],
)
def test_bad_list_parameters_are_a_400_page_naming_the_value(client: TestClient, params: dict, needle: str) -> None:
    response = client.get("/", params=params)
    assert response.status_code == 400
    assert needle in html.unescape(response.text)


def test_many_memories_come_in_pages(client: TestClient, services: UiServices) -> None:
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType

    for number in range(60):
        services.memory_dir.save(
            Memory(name=f"Note {number}", description=f"note number {number}", type=MemoryType.PROJECT, body="x"),
            index=False,
        )
    first = client.get("/").text
    assert "62 of 62 memories" in first and "Page 1 of 2" in first and 'rel="next"' in first
    second = client.get("/", params={"page": "2"}).text
    assert "Page 2 of 2" in second and 'rel="prev"' in second
    assert "Page 2 of 2" in client.get("/", params={"page": "99"}).text


def test_a_memory_shows_its_fields_as_fields_and_its_file(client: TestClient) -> None:
    page = client.get("/m/feedback_real_db_in_tests.md").text
    assert 'id="name" name="name" value="Real DB in tests"' in page
    assert '<option value="feedback" selected>' in page
    assert "Never mock the database." in page
    assert "type: feedback" in page  # the raw file


def test_saving_goes_through_the_store_and_keeps_the_index_in_step(client: TestClient, memory_root: Path) -> None:
    page = client.get("/m/user_role.md").text
    response = client.post(
        "/m/user_role.md",
        data={
            "csrf": csrf_of(page),
            "stamp": stamp_of(page),
            "name": "Role",
            "description": "Leads the payments team & reviews <quickly>",
            "type": "user",
            "body": "Edited in the browser.",
        },
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"] == "/m/user_role.md?saved=1"
    text = (memory_root / "user_role.md").read_text(encoding="utf-8")
    assert "Edited in the browser." in text and "reviews <quickly>" in text
    index = (memory_root / "MEMORY.md").read_text(encoding="utf-8")
    assert "reviews <quickly>" in index
    shown = client.get("/m/user_role.md?saved=1").text
    assert "Saved." in shown and "reviews &lt;quickly&gt;" in shown


def test_a_save_with_a_description_longer_than_doctor_accepts_is_kept_and_says_so(
    client: TestClient, memory_root: Path
) -> None:
    page = client.get("/m/user_role.md").text
    form = {"csrf": csrf_of(page), "stamp": stamp_of(page), "name": "Role", "type": "user", "body": "Edited."}
    response = client.post("/m/user_role.md", data={**form, "description": "word " * 60}, follow_redirects=False)
    assert response.status_code == 303
    shown = client.get("/m/user_role.md?saved=1").text
    assert "Saved." in shown and "long-description" in shown and "over the 200" in shown
    assert "word word" in (memory_root / "user_role.md").read_text(encoding="utf-8")


def test_other_frontmatter_fields_survive_an_edit(client: TestClient, memory_root: Path) -> None:
    path = memory_root / "reference_dash.md"
    path.write_text("---\nname: Dash\ndescription: the dashboard\ntype: reference\nowner: ops\n---\n\nbody\n", "utf-8")
    page = client.get("/m/reference_dash.md").text
    assert "owner" in page and "kept as they are" in page
    client.post(
        "/m/reference_dash.md",
        data={"csrf": csrf_of(page), "stamp": stamp_of(page), "name": "Dash", "description": "d", "type": "reference"},
    )
    assert "owner: ops" in path.read_text(encoding="utf-8")


def test_a_save_over_a_file_changed_on_disk_is_refused_and_keeps_both_texts(
    client: TestClient, memory_root: Path
) -> None:
    page = client.get("/m/user_role.md").text
    path = memory_root / "user_role.md"
    path.write_text(path.read_text(encoding="utf-8").replace("payments service", "ledger"), "utf-8")
    os.utime(path, ns=(1, 1))
    response = client.post(
        "/m/user_role.md",
        data={"csrf": csrf_of(page), "stamp": stamp_of(page), "name": "Role", "description": "d", "body": "mine"},
    )
    assert response.status_code == 409
    assert "changed on disk" in response.text and "mine" in response.text
    assert "ledger" in path.read_text(encoding="utf-8")


def test_a_form_without_the_csrf_value_is_refused(client: TestClient, memory_root: Path) -> None:
    before = (memory_root / "user_role.md").read_bytes()
    response = client.post("/m/user_role.md", data={"name": "x", "description": "y", "body": "z"})
    assert response.status_code == 403
    assert (memory_root / "user_role.md").read_bytes() == before


def test_a_form_from_another_site_is_refused(client: TestClient) -> None:
    page = client.get("/doctor").text
    response = client.post("/doctor", data={"csrf": "x"}, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403 and "another site" in response.text
    assert page


def test_an_empty_description_is_not_saved_and_the_form_keeps_the_text(client: TestClient) -> None:
    page = client.get("/m/user_role.md").text
    response = client.post(
        "/m/user_role.md",
        data={"csrf": csrf_of(page), "stamp": stamp_of(page), "name": "Role", "description": "", "body": "kept"},
    )
    assert response.status_code == 400
    assert "needs a description" in response.text and "kept" in response.text


def test_a_new_memory_is_created_with_its_index_line(client: TestClient, memory_root: Path) -> None:
    page = client.get("/new").text
    response = client.post(
        "/new",
        data={
            "csrf": csrf_of(page),
            "name": "Release freeze",
            "description": "No merges after Thursday",
            "type": "project",
            "body": "Mobile team cuts the branch.",
        },
        follow_redirects=False,
    )
    assert response.headers["location"] == "/m/project_release_freeze.md?saved=1"
    assert (memory_root / "project_release_freeze.md").is_file()
    assert "project_release_freeze.md" in (memory_root / "MEMORY.md").read_text(encoding="utf-8")
    again = client.post(
        "/new",
        data={"csrf": csrf_of(page), "name": "Release freeze", "description": "x", "type": "project"},
    )
    assert again.status_code == 409 and "these memories may already say it" in again.text
    assert 'href="/m/project_release_freeze.md"' in again.text and 'name="force" value="1"' in again.text
    forced = client.post(
        "/new",
        data={"csrf": csrf_of(page), "name": "Release freeze", "description": "x", "type": "project", "force": "1"},
    )
    assert forced.status_code == 409 and "already exists" in forced.text


def test_a_near_duplicate_is_named_and_saved_when_created_again(client: TestClient, memory_root: Path) -> None:
    page = client.get("/new").text
    form = {
        "csrf": csrf_of(page),
        "name": "Real database in tests",
        "description": "Integration tests hit a real database, never mocks",
        "type": "feedback",
        "body": "Never mock the database.\n**Why:** a mock hid a broken migration.",
        "file": "feedback_db.md",
    }
    refused = client.post("/new", data=form)
    assert refused.status_code == 409 and "feedback_real_db_in_tests.md" in refused.text
    assert not (memory_root / "feedback_db.md").exists()
    saved = client.post("/new", data={**form, "force": "1"}, follow_redirects=False)
    assert saved.headers["location"] == "/m/feedback_db.md?saved=1"


def test_the_memory_page_shows_links_backlinks_and_expiry(client: TestClient, memory_root: Path) -> None:
    store = MemoryDir(memory_root)
    store.save(
        Memory(
            name="Runbook",
            description="How we release",
            type=MemoryType.PROJECT,
            body="Follow [[Real DB in tests]] and [[release-checklist]].",
            extra={"expires": "2020-01-01"},
        )
    )
    page = client.get("/m/project_runbook.md").text
    assert 'href="/m/feedback_real_db_in_tests.md"' in page
    assert 'release-checklist</span> <span class="hint">(no such memory yet)' in page
    assert "Expired on 2020-01-01" in page
    target = client.get("/m/feedback_real_db_in_tests.md").text
    assert "Linked from" in target and 'href="/m/project_runbook.md">Runbook</a>' in target
    assert "expired 2020-01-01" in client.get("/").text


@pytest.mark.parametrize(
    ("file", "status", "needle"),
    [
        ("../outside.md", 400, "outside.md"),
        ("/etc/passwd", 400, "passwd"),
        ("notes.txt", 400, "must end in .md"),
        ("MEMORY.md", 400, "index file"),
        ("a" * 300 + ".md", 400, "too long"),
    ],
)
def test_hostile_file_names_on_create_are_clear_refusals(
    client: TestClient, file: str, status: int, needle: str
) -> None:
    page = client.get("/new").text
    response = client.post(
        "/new", data={"csrf": csrf_of(page), "file": file, "name": "n", "description": "d", "type": "user"}
    )
    assert response.status_code == status, response.text
    assert needle in html.unescape(response.text)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/m/missing.md", 404),
        ("/m/..%2F..%2Fetc%2Fpasswd", 400),
        ("/m/%2Fetc%2Fpasswd", 400),
        ("/m/" + "b" * 5000 + ".md", 400),
        ("/m/MEMORY.md", 400),
        ("/m/sub", 400),
        ("/nowhere", 404),
    ],
)
def test_hostile_and_missing_paths_are_pages_never_500(client: TestClient, path: str, status: int) -> None:
    response = client.get(path)
    assert response.status_code == status, response.text
    assert "<main" in response.text


def test_a_memory_that_is_a_directory_is_a_clear_error(client: TestClient, memory_root: Path) -> None:
    (memory_root / "folder.md").mkdir()
    response = client.get("/m/folder.md")
    assert response.status_code == 400 and "directory" in response.text


def test_delete_removes_the_file_and_its_index_line(client: TestClient, memory_root: Path) -> None:
    page = client.get("/m/user_role.md").text
    response = client.post("/delete/user_role.md", data={"csrf": csrf_of(page)})
    assert response.status_code == 200 and "Deleted" in response.text
    assert not (memory_root / "user_role.md").exists()
    assert "user_role.md" not in (memory_root / "MEMORY.md").read_text(encoding="utf-8")
    assert client.post("/delete/user_role.md", data={"csrf": csrf_of(page)}).status_code == 404


def test_wrong_methods_are_405_pages(client: TestClient) -> None:
    assert client.put("/m/user_role.md").status_code == 405
    assert client.post("/recall").status_code == 405


def test_recall_shows_the_rendered_reminders(client: TestClient) -> None:
    page = client.get("/recall", params={"message": "should the integration tests mock the database?"}).text
    assert "feedback_real_db_in_tests.md" in page
    assert "&lt;system-reminder&gt;" in page
    assert "chosen by the" in page
    skipped = client.get("/recall", params={"message": "hello"}).text
    assert "single-word message" in skipped


def test_doctor_lists_problems_and_the_fix_button_repairs_the_index(client: TestClient, memory_root: Path) -> None:
    (memory_root / "project_orphan.md").write_text(
        "---\nname: Orphan\ndescription: not in the index\ntype: project\n---\n\nbody\n", "utf-8"
    )
    page = client.get("/doctor").text
    assert "index-missing" in page and "Fix the indexes" in page
    fixed = client.post("/doctor", data={"csrf": csrf_of(page)}).text
    assert "Repaired MEMORY.md" in fixed
    assert "project_orphan.md" in (memory_root / "MEMORY.md").read_text(encoding="utf-8")


def test_the_team_page_lists_team_files_and_never_shows_a_flagged_secret(client: TestClient, memory_root: Path) -> None:
    team = memory_root / "team"
    team.mkdir()
    (team / "project_deploy.md").write_text(
        "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\n\nUse the pipeline.\n", "utf-8"
    )
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (team / "reference_ci.md").write_text(
        f"---\nname: CI\ndescription: ci token\ntype: reference\n---\n\ntoken {secret}\n", "utf-8"
    )
    page = client.get("/team").text
    assert "team/project_deploy.md" in page
    assert "Never pushed" in page and "reference_ci.md" in page
    assert secret not in page
    assert "No team server is configured" in page


def test_a_form_over_the_size_limit_is_refused(client: TestClient) -> None:
    page = client.get("/new").text
    response = client.post("/new", data={"csrf": csrf_of(page), "body": "x" * 1_100_000})
    assert response.status_code == 413


def test_the_view_lists_through_the_derived_index_unless_the_settings_turn_it_off(
    memory_root: Path, tmp_path: Path
) -> None:
    from memdir.config import resolve_config
    from memdir.store.index_db import IndexedMemoryDir
    from memdir.ui.services import build_services

    project = tmp_path / "off"
    (project / ".claude").mkdir(parents=True)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "c")}
    default = build_services(resolve_config(str(project), memory_dir=str(memory_root), env=env))
    assert isinstance(default.memory_dir, IndexedMemoryDir)
    assert default.recaller.memory_dir is default.memory_dir  # recall covers the whole store, through the index
    (project / ".claude" / "settings.json").write_text('{"memdir": {"scanCap": 200}}', "utf-8")
    capped = build_services(resolve_config(str(project), memory_dir=str(memory_root), env=env))
    assert isinstance(capped.memory_dir, IndexedMemoryDir)
    assert not isinstance(capped.recaller.memory_dir, IndexedMemoryDir)  # recall keeps the configured store
    (project / ".claude" / "settings.json").write_text('{"memdir": {"derivedIndex": false}}', "utf-8")
    off = build_services(resolve_config(str(project), memory_dir=str(memory_root), env=env))
    assert not isinstance(off.memory_dir, IndexedMemoryDir)
    assert len(off.memory_dir.headers()) == len(default.memory_dir.headers()) == 2


def test_a_search_without_filters_shows_the_best_thousand(client: TestClient, services: UiServices) -> None:
    from memdir.model.memory import Memory
    from memdir.model.memory_type import MemoryType

    for number in range(1005):
        services.memory_dir.save(
            Memory(name=f"Deploy {number}", description="deploy notes", type=MemoryType.PROJECT, body="x"),
            index=False,
        )
    page = client.get("/", params={"q": "deploy notes"}).text
    assert "The best 1000 of 1007 memories" in html.unescape(page)
    filtered = client.get("/", params={"q": "deploy notes", "type": "project"}).text
    assert "1005 of 1007 memories match" in html.unescape(filtered)


def test_the_doctor_page_says_what_claude_code_loads_and_links_the_memories_past_the_cut(tmp_path: Path) -> None:
    from memdir.config import resolve_config
    from memdir.ui.services import build_services

    project = tmp_path / "project"
    project.mkdir()
    config = resolve_config(str(project), env={"CLAUDE_CONFIG_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)})
    root = Path(config.memory_dir)
    store = MemoryDir(root)
    for n in range(190):
        why = "when this matters and why, in more words than an index line needs " * 2
        store.save(Memory(name=f"Note {n:03}", description=f"note {n}", type=MemoryType.USER, body="x"))
        index = root / "MEMORY.md"
        text = index.read_text(encoding="utf-8").replace(f"— note {n}\n", f"— {why}{n}\n")
        index.write_text(text, encoding="utf-8")
    with TestClient(create_ui_app(build_services(config), token=TOKEN), base_url="http://127.0.0.1:8123") as c:
        c.get(f"/?token={TOKEN}")
        page = c.get("/doctor").text
        assert "What Claude Code loads" in page and "MEMORY.md truncated, up to line" in page
        assert '<a href="/m/user_note_189.md">Note 189</a>' in page
        fixed = c.post("/doctor", data={"csrf": csrf_of(page)}).text
    assert "Repaired MEMORY.md" in fixed and "MEMORY.md whole (190 lines" in fixed


def test_a_deleted_memory_links_to_its_history_and_restore_on_the_deleted_page_and_its_404(
    client: TestClient, memory_root: Path
) -> None:
    page = client.get("/m/user_role.md").text
    deleted = client.post("/delete/user_role.md", data={"csrf": csrf_of(page)}).text
    assert '<a href="/history/user_role.md">Its history</a>' in deleted and "Restore it (version 1)" in deleted
    gone = client.get("/m/user_role.md")
    assert gone.status_code == 404 and "was deleted" in gone.text and 'action="/restore/user_role.md"' in gone.text
    restored = client.post("/restore/user_role.md", data={"csrf": csrf_of(gone.text), "version": "1"})
    assert restored.status_code == 200 and (memory_root / "user_role.md").exists()
    assert client.get("/m/never_was.md").status_code == 404


def test_doctor_shows_its_notes_and_merges_a_proposed_pair(client: TestClient, memory_root: Path) -> None:
    for file, name, days in (("old.md", "Staging URL", 30), ("new.md", "Staging URL (updated)", 1)):
        path = memory_root / file
        path.write_text(
            f"---\nname: {name}\ndescription: {name} is noted\ntype: project\n---\n\nSee [[nowhere]].\n", "utf-8"
        )
        stamp = os.stat(path).st_mtime - days * 86_400
        os.utime(path, (stamp, stamp))
    page = client.get("/doctor").text
    assert "To decide" in page and "may be versions of one subject" in page
    assert "dangling-link" in page  # doctor's notes are on the page too
    refused = client.post("/doctor/decide", data={"csrf": csrf_of(page), "answer": "burn", "older": "old.md"})
    assert refused.status_code == 400 and "choose merge, replaces or different" in refused.text
    done = client.post(
        "/doctor/decide", data={"csrf": csrf_of(page), "answer": "merge", "older": "old.md", "newer": "new.md"}
    )
    assert done.status_code == 200 and "Done: merged old.md into new.md" in html.unescape(done.text)
    assert not (memory_root / "old.md").exists() and "Merged from old.md" in (memory_root / "new.md").read_text("utf-8")
    assert "To decide" not in done.text
