"""Asking Codex CLI itself about its hooks and writing its configuration, through ``codex app-server``.

Codex runs a hook from a ``hooks.json`` only once it is trusted, and skips an untrusted one
without a word. Trust is recorded in Codex's ``config.toml`` per hook, as a hash of the hook's
definition and position that only Codex computes. So memdir does not guess it: it starts
``codex app-server`` (JSON-RPC over stdio, one request per line), asks ``hooks/list`` for the
hooks Codex sees from a directory, with each one's ``currentHash`` and ``trustStatus``, and
records the hashes of memdir's own hooks with ``config/batchWrite``, which is how Codex's own
``/hooks`` screen trusts a hook. The same request registers memdir's MCP server. Codex edits its
own file, so its comments and layout stay as they were.

Every call is bounded (:data:`TIMEOUT`); a Codex that cannot be found, started or understood is a
``ConfigError`` (rule ``codex-app-server``) saying what went wrong.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from memdir.errors import ConfigError
from memdir.version import installed_version

__all__ = ["CodexApp", "CodexHook", "find_codex"]

TIMEOUT = 30.0  # seconds for the whole conversation with the app server
_RULE = "codex-app-server"


class CodexHook(NamedTuple):
    """One hook as ``hooks/list`` describes it."""

    key: str  # "<hooks.json path>:<event>:<group>:<index>", the key of its trust record
    command: str
    source_path: str
    current_hash: str
    trust_status: str  # "trusted", "untrusted", "modified", ...


def find_codex(path: str | None) -> str | None:
    """The ``codex`` executable on ``path`` (the hook's or the shell's ``PATH``), or None."""
    return shutil.which("codex", path=path)


class CodexApp:
    """One ``codex app-server`` process for a few requests; use it as a context manager."""

    def __init__(self, executable: str, *, cwd: str | None = None) -> None:
        try:
            self._process = subprocess.Popen(
                [executable, "app-server"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                cwd=cwd,
            )
        except OSError as exc:
            raise ConfigError(f"could not start {executable} app-server: {exc}", rule=_RULE) from exc
        self._next = 0
        self._timer = threading.Timer(TIMEOUT, self._process.kill)
        self._timer.start()
        self._call("initialize", {"clientInfo": {"name": "memdir", "version": installed_version()}})
        self._send({"jsonrpc": "2.0", "method": "initialized"})

    def __enter__(self) -> CodexApp:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._timer.cancel()
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(message) + "\n")
            self._process.stdin.flush()
        except OSError as exc:
            raise ConfigError(f"codex app-server stopped reading: {exc}", rule=_RULE) from exc

    def _call(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send one request and return its result; notifications met on the way are skipped."""
        self._next += 1
        ident = self._next
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        assert self._process.stdout is not None
        for line in self._process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or message.get("id") != ident:
                continue
            if "error" in message:
                error = message["error"]
                detail = error.get("message") if isinstance(error, dict) else error
                raise ConfigError(f"codex app-server refused {method}: {detail}", rule=_RULE)
            return message.get("result")
        raise ConfigError(f"codex app-server ended (or took over {TIMEOUT:g} s) before answering {method}", rule=_RULE)

    def hooks(self, cwd: str) -> list[CodexHook]:
        """The hooks Codex runs in ``cwd``, from every layer (user, project, plugins)."""
        result = self._call("hooks/list", {"cwds": [cwd]})
        found: list[CodexHook] = []
        for entry in (result or {}).get("data") or []:
            for hook in entry.get("hooks") or [] if isinstance(entry, dict) else []:
                if isinstance(hook, dict) and isinstance(hook.get("key"), str):
                    found.append(
                        CodexHook(
                            key=hook["key"],
                            command=str(hook.get("command") or ""),
                            source_path=str(hook.get("sourcePath") or ""),
                            current_hash=str(hook.get("currentHash") or ""),
                            trust_status=str(hook.get("trustStatus") or ""),
                        )
                    )
        return found

    def trust(self, hooks: Sequence[CodexHook]) -> None:
        """Record ``hooks`` as trusted in the user's ``config.toml``, as ``/hooks`` does."""
        if hooks:
            value = {hook.key: {"trusted_hash": hook.current_hash} for hook in hooks}
            self._write([{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": value}], None)

    def set_value(self, key_path: str, value: object, *, file_path: str | None = None) -> None:
        """Set ``key_path`` (dotted) to ``value`` in ``file_path`` (default: the user's ``config.toml``)."""
        self._write([{"keyPath": key_path, "mergeStrategy": "replace", "value": value}], file_path)

    def _write(self, edits: list[dict[str, Any]], file_path: str | None) -> None:
        params: dict[str, Any] = {"edits": edits}
        if file_path is not None:
            params["filePath"] = file_path
        self._call("config/batchWrite", params)
