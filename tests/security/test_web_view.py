"""The web view's token stays secret: no token on a command line, a cookie that is not the token and
opens nothing on another port, a Host check, and forms that need the CSRF value and this origin.

In process for the gate's rules, and ``memdir ui`` as a real process for the browser's command line
and a second Unix user.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from memdir.config import resolve_config
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.ui import gate
from memdir.ui.app import UiServices, create_ui_app
from memdir.ui.services import build_services
from team_servers import free_port

TOKEN = "Zx-the-real-token-0123456789abcdefghijklmnop"
BASE = "http://127.0.0.1:8123"


@pytest.fixture
def memory_root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    MemoryDir(root).save(Memory(name="Role", description="Leads payments", type=MemoryType.USER, body="Payments."))
    return root


@pytest.fixture
def services(memory_root: Path, tmp_path: Path) -> UiServices:
    config = resolve_config(str(tmp_path), memory_dir=str(memory_root), env={"CLAUDE_CONFIG_DIR": str(tmp_path / "c")})
    return build_services(config)


def signed_in(services: UiServices, base: str = BASE) -> TestClient:
    client = TestClient(create_ui_app(services, token=TOKEN), base_url=base)
    assert client.get(f"/?token={TOKEN}", follow_redirects=False).status_code == 303
    return client


def csrf_of(page: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert match, page
    return match.group(1)


@pytest.mark.parametrize("guess", [TOKEN[:-1], TOKEN[:8], TOKEN + "x", "", TOKEN.upper()])
def test_only_the_whole_token_opens_the_view_never_a_prefix_or_a_variant(services: UiServices, guess: str) -> None:
    with TestClient(create_ui_app(services, token=TOKEN), base_url=BASE) as client:
        response = client.get("/", params={"token": guess}, follow_redirects=False)
        assert response.status_code == 403 and "set-cookie" not in response.headers
        assert client.get("/").status_code == 403


def test_the_cookie_holds_a_derived_value_never_the_token(services: UiServices) -> None:
    with TestClient(create_ui_app(services, token=TOKEN), base_url=BASE) as client:
        response = client.get(f"/?token={TOKEN}", follow_redirects=False)
        cookie = response.headers["set-cookie"]
        assert TOKEN not in cookie and cookie.startswith("memdir_ui_8123=")
        value = client.cookies["memdir_ui_8123"]
        assert value == gate.session_value(TOKEN, 8123) and len(value) == 64
        client.cookies.clear()
        client.cookies.set("memdir_ui_8123", value[:-1])
        assert client.get("/").status_code == 403
        client.cookies.clear()
        client.cookies.set("memdir_ui_8123", TOKEN)  # the raw token is no session either
        assert client.get("/").status_code == 403


def test_a_cookie_made_for_one_port_opens_nothing_on_another(services: UiServices) -> None:
    with signed_in(services) as first:
        value = first.cookies["memdir_ui_8123"]
    with TestClient(create_ui_app(services, token=TOKEN), base_url="http://127.0.0.1:8124") as other:
        for name in ("memdir_ui_8123", "memdir_ui_8124"):
            other.cookies.clear()
            other.cookies.set(name, value)
            assert other.get("/").status_code == 403


@pytest.mark.parametrize(
    "host, status",
    [
        ("evil.example", 421),
        ("evil.example:8123", 421),
        ("127.0.0.1:9999", 421),
        ("127.0.0.1.evil.example:8123", 421),
        ("", 421),
        ("localhost:8123", 200),
        ("[::1]:8123", 200),
        ("127.0.0.1:8123", 200),
    ],
)
def test_the_view_answers_only_to_its_own_host_names(services: UiServices, host: str, status: int) -> None:
    with signed_in(services) as client:
        assert client.get("/", headers={"Host": host}).status_code == status


def test_the_browsers_one_time_code_opens_one_session_once(services: UiServices) -> None:
    app = create_ui_app(services, token=TOKEN)
    code = app.issue_code()
    with TestClient(app, base_url=BASE) as browser, TestClient(app, base_url=BASE) as latecomer:
        first = browser.get(f"/recall?code={code}&message=x", follow_redirects=False)
        # A page of the server moves the browser on (not a redirect: one that a local file started
        # would not carry the SameSite=Strict cookie).
        assert first.status_code == 200 and 'content="0;url=/recall?message=x"' in first.text
        assert code not in first.text and TOKEN not in first.text
        assert code not in first.headers["set-cookie"] and TOKEN not in first.headers["set-cookie"]
        assert browser.get("/").status_code == 200
        again = latecomer.get(f"/?code={code}", follow_redirects=False)
        assert again.status_code == 403 and "already used" in again.text


def test_an_old_code_is_refused(services: UiServices, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_ui_app(services, token=TOKEN)
    monkeypatch.setattr(gate, "CODE_SECONDS", -1.0)
    code = app.issue_code()
    with TestClient(app, base_url=BASE) as client:
        assert client.get(f"/?code={code}", follow_redirects=False).status_code == 403


def test_delete_without_the_csrf_value_is_refused_and_keeps_the_file(services: UiServices, memory_root: Path) -> None:
    with signed_in(services) as client:
        for data in ({}, {"csrf": ""}, {"csrf": "0" * 64}, {"csrf": TOKEN}):
            assert client.post("/delete/user_role.md", data=data).status_code == 403
            assert (memory_root / "user_role.md").exists()
        page = client.get("/m/user_role.md").text
        assert client.post("/delete/user_role.md", data={"csrf": csrf_of(page)}).status_code == 200
        assert not (memory_root / "user_role.md").exists()


def test_doctor_fix_without_the_csrf_value_is_refused_and_changes_nothing(
    services: UiServices, memory_root: Path
) -> None:
    (memory_root / "project_orphan.md").write_text(
        "---\nname: Orphan\ndescription: not in the index\ntype: project\n---\n\nbody\n", "utf-8"
    )
    index = (memory_root / "MEMORY.md").read_bytes()
    with signed_in(services) as client:
        for data in ({}, {"csrf": "x"}):
            assert client.post("/doctor", data=data).status_code == 403
            assert (memory_root / "MEMORY.md").read_bytes() == index
        page = client.get("/doctor").text
        assert client.post("/doctor", data={"csrf": csrf_of(page)}).status_code == 200
        assert b"project_orphan.md" in (memory_root / "MEMORY.md").read_bytes()


@pytest.mark.parametrize(
    "header, value",
    [
        ("Origin", "http://127.0.0.1:9999"),
        ("Origin", "http://localhost:8124"),
        ("Origin", "http://evil.example"),
        ("Referer", "http://127.0.0.1:9999/page"),
    ],
)
def test_a_form_from_another_origin_is_refused_even_on_another_port_of_this_machine(
    services: UiServices, memory_root: Path, header: str, value: str
) -> None:
    with signed_in(services) as client:
        page = client.get("/m/user_role.md").text
        response = client.post("/delete/user_role.md", data={"csrf": csrf_of(page)}, headers={header: value})
        assert response.status_code == 403 and "another site" in response.text
        assert (memory_root / "user_role.md").exists()
        same = client.post("/delete/user_role.md", data={"csrf": csrf_of(page)}, headers={"Origin": BASE})
        assert same.status_code == 200


# -- memdir ui as a process ------------------------------------------------------------------------

RECORDER = """#!/bin/sh
printf '%s\\n' "$@" >> "{log}"
"""

OTHER_USER = """
import encodings.idna, json, os, sys, urllib.request, urllib.error
os.setgroups([]); os.setgid(65534); os.setuid(65534)
statuses = []
for path, cookie in json.loads(sys.argv[2]):
    request = urllib.request.Request(sys.argv[1] + path, headers={"Cookie": cookie} if cookie else {})
    try:
        statuses.append(urllib.request.urlopen(request, timeout=30).status)
    except urllib.error.HTTPError as exc:
        statuses.append(exc.code)
