import os
import subprocess
import sys

from _journal_helpers import NOW, add_sessions, set_lock

from memdir.journal import ConsolidationLock, DreamGate, sessions_since


def dead_pid():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait(timeout=30)
    return process.pid


def test_an_absent_lock_is_taken_with_prior_zero_and_rolled_back_by_removal(config, clock):
    lock = ConsolidationLock(config.memory_dir, clock=clock)
    assert lock.last_consolidated_at() == 0
    assert lock.try_acquire() == 0
    assert lock.holder() == os.getpid()
    assert os.stat(lock.path).st_mtime == NOW
    lock.rollback(0)
    assert not os.path.exists(lock.path)


def test_a_recent_lock_held_by_a_live_process_blocks(config, clock):
    set_lock(config, str(os.getppid()), NOW - 1800)
    assert ConsolidationLock(config.memory_dir, clock=clock).try_acquire() is None


def test_a_recent_lock_of_a_dead_process_or_with_garbage_is_reclaimed(config, clock):
    lock = ConsolidationLock(config.memory_dir, clock=clock)
    for body in (str(dead_pid()), "not a pid", ""):
        set_lock(config, body, NOW - 1800)
        assert lock.try_acquire() == NOW - 1800
        assert lock.holder() == os.getpid()


def test_a_lock_older_than_an_hour_is_reclaimed_whoever_holds_it(config, clock):
    set_lock(config, str(os.getppid()), NOW - 7200)
    assert ConsolidationLock(config.memory_dir, clock=clock).try_acquire() == NOW - 7200


def test_rollback_empties_the_body_and_restores_the_prior_mtime(config, clock):
    path = set_lock(config, "123", NOW - 86400 * 3)
    lock = ConsolidationLock(config.memory_dir, clock=clock)
    prior = lock.try_acquire()
    lock.rollback(prior)
    assert os.stat(path).st_mtime == NOW - 86400 * 3
    with open(path, encoding="utf-8") as handle:
        assert handle.read() == ""


def test_losing_the_race_is_detected_by_re_reading_the_pid(config, clock):
    class Racer(ConsolidationLock):
        def _write_pid(self):
            super()._write_pid()
            with open(self.path, "w", encoding="utf-8") as handle:
                handle.write("999999")

    assert Racer(config.memory_dir, clock=clock).try_acquire() is None


def test_the_gate_checks_time_then_throttles_scans_then_counts_sessions(config, clock):
    gate = DreamGate(config, clock=clock)
    set_lock(config, "", NOW - 3600 * 23)
    decision = gate.check()
    assert not decision.run and "23.0h" in decision.reason

    set_lock(config, "", NOW - 3600 * 25)
    add_sessions(config, 4, NOW - 3600)
    decision = gate.check()
    assert not decision.run and len(decision.sessions) == 4

    add_sessions(config, 6, NOW - 60)
    clock.now += 599
    assert "throttle" in gate.check().reason
    clock.now += 2
    decision = gate.check()
    assert decision.run and len(decision.sessions) == 6


def test_only_uuid_transcripts_touched_after_the_last_consolidation_count(config):
    ids = add_sessions(config, 3, NOW - 10)
    add_sessions(config, 0, NOW - 10, names=["not-a-uuid", "agent-1234"])
    add_sessions(config, 0, NOW - 5000, names=["aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"])
    assert sorted(sessions_since(config.transcripts_dir, NOW - 100)) == sorted(ids)
    assert len(sessions_since(config.transcripts_dir, NOW - 100, exclude=ids[0])) == 2
    assert sessions_since(config.transcripts_dir + "missing", 0) == []


def test_thresholds_come_from_settings(tmp_path, env, clock):
    import json

    from memdir.config import resolve_config

    project = tmp_path / "p2"
    (project / ".claude").mkdir(parents=True)
    settings = {"memdir": {"dreamMinHours": 1, "dreamMinSessions": 1}}
    (project / ".claude" / "settings.local.json").write_text(json.dumps(settings), encoding="utf-8")
    config = resolve_config(str(project), env=env)
    set_lock(config, "", NOW - 3700)
    add_sessions(config, 1, NOW - 60)
    assert DreamGate(config, clock=clock).check().run
