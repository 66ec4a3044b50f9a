import os
import uuid

NOW = 1_800_000_000.0


class Clock:
    def __init__(self, now=NOW):
        self.now = now

    def __call__(self):
        return self.now


def add_sessions(config, count, mtime, names=None):
    os.makedirs(config.transcripts_dir, exist_ok=True)
    ids = names or [str(uuid.UUID(int=n + 1)) for n in range(count)]
    for session in ids:
        path = os.path.join(config.transcripts_dir, f"{session}.jsonl")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write('{"type":"user","message":{"content":"we deploy on Tuesdays"}}\n')
        os.utime(path, (mtime, mtime))
    return ids


def set_lock(config, body, mtime):
    path = os.path.join(config.memory_dir, ".consolidate-lock")
    os.makedirs(config.memory_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(body)
    os.utime(path, (mtime, mtime))
    return path
