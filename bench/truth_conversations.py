"""A second set for ``bench/recall_truth.py``: user messages of coding conversations, saved as memories.

The first set (``bench/truth_topics.py``) is a grid of components and attributes written from a few
sentence patterns. This one is built differently, to check that what works there is not tuned to
it: each store is one conversation, and every message the user typed in it is a memory (as a tool
that saves each user message would keep them), most of them requests that state no fact ("rename
this", "run the tests again"). Some messages state a fact about the project in passing, and later
messages change it (a figure improves, a date moves, a tool is replaced), in the user's words, with
the surrounding request around it; the questions come at the end of the conversation. The
attributes, the wording and the shape of the text are not the first set's.

Everything is generated from a fixed seed; the sentences are written for this benchmark.
"""

from __future__ import annotations

import random

from truth_topics import DAY, Fact, Question, TruthStore

__all__ = ["build_conversation_stores"]

# fact -> (values, ways the user first says it, ways the user says it changed, questions)
# {v} value, {o} previous value, {p} the project's name
EN_FACTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "bundle": (
        ("2.4 MB", "1.9 MB", "1.3 MB", "880 KB"),
        ("fyi the {p} web bundle is {v} gzipped right now, which is too much",),
        (
            "good news, tree shaking got the {p} bundle down to {v}",
            "bundle check: we're at {v} now (was {o}) for {p}",
        ),
        ("how big is the {p} web bundle these days?",),
    ),
    "flaky": (
        ("14", "9", "3", "0"),
        ("heads up, {v} tests in the {p} suite are flaky and fail about once a day",),
        (
            "we fixed a bunch of flaky tests in {p}, {v} left",
            "flaky count for {p} is {v} now after the retry cleanup",
        ),
        ("how many flaky tests does {p} still have?",),
    ),
    "node": (
        ("Node 16", "Node 18", "Node 20", "Node 22"),
        ("the {p} frontend builds on {v}, don't use newer syntax",),
        (
            "we upgraded {p} to {v} this morning, newer syntax is fine now",
            "heads up: {p} builds moved from {o} to {v}",
        ),
        ("which Node version does {p} build with?",),
    ),
    "rollout": (
        ("5%", "25%", "50%", "100%"),
        ("the new checkout flag for {p} is rolled out to {v} of users",),
        (
            "bumped the {p} checkout flag rollout to {v}",
            "we're at {v} on the checkout flag for {p} now",
        ),
        ("what percentage of users get the new checkout flag in {p}?",),
    ),
    "ttl": (
        ("60 seconds", "5 minutes", "15 minutes", "1 hour"),
        ("the {p} API cache TTL is {v}, keep that in mind when testing",),
        (
            "changed the {p} cache TTL to {v} because of stale prices",
            "cache ttl on {p} is {v} now instead of {o}",
        ),
        ("what's the cache TTL on the {p} API?",),
    ),
    "oncall": (
        ("Dana", "Ravi", "Sofia", "Kenji"),
        ("{v} is on call for {p} this week, ping them if prod breaks",),
        (
            "on-call for {p} switched, it's {v} now",
            "{o} swapped shifts, {v} has the {p} pager",
        ),
        ("who is on call for {p} right now?",),
    ),
    "staging": (
        ("staging-1.internal", "stg.{p}.dev", "preview.{p}.dev", "qa.{p}.dev"),
        ("staging for {p} lives at {v}",),
        (
            "we moved {p} staging, it's at {v} now",
            "new staging url for {p}: {v} (the old {o} is gone)",
        ),
        ("what's the staging URL for {p}?",),
    ),
    "ratelimit": (
        ("100 requests per minute", "300 requests per minute", "1000 requests per minute"),
        ("the partner API that {p} calls allows {v}, so batch the calls",),
        (
            "the partner raised our limit for {p} to {v}",
            "partner api limit is {v} now for {p}",
        ),
        ("how many requests per minute can {p} send to the partner API?",),
    ),
}

EN_PROJECTS = ("shopfront", "ledger", "atlas", "pulse", "harbor", "quill", "orbit", "cinder")

EN_REQUESTS = (
    "can you rename getUser to fetchUser everywhere",
    "run the tests again please",
    "why is mypy complaining about line 40 in the models file",
    "add a docstring to the retry helper",
    "let's split this component into two smaller ones",
    "the lint job failed, can you look",
    "write a migration that adds an index on created_at",
    "ok that works, commit it",
    "revert the last change, it broke the login page",
    "can you explain what this regex does",
    "make the error message friendlier when the upload is too big",
    "add a test for the empty cart case",
    "use a dataclass here instead of the dict",
    "bump the version in the changelog",
    "why does the dev server take so long to start",
    "please remove the unused imports",
)

