from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdir.errors import SecretDetected
from memdir.team.secrets import (
    RULE_IDS,
    SecretFinding,
    check_team_write,
    redact_secrets,
    rule_label,
    scan_for_secrets,
)

LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo" / "locomo-dev.json"


def _fill(alphabet: str, n: int) -> str:
    return (alphabet * (n // len(alphabet) + 1))[:n]


def _hex(n: int) -> str:
    return _fill("fa4e0", n)


def _alnum(n: int) -> str:
    return _fill("FAKEfake0", n)


def _upper(n: int) -> str:
    return _fill("FAKE", n)


# Tokens are assembled at run time from their structure so that no credential-shaped literal
# exists in the source; every one spells FAKE/fake or repeats a trivial pattern.
SYNTHETIC: dict[str, Callable[[], str]] = {
    "aws-access-token": lambda: "AK" + "IA" + _upper(16),
    "gcp-api-key": lambda: "AI" + "za" + _alnum(35),
    "azure-ad-client-secret": lambda: "abc" + "1" + "Q~" + _alnum(32),
    "digitalocean-pat": lambda: "dop" + "_v1_" + _hex(64),
    "digitalocean-access-token": lambda: "doo" + "_v1_" + _hex(64),
    "anthropic-api-key": lambda: "sk-" + "ant-api03-" + _alnum(93) + "AA",
    "anthropic-admin-api-key": lambda: "sk-" + "ant-admin01-" + _alnum(93) + "AA",
    "openai-api-key": lambda: "sk-" + "proj-" + _alnum(74) + "T3Blbk" + "FJ" + _alnum(74),
    "huggingface-access-token": lambda: "hf" + "_" + _fill("fake", 34),
    "github-pat": lambda: "gh" + "p_" + _alnum(36),
    "github-fine-grained-pat": lambda: "github" + "_pat_" + _alnum(82),
    "github-app-token": lambda: "gh" + "s_" + _alnum(36),
    "github-oauth": lambda: "gh" + "o_" + _alnum(36),
    "github-refresh-token": lambda: "gh" + "r_" + _alnum(36),
    "gitlab-pat": lambda: "gl" + "pat-" + _alnum(20),
    "gitlab-deploy-token": lambda: "gl" + "dt-" + _alnum(20),
    "slack-bot-token": lambda: "xo" + "xb-" + "1234567890-1234567890" + _alnum(12),
    "slack-user-token": lambda: "xo" + "xp-" + "-".join(["1234567890"] * 3) + "-" + _alnum(30),
    "slack-app-token": lambda: "xa" + "pp-1-" + "FAKE" + "-123-" + "fake",
    "twilio-api-key": lambda: "S" + "K" + _hex(32),
    "sendgrid-api-token": lambda: "S" + "G." + _alnum(66),
    "npm-access-token": lambda: "np" + "m_" + _alnum(36),
    "pypi-upload-token": lambda: "pypi-" + "AgEIcHlwaS5vcmc" + _alnum(50),
    "databricks-api-token": lambda: "da" + "pi" + _hex(32),
    "hashicorp-tf-api-token": lambda: _alnum(14) + ".atlas" + "v1." + _alnum(64),
    "pulumi-api-token": lambda: "pu" + "l-" + _hex(40),
    "postman-api-token": lambda: "PM" + "AK-" + _hex(24) + "-" + _hex(34),
    "grafana-api-key": lambda: "eyJr" + "Ijoi" + _alnum(72),
    "grafana-cloud-api-token": lambda: "gl" + "c_" + _alnum(40),
    "grafana-service-account-token": lambda: "gl" + "sa_" + _alnum(32) + "_" + _hex(8),
    "sentry-user-token": lambda: "sntr" + "yu_" + _hex(64),
    "sentry-org-token": lambda: (
        "sntr" + "ys_" + "eyJpYXQiO" + _alnum(12) + "LCJyZWdpb25fdXJs" + _alnum(12) + "_" + _alnum(43)
    ),
    "stripe-access-token": lambda: "sk" + "_test_" + _alnum(24),
    "shopify-access-token": lambda: "sh" + "pat_" + _hex(32),
    "shopify-shared-secret": lambda: "sh" + "pss_" + _hex(32),
    "private-key": lambda: "-----BEGIN " + "RSA PRIVATE KEY-----\n" + _alnum(80) + "\n-----END RSA PRIVATE KEY-----",
}


def test_there_are_36_rules_in_the_documented_order() -> None:
    assert len(RULE_IDS) == 36
    assert RULE_IDS[0] == "aws-access-token"
    assert RULE_IDS[9] == "github-pat"
    assert RULE_IDS[-1] == "private-key"
    assert set(SYNTHETIC) == set(RULE_IDS)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_synthetic_token_hits_its_rule(rule_id: str) -> None:
    token = SYNTHETIC[rule_id]()
    text = f"# notes\n\nthe value is {token}\nmore prose\n"
    findings = scan_for_secrets(text)
    hits = [f for f in findings if f.rule_id == rule_id]
    assert hits == [SecretFinding(rule_id, rule_label(rule_id), 3)]
    assert token not in repr(findings)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_redaction_removes_every_synthetic_token(rule_id: str) -> None:
    token = SYNTHETIC[rule_id]()
    redacted = redact_secrets(f"key = {token}\n")
    assert "[REDACTED]" in redacted
    assert token not in redacted
    assert [f for f in scan_for_secrets(redacted) if f.rule_id == rule_id] == []


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_the_write_guard_names_the_label_but_never_the_secret(rule_id: str) -> None:
    token = SYNTHETIC[rule_id]()
    with pytest.raises(SecretDetected) as caught:
        check_team_write(f"value: {token}", path="team/notes.md")
    error = caught.value
    assert rule_label(rule_id) in error.labels
    assert rule_label(rule_id) in error.message
    assert "shared with all repository collaborators" in error.message
    assert error.path == "team/notes.md"
    for rendered in (str(error), repr(error), error.message, repr(error.labels)):
        assert token not in rendered


@pytest.mark.parametrize(
    ("rule_id", "label"),
    [
        ("github-pat", "GitHub PAT"),
        ("aws-access-token", "AWS Access Token"),
        ("gcp-api-key", "GCP API Key"),
        ("azure-ad-client-secret", "Azure AD Client Secret"),
        ("hashicorp-tf-api-token", "HashiCorp TF API Token"),
        ("pypi-upload-token", "PyPI Upload Token"),
        ("private-key", "Private Key"),
        ("github-oauth", "GitHub OAuth"),
    ],
)
def test_labels_follow_the_reference_vectors(rule_id: str, label: str) -> None:
    assert rule_label(rule_id) == label


def test_reference_match_vectors() -> None:
    github = scan_for_secrets("token: " + "ghp_" + "A1b2C3d4" * 4 + "E5f6")
    assert [f.rule_id for f in github] == ["github-pat"]
    aws = scan_for_secrets("AKIA" + "IOSFODNN7EXAMPLE")
    assert [f.rule_id for f in aws] == ["aws-access-token"]


def test_findings_come_in_rule_order_one_per_rule() -> None:
    text = "\n".join([SYNTHETIC["private-key"](), SYNTHETIC["github-pat"](), SYNTHETIC["github-pat"]()])
    findings = scan_for_secrets(text)
    ids = [f.rule_id for f in findings]
    assert ids == sorted(ids, key=RULE_IDS.index)
    assert ids.count("github-pat") == 1
    assert next(f for f in findings if f.rule_id == "private-key").line == 1


def test_clean_content_passes_the_write_guard() -> None:
    check_team_write("We deploy on Fridays; the staging token lives in the vault.\n", path="team/a.md")


def test_ordinary_dialogue_has_no_findings() -> None:
    if not LOCOMO.exists():
        pytest.skip(f"{LOCOMO} is absent; the prose corpus check needs it")
    samples = json.loads(LOCOMO.read_text(encoding="utf-8"))
    turns = 0
    for sample in samples:
        for name, session in sample["conversation"].items():
            if not name.startswith("session_") or not isinstance(session, list):
                continue
            for turn in session:
                turns += 1
                assert scan_for_secrets(turn["text"]) == [], turn["dia_id"]
    assert turns > 1000


@given(st.text())
def test_findings_never_carry_more_than_rule_label_and_line(text: str) -> None:
    for finding in scan_for_secrets(text):
        assert finding.rule_id in RULE_IDS
        assert 1 <= finding.line <= text.count("\n") + 1


@given(st.text(alphabet=st.characters(codec="ascii")), st.sampled_from(RULE_IDS))
def test_a_token_inside_arbitrary_ascii_lines_is_redacted(prefix: str, rule_id: str) -> None:
    token = SYNTHETIC[rule_id]()
    assert token not in redact_secrets(prefix + "\n" + token + "\n")
