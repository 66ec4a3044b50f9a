"""The stores of ``bench/recall_truth.py``: coding-agent facts that change over time, in English and Chinese.

Each store is built from components (services of a made-up product) and attributes a coding agent
keeps facts about (response time, a deadline, the HTTP library, the owner, the runtime version, the
database, the deploy day, the local port, the CI provider). For every component some attributes are
*updated* (two or three versions, written days or weeks apart, each in other words) and the others
are stated once. The rest of a store: duplicates (the same fact saved again in other words), old
feedback rules nothing replaced, expiring memories (some already past their date) and linked ones.

Everything is generated from a fixed seed, so the figures of two runs compare. The sentences are
written for this benchmark.
"""

from __future__ import annotations

import random
from typing import NamedTuple

__all__ = ["Fact", "Question", "TruthStore", "build_truth_store"]

DAY = 86_400


class Fact(NamedTuple):
    """One memory to write: its text, when it was written (seconds before "now"), and what it is."""

    key: str  # unique id of the memory within the store
    subject: str  # component/attribute (same subject = same key here); "" for memories outside the grid
    version: int  # 0 for the first statement; higher = newer
    name: str
    description: str
    body: str
    age_s: int  # seconds before the store's "now"
    kind: str = "project"  # memory type
    expires: str | None = None
    duplicate_of: str | None = None  # the key of the memory this one says again


class Question(NamedTuple):
    query: str
    subject: str  # the subject asked about; "" for a question about one memory (``expect``)
    expect: str = ""  # the key of the memory that answers it, for questions outside the grid
    kind: str = "updated"  # updated | static | rule | expired | live | linked
    also: str = ""  # for a linked question: the key of the linked memory the answer also needs


class TruthStore(NamedTuple):
    language: str
    facts: list[Fact]
    questions: list[Question]
    pairs: list[tuple[str, str, str]]  # (key, key, label) with label duplicate | update | different


# --- English --------------------------------------------------------------------------------------

EN_COMPONENTS = (
    "checkout API",
    "search service",
    "auth service",
    "billing worker",
    "notification service",
    "mobile app backend",
    "admin dashboard",
    "ingest pipeline",
    "recommendation service",
    "payments gateway",
    "profile service",
    "image resizer",
)

