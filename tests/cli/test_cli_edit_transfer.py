"""``memdir edit``, ``mv``, ``export`` and ``import``: by hand, with the index in step and nothing lost."""

import json
import os
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir.cli import cli

ROLE = "---\nname: Role\ndescription: Backend lead\ntype: user\n---\n\nLeads payments.\n"


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    mem = tmp_path / "mem"

    def invoke(*args, memory_dir=mem, input=None):
        return CliRunner().invoke(cli, ["--memory-dir", str(memory_dir), *args], input=input, catch_exceptions=False)

    invoke.mem = mem
    invoke.tmp = tmp_path
    assert invoke("add", "--type", "user", "--name", "Role", "--description", "Backend lead").exit_code == 0
    return invoke


def editor(tmp_path, monkeypatch, new_text):
    """$EDITOR: a real program that replaces the file it is given with ``new_text``."""
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nopen(sys.argv[1], 'w', encoding='utf-8').write({new_text!r})\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")


def test_edit_saves_the_text_as_typed_and_updates_the_index_line(run, monkeypatch):
    edited = "---\nname: Role\ndescription: Backend lead, payments and ledger\ntype: user\n---\n\nLeads payments.\n"
    editor(run.tmp, monkeypatch, edited)
    result = run("edit", "user_role.md")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"saved {run.mem / 'user_role.md'}; MEMORY.md updated\n"
    assert (run.mem / "user_role.md").read_text(encoding="utf-8") == edited
    assert (run.mem / "MEMORY.md").read_text(encoding="utf-8") == (
        "- [Role](user_role.md) — Backend lead, payments and ledger\n"
    )


def test_edit_refuses_invalid_frontmatter_off_a_terminal_and_keeps_the_typed_text(run, monkeypatch):
    before = (run.mem / "user_role.md").read_bytes()
    broken = "---\nname: Role\ndescription: [unclosed\ntype: user\n---\n\nLeads payments.\n"
    editor(run.tmp, monkeypatch, broken)
    result = run("edit", "user_role.md")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert "unquoted-value" in result.stderr or "not valid YAML" in lines[0]
    assert lines[-1].startswith("memdir: user_role.md was not changed; your text is kept in ")
    rescue = lines[-1].rsplit(" ", 1)[1]
    assert Path(rescue).read_text(encoding="utf-8") == broken
    Path(rescue).unlink()
    assert (run.mem / "user_role.md").read_bytes() == before


def test_edit_of_a_missing_file_or_an_index_is_refused(run):
    assert run("edit", "nope.md").exit_code == 1
    assert "index file" in run("edit", "MEMORY.md").stderr


def test_mv_renames_the_file_and_repoints_its_index_line(run):
    result = run("mv", "user_role.md", "user_lead.md")
    assert result.exit_code == 0
    assert result.stdout == "moved user_role.md to user_lead.md; MEMORY.md updated\n"
    assert (run.mem / "MEMORY.md").read_text(encoding="utf-8") == "- [Role](user_role.md) — Backend lead\n".replace(
        "user_role", "user_lead"
    )
    assert run("mv", "user_lead.md", "user_lead.md").exit_code == 1


def populate(run):
    (run.mem / "team").mkdir()
    (run.mem / "team" / "project_ci.md").write_text("---\nname: CI\ndescription: CI runs on main\n---\nx\r\n")
    (run.mem / "team" / "MEMORY.md").write_text("- [CI](project_ci.md) — CI runs on main\n")
    (run.mem / "logs" / "2026" / "03").mkdir(parents=True)
    (run.mem / "logs" / "2026" / "03" / "2026-03-01.md").write_text("- 09:00 user prefers tabs\n")
    (run.mem / "latin1.md").write_bytes("---\nname: café\n---\n".encode("latin-1"))
    (run.mem / "notes.txt").write_bytes("\ufeffémoji 🎉 and a tab\t".encode())
    for n, path in enumerate(sorted(p for p in run.mem.rglob("*") if p.is_file())):
        os.utime(path, ns=(1_700_000_000_123_456_789 + n, 1_700_000_000_123_456_789 + n))


def snapshot(root):
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


