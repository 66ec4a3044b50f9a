"""Check that the tests guarding user data fail when the code they guard is wrong.

Each mutant is one small deliberate bug in a copy of the tree (the working tree is never touched).
The tests named for it run against the copy; a mutant is *killed* when at least one of them fails.
A mutant whose anchor text no longer exists in the source is reported as ``stale``: update it here
together with the code it mimics.

    .venv/bin/python scripts/mutants.py            # every mutant, its own tests
    .venv/bin/python scripts/mutants.py --full     # every mutant, the whole suite (slow)
    .venv/bin/python scripts/mutants.py in-place   # one mutant by name

Exit status 0 when every mutant is killed and the unmutated copy passes the same tests.
The fsync mutants are only visible through strace (``apt-get install strace``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DURABILITY = "tests/store/test_store_durability.py"
CONCURRENCY = "tests/store/test_store_concurrency.py"
FIELDS = "tests/recall/test_lexical_fields.py"
VERSIONS = "tests/recall/test_versions.py"
WRITES = "tests/cli/test_cli_memories.py"
SIMILAR = "tests/recall/test_similarity_scale.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTANTS = (
    Mutant(
        "in-place",
        "atomic_write writes the target in place (no temp file, no rename)",
        "src/memdir/store/files.py",
        """    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, final_mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, final_mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
""",
        """    del tmp
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, final_mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(target, final_mode)
""",
        (DURABILITY, CONCURRENCY),
    ),
    Mutant(
        "no-file-fsync",
        "atomic_write renames the temp file without syncing it",
        "src/memdir/store/files.py",
        "            os.fsync(handle.fileno())\n",
        "",
        (DURABILITY,),
    ),
    Mutant(
        "no-dir-fsync",
        "atomic_write does not sync the directory after the rename",
        "src/memdir/store/files.py",
        "        raise\n    _fsync_dir(directory)\n",
        "        raise\n",
        (DURABILITY,),
    ),
    Mutant(
        "temp-left-behind",
        "a failed atomic_write leaves its temp file",
        "src/memdir/store/files.py",
        "        with contextlib.suppress(FileNotFoundError):\n            os.unlink(tmp)\n        raise\n",
        "        raise\n",
        (DURABILITY,),
    ),
    Mutant(
        "bm25-no-name",
        "the BM25 ranker ignores a memory's name",
        "src/memdir/recall/lexical.py",
        '"name": header.name or header.filename.rsplit("/", 1)[-1].removesuffix(".md").replace("_", " "),',
        '"name": "",',
        (FIELDS, "tests/recall"),
    ),
    Mutant(
        "bm25-flat-weights",
        "the BM25 ranker weighs every field alike",
        "src/memdir/recall/lexical.py",
        "            weighted[term] = weighted.get(term, 0.0) + weight\n",
        "            weighted[term] = weighted.get(term, 0.0) + 1.0\n",
        (FIELDS, "tests/recall"),
    ),
    Mutant(
        "identical-floor",
        "a write is refused when it shares most of its words with a memory",
        "src/memdir/writes/near.py",
        "IDENTICAL_FLOOR = 1.0\n",
        "IDENTICAL_FLOOR = 0.7\n",
        (WRITES, SIMILAR),
    ),
    Mutant(
        "numbers-left-out",
        "nearly identical is judged without the numbers",
        "src/memdir/writes/near.py",
        "    return frozenset(tokenize(f\"{description or ''}\\n{body[:_BODY_CHARS]}\"))\n",
        "    return frozenset(t for t in tokenize(f\"{description or ''}\\n{body[:_BODY_CHARS]}\")"
        " if not t.isdigit())\n",
        (WRITES, SIMILAR),
    ),
    Mutant(
        "category-size",
        "a name many memories hold is taken for one fact's versions",
        "src/memdir/recall/versions.py",
        "CATEGORY_SIZE = 3\n",
        "CATEGORY_SIZE = 30\n",
        (VERSIONS,),
    ),
    Mutant(
        "no-sitting",
        "memories saved minutes apart under one name are taken for versions",
        "src/memdir/recall/versions.py",
        "SITTING_MS = 3_600_000.0\n",
        "SITTING_MS = 0.0\n",
        (VERSIONS,),
    ),
    Mutant(
        "no-change-word",
        "a name that extends another is taken for a version of it",
        "src/memdir/recall/versions.py",
        "    return _extends(shorter, longer) and _change_word(long_name) and not _change_word(short_name)\n",
        "    return _extends(shorter, longer)\n",
        (VERSIONS,),
    ),
    Mutant(
        "distinct-ignored",
        "a recorded 'different facts' is ignored",
        "src/memdir/recall/versions.py",
        "    return any(link_key(t) in _keys(b) for t in a.distinct)"
        " or any(link_key(t) in _keys(a) for t in b.distinct)\n",
        "    return False\n",
        (VERSIONS, "tests/cli/test_cli_relate.py"),
    ),
    Mutant(
        "expiry-wall-clock",
        "recall judges expiry by the wall clock instead of the time it is asked for",
        "src/memdir/recall/recaller.py",
        "        candidates = current_memories(candidates, self.clock())\n",
        "        candidates = current_memories(candidates, time.time())\n",
        (VERSIONS,),
    ),
    Mutant(
        "store-expiry-wall-clock",
        "recall over the derived index judges expiry by the wall clock",
        "src/memdir/recall/recaller.py",
        "            now_s=self.clock(),\n",
        "            now_s=None,\n",
        (VERSIONS,),
    ),
)


def copy_tree(dest: Path) -> None:
    """The files the tests need: sources, tests, project metadata (no virtualenv, no git)."""
    for part in ("src", "tests", "pyproject.toml", "README.md", "docs", "bench", "examples"):
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.exists():
            shutil.copy2(source, dest / part)


def run_tests(tree: Path, tests: tuple[str, ...]) -> tuple[bool, list[str]]:
    """Run pytest in ``tree`` (its ``src`` first on the path); return (passed, failing test ids)."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-rf", "--timeout=300", *tests],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    failing = [
        line.split(" ", 2)[1].rsplit("/", 1)[-1] for line in done.stdout.splitlines() if line.startswith("FAILED ")
    ]
    if done.returncode != 0 and not failing:
        failing = [f"(pytest exit {done.returncode}) " + (done.stdout + done.stderr).strip()[-300:]]
    return done.returncode == 0, failing


