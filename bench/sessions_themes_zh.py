"""The six Chinese projects of the held-out sessions set (see ``truth_sessions.py``).

Each project names its parts, environments and people, the subjects its memories state an
attribute of (with the values a fact takes over time; one value: stated once), and the facts
written for it alone.
"""

from __future__ import annotations

from sessions_schema import Item, Subject, Theme, Version

from memdir.model.memory_type import MemoryType

__all__ = ["THEMES"]

P, F, R, U = MemoryType.PROJECT, MemoryType.FEEDBACK, MemoryType.REFERENCE, MemoryType.USER
S, V = Subject, Version


def _item(key: str, kind: MemoryType, questions: tuple[str, ...], *versions: Version) -> Item:
    return Item(key, kind, versions, questions)


TEST = S("test", "测试", ("测试", "test"), ("测试环境", "test 环境"))
PRE = S("pre", "预发", ("预发",), ("预发", "预发环境"))
PROD = S("prod", "线上", ("线上", "生产"), ("线上", "生产环境"))

YIGOU = Theme(
    key="yigou",
    project="易购",
    domain="yigou.com",
    parts=(
        S("order-service", "订单服务", ("order-service", "订单服务"), ("订单服务", "order-service"), role="service"),
        S(
            "inventory-service",
            "库存服务",
            ("inventory-service", "库存服务"),
            ("库存服务", "库存那个服务"),
            role="service",
        ),
        S("pay-gateway", "支付网关", ("pay-gateway", "支付网关"), ("支付网关",), role="service"),
        S(
            "order-db",
            "订单库",
            ("订单库", "order-db"),
            ("订单库", "订单的 MySQL"),
            ("3306", "3307", "3308", "13306"),
            "db",
        ),
        S("redis-cluster", "Redis 集群", ("Redis 集群", "redis-cluster"), ("Redis 集群", "缓存集群"), role="cache"),
        S("rocketmq", "RocketMQ", ("RocketMQ",), ("RocketMQ", "消息队列"), ("9876", "10911", "9877"), "broker"),
        S("ops-admin", "运营后台", ("运营后台", "ops-admin"), ("运营后台",), role="web"),
    ),
    envs=(TEST, PRE, PROD),
    people=("李娜", "张伟", "刘洋", "陈晨", "赵敏", "孙浩", "周婷", "吴昊"),
    subjects={
        "scope": (
            S("phase-1", "一期", ("订单中台重构一期",), ("重构一期", "订单中台一期"), ("拆出订单查询服务",)),
            S(
                "phase-2",
                "二期",
                ("订单中台重构二期",),
                ("重构二期", "订单中台二期"),
                ("订单写链路迁移", "订单写链路和退款一起迁移"),
            ),
            S("phase-3", "三期", ("订单中台重构三期",), ("重构三期", "订单中台三期"), ("老订单库数据归档",)),
        ),
        "date": (
            S("double11-freeze", "大促封版", ("双十一大促封版",), ("大促封版", "双十一封版")),
            S("pay-channel-switch", "支付渠道切换", ("支付渠道切换",), ("支付渠道切换", "切新支付渠道")),
            S("old-order-db-off", "老订单库下线", ("老订单库下线",), ("老订单库下线",)),
        ),
        "tool": (
            S(
                "db-migration",
                "数据库迁移",
                ("数据库迁移",),
                ("数据库迁移", "改表结构"),
                ("手写 SQL 脚本", "golang-migrate"),
            ),
            S("api-test", "接口测试", ("接口调试和测试",), ("接口测试", "调接口"), ("Postman 集合", "Apifox")),
            S("config-center", "配置中心", ("配置中心",), ("配置中心", "动态配置"), ("Apollo", "Nacos")),
            S("lint", "代码检查", ("Go 代码检查",), ("代码检查", "lint"), ("golangci-lint",)),
            S("tracing", "链路追踪", ("链路追踪",), ("链路追踪", "看调用链"), ("SkyWalking", "OpenTelemetry + Jaeger")),
        ),
        "version": (
            S("go", "Go", ("Go",), ("Go",), ("1.20", "1.22")),
            S("mysql", "MySQL", ("MySQL",), ("MySQL",), ("5.7", "8.0")),
        ),
        "metric": (
            S("order-p99", "下单接口 p99", ("下单接口 p99 延迟",), ("下单接口的 p99", "下单延迟"), ("850ms", "320ms")),
            S("order-coverage", "订单服务覆盖率", ("订单服务单测覆盖率",), ("订单服务的测试覆盖率",), ("54%", "68%")),
            S("peak-qps", "压测峰值 QPS", ("大促压测峰值 QPS",), ("压测能扛的峰值",), ("1.2 万", "2.8 万")),
            S("deduct-fail", "库存扣减失败率", ("库存扣减失败率",), ("扣库存失败的比例",), ("0.3%",)),
        ),
        "limit": (
            S(
                "order-rate-limit",
                "下单限流",
                ("下单接口限流",),
                ("下单接口的限流",),
                ("每用户 5 次/秒", "每用户 10 次/秒"),
            ),
            S(
                "order-timeout",
                "订单超时关闭",
                ("未支付订单的超时关闭时间",),
                ("订单多久不付款自动关",),
                ("30 分钟", "15 分钟"),
            ),
            S("db-pool", "连接池上限", ("订单库连接池上限",), ("数据库连接池大小",), ("100",)),
            S("mq-retry", "消费重试次数", ("RocketMQ 消费重试次数",), ("消息消费重试次数",), ("16 次",)),
        ),
        "schedule": (
            S("reconcile", "对账任务", ("对账任务",), ("对账任务", "每日对账"), ("每天凌晨 2 点", "每天凌晨 4 点")),
            S("timeout-scan", "超时订单扫描", ("超时订单扫描",), ("超时订单扫描任务",), ("每分钟",)),
            S("weekly-report", "周报表生成", ("周报表生成",), ("运营周报表",), ("每周一早上 6 点",)),
        ),
        "flag": (
            S(
                "new-cart",
                "新版购物车",
                ("新版购物车",),
                ("新版购物车", "新购物车"),
                ("内部员工", "10% 的用户", "全部用户"),
            ),
            S("coupon-stack", "优惠券叠加", ("优惠券叠加",), ("优惠券叠加",), ("灰度名单里的商家",)),
        ),
        "tracker": (
            S(
                "order-bugs",
                "交易 bug",
                ("交易相关 bug",),
                ("下单相关的 bug", "交易的 bug"),
                ("禅道「交易」项目", "云效「交易中台」项目"),
            ),
            S("ops-tickets", "运维工单", ("需要运维处理的事",), ("找运维的工单",), ("工单系统的 OPS 队列",)),
        ),
        "channel": (
            S(
                "release-notice",
                "发布通知",
                ("发布通知",),
                ("发布通知",),
                ("飞书群「交易发布」", "飞书群「交易中台-变更」"),
            ),
            S("order-alerts", "订单告警", ("订单告警",), ("订单告警",), ("飞书群「订单告警」",)),
        ),
    },
    items=(
        _item(
            "idempotency",
            P,
            ("下单接口重复提交怎么防？", "客户端重试会不会重复下单？"),
            V(
                "下单接口幂等",
                "order-idempotency",
                "下单接口按 request_id 做幂等，Redis 里保留 24 小时",
                "下单接口要求客户端带 `request_id`，服务端用 Redis SETNX 做幂等，key 保留 24 小时。\n"
                "**Why:** 弱网下客户端重试导致过重复下单。\n"
                "**How to apply:** 新的写接口都要支持 request_id 幂等。",
            ),
        ),
        _item(
            "oversell-0412",
            P,
            ("上次库存超卖是什么原因？",),
            V(
                "0412 超卖事故",
                "incident-0412-oversell",
                "0412 事故：库存超卖，原因是 Redis 预扣和 DB 扣减不在一个事务里",
                "4 月 12 日秒杀超卖 37 单。原因：Redis 预扣成功后 DB 扣减失败，没有回补 Redis。"
                "修复：扣减失败走补偿消息回补库存。\n"
                "**Why:** 记下来防止再踩。\n"
                "**How to apply:** 改库存扣减逻辑时必须覆盖失败回补的测试。",
            ),
        ),
        _item(
            "money-unit",
            P,
            ("金额字段用 float 还是 decimal？",),
            V(
                "金额单位用分",
                "money-in-fen",
                "所有金额字段用 int64 存「分」，不用 float 也不用 decimal",
                "金额一律 int64，单位是分，展示时再除以 100。\n"
                "**Why:** float 精度问题导致过对账差一分钱。\n"
                "**How to apply:** 新表和新接口字段名以 `_fen` 结尾。",
            ),
        ),
        _item(
            "refund-approval",
            P,
            ("多少钱以上的退款要主管审批？",),
            V(
                "大额退款审批",
                "refund-approval",
                "单笔退款超过 2000 元需要主管审批",
                "退款金额超过 2000 元的，运营后台要走主管审批流。\n"
                "**Why:** 财务风控要求。\n"
                "**How to apply:** 退款接口超过阈值返回「待审批」状态。",
            ),
            V(
                "退款审批阈值上调",
                "refund-approval-5000",
                "退款审批阈值从 2000 调到 5000 元",
                "财务把退款审批阈值调到了 5000 元，低于 5000 的直接退。\n"
                "**Why:** 2000 的阈值导致审批单堆积，主管批不过来。\n"
                "**How to apply:** 改阈值常量，同时改运营后台上的提示文案。",
            ),
        ),
        _item(
            "oncall-sheet",
            R,
            ("大促值班表在哪看？",),
            V(
                "大促值班表",
                "promo-on-call-sheet",
                "大促值班表在飞书文档「交易大促值班」",
                "大促期间的值班表在飞书文档「交易大促值班」里，按小时排班，电话也在里面。",
            ),
        ),
    ),
)

