"""A tiny HTTP server on 127.0.0.1 that answers like the Anthropic and OpenAI APIs.

Tests queue recorded responses, point the real SDK clients at the server, and read back the
request bodies the SDKs sent.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = [
    "WireServer",
    "anthropic_error",
    "anthropic_message",
    "openai_completion",
    "openai_error",
]

HOLD_LIMIT = 10.0


@dataclass
class Canned:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    hold: bool = False


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class WireServer:
    """Answers each POST with the next queued response, in order."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.handler_errors: list[str] = []
        self._queue: deque[Canned] = deque()
        self._release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def queue(self, status: int, body: dict[str, Any], *, headers: dict[str, str] | None = None) -> None:
        self._queue.append(Canned(status, body, headers or {}))

    def queue_slow(self) -> None:
        """A response that is held until the test ends, so the client's timeout fires first."""
        self._queue.append(Canned(200, {}, hold=True))

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]

    def __enter__(self) -> WireServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=HOLD_LIMIT)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        wire = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                wire.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                canned = (
                    wire._queue.popleft()
                    if wire._queue
                    else Canned(599, {"error": {"message": "test server: no response queued"}})
                )
                if canned.hold:
                    wire._release.wait(HOLD_LIMIT)
                    self.close_connection = True
                    return
                payload = json.dumps(canned.body).encode("utf-8")
                try:
                    self.send_response(canned.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in canned.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError as exc:
                    wire.handler_errors.append(repr(exc))

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output clean; requests are recorded on the server object instead."""

        return Handler


def anthropic_message(
    content: list[dict[str, Any]], *, stop_reason: str = "end_turn", usage: dict[str, int] | None = None
) -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage
        or {
            "input_tokens": 42,
            "output_tokens": 7,
            "cache_read_input_tokens": 30,
            "cache_creation_input_tokens": 5,
        },
    }


def anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def openai_completion(
    *,
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str = "stop",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-9xYz",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": 50,
            "completion_tokens": 9,
            "total_tokens": 59,
            "prompt_tokens_details": {"cached_tokens": 20, "audio_tokens": 0},
        },
        "system_fingerprint": "fp_44709d6fcb",
    }


def openai_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