# attribute -> (values, first-statement templates, update templates, questions)
# {c} component, {v} value, {o} the previous value
EN_ATTRIBUTES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "latency": (
        ("950", "610", "380", "140", "85"),
        (
            "The {c} p95 response time is {v} ms under normal load",
            "Measured the {c}: p95 latency sits at {v} ms",
        ),
        (
            "After the caching work the {c} p95 response time is down to {v} ms (was {o} ms)",
            "New load test: {c} p95 latency now {v} ms, previously {o} ms",
            "The {c} got faster: p95 response time {v} ms",
        ),
        ("How fast is the {c} now, what is its p95 response time?", "What p95 latency does the {c} have?"),
    ),
    "deadline": (
        ("March 3", "March 14", "March 28", "April 11", "April 25"),
        (
            "The {c} migration to the new cluster must be finished by {v}",
            "Deadline for moving the {c} onto the new cluster: {v}",
        ),
        (
            "The {c} cluster migration deadline moved to {v} (it was {o})",
            "Product pushed the {c} migration deadline: now due {v}",
            "Update on the {c} migration: the new due date is {v}",
        ),
        ("When is the {c} cluster migration due?", "What is the deadline for the {c} migration?"),
    ),
    "http": (
        ("requests", "httpx", "aiohttp", "urllib3", "niquests"),
        (
            "The {c} makes its outbound HTTP calls with {v}",
            "HTTP client used by the {c}: {v}",
        ),
        (
            "The {c} replaced {o} with {v} for outbound HTTP calls",
            "We switched the {c} HTTP client from {o} to {v}",
            "The {c} now uses {v} as its HTTP client library",
        ),
        ("Which HTTP client library does the {c} use?", "What does the {c} make HTTP calls with?"),
    ),
    "owner": (
        ("Priya", "Marco", "Lena", "Tomasz", "Aiko"),
        (
            "{v} owns the {c}; route code reviews for it to {v}",
            "Code owner of the {c} is {v}",
        ),
        (
            "{v} took over ownership of the {c} from {o}",
            "Ownership change: the {c} now belongs to {v}, reviews go to {v}",
            "{o} handed the {c} to {v}, who is its owner now",
        ),
        ("Who owns the {c} and reviews its code?", "Who should review changes to the {c}?"),
    ),
    "python": (
        ("3.9", "3.10", "3.11", "3.12", "3.13"),
        (
            "The {c} runs on Python {v} in production",
            "Production Python for the {c} is {v}",
        ),
        (
            "The {c} was upgraded from Python {o} to Python {v}",
            "Bumped the {c} runtime to Python {v}",
            "The {c} now runs Python {v} in production",
        ),
        ("Which Python version does the {c} run in production?", "What Python runtime is the {c} on?"),
    ),
    "database": (
        ("MySQL 5.7", "PostgreSQL 13", "PostgreSQL 16", "CockroachDB", "Aurora PostgreSQL"),
        (
            "The {c} stores its data in {v}",
            "Primary datastore of the {c}: {v}",
        ),
        (
            "The {c} moved its data from {o} to {v}",
            "Database migration done: the {c} now runs on {v}",
            "The {c} switched its primary datastore to {v}",
        ),
        ("Which database does the {c} store its data in?", "What is the primary datastore of the {c}?"),
    ),
    "deploy": (
        ("Tuesday", "Thursday", "Monday", "Wednesday", "Friday morning"),
        (
            "The {c} is deployed to production every {v}",
            "Production deploys of the {c} happen on {v}",
        ),
        (
            "The {c} production deploy day changed from {o} to {v}",
            "From now on the {c} ships to production on {v}",
            "The {c} deploys moved to {v}",
        ),
        ("On which day does the {c} deploy to production?", "When do production deploys of the {c} happen?"),
    ),
    "port": (
        ("8080", "8443", "9000", "5005", "7070"),
        (
            "Locally the {c} listens on port {v}",
            "The {c} dev server binds port {v}",
        ),
        (
            "The {c} local port changed from {o} to {v}",
            "The {c} dev server now binds port {v} instead of {o}",
            "Run the {c} locally on port {v} from now on",
        ),
        ("Which port does the {c} listen on locally?", "What local port does the {c} dev server use?"),
    ),
    "ci": (
        ("Jenkins", "CircleCI", "GitHub Actions", "Buildkite", "GitLab CI"),
        (
            "The {c} tests run on {v}",
            "CI for the {c} is {v}",
        ),
        (
            "The {c} CI moved from {o} to {v}",
            "We migrated the {c} pipelines to {v}",
            "The {c} test suite now runs on {v}",
        ),
        ("Where does the {c} CI run?", "Which CI system runs the {c} tests?"),
    ),
}

EN_RULES = (
    (
        "Never mock the database in integration tests",
        "Integration tests must hit a real database; a mock hid a broken migration once",
        "Should I mock the database in the integration tests?",
    ),
    (
        "Keep pull requests under 400 lines",
        "Reviewers asked for pull requests under 400 changed lines; split bigger ones",
        "How big can a pull request be?",
    ),
    (
        "Write commit messages in the imperative",
        "Commit subjects are imperative and under 72 characters",
        "How should I word the commit message?",
    ),
    (
        "No print statements in library code",
        "Use the logging module in library code, never print",
        "Can I use print for debugging output in the library?",
    ),
    (
        "Type hints on every public function",
        "Every public function gets full type hints; mypy runs in strict mode",
        "Do public functions need type annotations?",
    ),
    (
        "Prefer small focused modules",
        "Modules stay under 500 lines with one job each",
        "How long may a module get before I split it?",
    ),
)

EN_EXPIRING = (
    (
        "Release freeze",
        "No merges to main during the release freeze, until the 20th",
        "Can I merge to main right now, is there a freeze?",
        True,
    ),
    (
        "Staging database is read-only",
        "The staging database is read-only while the snapshot restore runs this week",
        "Can I write to the staging database?",
        True,
    ),
    (
        "Use the backup VPN endpoint",
        "The primary VPN is down for maintenance; connect through the backup VPN endpoint",
        "Which VPN endpoint should I connect to?",
        True,
    ),
    (
        "Sprint focus is the billing rewrite",
        "For this sprint all reviews prioritise the billing rewrite branch",
        "What should reviews prioritise this sprint?",
        False,
    ),
    (
        "Demo environment frozen for the customer pilot",
        "Do not redeploy the demo environment until the customer pilot ends",
        "Can I redeploy the demo environment?",
        False,
    ),
)

