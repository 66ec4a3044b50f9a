"""Time-aware ranking, the note beside a stale memory, expiry, and the ranking's own parameters."""

import os
import time

from memdir.model.memory import Memory
from memdir.model.memory_type import MemoryType
from memdir.recall.hybrid import HybridSelector
from memdir.recall.lexical_selector import LexicalSelector
from memdir.recall.recaller import Recaller
from memdir.recall.selector_protocol import SelectionRequest
from memdir.store.directory import MemoryDir

DAY = 86_400
NOW = time.time()


def save(store, file, description, *, days_ago, body="", kind=MemoryType.PROJECT, extra=None, name=None):
    memory = Memory(name=name or description[:40], description=description, type=kind, body=body, extra=extra or {})
    path = store.save(memory, file=file, index=False).path
    stamp = NOW - days_ago * DAY
    os.utime(path, (stamp, stamp))
    return file


def latency_store(tmp_path, *, stamped=False):
    """The old figure shares more words with the question than the new one does."""
    store = MemoryDir(tmp_path / "mem")
    old_extra = {"modified": "2026-01-10T09:00:00.000Z"} if stamped else None
    new_extra = {"modified": "2026-03-02T09:00:00.000Z"} if stamped else None
    save(
        store, "old.md", "Measured the checkout API p95 response time: 950 ms under load", days_ago=60, extra=old_extra
    )
    save(store, "new.md", "After the cache the checkout API p95 response time is 140 ms", days_ago=5, extra=new_extra)
    save(store, "owner.md", "Priya owns the checkout API and reviews its code", days_ago=1)
    save(store, "other.md", "The search service stores its data in PostgreSQL 16", days_ago=2)
    return store


QUESTION = "What is the checkout API p95 response time under load?"


def test_the_newer_memory_on_a_subject_ranks_above_the_stale_one_that_matches_more_words(tmp_path):
    store = latency_store(tmp_path)
    selector = LexicalSelector()
    scored = [h.filename for h, _ in selector.scored(QUESTION, store.headers())]
    assert scored.index("old.md") < scored.index("new.md")  # relevance alone prefers the stale figure
    ranked = [h.filename for h, _ in selector.rank(QUESTION, store.headers())]
    assert ranked.index("new.md") < ranked.index("old.md")
    surfaced = selector.select(SelectionRequest(QUESTION, store.headers())).files
    assert surfaced[0] == "new.md"


def test_the_modified_stamp_decides_when_every_file_has_the_same_mtime(tmp_path):
    store = latency_store(tmp_path, stamped=True)
    for header in store.headers():
        os.utime(header.path, (NOW, NOW))
    ranked = [h.filename for h, _ in LexicalSelector().rank(QUESTION, store.headers())]
    assert ranked.index("new.md") < ranked.index("old.md")


