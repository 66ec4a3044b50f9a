"""File names of new memories in every script: readable, within byte limits, and never colliding."""

import os
import unicodedata

import pytest

from memdir.errors import MemoryExists
from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.store.directory import MemoryDir
from memdir.store.names import SLUG_MAX_BYTES, default_filename, slugify


def memory(name, description="one line", kind=MemoryType.FEEDBACK):
    return Memory(name=name, description=description, type=kind, body="body\n")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Real DB in tests", "real_db_in_tests"),
        ("Ünïcode — and punctuation!", "unicode_and_punctuation"),
        ("Ｆｕｌｌ ｗｉｄｔｈ", "full_width"),
        ("集成测试用真实数据库", "集成测试用真实数据库"),
        ("帮我把这个PR的CI修一下", "帮我把这个pr的ci修一下"),
        ("テストは本物のDBで", "テストは本物のdbで"),
        ("통합 테스트는 실제 DB", "통합_테스트는_실제_db"),
        ("ทดสอบระบบจริง", "ทดสอบระบบจริง"),
        ("हिन्दी परीक्षण", "हिन्दी_परीक्षण"),
        ("Тесты с базой", "тесты_с_базой"),
        ("اختبار قاعدة البيانات", "اختبار_قاعدة_البيانات"),
        ("🚀🔥", "memory"),
        ("a/b\\c:d*e?f", "a_b_c_d_e_f"),
        ("CON", "con_memory"),
    ],
)
def test_a_slug_keeps_the_letters_of_every_script_and_nothing_unsafe(name, slug):
    assert slugify(name) == slug


def test_a_slug_is_nfc_whatever_form_the_name_came_in():
    decomposed = unicodedata.normalize("NFD", "가나다 ガギグ")
    assert slugify(decomposed) == unicodedata.normalize("NFC", "가나다_ガギグ")


@pytest.mark.parametrize("unit", ["x", "é", "集", "한", "𠀋", "कि", "ที่"])
def test_a_long_name_is_cut_in_bytes_without_splitting_a_character_or_its_marks(unit):
    slug = slugify(unit * 200)
    assert 0 < len(slug.encode("utf-8")) <= SLUG_MAX_BYTES
    assert unicodedata.category(slug[-1])[0] != "M" or slug.endswith(unit[-1])
    assert unicodedata.normalize("NFC", slug) == slug
    name = default_filename(MemoryType.FEEDBACK, unit * 200)
    assert len(name.encode("utf-8")) <= 255


def test_a_long_name_saves_on_a_real_file_system(tmp_path):
    store = MemoryDir(tmp_path)
    result = store.save(memory("数据库" * 300))
    assert os.path.isfile(result.path)
    assert len(os.path.basename(result.path).encode("utf-8")) <= 255


def test_different_names_that_slug_alike_get_a_short_suffix_and_nothing_is_lost(tmp_path):
    store = MemoryDir(tmp_path)
    files = [store.save(memory(name)).file for name in ("🚀", "🔥", "✨", "Real DB!", "real db?")]
    assert files == [
        "feedback_memory.md",
        "feedback_memory_2.md",
        "feedback_memory_3.md",
        "feedback_real_db.md",
        "feedback_real_db_2.md",
    ]
    assert len(store.headers()) == 5
    index = store.index_text()
    assert all(f"({file})" in index for file in files)


def test_the_same_name_saved_again_is_still_refused_without_force(tmp_path):
    store = MemoryDir(tmp_path)
    store.save(memory("代码审查规则"))
    with pytest.raises(MemoryExists):
        store.save(memory("代码审查规则", description="changed"))
    replaced = store.save(memory("代码审查规则", description="changed"), force=True)
    assert replaced.file == "feedback_代码审查规则.md" and not replaced.created


def test_an_existing_file_keeps_its_name(tmp_path):
    (tmp_path / "feedback_memory.md").write_text(
        "---\nname: 旧的记忆\ndescription: old\ntype: feedback\n---\n\nold\n", encoding="utf-8"
    )
    store = MemoryDir(tmp_path)
    store.save(memory("新的记忆"))
    assert (tmp_path / "feedback_memory.md").read_text(encoding="utf-8").endswith("old\n")
    assert sorted(p for p in os.listdir(tmp_path) if p.endswith(".md")) == [
        "MEMORY.md",
        "feedback_memory.md",
        "feedback_新的记忆.md",
    ]