SHIGUANG = Theme(
    key="shiguang",
    project="拾光",
    domain="shiguang.cn",
    parts=(
        S("bff", "BFF", ("BFF", "Node BFF 服务"), ("BFF", "小程序后端"), ("3000", "3001", "8080"), "service"),
        S("upload-service", "上传服务", ("上传服务", "upload-service"), ("上传服务", "传图片的服务"), role="service"),
        S(
            "print-worker",
            "冲印任务",
            ("冲印任务 worker", "print-worker"),
            ("冲印 worker", "下单冲印的任务"),
            role="worker",
        ),
        S("mongo", "MongoDB", ("MongoDB",), ("MongoDB", "mongo"), ("27017", "27018", "27019"), "db"),
        S("redis", "Redis", ("Redis",), ("Redis",), role="cache"),
        S("cms-admin", "管理后台", ("管理后台", "cms-admin"), ("管理后台", "后台"), role="web"),
    ),
    envs=(S("dev", "开发", ("开发", "dev"), ("开发环境", "dev")), PROD),
    people=("林晓", "黄磊", "许静", "马超", "何平", "郭婷"),
    subjects={
        "scope": (
            S("v3-0", "3.0 版本", ("3.0 版本",), ("3.0", "3.0 版本"), ("照片书和新的下单流程",)),
            S("v3-1", "3.1 版本", ("3.1 版本",), ("3.1", "3.1 版本"), ("相框定制", "相框定制和优惠券")),
            S("v3-2", "3.2 版本", ("3.2 版本",), ("3.2", "3.2 版本"), ("会员体系",)),
        ),
        "date": (
            S("review-submit", "小程序提审", ("3.0 版本提审",), ("3.0 提审", "小程序提审")),
            S("valentine-campaign", "七夕活动上线", ("七夕活动上线",), ("七夕活动",)),
            S("icp-renewal", "ICP 备案更新", ("ICP 备案更新",), ("备案更新",)),
        ),
        "tool": (
            S(
                "miniapp-framework",
                "小程序框架",
                ("小程序开发框架",),
                ("小程序框架", "写小程序用的框架"),
                ("原生小程序", "Taro"),
            ),
            S(
                "image-process",
                "图片处理",
                ("图片压缩和裁剪",),
                ("图片压缩", "处理用户上传的照片"),
                ("sharp", "腾讯云数据万象"),
            ),
            S("monitoring", "前端监控", ("小程序前端监控",), ("前端监控", "小程序报错监控"), ("Fundebug", "Sentry")),
            S("package-manager", "包管理", ("Node 包管理",), ("装 npm 包", "包管理器"), ("npm", "pnpm")),
        ),
        "version": (
            S("node", "Node.js", ("Node.js",), ("Node",), ("16", "18", "20")),
            S("base-lib", "基础库", ("小程序基础库最低版本",), ("小程序基础库",), ("2.19.4", "2.25.0")),
        ),
        "metric": (
            S("first-screen", "首屏时间", ("首页首屏时间",), ("首页首屏", "首页打开速度"), ("2.4 秒", "1.3 秒")),
            S("upload-success", "上传成功率", ("照片上传成功率",), ("照片上传成功率",), ("96.5%", "99.2%")),
            S("package-size", "主包体积", ("小程序主包体积",), ("主包大小",), ("1.9 MB", "1.4 MB")),
            S("dau", "日活", ("小程序日活",), ("日活",), ("3.2 万",)),
        ),
        "limit": (
            S("upload-size", "上传大小限制", ("单张照片上传上限",), ("照片最大能传多大",), ("10 MB", "20 MB")),
            S("batch-upload", "批量上传张数", ("一次批量上传的张数上限",), ("一次最多传几张",), ("9 张", "30 张")),
            S("sms-limit", "短信频率", ("验证码短信频率限制",), ("验证码发送频率",), ("每手机号每分钟 1 条",)),
            S("bff-timeout", "BFF 超时", ("BFF 调下游的超时",), ("BFF 的超时时间",), ("3 秒", "5 秒")),
        ),
        "schedule": (
            S("order-sync", "订单同步", ("冲印厂订单同步",), ("给冲印厂同步订单",), ("每 30 分钟", "每 10 分钟")),
            S("cleanup", "过期图片清理", ("过期图片清理",), ("清理过期图片",), ("每天凌晨 3 点",)),
        ),
        "flag": (
            S(
                "ai-restore",
                "老照片修复",
                ("AI 老照片修复",),
                ("老照片修复",),
                ("白名单用户", "50% 的用户", "全部用户"),
            ),
            S("wechat-pay-score", "先享后付", ("微信支付分先享后付",), ("先享后付",), ("关闭",)),
        ),
        "tracker": (
            S("bugs", "bug", ("小程序 bug",), ("小程序的 bug",), ("TAPD「拾光」项目",)),
            S(
                "feedback",
                "用户反馈",
                ("用户反馈",),
                ("用户的吐槽和反馈",),
                ("飞书多维表格「用户反馈」", "TAPD「拾光-反馈」项目"),
            ),
        ),
        "channel": (
            S("deploy", "发版通知", ("发版通知",), ("发版通知",), ("企业微信群「拾光发版」",)),
            S(
                "alerts",
                "报错告警",
                ("线上报错告警",),
                ("报错告警",),
                ("企业微信群「拾光告警」", "飞书群「拾光-oncall」"),
            ),
        ),
    },
    items=(
        _item(
            "review-rejection",
            P,
            ("上次小程序审核为什么被拒？",),
            V(
                "审核被拒原因",
                "review-rejected-2-8",
                "2.8 版本审核被拒：获取手机号前没有说明用途",
                "2.8 版本提审被拒，原因是进入页面就弹出获取手机号，没有说明用途。"
                "改成下单时再获取并加了说明文案后通过。\n"
                "**Why:** 以后每次提审都会查这一条。\n"
                "**How to apply:** 新增的隐私权限都要先写用途说明。",
            ),
        ),
        _item(
            "cos-bucket",
            R,
            ("用户上传的照片存在哪个桶？",),
            V(
                "照片存储桶",
                "photo-bucket",
                "用户照片存在腾讯云 COS 的 shiguang-photos-1250000000 桶（广州）",
                "用户上传的原图在 COS 桶 `shiguang-photos-1250000000`（ap-guangzhou），缩略图在同桶 `thumb/` 前缀下。",
            ),
            V(
                "照片存储桶迁移",
                "photo-bucket-moved",
                "照片迁到了上海地域的新桶 shiguang-media-1250000000",
                "为了靠近冲印厂，照片迁到了 `shiguang-media-1250000000`（ap-shanghai），老桶只读保留三个月。",
            ),
        ),
        _item(
            "color-profile",
            P,
            ("照片打印出来偏色是怎么回事？",),
            V(
                "打印偏色",
                "print-color-profile",
                "打印偏色是因为上传时丢了 ICC 色彩配置，压缩要保留 sRGB",
                "冲印偏色的原因：压缩时把 Display P3 的 ICC 信息丢掉了。现在压缩前统一转 sRGB。\n"
                "**Why:** 用户投诉打印出来的照片发灰。\n"
                "**How to apply:** 改图片处理逻辑时不要去掉色彩转换这一步。",
            ),
        ),
        _item(
            "appid",
            R,
            ("测试版小程序的 AppID 是多少？",),
            V(
                "小程序 AppID",
                "miniapp-appids",
                "正式版和测试版小程序各有一个 AppID，测试版是 wx3f2a…",
                "正式版 AppID `wx8c1d4e2a7b9f0a11`，测试版（独立小程序）AppID `wx3f2a9c6b1d0e7c55`。不要混用。",
            ),
        ),
    ),
)

