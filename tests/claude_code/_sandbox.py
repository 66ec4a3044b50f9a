"""Runs commands next to a scripted Anthropic Messages API, inside whatever network namespace it is in.

Started as ``unshare -n python _sandbox.py PLAN.json``; it brings the namespace's ``lo`` up itself
(no iproute2 needed), so that the Claude Code CLI, the memdir processes it starts (hooks, MCP server)
and the fake API share a network that has only loopback: nothing beyond 127.0.0.1 can answer.

The plan (JSON) holds the environment, the working directory, the steps (commands run in order, each
with a hard timeout; a step with ``turns`` is a session kept open on stdin, fed one message per turn,
see :class:`OpenSession`; a step with ``await_lines`` waits for lines in a file) and the rules that
script the model: each request gets the reply of the first rule whose conditions all hold. Every
request is recorded with the time it arrived, and the outcome (each step's exit code and output plus
every request) is written as JSON to the ``result`` path of the plan. Only the standard
library is used: this runs under whatever Python the tests run under, with no import of memdir.
"""

from __future__ import annotations

import fcntl
import json
import socket
import struct
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_ID = "claude-sonnet-4-6"
WAIT_LIMIT = 30.0
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def loopback_up() -> None:
    """``ip link set lo up``, by ioctl: a new network namespace starts with its loopback down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def system_text(body: dict[str, Any]) -> str:
    """The system prompt as one string, whether it came as a string or as text blocks."""
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    return ""


def last_user_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    messages = body.get("messages") or []
    if not messages:
        return []
    content = messages[-1].get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def matches(when: dict[str, Any], body: dict[str, Any]) -> bool:
    """Every condition of a rule: substrings of the system prompt or messages, tools, a tool result."""
    if "system_has" in when and when["system_has"] not in system_text(body):
        return False
    if "system_lacks" in when and when["system_lacks"] in system_text(body):
        return False
    if "messages_have" in when and when["messages_have"] not in json.dumps(body.get("messages"), ensure_ascii=False):
        return False
    if "has_tool" in when and when["has_tool"] not in [t.get("name") for t in body.get("tools") or []]:
        return False
    if "has_tools" in when and bool(body.get("tools")) != when["has_tools"]:
        return False
    if "not_called" in when and any(
        block.get("type") == "tool_use" and block.get("name") == when["not_called"]
        for message in body.get("messages") or []
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
    ):
        return False
    if "tool_results" in when:
        seen = json.dumps(body.get("messages"), ensure_ascii=False).count('"type": "tool_result"')
        if seen != when["tool_results"]:
            return False
    if "after_tool_result" in when:
        after = any(b.get("type") == "tool_result" for b in last_user_blocks(body))
        if after != when["after_tool_result"]:
            return False
    return True


def reply_blocks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    if "tool_use" in reply:
        use = reply["tool_use"]
        return [
            {"type": "text", "text": use.get("say", "Working on it.")},
            {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": use["name"], "input": use["input"]},
        ]
    if "json" in reply:
        return [{"type": "text", "text": json.dumps(reply["json"])}]
    return [{"type": "text", "text": reply.get("text", "OK.")}]


def sse_events(blocks: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The streamed form of one assistant message, event by event."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    usage = {"input_tokens": 20, "output_tokens": 1, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_" + uuid.uuid4().hex[:24],
                    "type": "message",
                    "role": "assistant",
                    "model": MODEL_ID,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class FakeApi:
    """The Messages API on 127.0.0.1: first matching rule wins; everything is recorded."""

    def __init__(self, rules: list[dict[str, Any]]) -> None:
        self.rules = rules
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.answered: dict[str, threading.Event] = {}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answered_event(self, name: str) -> threading.Event:
        with self.lock:
            return self.answered.setdefault(name, threading.Event())

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The reply of the first matching rule; a rule with ``wait_for`` first waits for another's reply."""
        for rule in self.rules:
            if matches(rule.get("when", {}), body):
                if "wait_for" in rule:
                    self.answered_event(rule["wait_for"]).wait(WAIT_LIMIT)
                return dict(rule["reply"])
        return {"text": "OK."}

    def mark_answered(self, body: dict[str, Any]) -> None:
        for rule in self.rules:
            if matches(rule.get("when", {}), body):
                if "name" in rule:
                    self.answered_event(rule["name"]).set()
                return

    def handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def record(self, body: Any) -> None:
                headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "x-api-key"}
                with api.lock:
                    api.requests.append(
                        {"method": self.command, "path": self.path, "headers": headers, "body": body, "at": time.time()}
                    )

            def send_json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self.record(None)
                self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "not here"}})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                self.record(body)
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    self.send_json(200, {"input_tokens": 100})
                    return
                if not path.endswith("/v1/messages"):
                    self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "not here"}})
                    return
                blocks = reply_blocks(api.answer(body))
                events = sse_events(blocks)
                if not body.get("stream"):
                    message = dict(events[0][1]["message"])
                    message["content"] = blocks
                    message["stop_reason"] = events[-2][1]["delta"]["stop_reason"]
                    self.send_json(200, message)
                    api.mark_answered(body)
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                for name, payload in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode())
                self.wfile.flush()
                self.close_connection = True
                api.mark_answered(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Requests are recorded on the server object instead."""

        return Handler


class OpenSession:
    """A CLI kept open on stdin (``--input-format stream-json``), fed one user message per turn.

    Each turn writes its line and waits for the turn's ``result`` line on stdout (the end of the
    turn); with ``await`` (the conditions of a rule, or a list of them) it then waits up to
    ``within`` seconds until a request has met each of them, such as the background work the turn
    should start, before the next turn or the end of the session. The times are recorded, and the
    moment the session's stdin was closed (``closing``).
    """

    def __init__(self, step: dict[str, Any], env: dict[str, str], cwd: str, api: FakeApi) -> None:
        self.step, self.api = step, api
        self.deadline = time.monotonic() + step.get("timeout", 90)
        self.lines: list[tuple[float, str]] = []
        self.errors: list[str] = []
        self.changed = threading.Condition()
        self.proc = subprocess.Popen(
            step["argv"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, True), daemon=True),
            threading.Thread(target=self._read, args=(self.proc.stderr, False), daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def _read(self, stream: Any, is_stdout: bool) -> None:
        for line in stream:
            with self.changed:
                if is_stdout:
                    self.lines.append((time.time(), line))
                else:
                    self.errors.append(line)
                self.changed.notify_all()

    def _results(self) -> list[float]:
        return [at for at, line in self.lines if line.startswith("{") and '"type":"result"' in line.replace(" ", "")]

    def _first_request(self, since: float, when: dict[str, Any], until: float) -> float | None:
        while True:
            with self.api.lock:
                requests = [r for r in self.api.requests if r["at"] >= since]
            found = [r["at"] for r in requests if r["method"] == "POST" and matches(when, r["body"] or {})]
            if found:
                return min(found)
            if time.time() >= until or time.monotonic() >= self.deadline:
                return None
            time.sleep(0.05)

    def turn(self, turn: dict[str, Any]) -> dict[str, Any]:
        before = len(self._results())
        sent = time.time()
        assert self.proc.stdin is not None
        self.proc.stdin.write(turn["stdin"].rstrip("\n") + "\n")
        self.proc.stdin.flush()
        with self.changed:
            self.changed.wait_for(
                lambda: len(self._results()) > before or self.proc.poll() is not None,
                max(0.0, self.deadline - time.monotonic()),
            )
        results = self._results()
        if len(results) <= before:
            return {"sent": sent, "ended": None}
        ended = results[before]
        if "await" not in turn:
            return {"sent": sent, "ended": ended}
        conditions = turn["await"] if isinstance(turn["await"], list) else [turn["await"]]
        until = ended + turn.get("within", 10.0)
        firsts = [self._first_request(sent, when, until) for when in conditions]
        return {"sent": sent, "ended": ended, "awaited": None if None in firsts else max(firsts, default=None)}

    def run(self) -> dict[str, Any]:
        turns = []
        for turn in self.step["turns"]:
            outcome = self.turn(turn)
            turns.append(outcome)
            if outcome["ended"] is None:
                break
        assert self.proc.stdin is not None
        closing = time.time()
        self.proc.stdin.close()
        try:
            rc: int | None = self.proc.wait(max(1.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = None
        for reader in self.readers:
            reader.join(5)
        return {
            "argv": self.step["argv"],
            "rc": rc,
            "stdout": "".join(line for _, line in self.lines),
            "stderr": "".join(self.errors),
            "turns": turns,
            "closing": closing,
        }


def await_lines(spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Wait until the file ``path`` has ``count`` lines holding ``contains`` (work that ends on its own)."""
    deadline = time.monotonic() + timeout
    found = 0
    while True:
        try:
            with open(spec["path"], encoding="utf-8", errors="replace") as handle:
                found = sum(spec["contains"] in line for line in handle)
        except FileNotFoundError:
            found = 0
        if found >= spec["count"] or time.monotonic() >= deadline:
            return {"argv": [], "rc": 0, "stdout": f"{found} lines", "stderr": ""}
        time.sleep(0.1)


