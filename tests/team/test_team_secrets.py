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


# What team memories and conversations look like: notes full of dates, versions, commit ids, hashes,
# UUIDs, URLs and the words "token", "password" and "secret", in several languages and scripts.
ORDINARY_PROSE = {
    "en-notes": """\
We deploy the billing service on Tuesdays and Thursdays, never on Fridays. The release train leaves at
14:00 UTC; anything merged after 13:30 waits for the next one. Ask Priya before touching the invoice
templates: finance signs off on every wording change, and the legal footer is versioned (currently v4.2.1).

The staging token lives in the team vault under "billing/staging"; nobody should paste it into chat or a
memory. Rotate it with `make rotate-staging` and update the CI variable STAGING_API_TOKEN afterwards.
The password policy for the admin console is 16 characters minimum, checked by the identity team.

Incident 2025-11-03: the nightly export job (commit 3f9c2ab, "batch the ledger reads") doubled memory use
because the cursor was never closed. Fixed in 8d1e4f0. Trace id 4bf92f3577b34da6a3ce929d0e0e4736 shows the
spike; the dashboard is https://grafana.internal.example.com/d/billing-export?from=now-7d&to=now.
""",
    "en-dialogue": """\
Hey, did you manage to finish the painting for your sister's birthday? I remember you said the sunflowers
were giving you trouble. Honestly I think the yellow was perfect, she is going to love it.

Yes! I stayed up until 2am on Saturday but it's done. We're meeting at the lake house on the 14th, and my
cousin is bringing the cake from that bakery on 5th Avenue. Do you still have the key to the boat shed?

I do, it's on the hook by the door. The code for the gate changed though; text me when you get there and
I'll tell you. Also my flight number is LH 4021, landing at 18:45 if you want to pick me up.
""",
    "en-code": """\
The retry helper lives in src/net/retry.py; it backs off exponentially (base 0.5 s, factor 2, cap 30 s)
and gives up after 6 attempts. Configuration keys: `retry.max_attempts`, `retry.base_delay`,
`auth.token_ttl_seconds`. The user id 7c9e6679-7425-40de-944b-e07fc1f90ae7 in the fixture is a random
UUID, not a real account. SHA-256 of the release tarball:
e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.

Use `secret_key = os.environ["APP_SECRET_KEY"]` instead of hard-coding it, and keep `.env` out of git.
The base64 logo in the email template (iVBORw0KGgo...) is just a PNG header. Colours: #1f77b4 and #ff7f0e.
""",
    "fr": """\
L'équipe mobile gèle les versions à partir du 5 mars 2026 : plus aucune fusion vers la branche de
publication sans l'accord de Camille. Les tests d'intégration doivent toucher une vraie base PostgreSQL,
jamais une base simulée ; la dernière fois, une migration cassée est passée en production à cause de ça.

Le mot de passe du Wi-Fi des invités est affiché à l'accueil, inutile de le noter ici.
""",
    "de": """\
Die Datenbankmigration läuft jeden Sonntag um 03:00 Uhr. Vorher unbedingt das Backup prüfen: der
Speicherort ist im Betriebshandbuch beschrieben, Kapitel 7.3. Schlüssel und Zugangsdaten gehören in den
Tresor des Teams, nicht ins Wiki und nicht in Notizen.

Frau Müller übernimmt ab Januar die Rufbereitschaft für das Zahlungssystem; Übergabe am 28. Dezember.
""",
    "es": """\
El cliente prefiere respuestas cortas y sin jerga. La reunión semanal es los miércoles a las 10:30 (hora
de Madrid) y las actas se guardan en la carpeta compartida «Proyectos/2026». Nunca enviar contraseñas por
correo: usamos el gestor de secretos de la empresa.
""",
    "ja": """\
リリースは毎週火曜日の午後に行います。金曜日のデプロイは禁止です。認証トークンやパスワードは
チームの金庫に保存し、メモやチャットには絶対に書かないでください。

統合テストは本物のデータベースに接続すること。前回はモックのせいで壊れたマイグレーションが本番に出ました。
""",
    "zh": """\
用户是后端负责人，偏好简短的回答。每周三上午十点开例会，会议记录放在共享文件夹里。
不要在笔记里写密码或密钥；它们统一保存在团队的密钥库中。发布冻结从三月五日开始。
""",
    "ru": """\
Сборка ночного отчёта запускается в 02:00 по Москве. Ключи доступа и пароли хранятся только в
хранилище команды; в заметки и в чат их не копировать. Ответственный за релиз — Дмитрий.
""",
    "ar": """\
يفضّل المستخدم الإجابات القصيرة والواضحة. الاجتماع الأسبوعي يوم الأحد الساعة العاشرة صباحًا.
لا تكتب كلمات المرور أو المفاتيح في الملاحظات؛ تُحفظ في خزنة الفريق فقط.
""",
    "hi": """\
हर मंगलवार दोपहर को रिलीज़ होती है, शुक्रवार को कभी नहीं। पासवर्ड और टोकन टीम की तिजोरी में रखे जाते हैं,
नोट्स में नहीं। इंटीग्रेशन टेस्ट असली डेटाबेस से जुड़ने चाहिए।
""",
    "ko": """\
배포는 매주 화요일 오후에 합니다. 비밀번호와 토큰은 팀 금고에만 보관하고 메모에는 적지 마세요.
""",
}


@pytest.mark.parametrize("language", sorted(ORDINARY_PROSE))
def test_ordinary_prose_has_no_findings_and_a_token_inside_it_is_found(language: str) -> None:
    text = ORDINARY_PROSE[language]
    assert scan_for_secrets(text) == []
    check_team_write(text, path="team/notes.md")
    paragraphs = text.split("\n\n")
    with_token = "\n\n".join([*paragraphs[:1], "see " + SYNTHETIC["github-pat"]() + " below", *paragraphs[1:]])
    assert [f.rule_id for f in scan_for_secrets(with_token)] == ["github-pat"]


def test_ordinary_dialogue_from_locomo_has_no_findings() -> None:
    """An extra, larger corpus when the LoCoMo benchmark file is present next to the checkout."""
    if not LOCOMO.exists():
        pytest.skip(f"{LOCOMO} is absent; the larger dialogue corpus is optional")
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