# A fact split across two memories: the first links to the second by name, and the question needs
# both (the first names the component the question asks about, the second holds the figures).
# (first memory's title, its text, the linked memory's name, its description, the question)
EN_LINKED = (
    (
        "Checkout retries payments",
        "The checkout API calls the payments gateway through the retry queue",
        "payments-retry-policy",
        "Retry queue policy: 5 attempts, exponential backoff capped at 2 minutes, then dead-letter",
        "How does the checkout API retry failed calls to the payments gateway, how many attempts?",
    ),
    (
        "Search index rebuild",
        "The search service rebuilds its index nightly with the reindex job",
        "reindex-job-runbook",
        "Reindex job runbook: start it from the ops console, it takes 40 minutes and pauses writes",
        "How long does the search service index rebuild take and how is it started?",
    ),
    (
        "Auth tokens signing",
        "The auth service signs its session tokens with the shared signing key",
        "signing-key-rotation",
        "Signing key rotation happens every 90 days via the vault rotate command",
        "How often is the key that signs auth service tokens rotated?",
    ),
    (
        "Billing worker schedule",
        "The billing worker runs the invoice batch from the cron schedule",
        "invoice-batch-cron",
        "Invoice batch cron fires at 02:30 UTC on the first of each month",
        "At what time does the billing worker run its invoice batch?",
    ),
    (
        "Notification provider",
        "The notification service sends push messages through the vendor account",
        "push-vendor-limits",
        "Push vendor limits: 600 messages per minute, bursts above that are dropped silently",
        "What rate limit applies to push messages from the notification service?",
    ),
    (
        "Ingest pipeline storage",
        "The ingest pipeline writes raw events to the cold storage bucket",
        "cold-bucket-retention",
        "Cold storage bucket keeps objects for 180 days, then a lifecycle rule deletes them",
        "How long are the ingest pipeline's raw events kept?",
    ),
    (
        "Image resizer cache",
        "The image resizer serves thumbnails from the edge cache",
        "edge-cache-purge",
        "Edge cache purge: call the purge endpoint with the asset prefix; takes about 5 minutes to spread",
        "How do I purge stale image resizer thumbnails?",
    ),
    (
        "Admin dashboard login",
        "The admin dashboard logs staff in through the company identity provider",
        "identity-provider-groups",
        "Identity provider groups: staff-admins gets write access, staff-readonly gets read access",
        "Which group gives write access when logging into the admin dashboard?",
    ),
)

# --- Chinese --------------------------------------------------------------------------------------

ZH_COMPONENTS = (
    "结算接口",
    "搜索服务",
    "认证服务",
    "计费任务",
    "通知服务",
    "管理后台",
    "数据管线",
    "推荐服务",
)

ZH_ATTRIBUTES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "latency": (
        ("950", "610", "380", "140", "85"),
        ("{c}的p95响应时间是{v}毫秒", "压测结果：{c}的p95延迟为{v}毫秒"),
        (
            "加了缓存以后{c}的p95响应时间降到了{v}毫秒（之前是{o}毫秒）",
            "最新压测：{c}的p95延迟现在是{v}毫秒",
            "{c}变快了，p95响应时间{v}毫秒",
        ),
        ("{c}现在的p95响应时间是多少？", "{c}的延迟现在有多快？"),
    ),
    "deadline": (
        ("3月3日", "3月14日", "3月28日", "4月11日", "4月25日"),
        ("{c}迁移到新集群的截止日期是{v}", "{c}必须在{v}之前迁移到新集群"),
        (
            "{c}迁移的截止日期推迟到了{v}（原来是{o}）",
            "产品把{c}迁移的截止日期改成了{v}",
            "更新：{c}集群迁移的新期限是{v}",
        ),
        ("{c}迁移到新集群的截止日期是哪天？", "{c}的迁移什么时候到期？"),
    ),
    "http": (
        ("requests", "httpx", "aiohttp", "urllib3", "niquests"),
        ("{c}用{v}发出站HTTP请求", "{c}的HTTP客户端是{v}"),
        (
            "{c}把HTTP客户端从{o}换成了{v}",
            "{c}现在用{v}作为HTTP客户端库",
            "我们把{c}的出站HTTP请求改用{v}",
        ),
        ("{c}用哪个HTTP客户端库？", "{c}发HTTP请求用的是什么库？"),
    ),
    "owner": (
        ("王磊", "李娜", "张伟", "陈静", "刘洋"),
        ("{c}的负责人是{v}，代码评审找{v}", "{v}负责{c}的代码评审"),
        (
            "{v}从{o}手里接管了{c}",
            "负责人变更：{c}现在归{v}负责，评审找{v}",
            "{c}交给了{v}，现在由{v}负责",
        ),
        ("{c}现在谁负责，代码评审找谁？", "{c}的改动应该找谁评审？"),
    ),
    "python": (
        ("3.9", "3.10", "3.11", "3.12", "3.13"),
        ("{c}生产环境跑的是Python {v}", "{c}线上用Python {v}"),
        (
            "{c}从Python {o}升级到了Python {v}",
            "{c}的运行时升级到Python {v}了",
            "{c}生产环境现在跑Python {v}",
        ),
        ("{c}生产环境用的是哪个Python版本？", "{c}线上跑的Python是什么版本？"),
    ),
    "database": (
        ("MySQL 5.7", "PostgreSQL 13", "PostgreSQL 16", "CockroachDB", "TiDB"),
        ("{c}的数据存在{v}里", "{c}的主数据库是{v}"),
        (
            "{c}的数据从{o}迁移到了{v}",
            "数据库迁移完成：{c}现在用{v}",
            "{c}把主数据库换成了{v}",
        ),
        ("{c}的数据存在哪个数据库里？", "{c}的主数据库是什么？"),
    ),
}