ZH_FACTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "bundle": (
        ("2.4 MB", "1.9 MB", "1.3 MB", "880 KB"),
        ("顺便说一下，{p}前端包现在压缩后有{v}，太大了",),
        ("好消息，tree shaking以后{p}的包降到{v}了", "{p}包体积检查：现在是{v}（之前{o}）"),
        ("{p}前端包现在多大？",),
    ),
    "flaky": (
        ("14", "9", "3", "0"),
        ("注意，{p}测试套件里有{v}个不稳定的用例，大概每天挂一次",),
        ("{p}修了一批不稳定测试，还剩{v}个", "重试清理以后{p}的不稳定测试现在是{v}个"),
        ("{p}还有几个不稳定的测试？",),
    ),
    "node": (
        ("Node 16", "Node 18", "Node 20", "Node 22"),
        ("{p}前端用{v}构建，别用新语法",),
        ("今天上午{p}升级到{v}了，新语法可以用了", "注意：{p}构建从{o}换到了{v}"),
        ("{p}用哪个Node版本构建？",),
    ),
    "oncall": (
        ("小周", "老陈", "阿杰", "美玲"),
        ("这周{p}值班的是{v}，线上出问题找他",),
        ("{p}值班换人了，现在是{v}", "{o}换班了，{p}现在由{v}值班"),
        ("{p}现在谁值班？",),
    ),
    "ttl": (
        ("60秒", "5分钟", "15分钟", "1小时"),
        ("{p}接口缓存的过期时间是{v}，测试的时候注意",),
        ("因为价格不新鲜，{p}缓存过期时间改成{v}了", "{p}缓存过期时间现在是{v}，不是{o}了"),
        ("{p}接口缓存多久过期？",),
    ),
}

ZH_PROJECTS = ("商城", "账本", "地图", "脉搏")

ZH_REQUESTS = (
    "把getUser全部改名成fetchUser",
    "再跑一遍测试",
    "为什么mypy说models文件第40行有问题",
    "给重试函数加个文档字符串",
    "把这个组件拆成两个小的",
    "lint任务挂了，帮忙看看",
    "写个迁移，给created_at加索引",
    "可以了，提交吧",
    "把上一个改动回滚，登录页坏了",
    "解释一下这个正则是干什么的",
    "上传文件太大的时候报错信息友好一点",
    "给空购物车的情况加个测试",
)

LANGUAGES = {"en": (EN_FACTS, EN_PROJECTS, EN_REQUESTS), "zh": (ZH_FACTS, ZH_PROJECTS, ZH_REQUESTS)}


def _title(text: str, language: str) -> str:
    """A memory's name as a tool that saves each message would give it: the message's start."""
    return " ".join(text.split()[:5]) if language == "en" else text[:8]


def build_conversation_stores(language: str, now_s: int, *, seed: int = 23) -> list[TruthStore]:
    """One store per conversation: its messages (facts, their changes, requests), and questions."""
    facts_by_kind, projects, requests = LANGUAGES[language]
    rng = random.Random(f"conversations-{seed}-{language}")
    stores: list[TruthStore] = []
    for project in projects:
        kinds = rng.sample(list(facts_by_kind), k=min(6, len(facts_by_kind)))
        changed = set(kinds[: (2 * len(kinds)) // 3])
        messages: list[tuple[str, str, int]] = []  # (text, subject, version)
        for kind in kinds:
            values, firsts, updates, _ = facts_by_kind[kind]
            count = rng.choice((2, 3)) if kind in changed else 1
            picked = rng.sample(values, k=count) if count <= len(values) else list(values)
            texts = [rng.choice(firsts).format(p=project, v=picked[0].format(p=project))]
            for number in range(1, len(picked)):
                texts.append(
                    rng.choice(updates).format(
                        p=project, v=picked[number].format(p=project), o=picked[number - 1].format(p=project)
                    )
                )
            for version, text in enumerate(texts):
                messages.append((text, kind, version))
        # a conversation: the facts' versions in order, among requests that state no fact
        timeline: list[tuple[str, str, int]] = []
        pending = {kind: [m for m in messages if m[1] == kind] for kind in kinds}
        while any(pending.values()):
            kind = rng.choice([k for k, left in pending.items() if left])
            timeline.append(pending[kind].pop(0))
            for _ in range(rng.randint(1, 4)):
                timeline.append((rng.choice(requests), "", 0))
        facts: list[Fact] = []
        age = len(timeline) * 2 * DAY + 5 * DAY
        for number, (text, subject, version) in enumerate(timeline):
            key = f"{language}-{project}-{number}"
            facts.append(Fact(key, subject, version, _title(text, language), text, text + "\n", age, kind="user"))
            age -= rng.randint(1, 3) * DAY
        questions = [
            Question(
                rng.choice(facts_by_kind[kind][3]).format(p=project),
                kind,
                kind="updated" if kind in changed else "static",
            )
            for kind in kinds
        ]
        stores.append(TruthStore(language, facts, questions, []))
    return stores