@pytest.mark.parametrize("fmt", ["jsonl", "tar"])
def test_export_then_import_round_trips_every_byte_and_mtime(run, fmt):
    populate(run)
    archive = run.tmp / f"out.{fmt}"
    result = run("export", "--format", fmt, "-o", str(archive))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"exported 7 files from {run.mem} to {archive}\n"
    copy = run.tmp / "copy"
    imported = run("import", str(archive), memory_dir=copy)
    assert imported.exit_code == 0, imported.stderr
    assert snapshot(copy) == snapshot(run.mem)
    again = run("import", str(archive), "--json", memory_dir=copy)
    assert sorted(json.loads(again.stdout)["unchanged"]) == sorted(snapshot(run.mem))


def test_export_to_stdout_is_jsonl_with_a_header_line(run):
    result = run("export")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["memdir_export"] == 1
    assert {line["file"] for line in lines[1:]} == {"MEMORY.md", "user_role.md"}


def test_a_conflict_stops_the_import_before_anything_is_written(run):
    archive = run.tmp / "out.jsonl"
    run("export", "-o", str(archive))
    (run.mem / "user_role.md").write_text(ROLE.replace("Backend lead", "Frontend lead"), encoding="utf-8")
    (run.mem / "MEMORY.md").unlink()
    before = snapshot(run.mem)
    result = run("import", str(archive))
    assert result.exit_code == 1
    assert result.stderr == (
        "memdir: 1 file already exists with other content (user_role.md); nothing was imported. "
        "Choose --on-conflict skip, rename or replace\n"
    )
    assert snapshot(run.mem) == before


def test_on_conflict_skip_rename_and_replace(run):
    archive = run.tmp / "out.jsonl"
    run("export", "-o", str(archive))
    mine = ROLE.replace("Backend lead", "Frontend lead")
    (run.mem / "user_role.md").write_text(mine, encoding="utf-8")
    skipped = run("import", str(archive), "--on-conflict", "skip")
    assert skipped.exit_code == 0 and (run.mem / "user_role.md").read_text(encoding="utf-8") == mine
    renamed = run("import", str(archive), "--on-conflict", "rename", "--json")
    assert json.loads(renamed.stdout)["renamed"] == ["user_role.md -> user_role.imported.md"]
    assert "(user_role.imported.md)" in (run.mem / "MEMORY.md").read_text(encoding="utf-8")
    assert (run.mem / "user_role.md").read_text(encoding="utf-8") == mine
    replaced = run("import", str(archive), "--on-conflict", "replace", "--json")
    assert json.loads(replaced.stdout)["replaced"] == ["user_role.md"]
    assert "Backend lead" in (run.mem / "user_role.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["../escape.md", "/etc/evil.md", "a/../../b.md", ".memdir.lock"])
def test_an_import_with_a_hostile_name_is_refused_whole(run, name):
    archive = run.tmp / "evil.jsonl"
    lines = [{"file": "user_ok.md", "mtime_ns": 1, "text": ROLE}, {"file": name, "mtime_ns": 1, "text": "x"}]
    archive.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = run("import", str(archive))
    assert result.exit_code == 1 and result.stderr.startswith("memdir: ") and result.stderr.count("\n") == 1
    assert not (run.mem / "user_ok.md").exists()
    assert not (run.tmp / "escape.md").exists()


def test_a_tar_with_a_symlink_member_is_refused(run):
    archive = run.tmp / "evil.tar"
    with tarfile.open(archive, "w") as tar:
        link = tarfile.TarInfo("user_link.md")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    result = run("import", str(archive))
    assert result.exit_code == 1 and "not a plain file" in result.stderr
    assert not (run.mem / "user_link.md").exists()


def test_an_imported_memory_that_says_nearly_what_one_here_says_is_imported_and_named(run):
    archive = run.tmp / "out.jsonl"
    run("export", "-o", str(archive))
    other = run.tmp / "other"
    assert (
        run(
            "add",
            "--type",
            "user",
            "--name",
            "Role",
            "--description",
            "Backend lead",
            "--file",
            "role.md",
            memory_dir=other,
        ).exit_code
        == 0
    )
    result = run("import", str(archive), "--json", memory_dir=other)
    assert result.exit_code == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert "user_role.md" in outcome["written"]  # nothing is held back
    assert outcome["near"] == ["user_role.md says nearly what role.md says"]
    plain = run("import", str(archive), "--on-conflict", "replace", memory_dir=run.tmp / "third")
    assert "says nearly" not in plain.stderr
