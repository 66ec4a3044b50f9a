import os

from memdir import demo


def test_the_demo_runs_offline_and_prints_what_an_agent_receives(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "real-home"))
    demo.main()
    out = capsys.readouterr().out
    assert "# auto memory" in out
    assert out.count("<system-reminder>") >= 4
    assert "feedback_integration_tests_use_a_real_database.md" in out
    assert not os.path.exists(tmp_path / "real-home" / ".claude")
