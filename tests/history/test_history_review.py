"""memdir.agentWrites: review turns agents' writes into proposals a person accepts; off refuses them."""

from __future__ import annotations

import json

from history_place import Place

from memdir.config import resolve_config
from memdir.integrations.hooks.events import run_hook

SESSION = "3f2a9c1e-1111-2222-3333-444455556666"


def set_mode(place: Place, mode: str) -> None:
    place.home.mkdir(exist_ok=True)
    (place.home / "settings.json").write_text(json.dumps({"memdir": {"agentWrites": mode}}), encoding="utf-8")


def extract(place: Place, *calls: dict[str, object]) -> dict[str, object]:
    script = place.root / "script.json"
    responses = [{"tool_calls": [call]} for call in calls] + [{"text": "done"}]
    script.write_text(json.dumps({"responses": responses}), encoding="utf-8")
    transcript = place.root / f"{SESSION}.jsonl"
    line = {"type": "user", "uuid": "u1", "sessionId": SESSION, "message": {"role": "user", "content": "hi"}}
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = place.run("extract", "--transcript", str(transcript), "--model", f"scripted:{script}", "--all", "--json")
    return json.loads(result.stdout)  # type: ignore[attr-defined,no-any-return]


NEW = "---\nname: Deploys\ndescription: Deploys go out on Tuesdays\ntype: project\n---\n\nTuesdays.\n"


def test_in_review_mode_extraction_proposes_and_nothing_changes_until_a_person_accepts(place: Place) -> None:
    place.run("add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", "Old.")
    before = place.file("user_role.md")
    index = place.file("MEMORY.md")
    set_mode(place, "review")
    role, deploys = str(place.memory / "user_role.md"), str(place.memory / "project_deploys.md")
    extract(
        place,
        {"name": "Edit", "input": {"file_path": role, "old_string": "Old.", "new_string": "New."}},
        {"name": "Write", "input": {"file_path": deploys, "content": NEW}},
        {
            "name": "Edit",
            "input": {"file_path": deploys, "old_string": "Tuesdays.\n", "new_string": "Tuesday 10:00.\n"},
        },
    )
    assert place.file("user_role.md") == before and place.file("MEMORY.md") == index
    assert not (place.memory / "project_deploys.md").exists()
    proposals = place.json("review")
    assert isinstance(proposals, list)
    assert [(p["file"], p["change"], p["stale"]) for p in proposals] == [
        ("user_role.md", "edit", False),
        ("project_deploys.md", "create", False),
    ]
    assert {p["by"] for p in proposals} == {f"extract:{SESSION}"}
    assert "+Tuesday 10:00." in proposals[1]["diff"], "the agent's own edit of its proposal is in it"
    place.run("review", "accept", str(proposals[1]["id"]))
    assert "Tuesday 10:00." in place.file("project_deploys.md")
    assert "project_deploys.md" in place.file("MEMORY.md"), "the index follows an accepted proposal"
    rows = place.json("history", "project_deploys.md")
    assert rows[0]["by"] == f"extract:{SESSION}"  # type: ignore[index]

    (place.memory / "user_role.md").write_text(before.replace("Old.", "Edited by hand."), encoding="utf-8")
    stale = place.json("review")
    assert [p["stale"] for p in stale] == [True]  # type: ignore[union-attr]
    refused = place.run("review", "accept", "--all", ok=False)
    assert refused.exit_code == 1  # type: ignore[attr-defined]
    assert "Edited by hand." in place.file("user_role.md"), "a stale proposal never overwrites a later edit"
    place.run("review", "reject", "--all")
    assert place.json("review") == []


def test_with_agent_writes_off_extraction_and_the_stop_hook_change_nothing(place: Place) -> None:
    place.run("add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", "Old.")
    before = place.file("user_role.md")
    set_mode(place, "off")
    role = str(place.memory / "user_role.md")
    result = extract(place, {"name": "Write", "input": {"file_path": role, "content": "gone"}})
    assert result["skipped"] == "agents may not change memory (memdir.agentWrites is off)"
    assert place.file("user_role.md") == before
    transcript = place.root / f"{SESSION}.jsonl"
    hook = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(place.project)}
    config = resolve_config(str(place.project), memory_dir=str(place.memory))
    environment = config.environment._replace(model="scripted:/nowhere.json")
    outcome = run_hook("stop", hook, memory_dir=str(place.memory), environment=environment, launcher=_no_launch)
    assert outcome.note == "agents may not change memory (memdir.agentWrites is off)"


def _no_launch(argv: list[str], log: str) -> object:
    raise AssertionError(f"nothing should be launched: {argv}")


def test_a_memory_extraction_writes_in_the_nested_layout_records_its_session_as_claude_code_does(
    place: Place,
) -> None:
    place.home.mkdir(exist_ok=True)
    settings = {"memdir": {"claudeCodeVersion": "2.1.330"}}
    (place.home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    nested = "---\nname: Deploys\ndescription: Deploys go out on Tuesdays\nmetadata:\n  type: project\n---\n\nTue.\n"
    extract(
        place, {"name": "Write", "input": {"file_path": str(place.memory / "project_deploys.md"), "content": nested}}
    )
    written = place.file("project_deploys.md")
    assert f"  originSessionId: {SESSION}\n" in written and "  type: project\n" in written
    assert place.json("history", "project_deploys.md")[0]["by"] == f"extract:{SESSION}"  # type: ignore[index]


def test_in_review_mode_the_dream_proposes_its_deletion_and_says_so(place: Place) -> None:
    place.run("add", "--type", "user", "--name", "Role", "--description", "Leads payments", "--body", "Old.")
    set_mode(place, "review")
    script = place.root / "dream.json"
    delete = {"name": "Delete", "input": {"file_path": str(place.memory / "user_role.md")}}
    script.write_text(json.dumps({"responses": [{"tool_calls": [delete]}, {"text": "done"}]}), encoding="utf-8")
    result = place.run("dream", "--force", "--model", f"scripted:{script}")
    assert "its changes are proposals" in result.stdout  # type: ignore[attr-defined]
    assert (place.memory / "user_role.md").exists()
    proposals = place.json("review")
    assert [(p["file"], p["change"]) for p in proposals] == [("user_role.md", "delete")]  # type: ignore[union-attr]
    assert proposals[0]["by"].startswith("dream:")  # type: ignore[index]
    place.run("review", "accept", str(proposals[0]["id"]))  # type: ignore[index]
    assert not (place.memory / "user_role.md").exists()
    assert "user_role.md" not in place.file("MEMORY.md")


def test_extraction_in_review_mode_says_it_proposed_not_that_it_saved(place: Place) -> None:
    set_mode(place, "review")
    script = place.root / "script.json"
    write = {"name": "Write", "input": {"file_path": str(place.memory / "project_deploys.md"), "content": NEW}}
    script.write_text(json.dumps({"responses": [{"tool_calls": [write]}, {"text": "done"}]}), encoding="utf-8")
    transcript = place.root / f"{SESSION}.jsonl"
    line = {"type": "user", "uuid": "u1", "sessionId": SESSION, "message": {"role": "user", "content": "hi"}}
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    said = place.run("extract", "--transcript", str(transcript), "--model", f"scripted:{script}", "--all").stdout  # type: ignore[attr-defined]
    assert said.startswith("Proposed 1 memory\n") and "Saved" not in said
    assert "these are proposals, not yet memories; see 'memdir review'" in said
