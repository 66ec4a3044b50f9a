"""Every way memdir changes a memory leaves the previous version restorable, with who changed it."""

from __future__ import annotations

import io
import json
import tarfile

import pytest
from history_place import Place, digest, pull_into_team
from starlette.testclient import TestClient

from memdir.config import open_memory_dir, resolve_config
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType

ORIGINAL = Memory(name="Role", description="Leads the payments team", type=MemoryType.USER, body="First text.")


def seed(place: Place) -> str:
    """One memory saved through the CLI; returns its exact text."""
    place.run(
        "add", "--type", "user", "--name", "Role", "--description", "Leads the payments team", "--body", "First text."
    )
    return place.file("user_role.md")


def assert_restorable(place: Place, text: str, *, file: str = "user_role.md", by: str | None = None) -> None:
    assert digest(text) in place.contents(), "the previous version is not in the history"
    rows = place.json("history", file)
    assert isinstance(rows, list) and rows
    if by is not None:
        assert rows[0]["by"].startswith(by), rows[0]
    version = next(row["version"] for row in rows if row["change"] != "delete" and _text(place, file, row) == text)
    place.run("restore", file, "--version", str(version))
    assert place.file(file) == text


def _text(place: Place, file: str, row: dict[str, object]) -> str | None:
    result = place.run("show", file, "--version", str(row["version"]), ok=False)
    return result.stdout if result.exit_code == 0 else None  # type: ignore[attr-defined]


def test_add_force_rm_and_mv_from_the_cli_keep_every_version(place: Place) -> None:
    first = seed(place)
    place.run("add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", "Two.", "--force")
    assert_restorable(place, first, by="cli")
    second = place.file("user_role.md")
    place.run("rm", "user_role.md")
    assert not (place.memory / "user_role.md").exists()
    assert_restorable(place, second, by="cli")
    assert "user_role.md" in place.file("MEMORY.md"), "a restore brings the index line back"
    place.run("mv", "user_role.md", "user_lead.md")
    rows = place.json("history", "user_lead.md")
    assert rows[0]["change"] == "rename" and rows[0]["from"] == "user_role.md"  # type: ignore[index]


def test_import_replace_records_what_it_replaced_as_import(place: Place) -> None:
    first = seed(place)
    replacement = first.replace("First text.", "Imported text.")
    archive = place.root / "in.jsonl"
    archive.write_text(
        json.dumps({"file": "user_role.md", "mtime_ns": 1, "text": replacement}) + "\n", encoding="utf-8"
    )
    place.run("import", str(archive), "--on-conflict", "replace")
    assert place.file("user_role.md") == replacement
    assert_restorable(place, first)
    assert any(row["by"] == "import" for row in place.json("history", "user_role.md"))  # type: ignore[union-attr]


def test_doctor_fix_records_the_index_it_rewrote_as_doctor(place: Place) -> None:
    seed(place)
    index = place.file("MEMORY.md") + "- [Gone](gone.md) — a line to a missing file\n"
    (place.memory / "MEMORY.md").write_text(index, encoding="utf-8")
    place.run("doctor", "--fix", ok=False)
    assert "gone.md" not in place.file("MEMORY.md")
    assert digest(index) in place.contents()
    rows = place.json("history", "MEMORY.md")
    assert rows[0]["by"] == "doctor" and rows[1]["by"] == "external"  # type: ignore[index]


def test_an_edit_by_someone_else_between_two_commands_is_recorded_as_external(place: Place) -> None:
    first = seed(place)
    edited = first + "Added in an editor.\n"
    (place.memory / "user_role.md").write_text(edited, encoding="utf-8")
    place.run("rm", "user_role.md")
    rows = place.json("history", "user_role.md")
    assert [(r["change"], r["by"]) for r in rows] == [("delete", "cli"), ("edit", "external"), ("create", "cli")]  # type: ignore[index]
    assert_restorable(place, edited)


def test_the_python_api_records_its_saves_and_restores(place: Place) -> None:
    config = resolve_config(str(place.project), memory_dir=str(place.memory))
    directory = MemorySession(config).memory_dir
    directory.save(ORIGINAL)
    first = place.file("user_role.md")
    directory.save(
        Memory(name="Role", description="Changed", type=MemoryType.USER, body="x"), file="user_role.md", force=True
    )
    history = directory.history
    assert history is not None
    rows = history.versions("user_role.md")
    assert [(r.version, r.change, r.by) for r in rows] == [(2, "edit", "api"), (1, "create", "api")]
    history.restore("user_role.md", 1)
    assert place.file("user_role.md") == first


