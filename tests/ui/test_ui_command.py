"""``memdir ui`` as a person starts it: a real process, the address on the first line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx


def test_memdir_ui_prints_the_tokened_address_first_and_serves_it(memory_root: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "memdir", "--memory-dir", str(memory_root), "ui", "--no-browser"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:") and "/?token=" in url
            base = url.split("/?", 1)[0]
            with httpx.Client(timeout=30) as client:
                assert client.get(base + "/").status_code == 403
                page = client.get(url, follow_redirects=True)
                assert page.status_code == 200
                assert "Real DB in tests" in page.text
        finally:
            process.terminate()
            process.wait(timeout=30)


def test_a_port_in_use_is_a_clear_error(memory_root: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "memdir", "--memory-dir", str(memory_root), "ui", "--no-browser"]
        result = subprocess.run(
            [*command, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")},
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