ZH_RULES = (
    (
        "集成测试不要模拟数据库",
        "集成测试必须连真实数据库，之前模拟数据库掩盖了一次迁移错误",
        "集成测试里可以模拟数据库吗？",
    ),
    ("合并请求控制在400行以内", "评审要求每个合并请求改动不超过400行，太大的要拆开", "一个合并请求最多可以改多少行？"),
    ("库代码里不要用print", "库代码一律用logging模块输出日志，不要用print", "库代码里可以用print输出调试信息吗？"),
    ("公开函数都要写类型注解", "所有公开函数都要有完整的类型注解，mypy用严格模式", "公开函数需要写类型注解吗？"),
)

ZH_EXPIRING = (
    ("发布冻结期", "发布冻结期间禁止合并到主分支，截止到20号", "现在可以合并到主分支吗？有没有冻结？", True),
    ("预发数据库只读", "本周快照恢复期间预发数据库只读", "可以往预发数据库写数据吗？", True),
    ("本迭代重点是计费重构", "这个迭代所有评审优先处理计费重构分支", "这个迭代评审优先处理什么？", False),
)

ZH_LINKED = (
    (
        "结算接口调用支付",
        "结算接口通过重试队列调用支付网关",
        "payments-retry-policy",
        "重试队列策略：最多重试5次，指数退避，上限2分钟，之后进入死信队列",
        "结算接口调用支付网关失败后怎么重试，重试几次？",
    ),
    (
        "搜索索引重建",
        "搜索服务每晚用重建任务重建索引",
        "reindex-job-runbook",
        "重建任务手册：从运维控制台启动，耗时约40分钟，期间暂停写入",
        "搜索服务的索引重建要多久，怎么启动？",
    ),
    (
        "认证令牌签名",
        "认证服务用共享签名密钥签发会话令牌",
        "signing-key-rotation",
        "签名密钥每90天轮换一次，用vault的rotate命令",
        "认证服务签发令牌的密钥多久轮换一次？",
    ),
    (
        "计费任务调度",
        "计费任务按定时计划跑发票批处理",
        "invoice-batch-cron",
        "发票批处理定时在每月1日UTC 02:30触发",
        "计费任务几点跑发票批处理？",
    ),
    (
        "通知服务推送",
        "通知服务通过供应商账号发送推送消息",
        "push-vendor-limits",
        "推送供应商限额：每分钟600条，超出的部分会被直接丢弃",
        "通知服务发推送有什么速率限制？",
    ),
    (
        "数据管线存储",
        "数据管线把原始事件写入冷存储桶",
        "cold-bucket-retention",
        "冷存储桶里的对象保留180天，之后由生命周期规则删除",
        "数据管线的原始事件保留多久？",
    ),
)

LANGUAGES = {
    "en": (EN_COMPONENTS, EN_ATTRIBUTES, EN_RULES, EN_EXPIRING, EN_LINKED),
    "zh": (ZH_COMPONENTS, ZH_ATTRIBUTES, ZH_RULES, ZH_EXPIRING, ZH_LINKED),
}


