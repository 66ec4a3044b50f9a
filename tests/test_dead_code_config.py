"""The dead-code check of ``make lint`` (vulture, configured in pyproject.toml) is told only about
names the code still has."""

import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).parent.parent


def test_every_name_the_dead_code_check_is_told_about_is_still_in_the_code():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["vulture"]
    code = "\n".join(
        path.read_text(encoding="utf-8") for folder in config["paths"] for path in (ROOT / folder).rglob("*.py")
    )
    stale = [name for name in config["ignore_names"] if not re.search(rf"\b{re.escape(name)}\b", code)]
    assert not stale, f"remove from [tool.vulture] ignore_names in pyproject.toml, nothing uses them now: {stale}"
