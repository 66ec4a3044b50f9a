"""Snapshots of the text analysis in every script, and the per-turn rule built on it."""

import pytest

from memdir.model.analysis import has_unspaced_words, is_pair, spaced_pairs, tokenize
from memdir.recall.recaller import prefetch_skip_reason

SNAPSHOTS = [
    ("Integration tests hit the real database", ["integr", "test", "hit", "real", "databas"]),
    ("getUserName in snake_case", ["user", "name", "snak", "case"]),
    ("帮我把这个PR的CI修一下", ["帮我", "pr", "ci", "修一"]),
    (
        "集成测试必须连接真实的数据库",
        ["集成", "成测", "测试", "试必", "必须", "须连", "连接", "接真", "真实", "实的", "的数", "数据", "据库"],
    ),
    ("我应该怎么写集成测试？", ["我应", "应该", "么写", "写集", "集成", "成测", "测试"]),
    ("支付 发布", ["支付", "发布"]),
    ("結合テストはモック禁止", ["結合", "合テ", "テス", "スト", "トは", "はモ", "モッ", "ック", "ク禁", "禁止"]),
    ("데이터베이스를 실제로 쓴다", ["데이", "이터", "터베", "베이", "이스", "스를", "실제", "제로", "쓴다"]),
    ("ＣＩ失败了", ["ci", "失败", "败了"]),
    ("हिन्दी परीक्षण", ["हिन्दी", "परीक्षण"]),
    ("ทดสอบจริง", ["ทด", "ดส", "สอ", "อบ", "บจ", "จริ", "ริง"]),
    ("Тесты с базой", ["тесты", "с", "базой"]),
    ("的了是", []),
]


@pytest.mark.parametrize(("text", "terms"), SNAPSHOTS)
def test_tokenize_snapshot(text, terms):
    assert tokenize(text) == terms


def test_english_terms_are_the_same_through_the_mixed_path():
    english = "Deploying the payments service requires two approvals"
    assert tokenize(english + " 支付") == [*tokenize(english), "支付"]


def test_pairs_are_recognised_and_spaced_for_full_text_search():
    assert is_pair("测试") and is_pair("테스") and not is_pair("test") and not is_pair("हिन्दी")
    assert spaced_pairs("修复CI的问题").split() == ["修复", "CI", "的问", "问题"]
    assert spaced_pairs("plain English") == "plain English"


@pytest.mark.parametrize(
    ("message", "skipped"),
    [
        ("我应该怎么写集成测试？", False),
        ("帮我把这个PR的CI修一下", False),
        ("テストを直して", False),
        ("ทดสอบระบบ", False),
        ("hello world", False),
        ("통합 테스트", False),
        ("hello", True),
        ("好", True),
        ("PR好", True),
        ("데이터베이스", True),
        ("   ", True),
    ],
)
def test_a_message_is_more_than_one_word_with_whitespace_or_two_letters_written_without_spaces(message, skipped):
    assert (prefetch_skip_reason(message, None) is not None) is skipped
    if message.strip() and not any(ch.isspace() for ch in message.strip()):
        assert has_unspaced_words(message) is not skipped