def imported_from(tree: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    probe = "import memdir, os; print(os.path.dirname(memdir.__file__))"
    return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--full", action="store_true", help="run the whole suite against each mutant")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    unknown = set(args.names) - {m.name for m in MUTANTS}
    if unknown:
        parser.error(f"unknown mutant(s) {sorted(unknown)}; known: {[m.name for m in MUTANTS]}")
    rows: list[tuple[str, str, str]] = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="memdir-mutants-") as scratch:
        base = Path(scratch) / "base"
        copy_tree(base)
        if not imported_from(base).strip().startswith(str(base)):
            print("the copy's sources are not the ones imported; is memdir installed non-editable?", file=sys.stderr)
            return 2
        all_tests = tuple(sorted({t for m in chosen for t in m.tests}))
        passed, failing = run_tests(base, ("tests",) if args.full else all_tests)
        if not passed:
            print(f"the unmutated tree fails its own tests: {failing}", file=sys.stderr)
            return 2
        for mutant in chosen:
            tree = Path(scratch) / mutant.name
            copy_tree(tree)
            source = tree / mutant.file
            text = source.read_text(encoding="utf-8")
            if text.count(mutant.old) != 1:
                rows.append((mutant.name, "stale", f"anchor not found once in {mutant.file}"))
                ok = False
                continue
            source.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
            passed, failing = run_tests(tree, ("tests",) if args.full else mutant.tests)
            rows.append((mutant.name, "survived" if passed else "killed", ", ".join(failing) or "-"))
            ok = ok and not passed
            shutil.rmtree(tree)
    width = max(len(m.name) for m in chosen)
    print(f"{'mutant':<{width}}  {'result':<8}  killed by")
    for name, result, detail in rows:
        print(f"{name:<{width}}  {result:<8}  {detail}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
