# ruff: noqa: E501  (memories are written as one line each, the way they are saved)
"""The stores and queries of the multilingual recall benchmark (``bench/recall_multilingual.py``).

Fifty memories a coding agent would keep for a team (feedback, project facts, references, user
profile), each written in English, Chinese, Japanese, Korean and the mixed Chinese–English developers
type, the way a person would save it in that language rather than a word-for-word translation. Each
comes with one question a developer might ask later, which paraphrases the memory instead of
repeating it: other words, other word order, sometimes only the situation. The memories share a
vocabulary on purpose (several about tests, the database, deploys, reviews), so a question has to
find its memory among near neighbours.

Each entry: ``(type, {language: (name, description, body, query)})``.
"""

from __future__ import annotations

LANGUAGES = ("en", "zh", "ja", "ko", "mix")

Entry = tuple[str, str, str, str]

TOPICS: list[tuple[str, dict[str, Entry]]] = [
    (
        "feedback",
        {
            "en": (
                "Real database in integration tests",
                "Integration tests must connect to a real database, never mocks",
                "Last quarter a mocked test passed while the migration was broken in production.",
                "can I fake the DB when writing integration tests?",
            ),
            "zh": (
                "集成测试用真实数据库",
                "集成测试必须连接真实的数据库，禁止使用mock",
                "上个季度 mock 的测试通过了，但生产环境的迁移是坏的。",
                "写集成测试的时候可以用假的数据库吗？",
            ),
            "ja": (
                "結合テストは本物のDB",
                "結合テストでは必ず本物のデータベースに接続し、モックは使わない",
                "前四半期、モックのテストは通ったのに本番のマイグレーションが壊れていた。",
                "インテグレーションテストでDBをスタブにしてもいい？",
            ),
            "ko": (
                "통합 테스트는 실제 DB 사용",
                "통합 테스트는 반드시 실제 데이터베이스에 연결하고 목을 쓰지 않는다",
                "지난 분기에 목 테스트는 통과했지만 운영 마이그레이션이 깨져 있었다.",
                "통합 테스트 작성할 때 가짜 데이터베이스 써도 돼?",
            ),
            "mix": (
                "integration test 用真实 DB",
                "integration test 必须连真实的 database，不要 mock",
                "上季度 mock 过了但 prod 的 migration 挂了。",
                "写 integration test 能不能 fake 一下 DB？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Short PR descriptions",
                "Keep pull request descriptions short: what changed and how to test, no essays",
                "Reviewers said long summaries hide the one line that matters.",
                "how much should I write in the PR summary?",
            ),
            "zh": (
                "PR 描述要简短",
                "合并请求的描述写短一点：改了什么、怎么验证，不要长篇大论",
                "评审说长的总结会把真正重要的那一行埋掉。",
                "提交合并请求时说明文字写多长合适？",
            ),
            "ja": (
                "PRの説明は短く",
                "プルリクエストの説明は短く：何を変えたかと確認方法だけ、長文は不要",
                "長い要約は大事な一行を埋もれさせるとレビュアーに言われた。",
                "プルリクの本文ってどのくらい書けばいい？",
            ),
            "ko": (
                "PR 설명은 짧게",
                "풀 리퀘스트 설명은 짧게: 무엇을 바꿨고 어떻게 확인하는지만, 장문 금지",
                "리뷰어들이 긴 요약은 중요한 한 줄을 묻어 버린다고 했다.",
                "PR 본문은 얼마나 자세히 써야 해?",
            ),
            "mix": (
                "PR description 要短",
                "PR description 写短点：改了啥、怎么 test，别写小作文",
                "reviewer 说太长的 summary 会把重点埋了。",
                "PR 的说明要写多详细？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Payments release freeze",
                "Payment service code freeze starts Thursday before the Friday release; merges need the lead's approval",
                "The freeze protects the quarterly billing run.",
                "can I still merge into the billing service this week?",
            ),
            "zh": (
                "支付服务发布冻结",
                "支付服务周五发版，周四开始代码冻结，合并需要负责人批准",
                "冻结是为了保护季度结算。",
                "这周还能往支付那边合代码吗？",
            ),
            "ja": (
                "決済サービスのリリース凍結",
                "決済サービスは金曜リリースのため木曜からコード凍結、マージにはリードの承認が必要",
                "凍結は四半期の請求処理を守るため。",
                "今週、課金まわりにまだマージできる？",
            ),
            "ko": (
                "결제 서비스 릴리스 동결",
                "결제 서비스는 금요일 배포라 목요일부터 코드 동결, 머지는 리드 승인 필요",
                "동결은 분기 정산을 보호하기 위한 것이다.",
                "이번 주에 결제 쪽에 코드 합쳐도 돼?",
            ),
            "mix": (
                "payment service release freeze",
                "支付 service 周五 release，周四开始 code freeze，merge 要 lead approve",
                "freeze 是为了季度结算不出问题。",
                "这周还能往 payment 合 PR 吗？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "No force push to shared branches",
                "Never force-push to main or release branches; use a revert commit instead",
                "A force push once erased a teammate's hotfix.",
                "I messed up main, should I rewrite its history?",
            ),
            "zh": (
                "共享分支禁止强推",
                "不要对主分支或发布分支强制推送，用回滚提交代替",
                "有一次强推把同事的紧急修复覆盖掉了。",
                "主干被我搞乱了，能直接改写历史吗？",
            ),
            "ja": (
                "共有ブランチへの強制プッシュ禁止",
                "mainやリリースブランチに強制プッシュしない。代わりにリバートコミットを使う",
                "以前、強制プッシュで同僚のホットフィックスが消えた。",
                "mainを壊しちゃった、履歴を書き換えてもいい？",
            ),
            "ko": (
                "공유 브랜치 강제 푸시 금지",
                "main이나 릴리스 브랜치에 강제 푸시하지 말고 되돌리기 커밋을 사용한다",
                "예전에 강제 푸시로 동료의 핫픽스가 사라졌다.",
                "main을 망가뜨렸는데 히스토리를 다시 써도 될까?",
            ),
            "mix": (
                "shared branch 禁止 force push",
                "main 和 release branch 不要 force push，用 revert commit",
                "之前 force push 把同事的 hotfix 冲掉了。",
                "main 被我弄乱了，可以 rewrite history 吗？",
            ),
        },
    ),
    (
        "user",
        {
            "en": (
                "User is a backend engineer new to React",
                "The user writes Go on the backend and is new to React; explain frontend ideas through backend analogies",
                "They have ten years of Go and first touched the frontend this month.",
                "how should I explain hooks and components to them?",
            ),
            "zh": (
                "用户是刚接触 React 的后端工程师",
                "用户做后端写 Go，刚开始学 React；讲前端概念时用后端的类比",
                "写了十年 Go，这个月第一次碰前端。",
                "给他讲前端组件和状态的时候该怎么讲？",
            ),
            "ja": (
                "ユーザーはReact初心者のバックエンドエンジニア",
                "ユーザーはバックエンドでGoを書いていてReactは初めて。フロントの概念はバックエンドの例えで説明する",
                "Go歴十年、フロントエンドは今月が初めて。",
                "コンポーネントや状態管理をどう説明すればいい？",
            ),
            "ko": (
                "사용자는 React가 처음인 백엔드 엔지니어",
                "사용자는 백엔드에서 Go를 쓰고 React는 처음이다. 프런트엔드 개념은 백엔드 비유로 설명한다",
                "Go 경력 10년, 프런트엔드는 이번 달이 처음이다.",
                "컴포넌트랑 상태 관리를 어떻게 설명하면 좋을까?",
            ),
            "mix": (
                "用户是 React 新手的 backend 工程师",
                "用户写 Go 做 backend，React 刚入门；讲 frontend 概念用 backend 类比",
                "十年 Go 经验，这个月才开始碰 frontend。",
                "跟他解释 component 和 state 该怎么讲？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Pipeline bugs tracked in Linear",
                "Bugs in the data pipeline are tracked in the Linear project INGEST",
                "Not in GitHub issues; the data team triages INGEST every morning.",
                "where do I file a problem with the ETL jobs?",
            ),
            "zh": (
                "数据管道的问题记在 Linear",
                "数据管道的缺陷统一记录在 Linear 的 INGEST 项目里",
                "不在 GitHub issue 里；数据组每天早上过一遍 INGEST。",
                "ETL 任务出问题了去哪里提单？",
            ),
            "ja": (
                "データパイプラインの不具合はLinearで管理",
                "データパイプラインのバグはLinearのINGESTプロジェクトで管理している",
                "GitHubのissueではない。データチームが毎朝INGESTをトリアージする。",
                "ETLジョブの障害はどこに起票すればいい？",
            ),
            "ko": (
                "데이터 파이프라인 버그는 Linear에서 관리",
                "데이터 파이프라인 버그는 Linear의 INGEST 프로젝트에서 추적한다",
                "GitHub 이슈가 아니다. 데이터 팀이 매일 아침 INGEST를 분류한다.",
                "ETL 작업에 문제가 생기면 어디에 티켓을 올려?",
            ),
            "mix": (
                "pipeline bug 记在 Linear",
                "data pipeline 的 bug 都在 Linear 的 INGEST project 里跟踪",
                "不是 GitHub issue；data team 每天早上 triage INGEST。",
                "ETL job 出问题了在哪提 ticket？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Run the linter before committing",
                "Always run ruff and mypy locally before committing; CI rejects lint failures",
                "Three red builds in one week came from unformatted files.",
                "anything I should check on my machine before I push?",
            ),
            "zh": (
                "提交前先跑代码检查",
                "提交之前一定要在本地跑 ruff 和 mypy，CI 会拒绝不合规范的代码",
                "一周里三次构建失败都是因为没格式化。",
                "推送之前本地需要先做什么检查？",
            ),
            "ja": (
                "コミット前にリンターを実行",
                "コミット前に必ずローカルでruffとmypyを実行する。CIはリントエラーを拒否する",
                "一週間で三回ビルドが赤くなったのは全部フォーマット漏れだった。",
                "プッシュする前に手元で確認しておくことはある？",
            ),
            "ko": (
                "커밋 전에 린터 실행",
                "커밋하기 전에 항상 로컬에서 ruff와 mypy를 돌린다. CI는 린트 실패를 거부한다",
                "한 주에 빌드가 세 번 깨진 게 모두 포맷 누락 때문이었다.",
                "푸시하기 전에 내 컴퓨터에서 확인할 게 있어?",
            ),
            "mix": (
                "commit 前先跑 lint",
                "commit 之前本地一定跑 ruff 和 mypy，CI 会 reject lint 报错",
                "一周三次 build 红了都是没 format。",
                "push 之前本地要先 check 什么？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Postgres 16 upgrade",
                "The main database moves from PostgreSQL 13 to 16 on the March 12 maintenance window",
                "Extensions pg_partman and pgvector must be rebuilt first.",
                "when is the database version bump happening?",
            ),
            "zh": (
                "PostgreSQL 16 升级",
                "主库在3月12日的维护窗口从 PostgreSQL 13 升到 16",
                "pg_partman 和 pgvector 扩展要先重新编译。",
                "数据库什么时候换新版本？",
            ),
            "ja": (
                "PostgreSQL 16へのアップグレード",
                "メインDBは3月12日のメンテナンス枠でPostgreSQL 13から16に上げる",
                "pg_partmanとpgvectorの拡張を先にビルドし直す必要がある。",
                "データベースのバージョンアップはいつ？",
            ),
            "ko": (
                "PostgreSQL 16 업그레이드",
                "메인 데이터베이스는 3월 12일 점검 시간에 PostgreSQL 13에서 16으로 올린다",
                "pg_partman과 pgvector 확장을 먼저 다시 빌드해야 한다.",
                "DB 버전 올리는 작업 언제 해?",
            ),
            "mix": (
                "Postgres 16 upgrade",
                "主库 3月12日 maintenance window 从 PostgreSQL 13 升到 16",
                "pg_partman 和 pgvector extension 要先 rebuild。",
                "DB 啥时候升级版本？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Explain in Chinese, code in English",
                "Answer the user in Chinese but keep code, identifiers and commit messages in English",
                "The repository is shared with an overseas team.",
                "which language should the commit messages be in?",
            ),
            "zh": (
                "解释用中文，代码用英文",
                "回答用户用中文，但代码、变量名和提交信息都用英文",
                "仓库和海外团队共用。",
                "commit 的说明该用哪种语言写？",
            ),
            "ja": (
                "説明は中国語、コードは英語",
                "ユーザーへの回答は中国語で、コードや識別子、コミットメッセージは英語で書く",
                "リポジトリは海外チームと共有している。",
                "コミットメッセージは何語で書くべき？",
            ),
            "ko": (
                "설명은 중국어, 코드는 영어",
                "사용자에게는 중국어로 답하고 코드, 식별자, 커밋 메시지는 영어로 쓴다",
                "저장소를 해외 팀과 함께 쓴다.",
                "커밋 메시지는 어느 언어로 써야 해?",
            ),
            "mix": (
                "解释用中文，code 用英文",
                "回答用中文，但 code、变量名和 commit message 都用 English",
                "repo 和海外 team 共用。",
                "commit message 用什么语言写？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "On-call latency dashboard",
                "The Grafana board 'api-latency' is what on-call checks first when requests slow down",
                "It shows p50/p99 per endpoint and the database pool saturation.",
                "the API feels slow, which graphs should I open?",
            ),
            "zh": (
                "值班看的延迟面板",
                "接口变慢时值班先看 Grafana 的 api-latency 面板",
                "上面有每个接口的 p50/p99 和数据库连接池占用。",
                "接口响应很慢，应该先看哪个监控图？",
            ),
            "ja": (
                "オンコール用レイテンシダッシュボード",
                "リクエストが遅いとき、オンコールはまずGrafanaのapi-latencyボードを見る",
                "エンドポイントごとのp50/p99とDB接続プールの飽和度が出ている。",
                "APIが重い気がする、どのグラフを見ればいい？",
            ),
            "ko": (
                "온콜 지연 시간 대시보드",
                "요청이 느려지면 온콜은 먼저 Grafana의 api-latency 보드를 확인한다",
                "엔드포인트별 p50/p99와 DB 커넥션 풀 포화도가 나온다.",
                "API가 느린데 어떤 그래프부터 봐야 해?",
            ),
            "mix": (
                "on-call 看的 latency dashboard",
                "API 变慢时 on-call 先看 Grafana 的 api-latency board",
                "有每个 endpoint 的 p50/p99 和 DB pool 使用率。",
                "接口好慢，先看哪个 Grafana 图？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Small commits",
                "Split work into small commits that each build and pass tests; no giant squashed commits",
                "Bisecting a regression through a 3,000-line commit took a day.",
                "is it fine to put the whole feature into one big commit?",
            ),
            "zh": (
                "小步提交",
                "把工作拆成小的提交，每个都能编译并通过测试，不要一个巨大的合并提交",
                "在一个三千行的提交里二分查找回归花了一整天。",
                "整个功能放在一个大提交里可以吗？",
            ),
            "ja": (
                "コミットは小さく",
                "作業は小さなコミットに分け、それぞれがビルドとテストを通るようにする。巨大なコミットは禁止",
                "3000行のコミットでリグレッションを二分探索するのに丸一日かかった。",
                "機能全部をひとつのコミットにまとめてもいい？",
            ),
            "ko": (
                "커밋은 작게",
                "작업을 작은 커밋으로 나누고 각각 빌드와 테스트가 통과해야 한다. 거대한 커밋 금지",
                "3천 줄짜리 커밋에서 회귀를 이분 탐색하느라 하루가 걸렸다.",
                "기능 전체를 커밋 하나로 올려도 괜찮아?",
            ),
            "mix": (
                "commit 要小",
                "拆成小 commit，每个都能 build 过 test，别搞一个巨大的 commit",
                "之前在一个三千行的 commit 里 bisect regression 花了一天。",
                "整个 feature 一个 commit 提上去行不行？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Mobile app minimum iOS version",
                "The mobile app now supports iOS 16 and later; code for iOS 15 can be deleted",
                "Analytics showed under 1% of sessions on iOS 15.",
                "do we still need the workarounds for older iPhones?",
            ),
            "zh": (
                "移动端最低 iOS 版本",
                "App 现在只支持 iOS 16 及以上，iOS 15 的兼容代码可以删掉",
                "统计显示 iOS 15 的会话不到 1%。",
                "老 iPhone 的兼容处理还要保留吗？",
            ),
            "ja": (
                "モバイルアプリの最低iOSバージョン",
                "アプリはiOS 16以上のみ対応になったので、iOS 15向けのコードは削除してよい",
                "分析ではiOS 15のセッションは1%未満だった。",
                "古いiPhone向けの回避策はまだ必要？",
            ),
            "ko": (
                "모바일 앱 최소 iOS 버전",
                "앱은 이제 iOS 16 이상만 지원하므로 iOS 15용 코드는 지워도 된다",
                "분석 결과 iOS 15 세션은 1% 미만이었다.",
                "예전 아이폰용 우회 코드 아직 필요해?",
            ),
            "mix": (
                "App 最低 iOS 版本",
                "App 只支持 iOS 16+，iOS 15 的 workaround 代码可以删",
                "analytics 显示 iOS 15 session 不到 1%。",
                "老 iPhone 的 workaround 还要留吗？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Ask before adding dependencies",
                "Ask the user before adding any new third-party dependency to the project",
                "Every new package needs a licence review by legal.",
                "can I just pip install a library to parse dates?",
            ),
            "zh": (
                "加依赖前先问",
                "给项目引入任何新的第三方依赖之前都要先问用户",
                "每个新包都要经过法务的许可证审核。",
                "我能直接装个库来解析日期吗？",
            ),
            "ja": (
                "依存関係の追加は事前確認",
                "新しいサードパーティの依存関係を追加する前に必ずユーザーに確認する",
                "新しいパッケージはすべて法務のライセンス審査が必要。",
                "日付をパースするライブラリを勝手に入れてもいい？",
            ),
            "ko": (
                "의존성 추가 전에 확인",
                "새 서드파티 의존성을 프로젝트에 추가하기 전에 반드시 사용자에게 묻는다",
                "새 패키지는 모두 법무팀의 라이선스 검토가 필요하다.",
                "날짜 파싱하려고 라이브러리 그냥 설치해도 돼?",
            ),
            "mix": (
                "加 dependency 前先问",
                "引入任何新的第三方 dependency 之前先问用户",
                "每个新 package 都要法务做 license review。",
                "能直接 pip install 一个 library 来 parse 日期吗？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Staging credentials in Vault",
                "Staging database credentials live in Vault under secret/staging/db, never in .env files",
                "Rotated weekly by the platform team.",
                "where do I get the password for the test environment database?",
            ),
            "zh": (
                "预发环境的凭据在 Vault",
                "预发环境数据库的账号密码存在 Vault 的 secret/staging/db，不要写进 .env",
                "平台组每周轮换一次。",
                "测试环境数据库的密码去哪拿？",
            ),
            "ja": (
                "ステージングの認証情報はVault",
                "ステージングDBの認証情報はVaultのsecret/staging/dbにある。.envには書かない",
                "プラットフォームチームが毎週ローテーションしている。",
                "検証環境のデータベースのパスワードはどこにある？",
            ),
            "ko": (
                "스테이징 자격 증명은 Vault에",
                "스테이징 데이터베이스 자격 증명은 Vault의 secret/staging/db에 있고 .env 파일에 넣지 않는다",
                "플랫폼 팀이 매주 교체한다.",
                "테스트 환경 DB 비밀번호는 어디서 받아?",
            ),
            "mix": (
                "staging credential 在 Vault",
                "staging DB 的 credential 放在 Vault 的 secret/staging/db，别写进 .env",
                "platform team 每周 rotate。",
                "staging 数据库 password 去哪拿？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Type hints everywhere",
                "All new Python code needs full type hints and must pass mypy in strict mode",
                "Untyped helpers caused two None errors in production last month.",
                "do I need to annotate this small helper function?",
            ),
            "zh": (
                "到处都要类型注解",
                "所有新的 Python 代码都要写完整的类型注解，并通过 mypy 严格模式",
                "上个月没写类型的辅助函数在线上出了两次 None 错误。",
                "这个小工具函数也要加类型标注吗？",
            ),
            "ja": (
                "型ヒントは必須",
                "新しいPythonコードにはすべて型ヒントを付け、mypyのstrictモードを通すこと",
                "先月、型のないヘルパーが本番でNoneエラーを二回起こした。",
                "この小さいヘルパー関数にも型注釈いる？",
            ),
            "ko": (
                "타입 힌트 필수",
                "새 Python 코드는 모두 타입 힌트를 달고 mypy strict 모드를 통과해야 한다",
                "지난달 타입 없는 헬퍼 때문에 운영에서 None 오류가 두 번 났다.",
                "이 작은 헬퍼 함수에도 타입 표시해야 해?",
            ),
            "mix": (
                "type hint 必须写全",
                "新的 Python 代码都要 type hint，mypy strict 要过",
                "上个月没 type 的 helper 在 prod 出了两次 None error。",
                "这个小 helper 也要加 type annotation 吗？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Search rewrite owner",
                "Mei owns the search service rewrite; API changes to search go through her",
                "The rewrite replaces Elasticsearch with OpenSearch by June.",
                "who should review my change to the search endpoint?",
            ),
            "zh": (
                "搜索重写的负责人",
                "搜索服务重写由小美负责，搜索相关的接口改动都要经过她",
                "重写要在六月前把 Elasticsearch 换成 OpenSearch。",
                "我改了搜索接口，该找谁审？",
            ),
            "ja": (
                "検索リライトの担当者",
                "検索サービスのリライトはメイさんの担当。検索APIの変更は彼女を通す",
                "リライトでは6月までにElasticsearchをOpenSearchに置き換える。",
                "検索のエンドポイントを変えたけど、誰にレビューを頼めばいい？",
            ),
            "ko": (
                "검색 재작성 담당자",
                "검색 서비스 재작성은 메이가 맡고 있어서 검색 API 변경은 그녀를 거친다",
                "재작성은 6월까지 Elasticsearch를 OpenSearch로 바꾼다.",
                "검색 엔드포인트 수정했는데 누구한테 리뷰 받아야 해?",
            ),
            "mix": (
                "search rewrite owner",
                "search service 重写是 Mei 负责，search 的 API 改动都要过她",
                "六月前 Elasticsearch 换成 OpenSearch。",
                "我改了 search endpoint，找谁 review？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "No print debugging left behind",
                "Remove print statements and debug logging before opening a pull request",
                "Stray prints once leaked customer emails into logs.",
                "I added some console output while debugging, is that ok to ship?",
            ),
            "zh": (
                "不要留下调试输出",
                "提合并请求之前把 print 语句和调试日志都删掉",
                "有一次残留的 print 把客户邮箱打进了日志。",
                "调试时加了一些打印，能直接带上线吗？",
            ),
            "ja": (
                "デバッグ出力を残さない",
                "プルリクエストを出す前にprint文やデバッグログは消すこと",
                "残っていたprintで顧客のメールアドレスがログに漏れたことがある。",
                "デバッグ中に出力を入れたけど、そのままリリースしていい？",
            ),
            "ko": (
                "디버그 출력 남기지 않기",
                "풀 리퀘스트를 올리기 전에 print 문과 디버그 로그를 지운다",
                "남아 있던 print 때문에 고객 이메일이 로그에 유출된 적이 있다.",
                "디버깅하면서 출력문을 넣었는데 그대로 배포해도 돼?",
            ),
            "mix": (
                "别留 debug 输出",
                "提 PR 之前把 print 和 debug log 删干净",
                "之前残留的 print 把客户 email 打到 log 里了。",
                "debug 时加了点打印，能直接上线吗？",
            ),
        },
    ),
    (
        "user",
        {
            "en": (
                "User prefers concise answers",
                "The user wants short, direct answers with code first and no long explanations",
                "They said they skim and only read the code.",
                "should I give a detailed walkthrough of the fix?",
            ),
            "zh": (
                "用户喜欢简洁的回答",
                "用户希望回答简短直接，先给代码，不要长篇解释",
                "他说自己只扫一眼，只看代码。",
                "要不要把修复过程详细讲一遍？",
            ),
            "ja": (
                "ユーザーは簡潔な回答を好む",
                "ユーザーは短く率直な回答を望んでいる。コードを先に、長い説明は不要",
                "ざっと眺めてコードしか読まないと言っていた。",
                "修正の流れを詳しく説明したほうがいい？",
            ),
            "ko": (
                "사용자는 간결한 답변을 선호",
                "사용자는 짧고 직접적인 답을 원한다. 코드를 먼저, 긴 설명은 빼고",
                "대충 훑어보고 코드만 읽는다고 했다.",
                "수정 과정을 자세히 설명해 줄까?",
            ),
            "mix": (
                "用户喜欢简洁回答",
                "用户要短而直接的回答，code 先给，别长篇解释",
                "他说只 skim 一下，只看 code。",
                "要不要详细 walkthrough 一下这个 fix？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Feature flags via LaunchDarkly",
                "New user-facing features ship behind a LaunchDarkly flag, default off",
                "Product wants to enable them per customer.",
                "how do I roll out the new checkout page gradually?",
            ),
            "zh": (
                "功能开关用 LaunchDarkly",
                "面向用户的新功能都要放在 LaunchDarkly 开关后面，默认关闭",
                "产品希望按客户逐个打开。",
                "新的结算页面要怎么逐步放量？",
            ),
            "ja": (
                "機能フラグはLaunchDarkly",
                "ユーザー向けの新機能はLaunchDarklyのフラグの後ろに置き、デフォルトはオフ",
                "プロダクト側は顧客ごとに有効化したい。",
                "新しいチェックアウト画面を段階的に公開するには？",
            ),
            "ko": (
                "기능 플래그는 LaunchDarkly",
                "사용자에게 보이는 새 기능은 LaunchDarkly 플래그 뒤에 두고 기본값은 꺼짐",
                "제품팀은 고객별로 켜고 싶어 한다.",
                "새 결제 화면을 점진적으로 출시하려면 어떻게 해?",
            ),
            "mix": (
                "feature flag 用 LaunchDarkly",
                "面向用户的新 feature 都放在 LaunchDarkly flag 后面，默认 off",
                "产品想按 customer 逐个打开。",
                "新的 checkout 页面怎么灰度上线？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Migrations must be reversible",
                "Every database migration needs a working down migration and must be tested on a copy of production",
                "An irreversible column drop cost a night of restoring backups.",
                "is it ok to write a schema change without a rollback?",
            ),
            "zh": (
                "迁移必须可回滚",
                "每个数据库迁移都要有可用的回滚脚本，并在生产数据副本上测过",
                "一次不可逆的删列让我们恢复备份恢复了一整晚。",
                "改表结构可以不写回退吗？",
            ),
            "ja": (
                "マイグレーションは可逆に",
                "DBマイグレーションには必ず動くdownを用意し、本番のコピーで試すこと",
                "不可逆なカラム削除でバックアップ復元に一晩かかった。",
                "スキーマ変更をロールバックなしで書いてもいい？",
            ),
            "ko": (
                "마이그레이션은 되돌릴 수 있게",
                "모든 데이터베이스 마이그레이션은 동작하는 down 스크립트가 있어야 하고 운영 복사본에서 테스트한다",
                "되돌릴 수 없는 컬럼 삭제 때문에 백업 복구에 하룻밤이 걸렸다.",
                "스키마 변경을 롤백 없이 작성해도 돼?",
            ),
            "mix": (
                "migration 必须能 rollback",
                "每个 DB migration 都要有能用的 down，并在 prod 副本上测过",
                "一次不可逆的 drop column 让我们 restore backup 到半夜。",
                "改 schema 可以不写 rollback 吗？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "API style guide",
                "REST endpoints follow the team's API guide in docs/api-style.md: plural nouns, cursor pagination",
                "Offset pagination is banned for new endpoints.",
                "how should I paginate the new list endpoint?",
            ),
            "zh": (
                "接口风格规范",
                "REST 接口遵循 docs/api-style.md 里的团队规范：资源名用复数，分页用游标",
                "新接口禁止用 offset 分页。",
                "新的列表接口分页该怎么做？",
            ),
            "ja": (
                "APIスタイルガイド",
                "RESTエンドポイントはdocs/api-style.mdのチームのガイドに従う：名詞は複数形、ページングはカーソル方式",
                "新しいエンドポイントでのoffsetページングは禁止。",
                "新しい一覧APIのページ分けはどうすればいい？",
            ),
            "ko": (
                "API 스타일 가이드",
                "REST 엔드포인트는 docs/api-style.md의 팀 가이드를 따른다: 복수형 명사, 커서 페이지네이션",
                "새 엔드포인트에서 offset 페이지네이션은 금지다.",
                "새 목록 API는 페이지를 어떻게 나눠야 해?",
            ),
            "mix": (
                "API style guide",
                "REST endpoint 按 docs/api-style.md 的规范：复数名词，cursor 分页",
                "新 endpoint 禁止 offset pagination。",
                "新的 list API 怎么做 pagination？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Don't touch generated code",
                "Never edit files under gen/; change the protobuf definitions and regenerate",
                "Hand edits were silently overwritten by the next codegen run.",
                "can I patch the client stub directly to add a field?",
            ),
            "zh": (
                "不要改生成的代码",
                "不要手改 gen/ 目录下的文件，改 protobuf 定义再重新生成",
                "手工修改在下一次代码生成时被悄悄覆盖了。",
                "能直接在客户端桩代码里加个字段吗？",
            ),
            "ja": (
                "生成コードは触らない",
                "gen/以下のファイルは編集しない。protobufの定義を変えて再生成する",
                "手で直した部分が次のコード生成で黙って上書きされた。",
                "クライアントのスタブに直接フィールドを足してもいい？",
            ),
            "ko": (
                "생성된 코드는 건드리지 않기",
                "gen/ 아래 파일은 직접 고치지 말고 protobuf 정의를 바꾼 뒤 다시 생성한다",
                "손으로 고친 부분이 다음 코드 생성 때 조용히 덮어써졌다.",
                "클라이언트 스텁에 필드를 바로 추가해도 돼?",
            ),
            "mix": (
                "别改 generated code",
                "gen/ 下面的文件不要手改，改 protobuf 定义然后 regenerate",
                "手改的东西下次 codegen 就被覆盖了。",
                "能直接在 client stub 里加个 field 吗？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Monorepo migration",
                "The three frontend repos are being merged into one monorepo with pnpm workspaces by end of Q2",
                "New shared components go into packages/ui from now on.",
                "where should I put a button component that both apps use?",
            ),
            "zh": (
                "迁移到单一仓库",
                "三个前端仓库要在第二季度末合并成一个用 pnpm workspaces 的单仓",
                "以后新的公共组件都放到 packages/ui。",
                "两个应用都要用的按钮组件放哪里？",
            ),
            "ja": (
                "モノレポへの移行",
                "フロントエンドの3リポジトリはQ2末までにpnpm workspacesのモノレポに統合する",
                "今後、新しい共通コンポーネントはpackages/uiに置く。",
                "両方のアプリで使うボタンのコンポーネントはどこに置けばいい？",
            ),
            "ko": (
                "모노레포 이전",
                "프런트엔드 저장소 세 개를 2분기 말까지 pnpm workspaces 모노레포로 합친다",
                "이제부터 새 공용 컴포넌트는 packages/ui에 둔다.",
                "두 앱에서 같이 쓰는 버튼 컴포넌트는 어디에 둬?",
            ),
            "mix": (
                "迁移到 monorepo",
                "三个 frontend repo Q2 底合并成一个 pnpm workspaces 的 monorepo",
                "新的 shared component 以后都放 packages/ui。",
                "两个 app 都用的 button component 放哪？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Tests first for bug fixes",
                "For every bug fix, first write a failing test that reproduces the bug, then fix it",
                "Fixes without a regression test kept coming back.",
                "I found the cause of the crash, should I just patch it?",
            ),
            "zh": (
                "修 bug 先写测试",
                "修每个缺陷之前先写一个能复现问题的失败测试，然后再改",
                "没有回归测试的修复总是反复出现。",
                "崩溃的原因找到了，直接改掉就行吗？",
            ),
            "ja": (
                "バグ修正はテストから",
                "バグを直すときは、まず再現する失敗テストを書いてから修正する",
                "回帰テストのない修正は何度も再発した。",
                "クラッシュの原因が分かった、そのまま直していい？",
            ),
            "ko": (
                "버그 수정은 테스트부터",
                "버그를 고칠 때마다 먼저 재현하는 실패 테스트를 쓰고 나서 고친다",
                "회귀 테스트 없는 수정은 계속 다시 나타났다.",
                "크래시 원인을 찾았는데 바로 고치면 돼?",
            ),
            "mix": (
                "修 bug 先写 test",
                "每个 bug fix 先写一个能复现的 failing test，再去改",
                "没有 regression test 的 fix 老是复发。",
                "crash 原因找到了，直接 patch 就行？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Incident runbook location",
                "Incident runbooks are in Notion under Engineering > On-call > Runbooks",
                "Each alert links its runbook; start with 'first 15 minutes'.",
                "production is down, what are the steps to follow?",
            ),
            "zh": (
                "故障处理手册在哪",
                "故障处理手册在 Notion 的 工程 > 值班 > 手册 下面",
                "每个告警都链接了对应手册，先看“前15分钟”。",
                "线上挂了，应该按什么流程处理？",
            ),
            "ja": (
                "障害対応手順書の場所",
                "障害対応のランブックはNotionのエンジニアリング > オンコール > ランブックにある",
                "各アラートに手順書のリンクがある。まず「最初の15分」から。",
                "本番が落ちた、どういう手順で対応すればいい？",
            ),
            "ko": (
                "장애 대응 런북 위치",
                "장애 대응 런북은 Notion의 엔지니어링 > 온콜 > 런북 아래에 있다",
                "알림마다 런북 링크가 있다. '처음 15분'부터 시작한다.",
                "운영 서버가 죽었어, 어떤 절차로 대응해야 해?",
            ),
            "mix": (
                "incident runbook 在哪",
                "incident runbook 在 Notion 的 Engineering > On-call > Runbooks",
                "每个 alert 都链了 runbook，先看 first 15 minutes。",
                "prod 挂了，按什么流程处理？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Use the logger, not print",
                "Use the structured logger (structlog) with context fields instead of formatted strings",
                "Log search in Datadog only works on fields.",
                "how should I write log messages in the worker?",
            ),
            "zh": (
                "用结构化日志",
                "用 structlog 结构化日志并带上下文字段，不要拼接字符串",
                "Datadog 里只能按字段搜日志。",
                "后台任务里的日志该怎么写？",
            ),
            "ja": (
                "構造化ロガーを使う",
                "文字列を組み立てずに、コンテキスト項目付きの構造化ロガー（structlog）を使う",
                "Datadogのログ検索はフィールドでしか効かない。",
                "ワーカーのログはどう書けばいい？",
            ),
            "ko": (
                "구조화 로거 사용",
                "문자열을 이어 붙이지 말고 컨텍스트 필드가 있는 구조화 로거(structlog)를 쓴다",
                "Datadog 로그 검색은 필드로만 된다.",
                "워커에서 로그는 어떻게 남겨야 해?",
            ),
            "mix": (
                "用 structured logging",
                "用 structlog 带 context field，不要拼 string",
                "Datadog 只能按 field 搜 log。",
                "worker 里 log 怎么写？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Auth moving to OIDC",
                "Login is moving from the homegrown session cookies to OIDC with Keycloak this quarter",
                "Old session code stays until every client has switched.",
                "should new services use our old session cookie for login?",
            ),
            "zh": (
                "认证迁移到 OIDC",
                "登录本季度从自研的会话 cookie 改成基于 Keycloak 的 OIDC",
                "所有客户端切换完之前旧的会话代码保留。",
                "新服务的登录还用原来的 cookie 方案吗？",
            ),
            "ja": (
                "認証をOIDCへ移行",
                "ログインは今期、自前のセッションクッキーからKeycloakを使ったOIDCに移行する",
                "全クライアントが切り替わるまで古いセッションのコードは残す。",
                "新しいサービスのログインは昔のクッキー方式でいい？",
            ),
            "ko": (
                "인증을 OIDC로 이전",
                "로그인은 이번 분기에 자체 세션 쿠키에서 Keycloak 기반 OIDC로 바뀐다",
                "모든 클라이언트가 전환될 때까지 기존 세션 코드는 남긴다.",
                "새 서비스 로그인은 예전 쿠키 방식을 써도 돼?",
            ),
            "mix": (
                "auth 迁到 OIDC",
                "login 这个季度从自研 session cookie 换成 Keycloak 的 OIDC",
                "所有 client 切完之前老的 session 代码保留。",
                "新 service 的 login 还用老 cookie 吗？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "No secrets in code",
                "Never commit API keys or tokens; read them from environment variables",
                "A leaked key on GitHub was abused within an hour.",
                "can I hardcode the Stripe key for a quick test?",
            ),
            "zh": (
                "代码里不能有密钥",
                "绝不提交 API 密钥或令牌，一律从环境变量读取",
                "有一次泄露到 GitHub 的密钥一小时内就被滥用了。",
                "临时测试一下，能把 Stripe 的 key 直接写死吗？",
            ),
            "ja": (
                "コードに秘密情報を書かない",
                "APIキーやトークンは絶対にコミットしない。環境変数から読む",
                "GitHubに漏れたキーが一時間以内に悪用された。",
                "ちょっと試すだけなのでStripeのキーを直書きしてもいい？",
            ),
            "ko": (
                "코드에 비밀 값 금지",
                "API 키나 토큰은 절대 커밋하지 말고 환경 변수에서 읽는다",
                "GitHub에 유출된 키가 한 시간 안에 악용됐다.",
                "잠깐 테스트만 할 건데 Stripe 키를 하드코딩해도 돼?",
            ),
            "mix": (
                "代码里不放 secret",
                "API key 和 token 绝不 commit，都从 env 读",
                "有次 key 泄露到 GitHub 一小时就被盗用了。",
                "就测一下，Stripe key 能 hardcode 吗？",
            ),
        },
    ),
    (
        "user",
        {
            "en": (
                "User is the tech lead of the payments team",
                "The user leads the payments team and cares about auditability and idempotency",
                "They review every change touching money movement.",
                "what will the user focus on when reviewing the refund job?",
            ),
            "zh": (
                "用户是支付组的技术负责人",
                "用户是支付组的技术负责人，关注可审计性和幂等性",
                "所有涉及资金流转的改动他都要亲自审。",
                "退款任务的改动他审的时候会看重什么？",
            ),
            "ja": (
                "ユーザーは決済チームのテックリード",
                "ユーザーは決済チームのリードで、監査可能性と冪等性を重視している",
                "お金の移動に関わる変更はすべて本人がレビューする。",
                "返金ジョブのレビューでユーザーは何を気にする？",
            ),
            "ko": (
                "사용자는 결제 팀 테크 리드",
                "사용자는 결제 팀을 이끌고 감사 가능성과 멱등성을 중요하게 여긴다",
                "돈이 오가는 변경은 모두 직접 리뷰한다.",
                "환불 작업을 리뷰할 때 사용자는 뭘 중점적으로 볼까?",
            ),
            "mix": (
                "用户是 payments team 的 tech lead",
                "用户带 payments team，关注 audit 和 idempotency",
                "涉及资金流转的 change 他都亲自 review。",
                "refund job 的 PR 他 review 时会看重啥？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Kubernetes cluster move",
                "Services move from the old EKS cluster to the new GKE cluster; deploy new services only to GKE",
                "The EKS cluster shuts down on September 30.",
                "which cluster do I deploy the new worker to?",
            ),
            "zh": (
                "Kubernetes 集群迁移",
                "服务正从旧的 EKS 集群迁到新的 GKE 集群，新服务只部署到 GKE",
                "EKS 集群9月30日下线。",
                "新的后台任务该部署到哪个集群？",
            ),
            "ja": (
                "Kubernetesクラスタの移行",
                "サービスは旧EKSクラスタから新GKEクラスタへ移行中。新サービスはGKEにだけデプロイする",
                "EKSクラスタは9月30日に停止する。",
                "新しいワーカーはどのクラスタにデプロイすればいい？",
            ),
            "ko": (
                "쿠버네티스 클러스터 이전",
                "서비스를 기존 EKS 클러스터에서 새 GKE 클러스터로 옮기는 중이며 새 서비스는 GKE에만 배포한다",
                "EKS 클러스터는 9월 30일에 종료된다.",
                "새 워커는 어느 클러스터에 배포해?",
            ),
            "mix": (
                "K8s cluster 迁移",
                "service 正从老的 EKS cluster 迁到新的 GKE cluster，新 service 只 deploy 到 GKE",
                "EKS 9月30日下线。",
                "新 worker deploy 到哪个 cluster？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Prefer composition over inheritance",
                "In this codebase prefer small composed classes over deep inheritance hierarchies",
                "The old three-level handler hierarchy was impossible to test.",
                "should my new exporter subclass the base handler?",
            ),
            "zh": (
                "优先组合而不是继承",
                "这个代码库里优先用小的组合类，不要搞很深的继承层级",
                "以前三层的处理器继承体系根本没法测试。",
                "新的导出器要不要继承那个基础处理类？",
            ),
            "ja": (
                "継承より合成",
                "このコードベースでは深い継承階層より小さなクラスの合成を優先する",
                "昔の三階層のハンドラ継承はテスト不能だった。",
                "新しいエクスポーターは基底ハンドラを継承すべき？",
            ),
            "ko": (
                "상속보다 조합",
                "이 코드베이스에서는 깊은 상속 계층보다 작은 클래스의 조합을 선호한다",
                "예전의 3단 핸들러 상속 구조는 테스트가 불가능했다.",
                "새 익스포터가 기본 핸들러를 상속해야 할까?",
            ),
            "mix": (
                "composition 优先于 inheritance",
                "这个 codebase 优先用小 class 组合，不要深层 inheritance",
                "老的三层 handler 继承根本没法 test。",
                "新的 exporter 要不要 subclass base handler？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Design files in Figma",
                "Current UI designs are in the Figma file 'Product 2026', page 'Ready for dev'",
                "Pages other than 'Ready for dev' are drafts.",
                "where can I find the final mockups for the settings screen?",
            ),
            "zh": (
                "设计稿在 Figma",
                "当前的界面设计在 Figma 文件“Product 2026”的“可开发”页面",
                "其他页面都是草稿。",
                "设置页面的最终设计图在哪里看？",
            ),
            "ja": (
                "デザインはFigma",
                "現在のUIデザインはFigmaファイル「Product 2026」の「開発可」ページにある",
                "それ以外のページは下書き。",
                "設定画面の確定版モックはどこで見られる？",
            ),
            "ko": (
                "디자인은 Figma에",
                "현재 UI 디자인은 Figma 파일 'Product 2026'의 '개발 준비 완료' 페이지에 있다",
                "다른 페이지는 초안이다.",
                "설정 화면의 최종 시안은 어디서 봐?",
            ),
            "mix": (
                "design 稿在 Figma",
                "现在的 UI design 在 Figma 文件 Product 2026 的 Ready for dev 页",
                "其他 page 都是草稿。",
                "设置页的最终 mockup 在哪看？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Time zones in UTC",
                "Store every timestamp in UTC and convert to local time only in the UI",
                "Mixed time zones broke the daily report around daylight saving changes.",
                "what time zone should the events table use?",
            ),
            "zh": (
                "时间统一用 UTC",
                "所有时间戳都按 UTC 存储，只在界面上转换成本地时间",
                "混用时区导致夏令时切换时日报出错。",
                "事件表的时间应该存成哪个时区？",
            ),
            "ja": (
                "時刻はUTCで",
                "タイムスタンプはすべてUTCで保存し、ローカル時刻への変換は画面表示のときだけ",
                "タイムゾーンが混在して、夏時間の切り替えで日次レポートが壊れた。",
                "イベントテーブルの時刻はどのタイムゾーンで持つ？",
            ),
            "ko": (
                "시간은 UTC로",
                "모든 타임스탬프는 UTC로 저장하고 현지 시간 변환은 화면에서만 한다",
                "시간대를 섞어 써서 서머타임 전환 때 일일 리포트가 깨졌다.",
                "이벤트 테이블 시간은 어느 시간대로 저장해?",
            ),
            "mix": (
                "timestamp 统一 UTC",
                "所有 timestamp 按 UTC 存，只在 UI 转 local time",
                "混用 timezone 导致 daylight saving 时 daily report 出错。",
                "events 表的时间存哪个 timezone？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "GraphQL gateway deprecated",
                "The GraphQL gateway is deprecated; new clients call the REST API directly",
                "The gateway is removed after the last mobile client migrates.",
                "should the new dashboard query data through GraphQL?",
            ),
            "zh": (
                "GraphQL 网关已废弃",
                "GraphQL 网关已经废弃，新的客户端直接调用 REST 接口",
                "最后一个移动端迁移完后就下掉网关。",
                "新的看板取数据还走 GraphQL 吗？",
            ),
            "ja": (
                "GraphQLゲートウェイは非推奨",
                "GraphQLゲートウェイは非推奨。新しいクライアントはREST APIを直接呼ぶ",
                "最後のモバイルクライアントが移行したらゲートウェイは撤去する。",
                "新しいダッシュボードのデータ取得はGraphQL経由でいい？",
            ),
            "ko": (
                "GraphQL 게이트웨이 지원 중단",
                "GraphQL 게이트웨이는 더 이상 쓰지 않으며 새 클라이언트는 REST API를 직접 호출한다",
                "마지막 모바일 클라이언트가 옮기면 게이트웨이를 제거한다.",
                "새 대시보드는 GraphQL로 데이터를 가져와도 돼?",
            ),
            "mix": (
                "GraphQL gateway 废弃了",
                "GraphQL gateway 已 deprecated，新 client 直接调 REST API",
                "最后一个 mobile client 迁完就下线 gateway。",
                "新 dashboard 取数还走 GraphQL 吗？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Ask before running destructive commands",
                "Always ask before running commands that delete data, such as DROP TABLE or rm -rf",
                "An agent once dropped a staging table while 'cleaning up'.",
                "the tmp tables look unused, can I just remove them?",
            ),
            "zh": (
                "危险命令先确认",
                "执行删除数据的命令（比如 DROP TABLE、rm -rf）之前必须先问",
                "之前有人“清理”时把预发的一张表删了。",
                "那些临时表看着没用，我直接清掉行吗？",
            ),
            "ja": (
                "破壊的なコマンドは事前確認",
                "DROP TABLEやrm -rfのようにデータを消すコマンドは、実行前に必ず確認する",
                "「掃除」のつもりでステージングのテーブルが消されたことがある。",
                "一時テーブルが使われてなさそう、消しちゃっていい？",
            ),
            "ko": (
                "파괴적 명령은 먼저 확인",
                "DROP TABLE이나 rm -rf처럼 데이터를 지우는 명령은 실행 전에 반드시 묻는다",
                "'정리'한다며 스테이징 테이블을 지운 적이 있다.",
                "임시 테이블이 안 쓰이는 것 같은데 그냥 지워도 돼?",
            ),
            "mix": (
                "危险命令先确认",
                "跑 DROP TABLE、rm -rf 这种删数据的命令前必须先问",
                "之前有人 cleanup 时把 staging 的表 drop 了。",
                "那些 tmp table 好像没用，直接删了行不？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Load test scripts",
                "Load tests are k6 scripts in perf/k6; run them against the perf environment, never staging",
                "Staging shares a database with QA.",
                "how do I stress test the new endpoint?",
            ),
            "zh": (
                "压测脚本",
                "压测用 perf/k6 里的 k6 脚本，只能打性能环境，不能打预发",
                "预发和测试组共用一个数据库。",
                "新接口怎么做压力测试？",
            ),
            "ja": (
                "負荷試験スクリプト",
                "負荷試験はperf/k6のk6スクリプトで、性能検証環境に対して実行する。ステージングには絶対に流さない",
                "ステージングはQAとDBを共有している。",
                "新しいエンドポイントに負荷をかけて試すには？",
            ),
            "ko": (
                "부하 테스트 스크립트",
                "부하 테스트는 perf/k6의 k6 스크립트로 성능 환경에만 돌리고 스테이징에는 절대 안 한다",
                "스테이징은 QA와 데이터베이스를 같이 쓴다.",
                "새 엔드포인트 스트레스 테스트는 어떻게 해?",
            ),
            "mix": (
                "load test 脚本",
                "压测用 perf/k6 的 k6 script，只打 perf 环境，别打 staging",
                "staging 和 QA 共用 DB。",
                "新 endpoint 怎么做 stress test？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Update the changelog",
                "Every user-visible change adds a line to CHANGELOG.md under Unreleased",
                "Release notes are generated from it.",
                "what else do I need to touch when I change the CLI flags?",
            ),
            "zh": (
                "记得更新变更日志",
                "每个用户能感知到的改动都要在 CHANGELOG.md 的 Unreleased 下加一行",
                "发布说明是从这里生成的。",
                "改了命令行参数，还需要改哪些地方？",
            ),
            "ja": (
                "変更履歴を更新する",
                "ユーザーに見える変更はすべてCHANGELOG.mdのUnreleasedに一行追加する",
                "リリースノートはここから生成される。",
                "CLIのオプションを変えたら、ほかに何を直す必要がある？",
            ),
            "ko": (
                "변경 기록 업데이트",
                "사용자에게 보이는 변경은 모두 CHANGELOG.md의 Unreleased 아래에 한 줄 추가한다",
                "릴리스 노트가 여기서 생성된다.",
                "CLI 옵션을 바꿨는데 또 뭘 고쳐야 해?",
            ),
            "mix": (
                "记得更新 changelog",
                "用户可见的 change 都要在 CHANGELOG.md 的 Unreleased 加一行",
                "release note 从这里生成。",
                "改了 CLI flag 还要改哪？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Customer data stays in the EU",
                "EU customer data must stay in the Frankfurt region because of the data processing agreement",
                "Backups included; analytics gets only aggregated exports.",
                "can I copy European user records to the US analytics bucket?",
            ),
            "zh": (
                "欧盟客户数据不出境",
                "根据数据处理协议，欧盟客户数据必须留在法兰克福区域",
                "备份也一样；分析只能拿聚合后的导出。",
                "能把欧洲用户的记录拷到美国的分析存储桶吗？",
            ),
            "ja": (
                "EU顧客データは域内に保持",
                "データ処理契約により、EU顧客のデータはフランクフルトリージョンから出してはいけない",
                "バックアップも同様。分析には集計済みのエクスポートだけ渡す。",
                "ヨーロッパのユーザーデータを米国の分析用バケットにコピーしていい？",
            ),
            "ko": (
                "EU 고객 데이터는 역내 보관",
                "데이터 처리 계약 때문에 EU 고객 데이터는 프랑크푸르트 리전에 있어야 한다",
                "백업도 마찬가지이고, 분석에는 집계된 내보내기만 준다.",
                "유럽 사용자 기록을 미국 분석용 버킷으로 복사해도 돼?",
            ),
            "mix": (
                "EU 客户数据不出境",
                "因为 DPA，EU customer data 必须留在 Frankfurt region",
                "backup 也一样；analytics 只拿聚合 export。",
                "能把欧洲 user 数据拷到 US 的 analytics bucket 吗？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Error messages say how to fix",
                "User-facing error messages must name the problem and the fix, never a raw stack trace",
                "Support tickets halved after the CLI errors were rewritten.",
                "what should the CLI print when the config file is invalid?",
            ),
            "zh": (
                "报错信息要说明怎么修",
                "给用户看的错误信息要说清问题和解决办法，不能直接甩堆栈",
                "命令行的报错重写后工单少了一半。",
                "配置文件写错了命令行应该输出什么？",
            ),
            "ja": (
                "エラーメッセージには直し方を",
                "ユーザー向けのエラーメッセージは問題と直し方を書く。スタックトレースをそのまま出さない",
                "CLIのエラーを書き直したらサポートの問い合わせが半減した。",
                "設定ファイルが不正なとき、CLIは何を表示すべき？",
            ),
            "ko": (
                "오류 메시지에 해결 방법 포함",
                "사용자에게 보이는 오류 메시지는 문제와 해결 방법을 말해야 하고 스택 트레이스를 그대로 보여 주면 안 된다",
                "CLI 오류 문구를 고친 뒤 지원 문의가 절반으로 줄었다.",
                "설정 파일이 잘못됐을 때 CLI는 뭘 출력해야 해?",
            ),
            "mix": (
                "error message 要说怎么修",
                "给用户看的 error message 要讲清问题和 fix，别直接甩 stack trace",
                "CLI error 改写后 support ticket 少了一半。",
                "config 文件写错时 CLI 该打印啥？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Design decisions in ADRs",
                "Architecture decisions are recorded as ADRs in docs/adr; read them before proposing big changes",
                "ADR-012 explains why we chose Kafka over RabbitMQ.",
                "why did the team pick this message queue?",
            ),
            "zh": (
                "架构决策记录",
                "架构决策以 ADR 的形式记录在 docs/adr，提大改动前先读",
                "ADR-012 解释了为什么选 Kafka 而不是 RabbitMQ。",
                "当初团队为什么选了这个消息队列？",
            ),
            "ja": (
                "設計判断はADRに",
                "アーキテクチャの決定はdocs/adrにADRとして記録している。大きな変更を提案する前に読むこと",
                "ADR-012にRabbitMQではなくKafkaを選んだ理由がある。",
                "チームはなぜこのメッセージキューを採用したの？",
            ),
            "ko": (
                "설계 결정은 ADR에",
                "아키텍처 결정은 docs/adr에 ADR로 기록되어 있으니 큰 변경을 제안하기 전에 읽는다",
                "ADR-012에 RabbitMQ 대신 Kafka를 고른 이유가 있다.",
                "팀이 왜 이 메시지 큐를 골랐어?",
            ),
            "mix": (
                "架构决策看 ADR",
                "architecture decision 都记在 docs/adr 的 ADR 里，提大改动前先读",
                "ADR-012 讲了为啥选 Kafka 不选 RabbitMQ。",
                "当初为啥选这个 message queue？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Keep functions short",
                "Functions over about forty lines should be split; reviewers reject long functions",
                "Long functions were where most review comments clustered.",
                "this handler is getting huge, is that a problem?",
            ),
            "zh": (
                "函数要短",
                "超过四十行左右的函数要拆分，评审会打回长函数",
                "评审意见大多集中在长函数上。",
                "这个处理函数越写越大了，有问题吗？",
            ),
            "ja": (
                "関数は短く",
                "40行を超えるような関数は分割する。長い関数はレビューで差し戻される",
                "レビューの指摘はほとんど長い関数に集中していた。",
                "このハンドラがどんどん巨大になってるけど、まずい？",
            ),
            "ko": (
                "함수는 짧게",
                "40줄 정도를 넘는 함수는 나눈다. 리뷰에서 긴 함수는 반려된다",
                "리뷰 의견은 대부분 긴 함수에 몰려 있었다.",
                "이 핸들러가 점점 거대해지는데 문제야?",
            ),
            "mix": (
                "function 要短",
                "超过四十行左右的 function 要拆，review 会打回长 function",
                "review comment 大多集中在长 function 上。",
                "这个 handler 越写越大，有问题吗？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Weekly release train",
                "Backend releases go out every Tuesday at 10:00; the cut is Monday at 18:00",
                "Hotfixes outside the train need the on-call lead's approval.",
                "if I merge on Monday night, when will it reach production?",
            ),
            "zh": (
                "每周发布火车",
                "后端每周二10点发布，周一18点封版",
                "发布火车之外的紧急修复要值班负责人批准。",
                "周一晚上合进去的代码什么时候能上线？",
            ),
            "ja": (
                "毎週のリリーストレイン",
                "バックエンドは毎週火曜10時にリリースし、締め切りは月曜18時",
                "トレイン外のホットフィックスはオンコールリードの承認が必要。",
                "月曜の夜にマージしたら、いつ本番に出る？",
            ),
            "ko": (
                "주간 릴리스 트레인",
                "백엔드는 매주 화요일 10시에 배포하고 마감은 월요일 18시다",
                "트레인 밖의 핫픽스는 온콜 리드 승인이 필요하다.",
                "월요일 밤에 머지하면 언제 운영에 나가?",
            ),
            "mix": (
                "每周 release train",
                "backend 每周二 10:00 release，周一 18:00 cut",
                "train 之外的 hotfix 要 on-call lead approve。",
                "周一晚上 merge 的代码啥时候上 prod？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Pin dependency versions",
                "Pin exact versions in requirements files and update them with Renovate, never by hand",
                "An unpinned minor release broke the build on a Friday.",
                "should I write requests>=2 in the requirements?",
            ),
            "zh": (
                "依赖版本要锁定",
                "依赖文件里写死精确版本，用 Renovate 升级，不要手动改",
                "有一次没锁版本，一个小版本更新在周五把构建搞挂了。",
                "依赖里写 requests>=2 可以吗？",
            ),
            "ja": (
                "依存バージョンは固定",
                "requirementsには正確なバージョンを固定し、更新はRenovateに任せて手では変えない",
                "固定していなかったマイナーリリースで金曜にビルドが壊れた。",
                "requirementsにrequests>=2と書いていい？",
            ),
            "ko": (
                "의존성 버전 고정",
                "requirements 파일에는 정확한 버전을 고정하고 업데이트는 손이 아니라 Renovate로 한다",
                "고정하지 않은 마이너 릴리스 때문에 금요일에 빌드가 깨졌다.",
                "requirements에 requests>=2라고 써도 돼?",
            ),
            "mix": (
                "dependency 版本要 pin",
                "requirements 里 pin 死精确版本，用 Renovate 升级，别手改",
                "没 pin 的 minor release 周五把 build 搞挂了。",
                "requirements 里写 requests>=2 行吗？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Team calendar for deploy freezes",
                "Deploy freezes and holidays are on the shared Google calendar 'Eng Freeze'",
                "Check it before scheduling a migration.",
                "is there any period this month when we can't ship?",
            ),
            "zh": (
                "发布冻结日历",
                "发布冻结期和节假日都在共享的谷歌日历“Eng Freeze”上",
                "安排数据迁移前先看一下。",
                "这个月有没有不能上线的日子？",
            ),
            "ja": (
                "デプロイ凍結カレンダー",
                "デプロイ凍結期間と休日は共有Googleカレンダー「Eng Freeze」に載っている",
                "マイグレーションを計画する前に確認する。",
                "今月リリースできない期間ってある？",
            ),
            "ko": (
                "배포 동결 캘린더",
                "배포 동결 기간과 휴일은 공유 구글 캘린더 'Eng Freeze'에 있다",
                "마이그레이션 일정을 잡기 전에 확인한다.",
                "이번 달에 배포하면 안 되는 기간 있어?",
            ),
            "mix": (
                "deploy freeze 日历",
                "deploy freeze 和节假日都在共享 Google calendar Eng Freeze 上",
                "排 migration 之前先看。",
                "这个月有没有不能 ship 的时间？",
            ),
        },
    ),
    (
        "user",
        {
            "en": (
                "User is a data scientist learning Rust",
                "The user is a data scientist who knows Python and pandas well and is learning Rust",
                "Relate ownership and borrowing to Python references when explaining.",
                "how do I explain the borrow checker to them?",
            ),
            "zh": (
                "用户是在学 Rust 的数据科学家",
                "用户是数据科学家，熟悉 Python 和 pandas，正在学 Rust",
                "讲所有权和借用时用 Python 的引用做对比。",
                "怎么给他讲清楚借用检查？",
            ),
            "ja": (
                "ユーザーはRustを学ぶデータサイエンティスト",
                "ユーザーはPythonとpandasに詳しいデータサイエンティストで、Rustを勉強中",
                "所有権と借用はPythonの参照と比べて説明する。",
                "借用チェッカーをどう説明すれば伝わる？",
            ),
            "ko": (
                "사용자는 Rust를 배우는 데이터 과학자",
                "사용자는 Python과 pandas에 익숙한 데이터 과학자이고 Rust를 배우는 중이다",
                "소유권과 빌림은 Python의 참조와 비교해서 설명한다.",
                "빌림 검사기를 어떻게 설명해 줘야 할까?",
            ),
            "mix": (
                "用户是学 Rust 的 data scientist",
                "用户是 data scientist，熟 Python 和 pandas，在学 Rust",
                "讲 ownership 和 borrowing 时拿 Python 的引用对比。",
                "borrow checker 怎么给他讲？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Benchmarks before optimising",
                "Measure with a benchmark before and after any performance change and put the numbers in the PR",
                "Two 'optimisations' last year made things slower.",
                "I think this loop is slow, should I rewrite it with numpy?",
            ),
            "zh": (
                "优化前先测基准",
                "任何性能改动前后都要跑基准测试，并把数据写进合并请求",
                "去年有两次所谓的优化反而变慢了。",
                "我感觉这个循环很慢，要不要用 numpy 重写？",
            ),
            "ja": (
                "最適化の前にベンチマーク",
                "性能改善の前後で必ずベンチマークを取り、数値をPRに書く",
                "去年の「最適化」のうち二つは逆に遅くなった。",
                "このループが遅い気がする、numpyで書き直すべき？",
            ),
            "ko": (
                "최적화 전에 벤치마크",
                "성능 변경 전후로 반드시 벤치마크를 재고 수치를 PR에 적는다",
                "작년에 '최적화' 두 건이 오히려 느려졌다.",
                "이 반복문이 느린 것 같은데 numpy로 다시 짤까?",
            ),
            "mix": (
                "优化前先跑 benchmark",
                "任何 performance 改动前后都要跑 benchmark，数字写进 PR",
                "去年两次所谓优化反而更慢。",
                "感觉这个 loop 很慢，要用 numpy 重写吗？",
            ),
        },
    ),
    (
        "project",
        {
            "en": (
                "Accessibility audit deadline",
                "The web app must pass a WCAG 2.1 AA accessibility audit before the public sector contract in May",
                "Screen reader labels and contrast are the known gaps.",
                "does the new form need labels for screen readers?",
            ),
            "zh": (
                "无障碍审计截止日期",
                "网页应用要在五月政府合同之前通过 WCAG 2.1 AA 无障碍审计",
                "已知问题是读屏标签和对比度。",
                "新表单需要给读屏软件加标签吗？",
            ),
            "ja": (
                "アクセシビリティ監査の期限",
                "Webアプリは5月の公共案件の前にWCAG 2.1 AAのアクセシビリティ監査に合格する必要がある",
                "スクリーンリーダー用ラベルとコントラストが既知の課題。",
                "新しいフォームにスクリーンリーダー用のラベルは要る？",
            ),
            "ko": (
                "접근성 감사 마감",
                "웹 앱은 5월 공공 계약 전에 WCAG 2.1 AA 접근성 감사를 통과해야 한다",
                "스크린 리더 레이블과 명암비가 알려진 문제다.",
                "새 폼에 스크린 리더용 레이블이 필요해?",
            ),
            "mix": (
                "accessibility audit 截止",
                "web app 要在五月政府合同前过 WCAG 2.1 AA accessibility audit",
                "已知问题是 screen reader label 和对比度。",
                "新 form 要加 screen reader 的 label 吗？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Retry with backoff",
                "Calls to external APIs retry with exponential backoff and jitter, at most five times",
                "Tight retry loops got us rate-limited by the payment provider.",
                "the shipping API sometimes times out, how should I handle it?",
            ),
            "zh": (
                "重试要退避",
                "调用外部接口失败时用指数退避加随机抖动重试，最多五次",
                "紧密的重试循环让我们被支付服务商限流了。",
                "物流接口偶尔超时，该怎么处理？",
            ),
            "ja": (
                "リトライはバックオフ付き",
                "外部APIの呼び出しは指数バックオフとジッター付きでリトライし、最大5回まで",
                "間隔なしのリトライで決済プロバイダにレート制限された。",
                "配送APIがたまにタイムアウトする、どう扱えばいい？",
            ),
            "ko": (
                "재시도는 백오프로",
                "외부 API 호출은 지수 백오프와 지터로 최대 다섯 번까지 재시도한다",
                "촘촘한 재시도 때문에 결제사에서 요청 제한을 당했다.",
                "배송 API가 가끔 타임아웃 나는데 어떻게 처리해?",
            ),
            "mix": (
                "retry 要 backoff",
                "调外部 API 失败用 exponential backoff 加 jitter retry，最多五次",
                "之前 retry 太密被支付商 rate limit 了。",
                "物流 API 偶尔 timeout，怎么处理？",
            ),
        },
    ),
    (
        "reference",
        {
            "en": (
                "Product metrics in Amplitude",
                "Product usage metrics live in Amplitude, project 'web-prod'; the events are defined in tracking-plan.yaml",
                "Ask the growth team before adding new events.",
                "how can I see how many people use the export button?",
            ),
            "zh": (
                "产品指标在 Amplitude",
                "产品使用数据在 Amplitude 的 web-prod 项目里，事件定义在 tracking-plan.yaml",
                "新增埋点前先问增长组。",
                "怎么看有多少人点了导出按钮？",
            ),
            "ja": (
                "プロダクト指標はAmplitude",
                "プロダクトの利用状況はAmplitudeのweb-prodプロジェクトにあり、イベント定義はtracking-plan.yaml",
                "新しいイベントを足す前にグロースチームに相談する。",
                "エクスポートボタンを何人が使っているか見るには？",
            ),
            "ko": (
                "제품 지표는 Amplitude",
                "제품 사용 지표는 Amplitude의 web-prod 프로젝트에 있고 이벤트 정의는 tracking-plan.yaml에 있다",
                "새 이벤트를 추가하기 전에 그로스 팀에 묻는다.",
                "내보내기 버튼을 몇 명이 쓰는지 어떻게 봐?",
            ),
            "mix": (
                "产品 metrics 在 Amplitude",
                "产品 usage 数据在 Amplitude 的 web-prod project，event 定义在 tracking-plan.yaml",
                "加新埋点前先问 growth team。",
                "怎么看多少人用了 export 按钮？",
            ),
        },
    ),
    (
        "feedback",
        {
            "en": (
                "Document public functions",
                "Every public function gets a docstring that says why it exists, not just what it does",
                "New hires said the why was the missing part.",
                "does this exported helper need a comment block?",
            ),
            "zh": (
                "公开函数要写文档",
                "每个公开函数都要写文档字符串，说明为什么存在，而不只是做了什么",
                "新同事说缺的正是“为什么”。",
                "这个对外暴露的辅助函数要写注释说明吗？",
            ),
            "ja": (
                "公開関数にはドキュメントを",
                "公開関数にはすべて、何をするかだけでなく、なぜあるのかを書いたdocstringを付ける",
                "新しく入った人は「なぜ」が足りないと言っていた。",
                "このエクスポートしているヘルパーにコメントは要る？",
            ),
            "ko": (
                "공개 함수에는 문서화",
                "모든 공개 함수에는 무엇을 하는지뿐 아니라 왜 있는지를 설명하는 docstring을 단다",
                "신입들이 부족한 건 '왜'라고 했다.",
                "외부에 노출된 이 헬퍼에 주석이 필요해?",
            ),
            "mix": (
                "public function 要写 docstring",
                "每个 public function 都要 docstring，讲为什么存在，不只是做了啥",
                "新同事说缺的就是 why。",
                "这个 export 出去的 helper 要写注释吗？",
            ),
        },
    ),
]