GUANLAN = Theme(
    key="guanlan",
    project="观澜",
    domain="guanlan-data.com",
    parts=(
        S(
            "flink-jm",
            "Flink JobManager",
            ("Flink JobManager",),
            ("Flink 的 JobManager", "Flink 控制台"),
            ("8081", "8082", "18081"),
            "service",
        ),
        S(
            "clickhouse",
            "ClickHouse",
            ("ClickHouse 集群", "ClickHouse"),
            ("ClickHouse",),
            ("8123", "9000", "8124"),
            "db",
        ),
        S("kafka", "Kafka", ("Kafka",), ("Kafka", "埋点 Kafka"), role="broker"),
        S(
            "hive-metastore",
            "Hive Metastore",
            ("Hive Metastore",),
            ("Hive 元数据服务", "metastore"),
            ("9083", "9084"),
            "db",
        ),
        S(
            "dolphin",
            "DolphinScheduler",
            ("DolphinScheduler",),
            ("调度平台", "海豚调度"),
            ("12345", "12346"),
            "service",
        ),
        S("superset", "Superset", ("Superset",), ("Superset", "报表平台"), ("8088", "8089"), "web"),
        S(
            "sync-worker",
            "同步任务",
            ("数据同步 worker", "sync-worker"),
            ("同步 worker", "数据同步任务"),
            role="worker",
        ),
    ),
    envs=(S("test", "测试", ("测试",), ("测试环境",)), PROD),
    people=("高远", "韩雪", "邓超", "曹颖", "彭飞", "袁丽", "蒋涛"),
    subjects={
        "scope": (
            S("batch-1", "第一批迁移", ("第一批迁移",), ("第一批迁移",), ("交易域的 ODS 和 DWD 表",)),
            S("batch-2", "第二批迁移", ("第二批迁移",), ("第二批迁移",), ("用户域和流量域", "只迁用户域")),
            S("batch-3", "第三批迁移", ("第三批迁移",), ("第三批迁移", "最后一批迁移"), ("报表层和 Superset 看板",)),
        ),
        "date": (
            S("hadoop-off", "老 Hadoop 集群下线", ("老 Hadoop 集群下线",), ("老集群下线", "旧 Hadoop 下线")),
            S("quarter-close", "季度结账冻结", ("季度结账数据冻结",), ("季度结账冻结",)),
            S("cdp-launch", "CDP 上线", ("CDP 一期上线",), ("CDP 上线",)),
        ),
        "tool": (
            S(
                "data-quality",
                "数据质量",
                ("数据质量校验",),
                ("数据质量校验", "查数据质量"),
                ("自研 SQL 校验脚本", "Griffin"),
            ),
            S("cdc", "增量同步", ("业务库增量同步",), ("业务库同步", "CDC"), ("Canal", "Flink CDC")),
            S("bi", "自助分析", ("自助分析工具",), ("自助分析", "拖报表"), ("Superset", "Metabase")),
            S("scheduler", "任务调度", ("离线任务调度",), ("离线任务调度",), ("DolphinScheduler",)),
        ),
        "version": (
            S("flink", "Flink", ("Flink",), ("Flink",), ("1.15", "1.17")),
            S("clickhouse-v", "ClickHouse", ("ClickHouse",), ("ClickHouse",), ("22.8", "23.8")),
            S("spark", "Spark", ("Spark",), ("Spark",), ("3.3",)),
        ),
        "metric": (
            S("daily-etl", "日批耗时", ("每日离线批处理耗时",), ("日批跑多久",), ("4 小时 20 分", "2 小时 50 分")),
            S("rt-latency", "实时延迟", ("实时大屏数据延迟",), ("实时大屏的延迟",), ("45 秒", "8 秒")),
            S("storage", "HDFS 使用量", ("HDFS 存储使用量",), ("HDFS 用了多少",), ("1.8 PB", "1.3 PB")),
            S("query-p95", "即席查询 p95", ("ClickHouse 即席查询 p95",), ("即席查询速度",), ("6.5 秒",)),
        ),
        "limit": (
            S(
                "ck-memory",
                "单查询内存上限",
                ("ClickHouse 单查询内存上限",),
                ("ClickHouse 单条查询内存限制",),
                ("10 GB", "20 GB"),
            ),
            S(
                "kafka-retention",
                "Kafka 保留时间",
                ("埋点 topic 保留时间",),
                ("埋点数据在 Kafka 里留多久",),
                ("7 天", "3 天"),
            ),
            S("flink-parallelism", "Flink 并行度", ("埋点清洗作业的并行度",), ("清洗作业并行度",), ("12", "24")),
            S("ck-concurrency", "最大并发查询", ("ClickHouse 最大并发查询数",), ("ClickHouse 并发查询上限",), ("100",)),
        ),
        "schedule": (
            S("daily-batch", "日批", ("日批主流程",), ("日批", "每天的离线批"), ("每天凌晨 1 点", "每天零点 30 分")),
            S("user-profile", "用户画像更新", ("用户画像更新",), ("用户画像更新",), ("每周日凌晨",)),
            S("ck-merge", "ClickHouse 合并", ("ClickHouse 分区合并",), ("分区合并任务",), ("每天下午 2 点",)),
        ),
        "flag": (S("new-attribution", "新归因模型", ("新归因模型",), ("新归因模型",), ("增长组", "全部报表")),),
        "tracker": (
            S("data-issues", "数据问题", ("数据问题反馈",), ("数据不对的反馈",), ("Jira 项目 DATA",)),
            S("requirements", "取数需求", ("取数需求",), ("取数需求",), ("飞书表单「取数需求」", "Jira 项目 DREQ")),
        ),
        "channel": (
            S(
                "task-alerts",
                "任务失败告警",
                ("调度任务失败告警",),
                ("任务失败告警",),
                ("钉钉群「数仓告警」", "飞书群「观澜告警」"),
            ),
            S("data-announce", "数据口径通知", ("数据口径变更通知",), ("口径变更通知",), ("飞书群「数据口径」",)),
        ),
    },
    items=(
        _item(
            "gmv-definition",
            P,
            ("GMV 到底包不包含退款？",),
            V(
                "GMV 口径",
                "gmv-definition",
                "GMV 口径：下单即算，含未支付，不扣退款；看实收用 paid_amount",
                "公司口径的 GMV = 下单金额，包含未支付订单，不扣退款。财务口径的实收看 `dws_trade.paid_amount`。\n"
                "**Why:** 两个报表口径不一，被老板问过一次。\n"
                "**How to apply:** 新报表必须在说明里写清楚用的哪个口径。",
            ),
            V(
                "GMV 口径调整",
                "gmv-definition-v2",
                "GMV 口径改为支付成功才算，不含未支付订单",
                "经营分析会决定：GMV 从下个月起改为「支付成功金额」，不含未支付订单，仍不扣退款。\n"
                "**Why:** 未支付订单波动太大，GMV 失真。\n"
                "**How to apply:** 改 `ads_gmv_daily` 的计算逻辑，并在数据口径群里通知。",
            ),
        ),
        _item(
            "pii",
            P,
            ("手机号能直接同步到数仓吗？",),
            V(
                "敏感字段脱敏",
                "pii-masking",
                "手机号、身份证号进数仓前必须脱敏，ODS 层只保留加密值",
                "手机号、身份证、详细地址在 ODS 层就要加密，下游只能用加密值或脱敏值。\n"
                "**Why:** 安全审计发现过明文手机号。\n"
                "**How to apply:** 同步任务里用统一的 `mask_phone` UDF。",
            ),
        ),
        _item(
            "partition-rule",
            F,
            ("Hive 表按什么分区？",),
            V(
                "Hive 表分区规范",
                "hive-partition-rule",
                "Hive 表一律按 dt（yyyy-MM-dd 字符串）分区",
                "所有 Hive 表按 `dt` 字符串分区，格式 `yyyy-MM-dd`，不要用 int 或者多级分区。\n"
                "**Why:** 用户说调度平台的补数功能只认这种格式。\n"
                "**How to apply:** 建表评审时检查。",
            ),
        ),
        _item(
            "late-events",
            P,
            ("埋点数据迟到了怎么处理？",),
            V(
                "埋点迟到数据",
                "late-events-handling",
                "实时作业允许 10 分钟迟到，更晚的由日批修正",
                "实时清洗作业 watermark 允许 10 分钟乱序，更晚到的数据进侧输出，由日批修正。\n"
                "**Why:** 移动端弱网上报延迟很常见。\n"
                "**How to apply:** 实时大屏和日报对不上时先看迟到数据。",
            ),
        ),
    ),
)