print(json.dumps(statuses))
"""

OTHER_USER_READS = """
import os, sys
os.setgroups([]); os.setgid(65534); os.setuid(65534)
try:
    open(sys.argv[1], encoding="utf-8").read()
    print("read")
except PermissionError:
    print("refused")
"""


@pytest.fixture
def ui_process(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """``memdir ui`` with $BROWSER a script that records the command line it is given."""
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        home.chmod(0o755)
        log = home / "browser.log"
        browser = home / "browser.sh"
        browser.write_text(RECORDER.format(log=log), encoding="utf-8")
        browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
        MemoryDir(home / "mem").save(Memory(name="Role", description="Leads payments", type=MemoryType.USER, body="x"))
        port = free_port()
        env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "c"), "BROWSER": str(browser)}
        memdir = str(Path(sys.executable).with_name("memdir"))
        process = subprocess.Popen(
            [memdir, "--memory-dir", str(home / "mem"), "ui", "--port", str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert process.stdout is not None
            printed = process.stdout.readline().strip()
            for _ in range(200):
                if log.exists() and log.read_text(encoding="utf-8").strip():
                    break
                time.sleep(0.05)
            with socket.create_connection(("127.0.0.1", port), timeout=10):
                pass
            yield printed, log.read_text(encoding="utf-8"), home
        finally:
            process.terminate()
            process.wait(timeout=20)
            if process.stdout is not None:
                process.stdout.close()


def opened_page(browser_argv: str) -> Path:
    """The page ``memdir ui`` opened the browser on: a local file, named on its command line."""
    uri = browser_argv.split()[0]
    assert uri.startswith("file:///"), uri
    return Path(urllib.parse.unquote(uri.removeprefix("file://")))


def test_memdir_ui_hands_the_browser_its_one_time_code_in_a_private_file(ui_process: tuple[str, str, Path]) -> None:
    printed, browser_argv, _home = ui_process
    token = printed.split("?token=", 1)[1]
    assert token and token not in browser_argv and "code=" not in browser_argv
    page = opened_page(browser_argv)
    assert stat.S_IMODE(page.stat().st_mode) == 0o600 and stat.S_IMODE(page.parent.stat().st_mode) == 0o700
    code_url = re.search(r'url=([^"]+)"', page.read_text(encoding="utf-8")).group(1)  # type: ignore[union-attr]
    assert "?code=" in code_url and token not in code_url
    with httpx.Client() as browser:
        first = browser.get(code_url, follow_redirects=False)
        assert first.status_code == 200 and token not in first.headers["set-cookie"]
        assert browser.get(printed.split("?", 1)[0]).status_code == 200
    assert httpx.get(code_url, follow_redirects=False).status_code == 403  # the code is spent
    assert httpx.get(printed, follow_redirects=False).status_code == 303  # the printed address still works


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to a second Unix user needs root")
def test_another_local_user_gets_nothing_from_the_web_view(ui_process: tuple[str, str, Path]) -> None:
    printed, browser_argv, _home = ui_process
    page = opened_page(browser_argv)
    tried = subprocess.run(
        [sys.executable, "-I", "-c", OTHER_USER_READS, str(page)], capture_output=True, text=True, timeout=60
    )
    assert tried.returncode == 0, tried.stderr
    assert tried.stdout.strip() == "refused", "the page with the one-time code is for this user only"
    base, token = printed.split("/?token=", 1)
    port = int(base.rsplit(":", 1)[1])
    other_port_cookie = f"memdir_ui_{port + 1}={gate.session_value(token, port + 1)}"
    probes = [["/", None], [f"/?token={token[:-2]}", None], ["/", other_port_cookie], ["/?code=guess", None]]
    done = subprocess.run(
        [sys.executable, "-I", "-c", OTHER_USER, base, json.dumps(probes)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [403, 403, 403, 403]