def test_the_memory_tool_and_its_renames_and_deletes_are_recorded(place: Place) -> None:
    from memdir.integrations.memory_tool.backend import MemdirMemoryTool

    first = seed(place)
    tool = MemdirMemoryTool(str(place.memory))
    tool.commands.str_replace("/memories/user_role.md", "First text.", "Tool text.")
    tool.commands.rename("/memories/user_role.md", "/memories/user_boss.md")
    tool.commands.delete("/memories/user_boss.md")
    assert_restorable(place, first)
    rows = place.json("history", "user_boss.md")
    assert [r["change"] for r in rows] == ["delete", "rename"]  # type: ignore[index]


def test_a_save_from_the_web_view_is_recorded_as_ui(place: Place) -> None:
    from memdir.ui.app import create_ui_app
    from memdir.ui.services import build_services

    first = seed(place)
    config = resolve_config(str(place.project), memory_dir=str(place.memory))
    token = "t" * 24
    with TestClient(create_ui_app(build_services(config), token=token), base_url="http://127.0.0.1:8123") as client:
        client.get(f"/?token={token}", follow_redirects=False)
        client.post("/delete/user_role.md", data={"csrf": _csrf(client)}, follow_redirects=False)
    assert not (place.memory / "user_role.md").exists()
    assert_restorable(place, first)
    assert any(row["by"] == "ui" for row in place.json("history", "user_role.md"))  # type: ignore[union-attr]


def _csrf(client: TestClient) -> str:
    import re

    page = client.get("/m/user_role.md").text
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def test_a_team_pull_that_replaces_a_file_keeps_the_local_version(place: Place) -> None:
    config = resolve_config(str(place.project), memory_dir=str(place.memory))
    directory = open_memory_dir(config)
    (place.memory / "team").mkdir(parents=True)
    local = "---\nname: Deploy\ndescription: How we deploy\ntype: project\n---\n\nLocal.\n"
    directory.write_text("team/deploy.md", local)
    pull_into_team(place.memory / "team", "deploy.md", local.replace("Local.", "Server."))
    assert "Server." in place.file("team/deploy.md")
    assert_restorable(place, local, file="team/deploy.md")


@pytest.mark.parametrize("agent", ["extract", "dream"])
def test_extraction_and_the_dream_are_recorded_with_their_session_or_run(place: Place, agent: str) -> None:
    first = seed(place)
    path = str(place.memory / "user_role.md")
    changed = first.replace("First text.", f"Changed by {agent}.")
    script = place.root / "script.json"
    calls = [{"tool_calls": [{"name": "Write", "input": {"file_path": path, "content": changed}}]}, {"text": "done"}]
    script.write_text(json.dumps({"responses": calls}), encoding="utf-8")
    if agent == "extract":
        transcript = place.root / "3f2a9c1e-1111-2222-3333-444455556666.jsonl"
        line = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "I lead it"}}
        transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
        place.run("extract", "--transcript", str(transcript), "--model", f"scripted:{script}", "--all")
    else:
        place.run("dream", "--force", "--model", f"scripted:{script}")
    assert (
        place.file("user_role.md").replace("  originSessionId: 3f2a9c1e-1111-2222-3333-444455556666\n", "") == changed
    )
    rows = place.json("history", "user_role.md")
    assert rows[0]["by"].startswith(f"{agent}:")  # type: ignore[index]
    if agent == "extract":
        assert rows[0]["by"] == "extract:3f2a9c1e-1111-2222-3333-444455556666"  # type: ignore[index]
    assert_restorable(place, first)


def test_an_export_import_as_tar_is_recorded_too(place: Place) -> None:
    first = seed(place)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        data = first.replace("First text.", "From tar.").encode("utf-8")
        info = tarfile.TarInfo("user_role.md")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    (place.root / "in.tar").write_bytes(buffer.getvalue())
    place.run("import", str(place.root / "in.tar"), "--on-conflict", "replace")
    assert_restorable(place, first)