def run_steps(plan: dict[str, Any], api: FakeApi) -> list[dict[str, Any]]:
    env = {k: v for k, v in plan["env"].items()}
    env["ANTHROPIC_BASE_URL"] = api.url
    outcomes: list[dict[str, Any]] = []
    for step in plan["steps"]:
        if "turns" in step:
            session = OpenSession(step, {**env, **step.get("env", {})}, step.get("cwd", plan["cwd"]), api)
            outcomes.append(session.run())
            if session.proc.returncode != 0:
                break
            continue
        if "await_lines" in step:
            outcomes.append(await_lines(step["await_lines"], step.get("timeout", 60)))
            continue
        try:
            done = subprocess.run(
                step["argv"],
                cwd=step.get("cwd", plan["cwd"]),
                env={**env, **step.get("env", {})},
                input=step.get("stdin", ""),
                capture_output=True,
                text=True,
                timeout=step.get("timeout", 90),
            )
            outcomes.append({"argv": step["argv"], "rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr})
        except subprocess.TimeoutExpired as exc:
            outcomes.append(
                {
                    "argv": step["argv"],
                    "rc": None,
                    "stdout": _text(exc.stdout),
                    "stderr": _text(exc.stderr) + f"\n[timed out after {exc.timeout}s]",
                }
            )
            break
        if done.returncode != 0 and not step.get("may_fail", False):
            break
    return outcomes


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def main(plan_path: str, api_class: type[FakeApi] = FakeApi) -> int:
    """Serve ``api_class`` (the Messages API, or a subclass adding other wire formats) on loopback
    and run the plan's steps beside it; ``--check`` only says whether loopback comes up."""
    loopback_up()
    if plan_path == "--check":
        return 0
    with open(plan_path, encoding="utf-8") as handle:
        plan = json.load(handle)
    api = api_class(plan["rules"])
    thread = threading.Thread(target=api.server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        outcomes = run_steps(plan, api)
    finally:
        api.server.shutdown()
        api.server.server_close()
    with open(plan["result"], "w", encoding="utf-8") as handle:
        json.dump({"steps": outcomes, "requests": api.requests}, handle, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