# Questions about nothing any store holds: recall should surface nothing for them.
OFF_TOPIC: dict[str, tuple[str, ...]] = {
    "en": (
        "how do I center a div with flexbox?",
        "what's a good recipe for banana bread?",
        "explain the difference between TCP and UDP",
        "how many moons does Jupiter have?",
        "write a haiku about autumn leaves",
        "what is the capital of Australia?",
        "how do I reverse a linked list in C?",
        "recommend a good science fiction novel",
    ),
    "zh": (
        "用 flexbox 怎么让一个 div 居中？",
        "香蕉面包怎么做好吃？",
        "讲讲 TCP 和 UDP 的区别",
        "木星有几颗卫星？",
        "写一首关于秋天落叶的诗",
        "澳大利亚的首都是哪里？",
        "用 C 语言怎么反转链表？",
        "推荐一本好看的科幻小说",
    ),
    "ja": (
        "flexboxでdivを中央に寄せるには？",
        "バナナブレッドのおいしい作り方は？",
        "TCPとUDPの違いを説明して",
        "木星には衛星がいくつある？",
        "秋の落ち葉について俳句を詠んで",
        "オーストラリアの首都はどこ？",
        "C言語で連結リストを逆順にするには？",
        "おすすめのSF小説を教えて",
    ),
    "ko": (
        "flexbox로 div를 가운데 정렬하려면?",
        "바나나 빵 맛있게 만드는 법 알려줘",
        "TCP와 UDP의 차이를 설명해 줘",
        "목성에는 위성이 몇 개 있어?",
        "가을 낙엽에 대한 시를 써 줘",
        "호주의 수도는 어디야?",
        "C 언어로 연결 리스트를 뒤집으려면?",
        "재미있는 SF 소설 추천해 줘",
    ),
    "mix": (
        "flexbox 怎么让 div 居中？",
        "banana bread 怎么做？",
        "讲讲 TCP 和 UDP 的 difference",
        "Jupiter 有几颗卫星？",
        "写首关于 autumn 的诗",
        "Australia 的首都是哪？",
        "C 里怎么 reverse linked list？",
        "推荐本 sci-fi 小说",
    ),
}
