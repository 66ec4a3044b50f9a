"""Run memdir with one of its output streams on a pseudo-terminal, as a person's shell would."""

import os
import pty
import subprocess
import sys
import threading


def on_terminal(args, env, stream):
    """Run memdir with stdout or stderr on a pseudo-terminal; return (terminal text, other stream)."""
    main, side = pty.openpty()
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(main, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    streams = (
        {"stdout": side, "stderr": subprocess.PIPE}
        if stream == "stdout"
        else {"stdout": subprocess.PIPE, "stderr": side}
    )
    process = subprocess.Popen([sys.executable, "-m", "memdir", *args], env=env, stdin=subprocess.DEVNULL, **streams)
    os.close(side)
    other = process.communicate(timeout=120)[0 if stream == "stderr" else 1]
    reader.join(timeout=30)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace"), other.decode("utf-8")