TIANSHU = Theme(
    key="tianshu",
    project="天枢",
    domain="tianshu.internal",
    slugged=True,
    parts=(
        S(
            "tianshu-api",
            "天枢 API",
            ("tianshu-api", "天枢 API 服务"),
            ("天枢 API", "后端 API"),
            ("8080", "8090", "18080"),
            "service",
        ),
        S("agent", "Agent", ("主机 agent", "tianshu-agent"), ("agent", "主机上的 agent"), role="worker"),
        S("etcd", "etcd", ("etcd",), ("etcd",), ("2379", "2381", "12379"), "db"),
        S("prometheus", "Prometheus", ("Prometheus",), ("Prometheus",), ("9090", "9091", "19090"), "service"),
        S("console", "控制台", ("Web 控制台", "console"), ("控制台", "前端控制台"), role="web"),
        S("mysql", "MySQL", ("元数据 MySQL",), ("MySQL", "元数据库"), ("3306", "3307", "13306"), "db"),
        S("nats", "NATS", ("NATS",), ("NATS", "消息总线"), role="broker"),
    ),
    envs=(S("dev", "开发", ("开发",), ("开发环境",)), S("staging", "staging", ("staging",), ("staging",)), PROD),
    people=("秦川", "叶子豪", "范琳", "潘越", "杜明", "程雪"),
    subjects={
        "scope": (
            S("m1", "M1", ("M1 里程碑",), ("M1", "第一个里程碑"), ("主机纳管和 agent 全量",)),
            S("m2", "M2", ("M2 里程碑",), ("M2", "第二个里程碑"), ("发布平台接入 Argo CD", "发布平台和配置管理")),
            S("m3", "M3", ("M3 里程碑",), ("M3", "第三个里程碑"), ("故障自愈和巡检",)),
        ),
        "date": (
            S("k8s-upgrade", "集群升级", ("生产 K8s 集群升级",), ("K8s 集群升级", "生产集群升级")),
            S("cmdb-migration", "CMDB 迁移", ("老 CMDB 迁移完成",), ("CMDB 迁移",)),
            S("audit", "等保测评", ("等保三级测评",), ("等保测评",)),
        ),
        "tool": (
            S("deploy", "发布方式", ("服务发布",), ("发布服务", "上线"), ("Jenkins 流水线", "Argo CD")),
            S("iac", "基础设施即代码", ("基础设施配置",), ("管理云资源", "开云资源"), ("Terraform",)),
            S("log", "日志采集", ("日志采集",), ("日志采集", "收日志"), ("Filebeat", "Vector")),
            S("secret", "密钥管理", ("密钥管理",), ("存密钥", "管理密码和密钥"), ("K8s Secret", "Vault")),
        ),
        "version": (
            S("go", "Go", ("Go",), ("Go",), ("1.21", "1.22")),
            S("k8s", "Kubernetes", ("生产 Kubernetes",), ("K8s",), ("1.24", "1.27")),
        ),
        "metric": (
            S("deploy-time", "发布耗时", ("单服务平均发布耗时",), ("发布一次要多久",), ("14 分钟", "6 分钟")),
            S("agent-cpu", "agent CPU", ("agent 常驻 CPU 占用",), ("agent 的 CPU 占用",), ("3%", "0.8%")),
            S("alert-noise", "告警噪音", ("每周无效告警数",), ("无效告警有多少",), ("420 条", "95 条")),
            S("api-sla", "API 可用性", ("天枢 API 月可用性",), ("API 可用性",), ("99.95%",)),
        ),
        "limit": (
            S("api-qps", "API 限流", ("天枢 API 每个 token 的限流",), ("API 限流",), ("50 QPS", "200 QPS")),
            S("agent-heartbeat", "心跳间隔", ("agent 心跳间隔",), ("agent 多久上报一次心跳",), ("30 秒", "10 秒")),
            S("prom-retention", "指标保留", ("Prometheus 本地保留时间",), ("Prometheus 数据留多久",), ("15 天",)),
        ),
        "schedule": (
            S("inspection", "巡检", ("主机巡检",), ("自动巡检",), ("每天早上 8 点", "每天早上 7 点")),
            S("cert-check", "证书检查", ("证书过期检查",), ("证书过期检查",), ("每天中午 12 点",)),
        ),
        "flag": (S("auto-heal", "自愈", ("故障自愈",), ("故障自愈",), ("只对测试环境开启", "对 staging 和线上开启")),),
        "tracker": (
            S("platform-bugs", "平台 bug", ("天枢平台 bug",), ("平台的 bug",), ("GitLab issues", "Jira 项目 TS")),
            S("change-requests", "变更申请", ("生产变更申请",), ("线上变更申请",), ("OA 变更流程",)),
        ),
        "channel": (
            S("oncall", "值班告警", ("值班告警",), ("值班告警",), ("飞书群「SRE 值班」",)),
            S(
                "change-notice",
                "变更通知",
                ("变更通知",),
                ("变更公告",),
                ("飞书群「基础架构变更」", "飞书群「天枢变更通知」"),
            ),
        ),
    },
    items=(
        _item(
            "agent-protocol",
            P,
            ("agent 和服务端之间用什么协议通信？",),
            V(
                "agent 通信协议",
                "agent-protocol-grpc",
                "agent 通过 gRPC 双向流连到天枢 API，断线指数退避重连",
                "agent 和天枢 API 之间是 gRPC 双向流，断线后指数退避重连（最长 60 秒）。\n"
                "**Why:** 之前用 HTTP 轮询，主机一多 API 扛不住。\n"
                "**How to apply:** 新增下发指令走同一个流，不要再开 HTTP 接口。",
            ),
            V(
                "agent 改走 NATS",
                "agent-protocol-nats",
                "agent 指令下发改为 NATS 订阅，gRPC 只保留上报",
                "指令下发从 gRPC 流改成了 NATS 订阅（subject `agent.<host_id>.cmd`），gRPC 只用来上报状态。\n"
                "**Why:** 一万台主机的长连接把 API 的内存吃光了。\n"
                "**How to apply:** 新指令发 NATS，不要再往 gRPC 流里加。",
            ),
        ),
        _item(
            "incident-etcd",
            P,
            ("上次控制台全部 500 是什么原因？",),
            V(
                "etcd 磁盘事故",
                "incident-etcd-disk",
                "控制台大面积 500：etcd 数据盘写满，compaction 没开",
                "那次控制台大面积 500，是 etcd 数据盘被写满，auto-compaction 没开，revision 一直涨。"
                "已开启 `--auto-compaction-retention=1h` 并加了磁盘告警。\n"
                "**Why:** 复盘结论。\n"
                "**How to apply:** 新建 etcd 集群必须带 compaction 配置。",
            ),
        ),
        _item(
            "change-freeze",
            F,
            ("月底能做生产变更吗？",),
            V(
                "月末封网",
                "month-end-freeze",
                "每月最后两个工作日封网，不做生产变更",
                "每个月最后两个工作日封网，除紧急修复外不做任何生产变更。\n"
                "**Why:** 财务月结期间出过变更事故。\n"
                "**How to apply:** 排期时避开，紧急修复要 SRE 负责人审批。",
            ),
        ),
        _item(
            "runbook",
            R,
            ("主机失联的处理手册在哪？",),
            V(
                "故障处理手册",
                "runbooks",
                "各类故障的 runbook 在 Confluence 空间 SRE/Runbooks 下",
                "runbook 统一放在 Confluence 的 SRE 空间 Runbooks 目录，主机失联、磁盘满、证书过期都有。",
            ),
        ),
    ),
)

