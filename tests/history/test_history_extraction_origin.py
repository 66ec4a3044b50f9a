"""An extraction records who made its writes, and writes ``metadata.originSessionId`` into a
nested-layout memory only when it knows the conversation's session: ``memdir extract`` of a
Claude Code transcript (named after its session), or an extractor given ``session_id``; never a
framework's name."""

from __future__ import annotations

import json

from history_place import Place

from memdir.config import resolve_config
from memdir.conversation import Block, ConversationMessage
from memdir.llm import ScriptedModel
from memdir.memory_session import MemorySession
from memdir.model.memory import Memory
from memdir.store.provenance import acting_as

SESSION = "3f2a9c1e-1111-2222-3333-444455556666"
TEXT = (
    "---\nname: Deploys\ndescription: Deploys go out on Tuesdays\nmetadata:\n  type: project\n---\n\n"
    "Deploys go out on Tuesdays.\n"
)


def _extract(place: Place, **options: object) -> Memory:
    config = resolve_config(str(place.project), memory_dir=str(place.memory))
    path = str(place.memory / "project_deploys.md")
    model = ScriptedModel(
        [{"tool_calls": [{"name": "Write", "input": {"file_path": path, "content": TEXT}}]}, {"text": "ok"}]
    )
    session = MemorySession(config, model=model)
    conversation = [
        ConversationMessage(uuid="u1", role="user", blocks=(Block(type="text", text="We deploy on Tuesdays."),)),
        ConversationMessage(uuid="a1", role="assistant", blocks=(Block(type="text", text="Noted."),)),
    ]
    result = session.extractor(**options).run_once(conversation)
    assert result.error is None and result.written, result
    return Memory.parse(place.file("project_deploys.md"))


def _by(place: Place) -> str:
    rows = place.json("history", "project_deploys.md")
    assert isinstance(rows, list)
    return str(rows[0]["by"])


def test_an_extractor_given_the_session_records_it_as_who_and_as_the_origin(place: Place) -> None:
    memory = _extract(place, session_id=SESSION)
    assert memory.extra["metadata"]["originSessionId"] == SESSION
    assert _by(place) == f"extract:{SESSION}"


def test_a_framework_extraction_writes_no_origin_session_made_of_its_name(place: Place) -> None:
    with acting_as("extract:pydantic-ai", label="extract"):
        memory = _extract(place)
    assert "originSessionId" not in memory.extra["metadata"]
    assert _by(place) == "extract:pydantic-ai"


def test_a_python_extraction_without_a_name_is_still_recorded_as_extraction(place: Place) -> None:
    memory = _extract(place)
    assert "originSessionId" not in memory.extra["metadata"]
    assert _by(place) == "extract:api"


def test_memdir_extract_takes_the_session_from_the_transcript_name(place: Place) -> None:
    path = place.memory / "project_deploys.md"
    script = place.root / "script.json"
    calls = [{"tool_calls": [{"name": "Write", "input": {"file_path": str(path), "content": TEXT}}]}, {"text": "ok"}]
    script.write_text(json.dumps({"responses": calls}), encoding="utf-8")
    transcript = place.root / "chat.jsonl"
    line = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "Tuesdays"}}
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    place.run("extract", "--transcript", str(transcript), "--model", f"scripted:{script}", "--all")
    # Claude Code names a transcript after its session: the name is the session id, as for the cursor.
    assert Memory.parse(place.file("project_deploys.md")).extra["metadata"]["originSessionId"] == "chat"
    assert _by(place) == "extract:chat"
