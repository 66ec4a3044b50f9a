"""The scripted model of the Claude Code sandbox, speaking Codex's and Gemini's wire formats too.

Started as ``unshare -n python _agent_sandbox.py PLAN.json``, like ``tests/claude_code/_sandbox.py``,
whose plan, steps and Messages API (used by memdir's own extraction agent) it reuses. It adds:

* ``POST /v1/responses`` (Codex CLI, ``wire_api = "responses"``): the reply as the server-sent
  events ``response.created``, ``response.output_item.added``, ``response.output_text.delta``,
  ``response.output_item.done`` and ``response.completed``;
* ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (Gemini CLI): one ``data:`` event
  holding the whole candidate.

The agent's reply is that of the first rule with ``agent_prompt`` found in the request's last user
text; every request is recorded. The server listens on the fixed :data:`PORT`, free in a namespace
of its own, so the CLIs' configuration files can name it before the run.
"""

from __future__ import annotations

import json
import sys
import uuid
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "claude_code"))

from _sandbox import FakeApi, main

PORT = 18080


def last_user_text(body: dict[str, Any]) -> str:
    """The last user message's text: a Responses API ``input`` or a Gemini ``contents`` list."""
    for item in reversed(body.get("input") or []):
        if isinstance(item, dict) and item.get("role") == "user":
            return "\n".join(str(c.get("text", "")) for c in item.get("content") or [] if isinstance(c, dict))
    for content in reversed(body.get("contents") or []):
        if isinstance(content, dict) and content.get("role") == "user":
            return "\n".join(str(p.get("text", "")) for p in content.get("parts") or [] if isinstance(p, dict))
    return ""


def responses_events(text: str) -> bytes:
    """One assistant message as the Responses API streams it."""
    response, message = "resp_" + uuid.uuid4().hex, "msg_" + uuid.uuid4().hex
    item = {
        "type": "message",
        "id": message,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    usage = {
        "input_tokens": 10,
        "output_tokens": 5,
        "total_tokens": 15,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    events = [
        ("response.created", {"type": "response.created",
                              "response": {"id": response, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                        "item": {**item, "status": "in_progress", "content": []}}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": message, "output_index": 0,
                                        "content_index": 0, "delta": text}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed",
                                "response": {"id": response, "status": "completed", "output": [item], "usage": usage}}),
    ]  # fmt: skip
    return b"".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode() for name, payload in events)


def gemini_events(text: str) -> bytes:
    chunk = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


class AgentsApi(FakeApi):
    """The Messages API of the Claude Code sandbox plus the two agents' streaming endpoints."""

    def __init__(self, rules: list[dict[str, Any]]) -> None:
        super().__init__([rule for rule in rules if "agent_prompt" not in rule])
        self.agent_rules = [rule for rule in rules if "agent_prompt" in rule]
        self.server.server_close()
        self.server = ThreadingHTTPServer(("127.0.0.1", PORT), self.handler())
        self.server.daemon_threads = True

    def agent_reply(self, body: dict[str, Any]) -> str:
        said = last_user_text(body)
        for rule in self.agent_rules:
            if rule["agent_prompt"] in said:
                return str(rule["reply"])
        return "OK."

    def handler(self) -> Any:
        base = super().handler()
        api = self

        class Handler(base):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:
                path = self.path.split("?")[0]
                if not (path.endswith("/responses") or path.endswith(":streamGenerateContent")):
                    super().do_POST()
                    return
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                body = json.loads(raw or b"{}")
                self.record(body)
                text = api.agent_reply(body)
                data = responses_events(text) if path.endswith("/responses") else gemini_events(text)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], AgentsApi))