QIANXUN = Theme(
    key="qianxun",
    project="千寻",
    domain="qianxun.ai",
    slugged=True,
    parts=(
        S("rank-service", "排序服务", ("排序服务", "rank-service"), ("排序服务", "精排服务"), role="service"),
        S("recall-service", "召回服务", ("召回服务", "recall-service"), ("召回服务",), role="service"),
        S("feature-service", "特征服务", ("特征服务", "feature-service"), ("特征服务", "在线特征"), role="service"),
        S("milvus", "Milvus", ("Milvus 向量库",), ("Milvus", "向量库"), ("19530", "19531", "29530"), "db"),
        S("redis", "Redis", ("特征缓存 Redis",), ("特征缓存", "Redis"), role="cache"),
        S("trainer", "训练任务", ("训练任务", "trainer"), ("训练任务", "训练 job"), role="worker"),
        S("kafka", "Kafka", ("样本流 Kafka",), ("样本 Kafka", "Kafka"), role="broker"),
    ),
    envs=(S("offline", "离线", ("离线实验",), ("离线环境", "实验环境")), PROD),
    people=("沈青", "卢凯", "汪洁", "邹宇", "石磊", "姚雯"),
    subjects={
        "scope": (
            S("exp-118", "实验 118", ("实验 exp-118",), ("exp-118", "118 号实验"), ("多目标 loss 加权",)),
            S(
                "exp-121",
                "实验 121",
                ("实验 exp-121",),
                ("exp-121", "121 号实验"),
                ("序列特征用 Transformer 编码", "序列特征改用 DIN"),
            ),
            S("exp-125", "实验 125", ("实验 exp-125",), ("exp-125", "125 号实验"), ("召回侧加入图向量",)),
        ),
        "date": (
            S("model-v5", "v5 模型全量", ("v5 排序模型全量",), ("v5 模型全量", "新排序模型上线")),
            S("sample-freeze", "样本冻结", ("v5 训练样本冻结",), ("样本冻结",)),
            S("kdd-deadline", "论文截稿", ("KDD 投稿截止",), ("论文截稿", "KDD 截稿")),
        ),
        "tool": (
            S(
                "training-framework",
                "训练框架",
                ("排序模型训练框架",),
                ("训练框架", "训模型用的框架"),
                ("TensorFlow 1.15", "PyTorch"),
            ),
            S("experiment", "实验管理", ("实验记录",), ("记录实验", "实验管理"), ("飞书表格", "MLflow")),
            S("ab", "AB 实验平台", ("AB 实验",), ("AB 实验", "做 AB"), ("自研分流平台",)),
            S("serving", "模型服务", ("模型在线推理",), ("模型上线推理", "模型服务化"), ("TF Serving", "Triton")),
        ),
        "version": (
            S("pytorch", "PyTorch", ("PyTorch",), ("PyTorch",), ("1.13", "2.1")),
            S("cuda", "CUDA", ("CUDA",), ("CUDA",), ("11.7", "12.1")),
        ),
        "metric": (
            S("auc", "离线 AUC", ("精排模型离线 AUC",), ("离线 AUC", "模型 AUC"), ("0.742", "0.751", "0.758")),
            S("ctr-lift", "CTR 提升", ("线上 AB 的 CTR 提升",), ("线上 CTR 涨了多少",), ("+1.8%", "+3.1%")),
            S("rank-latency", "排序耗时", ("排序服务 p99 耗时",), ("精排的耗时",), ("48ms", "31ms")),
            S("train-time", "训练耗时", ("全量训练一轮耗时",), ("训一轮要多久",), ("9 小时",)),
        ),
        "limit": (
            S("candidate-count", "召回候选数", ("召回阶段的候选数",), ("召回出多少候选",), ("2000", "1500")),
            S("gpu-quota", "GPU 配额", ("组里的 GPU 配额",), ("我们能用几张卡",), ("16 张 A100", "32 张 A100")),
            S("feature-timeout", "特征超时", ("特征服务调用超时",), ("特征服务的超时",), ("20ms", "15ms")),
            S("embedding-dim", "向量维度", ("物品向量维度",), ("embedding 维度",), ("128",)),
        ),
        "schedule": (
            S("daily-train", "日更训练", ("模型日更训练",), ("每天的增量训练",), ("每天凌晨 3 点", "每天凌晨 1 点")),
            S("index-rebuild", "向量索引重建", ("向量索引重建",), ("索引重建",), ("每 6 小时",)),
        ),
        "flag": (S("v5-traffic", "v5 放量", ("v5 模型流量",), ("v5 模型",), ("5% 流量", "30% 流量", "全部流量")),),
        "tracker": (
            S("badcase", "bad case", ("bad case 反馈",), ("推荐 bad case",), ("飞书多维表格「推荐 badcase」",)),
        ),
        "channel": (
            S(
                "train-notice",
                "训练通知",
                ("训练完成通知",),
                ("训练完成通知",),
                ("飞书群「千寻训练」", "飞书群「推荐算法-训练」"),
            ),
            S("ab-report", "AB 日报", ("AB 实验日报",), ("AB 日报",), ("飞书群「推荐 AB」",)),
        ),
    },
    items=(
        _item(
            "label-leak",
            P,
            ("为什么之前离线 AUC 很高上线却没效果？",),
            V(
                "特征穿越",
                "feature-leakage",
                "之前离线 AUC 虚高是特征穿越：用了曝光之后才产生的点击统计",
                "v4 离线 AUC 虚高的原因：物品的「近 1 小时点击数」用的是样本时间之后的数据，特征穿越。"
                "修复后离线 AUC 掉了 1.2 个点，线上才对得上。\n"
                "**Why:** 教训要记住。\n"
                "**How to apply:** 新统计特征必须按样本时间点截断。",
            ),
        ),
        _item(
            "eval-rule",
            F,
            ("只跑一个随机种子的结果能直接汇报吗？",),
            V(
                "实验结论要多跑几次",
                "multi-seed-results",
                "离线实验结论至少跑 3 个随机种子，报均值和方差",
                "离线对比至少 3 个种子，汇报均值 ± 标准差。\n"
                "**Why:** 单种子 +0.3 个点的提升重跑就没了。\n"
                "**How to apply:** 三个种子一起提交。",
            ),
        ),
        _item(
            "sample-ratio",
            P,
            ("负样本采样比例是多少？",),
            V(
                "负采样比例",
                "negative-sampling-ratio",
                "训练样本负采样 1:4（正:负）",
                "精排训练样本按正负 1:4 采样，评估集不采样。\n"
                "**Why:** 全量负样本训练太慢，1:4 效果几乎不掉。\n"
                "**How to apply:** 采样后要做校准，否则线上 pCTR 偏高。",
            ),
            V(
                "负采样比例调整",
                "negative-sampling-ratio-v2",
                "负采样改为 1:8，并加了 hard negative",
                "v5 起负采样改成 1:8，其中一半是召回阶段的 hard negative。\n"
                "**Why:** 1:4 对热门物品区分度不够。\n"
                "**How to apply:** 校准系数要跟着重新算。",
            ),
        ),
        _item(
            "feature-doc",
            R,
            ("特征清单在哪里看？",),
            V(
                "特征清单",
                "feature-catalog",
                "全部在线特征的定义和负责人在飞书文档「千寻特征字典」",
                "在线特征的定义、更新频率、负责人都在飞书文档「千寻特征字典」里，新增特征要先登记。",
            ),
        ),
    ),
)

