"""memdir merge, mv keeping [[links]] working, doctor's notes and expired memories in list."""

import json
import time

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.store.directory import MemoryDir
from memdir.store.links import LinkResolver, find_links, link_key


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    mem = tmp_path / "mem"
    mem.mkdir()

    def invoke(*args):
        return CliRunner().invoke(cli, ["--memory-dir", str(mem), *args], catch_exceptions=False)

    invoke.mem = mem
    return invoke


def write(mem, file, name, description, body="", extra=""):
    (mem / file).write_text(
        f"---\nname: {name}\ndescription: {description}\ntype: project\n{extra}---\n\n{body}\n", encoding="utf-8"
    )


def test_links_resolve_by_name_or_stem_ignoring_case_and_separators(tmp_path):
    mem = tmp_path / "mem"
    mem.mkdir()
    write(mem, "project_checkout.md", "checkout-latency", "Checkout p95")
    store = MemoryDir(mem)
    resolver = LinkResolver(store.headers())
    for spelling in (
        "checkout-latency",
        "Checkout Latency",
        "checkout_latency",
        "project_checkout",
        "PROJECT CHECKOUT.md",
    ):
        assert resolver.resolve(spelling).filename == "project_checkout.md", spelling
    assert resolver.resolve("nothing-here") is None
    text = "see [[checkout-latency]] and [[Deploy Day|the deploy day]]\n[[a#part]]"
    assert [(link.target, link.line) for link in find_links(text)] == [
        ("checkout-latency", 1),
        ("Deploy Day", 1),
        ("a", 2),
    ]
    assert link_key("Deploy Day") == link_key("deploy_day") == "deploy-day"


def test_merge_keeps_a_s_name_takes_b_s_text_removes_b_and_repoints_links(run):
    mem = run.mem
    write(mem, "a.md", "checkout-latency", "Checkout p95 is 140 ms", "After the cache.")
    write(mem, "b.md", "checkout-speed", "Checkout p95 was 950 ms", "Before the cache.")
    write(mem, "c.md", "runbook", "Checkout runbook", "See [[checkout-speed]] and [[b|the old figure]].")
    run("doctor", "--fix")
    result = run("merge", "a.md", "b.md")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "merged b.md into a.md; links updated in c.md"
    merged = (mem / "a.md").read_text(encoding="utf-8")
    assert "name: checkout-latency" in merged and "description: Checkout p95 is 140 ms" in merged
    assert "After the cache." in merged and "Merged from b.md (checkout-speed):" in merged
    assert "Checkout p95 was 950 ms" in merged and "Before the cache." in merged
    assert not (mem / "b.md").exists()
    assert "b.md" not in (mem / "MEMORY.md").read_text(encoding="utf-8")
    assert "[[checkout-latency]]" in (mem / "c.md").read_text(encoding="utf-8")
    assert "[[checkout-latency|the old figure]]" in (mem / "c.md").read_text(encoding="utf-8")
    assert run("merge", "a.md", "a.md").exit_code == 1


def test_mv_repoints_links_that_reached_the_memory_by_its_file_name(run):
    mem = run.mem
    write(mem, "old_stem.md", "Deploy day", "Deploys on Tuesday")
    write(mem, "c.md", "runbook", "Runbook", "By stem [[old_stem]], by name [[deploy-day]].")
    run("doctor", "--fix")
    result = run("mv", "old_stem.md", "new_stem.md")
    assert result.exit_code == 0
    assert "links updated in c.md" in result.stdout
    body = (mem / "c.md").read_text(encoding="utf-8")
    assert "[[new_stem]]" in body and "[[deploy-day]]" in body


def test_doctor_lists_duplicates_dangling_links_and_expiry_as_notes_and_no_pair_from_shared_words(run):
    mem = run.mem
    past = time.strftime("%Y-%m-%d", time.localtime(time.time() - 5 * 86400))
    write(mem, "dup1.md", "Real DB in tests", "Integration tests hit a real database, never mocks")
    write(mem, "dup2.md", "Real DB in tests again", "Integration tests hit a real database, never mocks")
    write(mem, "latency.md", "Checkout latency", "The checkout API p95 response time is 950 ms under load")
    write(mem, "cached.md", "Checkout after cache", "After the cache the checkout API p95 response time fell to 140 ms")
    write(mem, "links.md", "Runbook", "How to release", "Steps in [[release-checklist]].")
    write(mem, "freeze.md", "Freeze", "No merges during the freeze", extra=f"expires: {past}\n")
    run("doctor", "--fix")
    result = run("doctor", "--json")
    assert result.exit_code == 0  # notes are information, not problems
    notes = {(note["rule"], note["file"]): note["message"] for note in json.loads(result.stdout)["notes"]}
    assert ("expired", "freeze.md") in notes
    assert ("dangling-link", "links.md") in notes
    duplicates = [message for (rule, _), message in notes.items() if rule == "identical"]
    assert len(duplicates) == 1 and "dup1.md" in duplicates[0] and "dup2.md" in duplicates[0]
    for answer in ("memdir merge dup2.md dup1.md", "memdir relate dup2.md --replaces dup1.md"):
        assert answer in duplicates[0]
    assert "memdir relate dup2.md --different dup1.md" in duplicates[0]
    # Two figures of one attribute in other words: nothing says they are one subject, so no pair.
    assert not [key for key in notes if "latency.md" in notes[key] or "cached.md" in notes[key]]
    listed = {item["file"]: item for item in json.loads(run("list", "--json").stdout)}
    assert listed["freeze.md"]["expired"] is True and listed["freeze.md"]["expires"] == past
    assert listed["latency.md"]["expired"] is False
    assert f"(expired {past})" in run("list").stdout