def _title(text: str, language: str, rng: random.Random) -> str:
    """A short title as an agent writes one: the start of the sentence, in a few lengths."""
    if language == "en":
        words = text.replace(";", "").replace(":", "").split()
        return " ".join(words[: rng.randint(3, 6)])
    return text[: rng.randint(6, 10)].rstrip("，：（")


def _date(days_from_now: int, now_s: int) -> str:
    import time

    return time.strftime("%Y-%m-%d", time.gmtime(now_s + days_from_now * DAY))


def build_truth_store(language: str, now_s: int, *, seed: int = 23) -> TruthStore:
    """The facts, questions and labelled pairs of one language's store."""
    components, attributes, rules, expiring, linked = LANGUAGES[language]
    rng = random.Random(f"{seed}-{language}")
    facts: list[Fact] = []
    questions: list[Question] = []
    pairs: list[tuple[str, str, str]] = []
    by_subject: dict[str, list[str]] = {}
    names = list(attributes)
    for ci, component in enumerate(components):
        chosen = rng.sample(names, k=len(names))
        updated = set(chosen[: max(3, (2 * len(names)) // 3)])
        for attribute in names:
            values, firsts, updates, asks = attributes[attribute]
            subject = f"{ci}/{attribute}"
            versions = rng.choice((2, 2, 3)) if attribute in updated else 1
            picked = rng.sample(values, k=versions)
            age = rng.randint(40, 400) * DAY
            keys = []
            for number, value in enumerate(picked):
                if number == 0:
                    text = rng.choice(firsts).format(c=component, v=value)
                else:
                    text = rng.choice(updates).format(c=component, v=value, o=picked[number - 1])
                key = f"{language}-{subject}-v{number}"
                title = _title(text, language, rng)
                facts.append(Fact(key, subject, number, title, text, text + ".", age))
                keys.append(key)
                age -= rng.randint(3, 35) * DAY
            by_subject[subject] = keys
            for a in range(len(keys)):
                for b in range(a + 1, len(keys)):
                    pairs.append((keys[a], keys[b], "update"))
            questions.append(
                Question(rng.choice(asks).format(c=component), subject, kind="updated" if versions > 1 else "static")
            )
            if versions == 1 and rng.random() < 0.5:
                # the same fact saved again, in the other first-statement wording, a few days later
                other = [t for t in firsts if t.format(c=component, v=picked[0]) != facts[-1].description]
                text = (other or firsts)[0].format(c=component, v=picked[0])
                dup_key = keys[0] + "-dup"
                title = _title(text, language, rng)
                facts.append(Fact(dup_key, subject, 0, title, text, text + ".", age - 2 * DAY, duplicate_of=keys[0]))
                pairs.append((keys[0], dup_key, "duplicate"))
    # negatives: the same component with another attribute, the same attribute of another component
    subjects = list(by_subject)
    for subject in subjects:
        ci, attribute = subject.split("/")
        same_component = [s for s in subjects if s.split("/")[0] == ci and s != subject]
        same_attribute = [s for s in subjects if s.split("/")[1] == attribute and s != subject]
        for other in rng.sample(same_component, k=min(2, len(same_component))) + rng.sample(
            same_attribute, k=min(2, len(same_attribute))
        ):
            pairs.append((by_subject[subject][-1], by_subject[other][-1], "different"))
    for number, (title, text, ask) in enumerate(rules):
        key = f"{language}-rule-{number}"
        facts.append(Fact(key, "", 0, title, text, text + ".", 365 * DAY + number * DAY, kind="feedback"))
        questions.append(Question(ask, "", expect=key, kind="rule"))
    for number, (title, text, ask, past) in enumerate(expiring):
        key = f"{language}-expiring-{number}"
        until = _date(-3 if past else 10, now_s)
        facts.append(Fact(key, "", 0, title, text, text + ".", 14 * DAY, expires=until))
        questions.append(Question(ask, "", expect=key, kind="expired" if past else "live"))
    for number, (title, text, target, detail, ask) in enumerate(linked):
        key, also = f"{language}-linked-{number}", f"{language}-linked-{number}-target"
        age = rng.randint(20, 200) * DAY
        body = f"{text}. Details: [[{target}]]."
        facts.append(Fact(key, "", 0, title, text, body, age, kind="reference"))
        facts.append(Fact(also, "", 0, target, detail, detail + ".", age + DAY, kind="reference"))
        questions.append(Question(ask, "", expect=key, kind="linked", also=also))
    return TruthStore(language, facts, questions, pairs)