ZHIXING = Theme(
    key="zhixing",
    project="知行课堂",
    domain="zhixing.edu",
    parts=(
        S(
            "signaling",
            "信令服务",
            ("信令服务", "signaling"),
            ("信令服务", "信令"),
            ("8443", "9443", "7443"),
            "service",
        ),
        S(
            "sfu",
            "SFU",
            ("SFU 媒体服务", "mediasoup 节点"),
            ("媒体服务器", "SFU"),
            ("40000", "44443", "3478"),
            "service",
        ),
        S("recording", "录制服务", ("录制服务", "recording-worker"), ("录制服务", "课程录制"), role="worker"),
        S("class-db", "课程库", ("课程库 MySQL",), ("课程库", "课程数据库"), ("3306", "3307", "3316"), "db"),
        S("redis", "Redis", ("房间状态 Redis",), ("房间状态缓存", "Redis"), role="cache"),
        S("teacher-web", "教师端", ("教师端 Web", "teacher-web"), ("教师端", "老师用的网页"), role="web"),
    ),
    envs=(TEST, PROD),
    people=("方敏", "钱坤", "魏然", "唐糖", "龙飞", "白洁", "柳青"),
    subjects={
        "scope": (
            S("sprint-21", "迭代 21", ("第 21 个迭代",), ("迭代 21", "第 21 迭代"), ("白板多页和课件上传",)),
            S(
                "sprint-22",
                "迭代 22",
                ("第 22 个迭代",),
                ("迭代 22", "第 22 迭代"),
                ("举手连麦改版", "举手连麦和课堂奖励"),
            ),
            S("sprint-23", "迭代 23", ("第 23 个迭代",), ("迭代 23", "第 23 迭代"), ("家长端回放",)),
        ),
        "date": (
            S("term-start", "秋季开学", ("秋季学期开课",), ("秋季开课", "开学")),
            S("whiteboard-launch", "新白板上线", ("新版互动白板上线",), ("新白板上线",)),
            S("school-pilot", "学校试点", ("合作学校试点",), ("学校试点",)),
        ),
        "tool": (
            S("rtc", "音视频", ("实时音视频方案",), ("音视频方案", "RTC"), ("声网 SDK", "自建 mediasoup")),
            S("whiteboard", "白板", ("互动白板",), ("白板组件",), ("网易云信白板", "自研 Canvas 白板")),
            S("frontend-test", "前端测试", ("前端单元测试",), ("前端单测",), ("Jest", "Vitest")),
            S("transcode", "转码", ("录制文件转码",), ("录播转码",), ("FFmpeg",)),
        ),
        "version": (
            S("mediasoup", "mediasoup", ("mediasoup",), ("mediasoup",), ("3.11", "3.13")),
            S("vue", "Vue", ("Vue",), ("Vue",), ("2.7", "3.4")),
        ),
        "metric": (
            S("join-time", "进房耗时", ("学生进房耗时",), ("进教室要多久", "进房速度"), ("3.1 秒", "1.6 秒")),
            S("stall-rate", "卡顿率", ("直播卡顿率",), ("卡顿率",), ("4.2%", "1.9%")),
            S("max-room", "单房间人数", ("单房间压测人数",), ("一个房间能扛多少人",), ("300 人", "800 人")),
            S("record-fail", "录制失败率", ("录制失败率",), ("录制失败的比例",), ("0.5%",)),
        ),
        "limit": (
            S("room-cap", "房间人数上限", ("大班课人数上限",), ("大班课最多多少人",), ("500", "1000")),
            S("bitrate", "码率上限", ("老师推流码率上限",), ("老师推流码率",), ("1.5 Mbps", "2.5 Mbps")),
            S("reconnect", "重连次数", ("断线自动重连次数",), ("断线重连几次",), ("5 次",)),
            S("replay-ttl", "回放保留", ("课程回放保留时长",), ("回放保存多久",), ("90 天", "180 天")),
        ),
        "schedule": (
            S("transcode-job", "转码任务", ("回放转码任务",), ("回放转码",), ("下课后 5 分钟内触发", "每 15 分钟批量")),
            S("attendance", "考勤统计", ("考勤统计",), ("出勤统计",), ("每天晚上 11 点",)),
        ),
        "flag": (
            S("ai-caption", "AI 字幕", ("AI 实时字幕",), ("实时字幕",), ("试点学校", "全部付费学校")),
            S("raise-hand-v2", "新举手", ("新版举手连麦",), ("新举手功能",), ("内部老师",)),
        ),
        "tracker": (
            S("class-incidents", "课堂事故", ("课堂事故反馈",), ("上课出问题的反馈",), ("Teambition「课堂事故」",)),
        ),
        "channel": (
            S(
                "live-alerts",
                "直播告警",
                ("直播质量告警",),
                ("直播告警",),
                ("钉钉群「直播质量」", "飞书群「知行直播告警」"),
            ),
            S("school-ops", "学校运营", ("和学校运营的沟通",), ("跟学校对接",), ("企业微信群「知行-学校运营」",)),
        ),
    },
    items=(
        _item(
            "turn-server",
            P,
            ("学校网络下连不上音视频是怎么回事？",),
            V(
                "学校网络穿透",
                "turn-over-tls",
                "很多学校防火墙封 UDP，必须走 TURN over TLS 443",
                "部分学校的防火墙只放行 443，UDP 全封，必须走 TURN over TLS（443 端口）。\n"
                "**Why:** 试点学校有三所连不上。\n"
                "**How to apply:** 排查连不上的问题先看是不是走了 TURN。",
            ),
        ),
        _item(
            "minor-privacy",
            P,
            ("学生的录像能给第三方用吗？",),
            V(
                "未成年人隐私",
                "minor-privacy",
                "学生画面的录像只能用于回放，不得用于训练或外发",
                "学生都是未成年人，录像只能给本班回放，不能用来训练模型，也不能给第三方。\n"
                "**Why:** 合同和法规要求。\n"
                "**How to apply:** 任何导出录像的功能都要法务评审。",
            ),
        ),
        _item(
            "class-state",
            P,
            ("教室状态存在哪？",),
            V(
                "课堂状态存储",
                "class-state-redis",
                "课堂实时状态（举手、白板页码）存在 Redis hash，下课落库",
                "课堂实时状态放 Redis hash `room:{id}`，下课后再写回课程库。\n"
                "**Why:** 高频更新直接写 MySQL 扛不住。\n"
                "**How to apply:** 新增课堂状态字段放在这个 hash 里。",
            ),
            V(
                "课堂状态改存信令服务内存",
                "class-state-in-signaling",
                "课堂状态改由信令服务内存持有，Redis 只做快照",
                "课堂状态改由负责该房间的信令节点内存持有，每 5 秒快照到 Redis，下课落库。\n"
                "**Why:** Redis 往返让举手延迟明显。\n"
                "**How to apply:** 房间必须固定路由到同一个信令节点。",
            ),
        ),
        _item(
            "school-contacts",
            R,
            ("试点学校那边对接人是谁？",),
            V(
                "学校对接人",
                "pilot-school-contacts",
                "试点学校对接人名单在 Teambition 文档「试点学校联系人」",
                "三所试点学校的信息老师、教务对接人和电话都在 Teambition 文档「试点学校联系人」里。",
            ),
        ),
    ),
)

THEMES = (YIGOU, SHIGUANG, GUANLAN, TIANSHU, QIANXUN, ZHIXING)
