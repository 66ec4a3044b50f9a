"""``memdir mcp --http`` asks who is calling: a bearer token, Host and Origin checks, loopback by default.

The real command runs as a process on 127.0.0.1; the official MCP client connects with and without
the token it printed; raw requests try a foreign Host, a foreign Origin (another port of
127.0.0.1 included) and a guessed token; a second Unix user can neither read the token nor call
the server without it.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from team_servers import free_port

MEMDIR = Path(sys.executable).with_name("memdir")
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@dataclass
class Served:
    url: str
    port: int
    token: str
    stderr: str
    home: Path


def environment(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "MEMDIR_MCP"))}
    return {**env, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "claude"), **extra}


def start(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int, str]:
    port = free_port()
    process = subprocess.Popen(
        [str(MEMDIR), "--memory-dir", str(home / "mem"), "mcp", "--http", "--port", str(port), *args],
        env=env or environment(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("  claude mcp add"):
            break
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.05)
    return process, port, "".join(lines)


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        home.chmod(0o755)
        process, port, stderr = start(home)
        try:
            match = re.search(r"bearer token \(([^)]*)\): (\S+)", stderr)
            assert match, stderr
            yield Served(f"http://127.0.0.1:{port}/mcp", port, match[2], stderr, home)
        finally:
            stop(process)


def call_tools(url: str, headers: dict[str, str]) -> list[str]:
    async def main() -> list[str]:
        with anyio.fail_after(30):
            async with (
                create_mcp_http_client(headers=headers) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                saved = await client.call_tool(
                    "remember",
                    {"type": "project", "name": "Deploys", "description": "Deploy window", "body": "Tuesdays."},
                )
                assert not saved.is_error
                return [tool.name for tool in (await client.list_tools()).tools]

    return anyio.run(main)


def test_the_start_prints_the_token_file_and_the_exact_claude_code_command(served: Served) -> None:
    token_file = served.home / "claude" / "memdir" / "mcp-token"
    assert f"bearer token ({token_file}): {served.token}" in served.stderr
    expected = f'claude mcp add --transport http memdir {served.url} --header "Authorization: Bearer {served.token}"'
    assert expected in served.stderr
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert token_file.read_text(encoding="utf-8").strip() == served.token


def test_the_official_client_works_with_the_token_and_is_refused_without_it(served: Served) -> None:
    memory = served.home / "mem"
    for headers in ({}, {"Authorization": f"Bearer {served.token[:-1]}"}, {"Authorization": "Bearer x"}):
        with pytest.raises(Exception, match=r"unhandled errors|error response"):  # the 401, as the client reports it
            call_tools(served.url, headers)
        assert not memory.exists() or not list(memory.glob("*.md"))
    tools = call_tools(served.url, {"Authorization": f"Bearer {served.token}"})
    assert {"recall", "remember", "read"} <= set(tools)
    assert (memory / "project_deploys.md").exists()


@pytest.mark.parametrize(
    "headers, status",
    [
        ({"Host": "evil.example"}, 421),
        ({"Host": "evil.example:{port}"}, 421),
        ({"Host": "127.0.0.1:1"}, 421),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "http://127.0.0.1:1"}, 403),
        ({"Origin": "http://localhost:{other}"}, 403),
        ({"Origin": "null"}, 403),
        ({"Origin": "http://127.0.0.1:{port}"}, 401),
        ({"Authorization": "Bearer {prefix}"}, 401),
        ({"Authorization": "Basic {token}"}, 401),
        ({"Authorization": "Bearer {token}", "Host": "evil.example"}, 421),
        ({"Authorization": "Bearer {token}", "Origin": "http://127.0.0.1:{other}"}, 403),
        ({"Authorization": "Bearer {token}", "Origin": "http://127.0.0.1:{port}"}, 200),
        ({"Authorization": "Bearer {token}", "Host": "localhost:{port}"}, 200),
    ],
)
def test_every_request_checks_host_origin_and_token(served: Served, headers: dict[str, str], status: int) -> None:
    values = {"port": served.port, "other": served.port + 1, "token": served.token, "prefix": served.token[:20]}
    sent = {name: value.format(**values) for name, value in headers.items()}
    response = httpx.post(served.url, json=INIT, headers={**JSON_HEADERS, **sent}, timeout=30)
    assert response.status_code == status, response.text
    if status == 401:
        assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_non_loopback_address_needs_allow_remote_and_then_warns(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(MEMDIR), "--memory-dir", str(tmp_path / "mem"), "mcp", "--http", "--host", "0.0.0.0"],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--allow-remote" in done.stderr
    process, port, stderr = start(tmp_path, "--host", "0.0.0.0", "--allow-remote", "--allow-host", "memory.lan")
    try:
        assert "warning: listening on 0.0.0.0" in stderr
        token = re.search(r"bearer token \([^)]*\): (\S+)", stderr)
        assert token
        auth = {**JSON_HEADERS, "Authorization": f"Bearer {token[1]}"}
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx.post(url, json=INIT, headers={**auth, "Host": "evil.example"}, timeout=30).status_code == 421
        assert httpx.post(url, json=INIT, headers={**auth, "Host": f"memory.lan:{port}"}, timeout=30).status_code == 200
        assert httpx.post(url, json=INIT, headers=JSON_HEADERS, timeout=30).status_code == 401
    finally:
        stop(process)


def test_a_given_token_is_used_and_a_token_file_others_can_read_is_refused(tmp_path: Path) -> None:
    given = "a-token-the-person-chose-0123456789"
    process, port, stderr = start(tmp_path, env=environment(tmp_path, MEMDIR_MCP_TOKEN=given))
    try:
        assert f"bearer token (MEMDIR_MCP_TOKEN): {given}" in stderr
        auth = {**JSON_HEADERS, "Authorization": f"Bearer {given}"}
        assert httpx.post(f"http://127.0.0.1:{port}/mcp", json=INIT, headers=auth, timeout=30).status_code == 200
    finally:
        stop(process)
    token_file = tmp_path / "claude" / "memdir" / "mcp-token"
    token_file.parent.mkdir(parents=True)
    token_file.write_text("x" * 40, encoding="utf-8")
    token_file.chmod(0o644)
    done = subprocess.run(
        [str(MEMDIR), "--memory-dir", str(tmp_path / "mem"), "mcp", "--http", "--port", str(free_port())],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "chmod 600" in done.stderr


# The other local user: the checkout may not be readable by it, so the child imports nothing of memdir.
OTHER_USER = """
import encodings.idna, json, os, sys, urllib.request, urllib.error  # all loaded before the switch
os.setgroups([]); os.setgid(65534); os.setuid(65534)
url, token_file = sys.argv[1], sys.argv[2]
try:
    open(token_file).read()
    read = "read"
except PermissionError:
    read = "denied"
request = urllib.request.Request(url, data=sys.argv[3].encode(), method="POST", headers=json.loads(sys.argv[4]))
try:
    status = urllib.request.urlopen(request, timeout=30).status
except urllib.error.HTTPError as exc:
    status = exc.code
print(read, status)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to a second Unix user needs root")
def test_another_local_user_can_neither_read_the_token_nor_call_the_server(served: Served) -> None:
    import json

    token_file = served.home / "claude" / "memdir" / "mcp-token"
    for folder in (served.home, served.home / "claude"):
        folder.chmod(0o755)  # the worst case: the file's own mode is all that protects it
    argv = [served.url, str(token_file), json.dumps(INIT), json.dumps(JSON_HEADERS)]
    done = subprocess.run(
        [sys.executable, "-I", "-c", OTHER_USER, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["denied", "401"]