def test_the_stamp_is_read_from_metadata_in_the_nested_layout(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    (tmp_path / "mem").mkdir()
    (tmp_path / "mem" / "a.md").write_text(
        "---\nname: a\ndescription: d\nmetadata:\n  type: project\n  modified: 2026-03-02T09:00:00.000Z\n"
        "  expires: 2026-04-01\n---\nbody\n",
        encoding="utf-8",
    )
    header = store.headers()[0]
    assert header.expires == "2026-04-01"
    assert header.time_ms == 1772442000000.0


def test_an_old_rule_that_nothing_replaced_keeps_its_place(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    save(store, "rule.md", "Never mock the database in integration tests", days_ago=365, kind=MemoryType.FEEDBACK)
    save(store, "ci.md", "Integration tests run in the GitHub Actions workflow", days_ago=3)
    save(store, "db.md", "The staging database was restored from Sunday's snapshot", days_ago=1)
    ranked = [
        h.filename for h, _ in LexicalSelector().rank("can I mock the database in integration tests?", store.headers())
    ]
    assert ranked[0] == "rule.md"


def test_the_reminder_of_a_stale_memory_names_the_newer_one_on_a_line_of_its_own(tmp_path):
    store = latency_store(tmp_path)
    result = Recaller(store).recall(QUESTION)
    files = [m.file for m in result.memories]
    assert files[:2] == ["new.md", "old.md"]
    stale = result.reminders[1]
    note = f"A newer memory on the same subject: {store.resolve('new.md')}"
    assert stale.split("\n")[1] == note
    assert note not in result.memories[1].content  # the note is never part of the memory's text
    assert "A newer memory" not in result.reminders[0]


def test_a_memory_past_its_expiry_date_is_neither_recalled_nor_deleted(tmp_path):
    store = MemoryDir(tmp_path / "mem")
    past = time.strftime("%Y-%m-%d", time.localtime(NOW - 3 * DAY))
    today = time.strftime("%Y-%m-%d", time.localtime(NOW))
    save(store, "freeze.md", "No merges to main during the release freeze", days_ago=10, extra={"expires": past})
    save(
        store,
        "pilot.md",
        "Do not redeploy the demo environment during the pilot",
        days_ago=10,
        extra={"expires": today},
    )
    recaller = Recaller(store)
    assert recaller.recall("can I merge to main during the release freeze?").memories == ()
    assert [m.file for m in recaller.recall("can I redeploy the demo environment?").memories] == ["pilot.md"]
    assert (tmp_path / "mem" / "freeze.md").exists()


# -- the ranking's own parameters: these fail if the defaults drift ------------------------------


def test_a_memory_sharing_one_incidental_word_is_not_surfaced_beside_the_real_match(tmp_path):
    """Pins the lexical relative floor: at 0 the second memory is surfaced too."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "deploy.md", "Production deploys of the billing worker happen on Tuesday", days_ago=3)
    save(store, "lunch.md", "Lunch with the billing team on the first Friday of the month", days_ago=3)
    save(store, "a.md", "The search service stores its data in PostgreSQL 16", days_ago=3)
    save(store, "b.md", "Priya owns the checkout API and reviews its code", days_ago=3)
    save(store, "c.md", "Integration tests must hit a real database", days_ago=3)
    save(store, "d.md", "Commit subjects are imperative and short", days_ago=3)
    query = "when does the billing worker deploy?"
    assert LexicalSelector().select(SelectionRequest(query, store.headers())).files == ("deploy.md",)
    assert "lunch.md" in LexicalSelector(relative_floor=0.0).select(SelectionRequest(query, store.headers())).files


class FixedSimilarity:
    """An embedding ranking with fixed cosines: the encoder is an outside dependency."""

    name = "embedding"
    min_similarity = 0.9

    def __init__(self, cosines):
        self.cosines = cosines

    def rank(self, query, candidates):
        return sorted(((h, self.cosines[h.filename]) for h in candidates), key=lambda item: -item[1])

    def select(self, request):
        raise AssertionError("the hybrid ranks through rank()")


def test_the_hand_set_hybrid_weighs_the_lexical_score_twice_the_embedding_lift(tmp_path):
    """Pins the score fusion's weights (lexical 1.0, embedding 0.5): swapped, the paraphrase wins.
    (The default, learned fusion is pinned in test_learned.py.)"""
    store = MemoryDir(tmp_path / "mem")
    save(store, "exact.md", "Rotate the staging TLS certificates with certbot renew", days_ago=3)
    save(store, "paraphrase.md", "Renewing HTTPS certs on staging: run the renewal job", days_ago=3)
    save(store, "far.md", "The search service stores its data in PostgreSQL 16", days_ago=3)
    cosines = {"exact.md": 0.80, "paraphrase.md": 0.95, "far.md": 0.10}
    query = "how do I rotate the staging TLS certificates?"
    default = HybridSelector(embedding=FixedSimilarity(cosines), fusion="score")
    assert next(h.filename for h, _ in default.rank(query, store.headers())) == "exact.md"
    swapped = HybridSelector(
        embedding=FixedSimilarity(cosines), lexical_weight=0.5, embedding_weight=1.0, fusion="score"
    )
    assert next(h.filename for h, _ in swapped.rank(query, store.headers())) == "paraphrase.md"


# -- which memories are one fact's versions ------------------------------------------------------


def bundle_store(tmp_path):
    """A conversation's messages: the update shares the fact's key word with the question, and
    little else (the first message has "web", which only it holds); most messages are requests."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "first.md", "fyi the shopfront web bundle is 2.4 MB gzipped right now, too much", days_ago=40)
    save(store, "flaky.md", "heads up, 9 tests in the shopfront suite are flaky", days_ago=30)
    save(store, "update.md", "good news, tree shaking got the shopfront bundle down to 1.3 MB", days_ago=10)
    save(store, "rename.md", "rename getUser in the shopfront api client to fetchUser", days_ago=5)
    requests = (
        "run the shopfront tests again",
        "add a retry to the shopfront checkout call",
        "the shopfront lint job is red, have a look",
        "bump the shopfront eslint config",
        "split the shopfront cart component in two",
        "write a changelog entry for shopfront",
        "shopfront staging needs a fresh seed",
    )
    save_each(store, "request", requests, days_ago=35)
    return store


def save_each(store, stem, descriptions, *, days_ago):
    """One memory a day from ``days_ago`` on: ``{stem}0.md``, ``{stem}1.md``, …"""
    for number, description in enumerate(descriptions):
        save(store, f"{stem}{number}.md", description, days_ago=days_ago - number)


def test_an_update_that_shares_only_the_key_word_with_the_question_comes_first(tmp_path):
    store = bundle_store(tmp_path)
    selector = LexicalSelector()
    question = "how big is the shopfront web bundle these days?"
    scored = [h.filename for h, _ in selector.scored(question, store.headers())]
    assert scored.index("first.md") < scored.index("update.md")
    ranked = [h.filename for h, _ in selector.rank(question, store.headers())]
    assert ranked[:2] == ["update.md", "first.md"]
    assert ranked.index("flaky.md") > ranked.index("first.md")  # the project's name alone is not the subject


def test_a_question_about_the_past_keeps_the_ranking_by_relevance(tmp_path):
    store = bundle_store(tmp_path)
    question = "how big was the shopfront web bundle at first?"
    ranked = [h.filename for h, _ in LexicalSelector().rank(question, store.headers())]
    scored = [h.filename for h, _ in LexicalSelector().scored(question, store.headers())]
    assert ranked == scored
    assert ranked[0] == "first.md"


def test_a_subject_that_many_memories_touch_is_not_taken_for_one_fact(tmp_path):
    """Pins MAX_VERSIONS: six memories on camping are six trips, not six versions of one fact."""
    store = MemoryDir(tmp_path / "mem")
    for day, place in enumerate(("the beach", "the lake", "the mountains", "the forest", "the desert", "the coast")):
        save(store, f"trip{day}.md", f"Melanie went camping at {place} with her kids", days_ago=60 - 10 * day)
    question = "where does Melanie like camping with her kids at the lake?"
    ranked = [h.filename for h, _ in LexicalSelector().rank(question, store.headers())]
    assert ranked == [h.filename for h, _ in LexicalSelector().scored(question, store.headers())]
    assert ranked[0] == "trip1.md"


def test_past_and_present_questions_in_four_languages():
    from memdir.recall.question_time import asks_about_the_past

    assert asks_about_the_past("When did we move the checkout API to Node 20?")
    assert asks_about_the_past("What has Melanie painted?")
    assert asks_about_the_past("以前用的是哪个 HTTP 客户端？")
    assert asks_about_the_past("前はどのバージョンを使っていましたか？")
    assert asks_about_the_past("예전에는 어떤 버전을 썼나요?")
    assert not asks_about_the_past("What p95 latency does the checkout API have?")
    assert not asks_about_the_past("Which library is used by the billing worker?")
    assert not asks_about_the_past("What did the p95 come down to now?")
    assert not asks_about_the_past("商城接口缓存多久过期？")
    assert not asks_about_the_past("今のバージョンは？")


def test_a_newer_memory_that_matches_other_words_of_the_question_is_not_a_version(tmp_path):
    """Pins LEADER_WORDS: the career memory holds "Caroline", "considering", "support" and "people", but the
    agency memory holds "adoption agency": they answer different parts of the question."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "agency.md", "Caroline chose an adoption agency that supports LGBTQ folks", days_ago=90)
    save(store, "career.md", "Caroline is considering a counseling career to support other people", days_ago=10)
    save(store, "trip.md", "Melanie went camping with her kids at the lake", days_ago=5)
    question = "which people does the adoption agency Caroline is considering support?"
    ranked = [h.filename for h, _ in LexicalSelector().rank(question, store.headers())]
    assert ranked[0] == "agency.md"


def test_versions_whose_fact_is_in_the_body_are_ordered_newest_first(tmp_path):
    """The stage reads the body preview too: descriptions cut short or written as titles still
    let the question find the fact's versions."""
    store = MemoryDir(tmp_path / "mem")
    body = "The bundle is 2.4 MB gzipped; the bundle budget is 2 MB.\n"
    save(store, "standup.md", "Notes from Monday's standup", body=body, days_ago=30)
    save(store, "retro.md", "Notes from the retro", body="Tree shaking got the bundle to 1.3 MB.\n", days_ago=3)
    save(store, "plan.md", "Sprint plan", body="Ship the new checkout page.\n", days_ago=2)
    question = "how big is the bundle?"
    scored = [h.filename for h, _ in LexicalSelector().scored(question, store.headers())]
    assert scored[:2] == ["standup.md", "retro.md"]
    ranked = [h.filename for h, _ in LexicalSelector().rank(question, store.headers())]
    assert ranked[:2] == ["retro.md", "standup.md"]


# Requests that state no fact, as most of a conversation's messages: they make the store large enough
# (RARE_AMONG) for a word two memories hold to be rare.
CHORES = (
    "rename getUser to fetchUser in the client",
    "run the linter on the whole repo",
    "add a changelog entry for the release",
    "split the cart component in two",
    "write a test for the empty basket",
    "bump eslint to the next minor",
    "move the helpers into utils",
    "fix the typo in the README",
    "delete the unused feature toggle",
    "sort the imports in the views",
    "make the header sticky on mobile",
    "log the request id on errors",
)


def pager_store(tmp_path, *, shared_name=True, also_named=False, swap_kind=MemoryType.PROJECT):
    """A project's memories, one stating who is on call and a later one, in other words, changing it."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "oncall.md", "Dana is on call for atlas this week, ping them if prod breaks", days_ago=30)
    facts = (
        "fyi the atlas web bundle is 880 KB gzipped, which is too much",
        "the partner API behind atlas allows 1000 requests per minute, so batch requests",
        "the atlas frontend builds on Node 20, don't use newer syntax",
        "staging for atlas lives at staging-1.internal",
        "the atlas API cache TTL is 15 minutes, keep that in mind when testing",
        "heads up, 9 tests in the atlas suite are flaky and fail about once a day",
        "bumped the atlas checkout flag rollout to 25%",
    )
    save_each(store, "fact", facts, days_ago=25)
    save_each(store, "chore", CHORES, days_ago=60)
    who = "Dana" if shared_name else "The rota"
    save(store, "swap.md", f"{who} swapped shifts, Kenji has the atlas pager", days_ago=3, kind=swap_kind)
    if also_named:
        save(store, "dana.md", "Dana reviews the atlas frontend changes", days_ago=1)
    return store


ON_CALL = "who is on call for atlas right now?"


def test_an_update_worded_apart_from_the_question_is_found_by_the_value_it_carries(tmp_path):
    """Pins the successor step: the update shares only the project's name with the question, but
    "Dana", which no other memory holds, ties it to the memory it replaces."""
    from memdir.recall.currency import newer_first

    store = pager_store(tmp_path)
    selector = LexicalSelector()
    scored = selector.scored(ON_CALL, store.headers())
    assert scored[0][0].filename == "oncall.md"
    assert newer_first(ON_CALL, scored)[0][0].filename == "oncall.md"  # the question's words alone keep it first
    assert [h.filename for h, _ in selector.rank(ON_CALL, store.headers())][:2] == ["swap.md", "oncall.md"]
    # Admission goes with the place: only the stale memory cleared the floor, and its place is the update's.
    assert selector.select(SelectionRequest(ON_CALL, store.headers())).files == ("swap.md",)


def test_the_successor_step_reads_the_stored_postings_as_it_reads_the_index_in_memory(tmp_path):
    from memdir.store.index_db import IndexedMemoryDir, MemoryIndex

    store = pager_store(tmp_path)
    root = str(store.root)
    with MemoryIndex(root, str(tmp_path / "index.sqlite3")) as index:
        indexed = Recaller(IndexedMemoryDir(root, index=index, scan_cap=None), selector=LexicalSelector(cache=index))
        assert indexed.select(ON_CALL).files == ("swap.md",)
        words = ["dana", "kenji", "atla", "nothing"]
        stored = LexicalSelector()
        assert stored.rank_store(ON_CALL, index, limit=50)
        in_memory = LexicalSelector()
        in_memory.scored(ON_CALL, store.headers())  # postings built only for the question's words
        for most in (1, 2, 8, 9):
            assert stored.stored(index).rare_words(words, most) == in_memory.index.rare_words(words, most), most
        assert in_memory.index.rare_words(words, 2) == {"dana", "kenji"}
        assert in_memory.index.rare_words(words, 8) == {"dana", "kenji"}  # "atla": all nine
        assert in_memory.index.rare_words(words, 9) == {"dana", "kenji", "atla"}


def test_without_a_carried_value_or_with_one_three_memories_hold_nothing_moves(tmp_path):
    """Pins VALUE_HOLDERS: a word three memories hold is not a value two versions share."""
    from memdir.recall.currency import newer_first

    for kwargs in ({"shared_name": False}, {"also_named": True}):
        store = pager_store(tmp_path / next(iter(kwargs)), **kwargs)
        selector = LexicalSelector()
        staged = [h.filename for h, _ in newer_first(ON_CALL, selector.scored(ON_CALL, store.headers()))]
        assert [h.filename for h, _ in selector.rank(ON_CALL, store.headers())] == staged, kwargs


def test_a_past_question_and_a_stale_memory_below_the_first_places_move_no_successor(tmp_path):
    """Pins SUCCESSOR_PLACES: only the first three places look for a successor."""
    from memdir.recall.successors import successor_first

    store = pager_store(tmp_path)
    selector = LexicalSelector()
    scored = selector.scored(ON_CALL, store.headers())
    past = "who was on call for atlas before?"
    by_relevance = [h for h, _ in selector.scored(past, store.headers())]
    assert [h for h, _ in selector.rank(past, store.headers())] == by_relevance
    stale = next(entry for entry in scored if entry[0].filename == "oncall.md")
    others = [entry for entry in scored if entry[0].filename not in ("oncall.md", "swap.md")]
    swap = next(entry for entry in scored if entry[0].filename == "swap.md")
    lowered = [*others[:3], stale, *others[3:], swap]
    assert successor_first(ON_CALL, lowered, selector.index) == lowered
    raised = [*others[:2], stale, *others[2:], swap]
    moved = [h.filename for h, _ in successor_first(ON_CALL, raised, selector.index)]
    assert moved.index("swap.md") == 2


def test_word_counts_are_read_in_batches_however_many_words_are_asked(tmp_path):
    """A memory's first 30 lines can hold more words than SQLite takes parameters in one query
    (999 in old builds); the connection is held to that limit here."""
    import sqlite3

    from memdir.store.index_db import MemoryIndex

    store = pager_store(tmp_path)
    with MemoryIndex(str(store.root), str(tmp_path / "index.sqlite3")) as index:
        index.refresh()
        selector = LexicalSelector()
        assert selector.rank_store(ON_CALL, index, limit=50)
        index.transact(lambda conn: conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999))
        terms = [f"unheard{n}" for n in range(4_000)]
        assert selector.stored(index).rare_words([*terms, "dana", "atla"], 9) == {"dana", "atla"}


def test_each_of_the_first_places_gets_its_own_successor(tmp_path):
    """Two facts asked at once, each updated in other words: both updates stand above what they replace."""
    from memdir.recall.successors import successor_first

    store = pager_store(tmp_path)
    save(store, "ttl.md", "cache expiry on atlas is 5 minutes now instead of 15 minutes", days_ago=2)
    selector = LexicalSelector()
    question = "who is on call for atlas, and how long is the API cache TTL?"
    scored = selector.scored(question, store.headers())
    first = [h.filename for h, _ in scored[:2]]
    assert sorted(first) == ["fact4.md", "oncall.md"]
    moved = [h.filename for h, _ in successor_first(question, scored, selector.index)]
    successor = {"oncall.md": "swap.md", "fact4.md": "ttl.md"}
    assert moved[:4] == [successor[first[0]], first[0], successor[first[1]], first[1]]


def test_in_a_small_store_a_word_two_memories_hold_is_not_a_carried_value(tmp_path):
    """Pins RARE_AMONG: among three memories, "freeze" is a topic two of them share."""
    store = MemoryDir(tmp_path / "mem")
    save(store, "deploy.md", "Deploys go out on Tuesdays after the freeze", days_ago=9)
    save(store, "coffee.md", "The user drinks oat flat whites", days_ago=8, kind=MemoryType.USER)
    save(store, "freeze.md", "Mobile release freeze starts on Friday; no deploys", days_ago=1)
    ranked = [h.filename for h, _ in LexicalSelector().rank("when do deploys go out?", store.headers())]
    assert ranked[0] == "deploy.md"


def test_a_newer_memory_of_another_type_is_not_a_successor(tmp_path):
    """A fact's versions are memories of one type; "Dana" in a feedback rule is not the on-call fact."""
    from memdir.recall.currency import newer_first

    store = pager_store(tmp_path, swap_kind=MemoryType.FEEDBACK)
    selector = LexicalSelector()
    staged = [h.filename for h, _ in newer_first(ON_CALL, selector.scored(ON_CALL, store.headers()))]
    assert [h.filename for h, _ in selector.rank(ON_CALL, store.headers())] == staged


ZH_CHORES = tuple(f"帮我把地图项目第{n}个页面的样式整理一下" for n in range(20))


def test_one_rare_character_pair_alone_is_not_a_carried_value(tmp_path):
    """A two-character name is one pair, as is the seam of two common words ("のモ"): alone it does
    not make a successor; a three-character name (two pairs) does."""
    question = "地图项目现在谁值班？"
    for name, moves in (("张伟", False), ("张小伟", True)):
        store = MemoryDir(tmp_path / name)
        save(store, "oncall.md", f"地图项目这周值班的是{name}", days_ago=30)
        save(store, "swap.md", f"{name}换班了，地图项目的寻呼机在李娜那里", days_ago=2)
        for number, chore in enumerate(ZH_CHORES):
            save(store, f"chore{number}.md", chore, days_ago=40 - number)
        ranked = [h.filename for h, _ in LexicalSelector().rank(question, store.headers())]
        assert (ranked[:2] == ["swap.md", "oncall.md"]) is moves, name
