"""Three-way team sync against the real server (uvicorn on 127.0.0.1), on SQLite and PostgreSQL:
every class of change for pull, push, sync and watch, merges, conflicts, deletions, a clone away
for a while, the mass-delete hold."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from team_helpers import REPO, TeamServer, write

from memdir.team.client import TeamClient
from memdir.team.pull import pull
from memdir.team.push import push
from memdir.team.scheduler import PushScheduler
from memdir.team.state import SyncState
from memdir.team.sync import status, sync
from memdir.team.watcher import watch_team_memory

MakeClient = Callable[..., TeamClient]
TIMEOUT = 30

ORIGINAL = {
    "same.md": "same\n",
    "changed-here.md": "base\n",
    "changed-there.md": "base\n",
    "changed-both.md": "base\n",
    "deleted-here.md": "base\n",
    "deleted-there.md": "base\n",
    "deleted-here-changed-there.md": "base\n",
    "changed-here-deleted-there.md": "base\n",
}


def server_entries(server: TeamServer) -> dict[str, str]:
    state = server.storage.get_repo(REPO)
    return dict(state.entries) if state else {}


def files(team: Path) -> dict[str, str]:
    return {str(path.relative_to(team)): path.read_text(encoding="utf-8") for path in team.rglob("*") if path.is_file()}


def every_kind_of_change(make_team_client: MakeClient, tmp_path: Path) -> tuple[Path, Path]:
    """Clone ``a`` and clone ``b`` agree on ORIGINAL; then each changes its side in every way."""
    a, b = tmp_path / "a" / "team", tmp_path / "b" / "team"
    for key, text in ORIGINAL.items():
        write(a, key, text)
    push(make_team_client(), SyncState(), str(a))
    pull(make_team_client(), SyncState(), str(b))
    write(a, "changed-here.md", "here\n")
    write(a, "changed-both.md", "a's version\n")
    write(a, "changed-here-deleted-there.md", "here\n")
    write(a, "new-here.md", "new here\n")
    (a / "deleted-here.md").unlink()
    (a / "deleted-here-changed-there.md").unlink()
    write(b, "changed-there.md", "there\n")
    write(b, "changed-both.md", "b's version\n")
    write(b, "deleted-here-changed-there.md", "there\n")
    write(b, "new-there.md", "new there\n")
    (b / "deleted-there.md").unlink()
    (b / "changed-here-deleted-there.md").unlink()
    pushed = push(make_team_client(), SyncState(), str(b))
    assert pushed.uploaded == 4 and pushed.deleted == ("changed-here-deleted-there.md", "deleted-there.md")
    return a, b


def test_status_names_every_class_of_change(make_team_client: MakeClient, tmp_path: Path):
    a, _b = every_kind_of_change(make_team_client, tmp_path)
    report = status(make_team_client(), SyncState(), str(a))
    assert report.classes == {
        "changed here": ("changed-here.md",),
        "changed there": ("changed-there.md",),
        "changed on both sides": ("changed-both.md",),
        "new here": ("new-here.md",),
        "new there": ("new-there.md",),
        "deleted here": ("deleted-here.md",),
        "deleted there": ("deleted-there.md",),
        "changed here, deleted there": ("changed-here-deleted-there.md",),
        "deleted here, changed there": ("deleted-here-changed-there.md",),
    }
    assert report.would_push == (
        "changed-here-deleted-there.md",
        "changed-here.md",
        "deleted-here.md",
        "new-here.md",
    )


def test_pull_brings_every_server_change_and_overwrites_no_local_change(make_team_client: MakeClient, tmp_path: Path):
    a, _b = every_kind_of_change(make_team_client, tmp_path)
    result = pull(make_team_client(), SyncState(), str(a))
    local = files(a)
    assert local["changed-there.md"] == "there\n" and local["new-there.md"] == "new there\n"
    assert "deleted-there.md" not in local and result.deleted == ("deleted-there.md",)
    assert local["deleted-here-changed-there.md"] == "there\n"
    assert local["changed-here.md"] == "here\n" and local["new-here.md"] == "new here\n"
    assert "deleted-here.md" not in local
    assert local["changed-here-deleted-there.md"] == "here\n"
    [copy] = [c for c in result.conflicts if c.key == "changed-both.md"]
    assert local["changed-both.md"] == "b's version\n" and local[copy.kept_as] == "a's version\n"
    assert dict(result.kept_local) == {
        "changed-here.md": "changed here, not pushed yet",
        "new-here.md": "new here, not pushed yet",
        "deleted-here.md": "deleted here, not pushed yet",
        "changed-here-deleted-there.md": (
            "changed here, deleted on the server; your version is kept and the next push restores it"
        ),
    }


def test_push_sends_every_local_change_and_overwrites_no_server_change(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    a, _b = every_kind_of_change(make_team_client, tmp_path)
    result = push(make_team_client(), SyncState(), str(a))
    assert result.uploaded_keys == ("changed-here-deleted-there.md", "changed-here.md", "new-here.md")
    assert result.deleted == ("deleted-here.md",)
    assert dict(result.not_pushed).keys() == {"changed-both.md", "deleted-here-changed-there.md"}
    stored = server_entries(team_server)
    assert stored["changed-both.md"] == "b's version\n" and stored["changed-there.md"] == "there\n"
    assert stored["changed-here.md"] == "here\n" and stored["changed-here-deleted-there.md"] == "here\n"
    assert "deleted-here.md" not in stored and stored["deleted-here-changed-there.md"] == "there\n"


def test_sync_then_a_pull_elsewhere_leaves_both_clones_equal_with_nothing_lost(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    a, b = every_kind_of_change(make_team_client, tmp_path)
    report = sync(make_team_client(), SyncState(), str(a)).to_json()
    assert (report["pulled"], report["pushed"], report["deleted_here"], report["deleted_there"]) == (4, 4, 1, 1)
    kinds = {c["key"]: c["kept_as"] for c in report["conflicts"]}
    assert kinds.keys() == {"changed-both.md", "changed-here-deleted-there.md", "deleted-here-changed-there.md"}
    assert kinds["changed-here-deleted-there.md"] == "changed-here-deleted-there.md"
    copy = kinds["changed-both.md"]
    assert copy.startswith("changed-both.conflict-") and copy.endswith(".md")
    pull(make_team_client(), SyncState(), str(b))
    assert files(a) == files(b) == server_entries(team_server)
    assert files(a) == {
        "same.md": "same\n",
        "changed-here.md": "here\n",
        "changed-there.md": "there\n",
        "changed-both.md": "b's version\n",
        copy: "a's version\n",
        "new-here.md": "new here\n",
        "new-there.md": "new there\n",
        "deleted-here-changed-there.md": "there\n",
        "changed-here-deleted-there.md": "here\n",
    }
    again = sync(make_team_client(), SyncState(), str(a)).to_json()
    assert (again["pulled"], again["pushed"], again["conflicts"]) == (0, 0, [])


def test_edits_to_different_lines_on_both_sides_merge(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    a, b = tmp_path / "a" / "team", tmp_path / "b" / "team"
    write(a, "project_deploy_window.md", "---\nname: deploy\ntype: project\n---\nline 1\nline 2\nline 3\n")
    push(make_team_client(), SyncState(), str(a))
    pull(make_team_client(), SyncState(), str(b))
    write(a, "project_deploy_window.md", "---\nname: deploy\ntype: project\n---\nline 1 (a)\nline 2\nline 3\n")
    write(b, "project_deploy_window.md", "---\nname: deploy\ntype: project\n---\nline 1\nline 2\nline 3\nline 4 (b)\n")
    push(make_team_client(), SyncState(), str(b))
    report = sync(make_team_client(), SyncState(), str(a))
    merged = "---\nname: deploy\ntype: project\n---\nline 1 (a)\nline 2\nline 3\nline 4 (b)\n"
    assert report.pull.merged == ("project_deploy_window.md",) and report.pull.conflicts == ()
    assert server_entries(team_server) == {"project_deploy_window.md": merged}
    assert files(a) == {"project_deploy_window.md": merged}


def test_an_appended_line_is_pushed_by_sync_not_lost(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    a, b = tmp_path / "a" / "team", tmp_path / "b" / "team"
    write(a, "project_deploy_window.md", "window: Tue\n")
    write(a, "other.md", "other\n")
    sync(make_team_client(), SyncState(), str(a))
    sync(make_team_client(), SyncState(), str(b))
    write(b, "project_deploy_window.md", "window: Tue\nnot on release days\n")
    report = sync(make_team_client(), SyncState(), str(b)).to_json()
    assert (report["pulled"], report["pushed"]) == (0, 1)
    assert server_entries(team_server)["project_deploy_window.md"] == "window: Tue\nnot on release days\n"


def test_a_clone_away_for_a_while_catches_up_without_losing_its_own_edits(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    away, busy = tmp_path / "away" / "team", tmp_path / "busy" / "team"
    for n in range(8):
        write(busy, f"n{n}.md", f"v1 {n}\n")
    for n in range(12):  # a folder large enough that three deletions are not a mass delete
        write(busy, f"stable{n}.md", "stable\n")
    sync(make_team_client(), SyncState(), str(busy))
    sync(make_team_client(), SyncState(), str(away))
    for round_ in range(3):  # several pushes while the other clone is offline
        write(busy, f"n{round_}.md", f"v{round_ + 2} by busy\n")
        write(busy, f"added{round_}.md", "added\n")
        (busy / f"n{7 - round_}.md").unlink()
        sync(make_team_client(), SyncState(), str(busy))
    write(away, "n3.md", "edited offline\n")
    write(away, "offline.md", "written offline\n")
    (away / "n4.md").unlink()
    sync(make_team_client(), SyncState(), str(away))
    sync(make_team_client(), SyncState(), str(busy))
    expected = {
        "n0.md": "v2 by busy\n",
        "n1.md": "v3 by busy\n",
        "n2.md": "v4 by busy\n",
        "n3.md": "edited offline\n",
        "added0.md": "added\n",
        "added1.md": "added\n",
        "added2.md": "added\n",
        "offline.md": "written offline\n",
        **{f"stable{n}.md": "stable\n" for n in range(12)},
    }
    assert files(away) == files(busy) == server_entries(team_server) == expected


def test_a_clone_without_a_base_learns_deletions_from_tombstones(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    a, fresh = tmp_path / "a" / "team", tmp_path / "fresh" / "team"
    for n in range(5):
        write(a, f"n{n}.md", f"{n}\n")
    sync(make_team_client(), SyncState(), str(a))
    (a / "n0.md").unlink()
    sync(make_team_client(), SyncState(), str(a))
    write(fresh, "n0.md", "0\n")  # the very content that was deleted, copied before the deletion
    write(fresh, "n1.md", "1\n")
    report = sync(make_team_client(), SyncState(), str(fresh)).to_json()
    assert report["deleted_there"] == 1 and report["pushed"] == 0
    assert sorted(files(fresh)) == ["n1.md", "n2.md", "n3.md", "n4.md"]


def test_a_mass_delete_is_held_unless_allowed(make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path):
    a, b = tmp_path / "a" / "team", tmp_path / "b" / "team"
    for n in range(12):
        write(a, f"n{n:02}.md", f"{n}\n")
    sync(make_team_client(), SyncState(), str(a))
    sync(make_team_client(), SyncState(), str(b))
    for path in a.iterdir():
        path.unlink()
    held = push(make_team_client(), SyncState(), str(a))
    assert len(held.held_deletions) == 12 and held.deleted == ()
    assert len(server_entries(team_server)) == 12
    allowed = push(make_team_client(), SyncState(), str(a), allow_mass_delete=True)
    assert len(allowed.deleted) == 12 and server_entries(team_server) == {}
    pulled = pull(make_team_client(), SyncState(), str(b))
    assert len(pulled.held_deletions) == 12 and len(files(b)) == 12
    assert len(pull(make_team_client(), SyncState(), str(b), allow_mass_delete=True).deleted) == 12
    assert files(b) == {}


def test_the_watcher_keeps_an_unpushed_edit_and_brings_in_teammates_changes(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    mine, theirs = tmp_path / "mine" / "team", tmp_path / "theirs" / "team"
    write(theirs, "shared.md", "v1\n")
    write(theirs, "other.md", "other v1\n")
    sync(make_team_client(), SyncState(), str(theirs))
    sync(make_team_client(), SyncState(), str(mine))
    write(theirs, "shared.md", "v2 theirs\n")
    write(theirs, "other.md", "other v2\n")
    sync(make_team_client(), SyncState(), str(theirs))
    write(mine, "shared.md", "v2 mine, not pushed\n")  # the watcher starts with this edit unpushed

    stop, ready, done = threading.Event(), threading.Event(), threading.Condition()
    reports: list[object] = []

    def on_push(result: object, error: BaseException | None) -> None:
        with done:
            reports.append(error or result)
            done.notify_all()

    def on_ready(_scheduler: PushScheduler) -> None:
        ready.set()

    def run() -> None:
        with TeamClient(team_server.endpoint()) as client:
            watch_team_memory(client, str(mine), stop=stop, delay=0.05, on_push=on_push, on_ready=on_ready)

    watcher = threading.Thread(target=run)
    watcher.start()
    try:
        assert ready.wait(TIMEOUT)
        local = files(mine)
        assert local["other.md"] == "other v2\n" and local["shared.md"] == "v2 theirs\n"
        [copy] = [key for key in local if key.startswith("shared.conflict-")]
        assert local[copy] == "v2 mine, not pushed\n"
        write(mine, "new.md", "while watching\n")
        with done:
            assert done.wait_for(lambda: "new.md" in server_entries(team_server), TIMEOUT)
        write(theirs, "other.md", "other v3\n")
        sync(make_team_client(), SyncState(), str(theirs))
        write(mine, "poke.md", "a change makes the watcher sync\n")
        with done:
            assert done.wait_for(lambda: files(mine).get("other.md") == "other v3\n", TIMEOUT)
    finally:
        stop.set()
        watcher.join(TIMEOUT)
    assert server_entries(team_server)[copy] == "v2 mine, not pushed\n"


def test_deleting_one_file_of_a_small_folder_is_not_held_but_two_of_three_are(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    a = tmp_path / "a" / "team"
    for n in range(3):
        write(a, f"n{n}.md", f"{n}\n")
    sync(make_team_client(), SyncState(), str(a))
    (a / "n0.md").unlink()
    assert len(push(make_team_client(), SyncState(), str(a)).deleted) == 1
    (a / "n1.md").unlink()
    (a / "n2.md").unlink()
    held = push(make_team_client(), SyncState(), str(a))
    assert len(held.held_deletions) == 2 and held.deleted == ()
    assert sorted(server_entries(team_server)) == ["n1.md", "n2.md"]


def test_a_push_reports_progress_per_acknowledged_batch_up_to_every_file(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    a = tmp_path / "a" / "team"
    for n in range(30):
        write(a, f"n{n:02}.md", f"{n}\n" + "x" * 40_000)  # about 1.2 MB: more than one PUT batch
    heard: list[tuple[int, int]] = []
    pushed = push(make_team_client(), SyncState(), str(a), progress=lambda done, total: heard.append((done, total)))
    assert pushed.uploaded == 30 and pushed.batches == len(heard) >= 2
    assert [total for _, total in heard] == [30] * len(heard)
    assert [done for done, _ in heard] == sorted(done for done, _ in heard) and heard[-1] == (30, 30)


def test_a_sync_that_takes_two_rounds_reports_what_every_round_pushed(
    make_team_client: MakeClient, team_server: TeamServer, tmp_path: Path
):
    """Two clones add a memory at once: both change the index, so the first clone's push meets the
    second's and takes a second round to merge the index. Its summary counts both rounds' uploads
    (it used to say "push: 0 files": the second round's alone)."""
    a, b = tmp_path / "a" / "team", tmp_path / "b" / "team"
    write(a, "MEMORY.md", "# Team\n")
    push(make_team_client(), SyncState(), str(a))
    pull(make_team_client(), SyncState(), str(b))
    write(a, "a.md", "from a\n")
    write(a, "MEMORY.md", "# Team\n- [A](a.md) — from a\n")
    write(b, "b.md", "from b\n")
    write(b, "MEMORY.md", "# Team\n- [B](b.md) — from b\n")

    class PushedMeanwhile(TeamClient):
        """Clone ``a``'s client: its first upload finds clone ``b``'s push landed just before it."""

        raced = False

        def put(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            if not PushedMeanwhile.raced:
                PushedMeanwhile.raced = True
                push(make_team_client(), SyncState(), str(b))
            return super().put(*args, **kwargs)

    with PushedMeanwhile(team_server.endpoint(None, REPO)) as client:
        report = sync(client, SyncState(), str(a))
    assert PushedMeanwhile.raced
    assert report.push.uploaded_keys == ("MEMORY.md", "a.md")
    pulled, pushed, _ = report.summary()
    assert "1 merged" in pulled  # the index: counted once, as merged
    assert pushed == "push: 1 file to the server (1 new or changed, 0 deleted by you)"  # a.md, in the first round
    entries = server_entries(team_server)
    assert entries["a.md"] == "from a\n" and entries["b.md"] == "from b\n"
    assert "- [A](a.md)" in entries["MEMORY.md"] and "- [B](b.md)" in entries["MEMORY.md"]
