"""docs/architecture.md names modules, files and the names defined in them; each must exist, so a
rename or a move that forgets the map fails here instead of misleading the next reader."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "memdir"
DOC = ROOT / "docs" / "architecture.md"

# `path/to/module.Name`, `path/to/module.py`, `path/` or `path/module.Name.attr(…)`: a reference with a slash
REFERENCE = re.compile(r"((?:[a-z_]+/)+[a-z_]*?)(?:(\.py|\.md|\.toml)|\.([A-Za-z_]\w*))?(?:\.\w+)?(?:\(.*\))?/?")


def target(path: str) -> Path | None:
    for base in (ROOT, PACKAGE, PACKAGE.parent):
        for candidate in (base / f"{path}.py", base / path / "__init__.py", base / path):
            if candidate.exists():
                return candidate
    return None


def references() -> list[tuple[str, str, str | None, str | None]]:
    found = []
    for quoted in sorted(set(re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8")))):
        match = REFERENCE.fullmatch(quoted)
        if match:
            found.append((quoted, match.group(1).rstrip("/"), match.group(2), match.group(3)))
    return found


def test_every_module_and_name_the_architecture_doc_gives_with_its_path_exists():
    missing = []
    for quoted, path, suffix, name in references():
        found = target(path + (suffix or ""))
        if found is None:
            missing.append(quoted)
        elif name and found.is_file():
            text = found.read_text(encoding="utf-8")
            if not re.search(rf"^\s*(?:async\s+)?(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]", text, re.M):
                missing.append(quoted)
    assert len(references()) > 60
    assert missing == []
