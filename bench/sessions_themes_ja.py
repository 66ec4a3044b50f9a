"""The six Japanese projects of the held-out sessions set (see ``truth_sessions.py``).

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


STG = S("stg", "ステージング", ("ステージング", "stg"), ("ステージング", "stg"))
PROD = S("prod", "本番", ("本番",), ("本番", "本番環境"))
DEV = S("dev", "開発", ("開発", "dev"), ("開発環境", "dev"))

MINATO = Theme(
    key="minato",
    project="ミナト予約",
    domain="minato-yoyaku.jp",
    parts=(
        S(
            "reservation-api",
            "予約 API",
            ("reservation-api", "予約 API"),
            ("予約 API", "予約のバックエンド"),
            role="service",
        ),
        S("web-front", "予約画面", ("予約画面のフロント", "web-front"), ("予約画面", "フロント"), role="web"),
        S("sidekiq", "Sidekiq ワーカー", ("Sidekiq ワーカー",), ("Sidekiq", "ジョブワーカー"), role="worker"),
        S(
            "main-db",
            "メイン DB",
            ("メインの PostgreSQL", "main-db"),
            ("メイン DB", "予約の DB"),
            ("5432", "5433", "6432"),
            "db",
        ),
        S("redis", "Redis", ("Redis",), ("Redis",), role="cache"),
        S(
            "notify-service",
            "通知サービス",
            ("通知サービス", "notify-service"),
            ("通知サービス", "SMS とメールの送信サービス"),
            role="service",
        ),
    ),
    envs=(STG, PROD),
    people=("佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本"),
    subjects={
        "scope": (
            S(
                "phase-1",
                "フェーズ1",
                ("Rails 7.1 移行のフェーズ1",),
                ("フェーズ1", "移行のフェーズ1"),
                ("非推奨 API の置き換え",),
            ),
            S(
                "phase-2",
                "フェーズ2",
                ("Rails 7.1 移行のフェーズ2",),
                ("フェーズ2", "移行のフェーズ2"),
                ("Zeitwerk 対応とテスト修正", "テスト修正のみ"),
            ),
            S(
                "phase-3",
                "フェーズ3",
                ("Rails 7.1 移行のフェーズ3",),
                ("フェーズ3", "移行の最後のフェーズ"),
                ("本番切り替えと旧 gem の削除",),
            ),
        ),
        "date": (
            S("rails-deadline", "Rails 7.1 移行期限", ("Rails 7.1 への移行期限",), ("Rails 7.1 移行の期限",)),
            S("clinic-plan", "クリニック向けプラン公開", ("クリニック向けプランの公開",), ("クリニックプランの公開",)),
            S("line-release", "LINE 連携リリース", ("LINE 連携のリリース",), ("LINE 連携のリリース",)),
        ),
        "tool": (
            S(
                "job-queue",
                "ジョブキュー",
                ("非同期ジョブ",),
                ("非同期ジョブ", "バックグラウンド処理"),
                ("Delayed Job", "Sidekiq"),
            ),
            S(
                "e2e",
                "E2E テスト",
                ("E2E テスト",),
                ("E2E テスト", "ブラウザのテスト"),
                ("Capybara + Selenium", "Playwright"),
            ),
            S(
                "front-build",
                "フロントのビルド",
                ("フロントのビルド",),
                ("JS のビルド",),
                ("Webpacker", "jsbundling-rails + esbuild"),
            ),
            S("error-tracking", "エラー監視", ("エラー監視",), ("エラー監視", "例外の通知"), ("Sentry",)),
            S("sms", "SMS 送信", ("SMS 送信",), ("SMS 送信", "ショートメッセージ"), ("Twilio", "Amazon SNS")),
        ),
        "version": (
            S("ruby", "Ruby", ("Ruby",), ("Ruby",), ("3.1", "3.2", "3.3")),
            S("rails", "Rails", ("Rails",), ("Rails",), ("7.0", "7.1")),
            S("postgres", "PostgreSQL", ("PostgreSQL",), ("Postgres",), ("14",)),
        ),
        "metric": (
            S(
                "search-p95",
                "空き枠検索 p95",
                ("空き枠検索の p95",),
                ("空き枠検索の速さ", "空き枠検索のレイテンシ"),
                ("1.8 秒", "600 ミリ秒"),
            ),
            S("ci-time", "CI 所要時間", ("CI の所要時間",), ("CI にかかる時間",), ("21 分", "9 分")),
            S("noshow", "無断キャンセル率", ("無断キャンセル率",), ("無断キャンセルの割合",), ("8.2%", "5.1%")),
            S("coverage", "カバレッジ", ("テストカバレッジ",), ("テストのカバレッジ",), ("82%",)),
        ),
        "limit": (
            S(
                "booking-rate",
                "予約 API レート制限",
                ("予約 API のレート制限",),
                ("予約 API のレートリミット",),
                ("1 IP あたり毎分 60 回", "1 IP あたり毎分 120 回"),
            ),
            S("hold-time", "仮押さえ保持時間", ("仮押さえの保持時間",), ("仮押さえが何分残るか",), ("10 分", "5 分")),
            S(
                "sidekiq-concurrency",
                "Sidekiq 並列数",
                ("Sidekiq の concurrency",),
                ("Sidekiq の並列数",),
                ("10", "25"),
            ),
            S(
                "reminder-count",
                "リマインド回数",
                ("リマインドの送信回数",),
                ("リマインドを何回送るか",),
                ("前日と当日の 2 回",),
            ),
        ),
        "schedule": (
            S(
                "reminder-batch",
                "リマインド配信バッチ",
                ("リマインド配信バッチ",),
                ("リマインドのバッチ",),
                ("毎日 18:00", "毎日 17:00"),
            ),
            S("sales-report", "売上集計バッチ", ("売上集計バッチ",), ("売上集計",), ("毎日 3:00",)),
            S("hold-cleanup", "仮押さえ掃除", ("期限切れ仮押さえの掃除ジョブ",), ("仮押さえの掃除",), ("5 分ごと",)),
        ),
        "flag": (
            S(
                "online-payment",
                "事前決済",
                ("事前決済",),
                ("事前決済",),
                ("社内アカウントのみ", "一部の店舗", "全店舗"),
            ),
            S("waitlist", "キャンセル待ち", ("キャンセル待ち機能",), ("キャンセル待ち",), ("β店舗のみ",)),
        ),
        "tracker": (
            S(
                "bugs",
                "不具合",
                ("不具合チケット",),
                ("不具合", "バグ報告"),
                ("Backlog の RSV プロジェクト", "Jira の RSV プロジェクト"),
            ),
            S(
                "shop-requests",
                "店舗要望",
                ("店舗からの要望",),
                ("店舗からの要望",),
                ("Notion の「店舗要望」データベース",),
            ),
        ),
        "channel": (
            S("release", "リリース連絡", ("リリース連絡",), ("リリースの連絡",), ("#minato-release",)),
            S("alerts", "障害アラート", ("障害アラート",), ("障害アラート",), ("#minato-alert", "#minato-oncall")),
        ),
    },
    items=(
        _item(
            "double-booking",
            P,
            ("前に起きたダブルブッキングの原因は何だった？",),
            V(
                "ダブルブッキング障害",
                "double-booking-incident",
                "同じ枠に 2 件入った障害の原因は排他ロックなしの空き確認",
                "同じ時間枠に予約が 2 件入った件は、空き確認と INSERT の間にロックがなかったのが原因。"
                "`SELECT ... FOR UPDATE` で枠行をロックするよう修正。\n"
                "**Why:** 繁忙期に再発すると店舗の信頼を失う。\n"
                "**How to apply:** 枠を消費する処理は必ず枠行をロックしてから。",
            ),
        ),
        _item(
            "cancel-policy",
            P,
            ("キャンセル料がかかるのは何時以降？",),
            V(
                "キャンセルポリシー",
                "cancel-policy",
                "前日 20 時以降のキャンセルは手数料が発生",
                "予約日の前日 20 時以降のキャンセルにはキャンセル料（店舗設定）がかかる。\n"
                "**Why:** 店舗側の要望。\n"
                "**How to apply:** 判定は `CancelPolicy#fee_applicable?` に集約されている。",
            ),
            V(
                "キャンセル期限の前倒し",
                "cancel-policy-18",
                "キャンセル料の発生が前日 18 時以降に前倒し",
                "店舗からの要望で、キャンセル料がかかるのは前日 18 時以降に変わった。\n"
                "**Why:** 20 時だと翌日の枠を埋め直す時間がないとのこと。\n"
                "**How to apply:** 定数とキャンセル画面の文言を両方直す。",
            ),
        ),
        _item(
            "business-hours",
            P,
            ("店舗の営業時間ってどのテーブルに持ってる？",),
            V(
                "営業時間の持ち方",
                "business-hours-model",
                "営業時間は business_hours テーブルに曜日ごと、臨時休業は shop_holidays",
                "営業時間は `business_hours`（曜日 × 開始・終了）、"
                "臨時休業や祝日営業は `shop_holidays` で上書きする。\n"
                "**Why:** 曜日ごとに違う店舗が多い。\n"
                "**How to apply:** 空き枠計算では shop_holidays を必ず先に見る。",
            ),
        ),
        _item(
            "test-shop",
            R,
            ("ステージングで使っていいテスト用の店舗ってどれ？",),
            V(
                "ステージングのテスト店舗",
                "staging-test-shops",
                "ステージングのテスト用店舗は shop_id 9001〜9005",
                "ステージングで自由に予約を入れていいのは shop_id 9001〜9005 のテスト店舗だけ。"
                "他は営業デモ用なので触らない。",
            ),
        ),
        _item(
            "phone-encryption",
            P,
            ("電話番号ってそのまま保存していい？",),
            V(
                "電話番号は暗号化カラム",
                "encrypt-phone-numbers",
                "顧客の電話番号は Active Record Encryption で暗号化して保存",
                "顧客の電話番号は `encrypts :phone` で暗号化して保存し、検索用には deterministic にしている。\n"
                "**Why:** 個人情報の取り扱い方針。\n"
                "**How to apply:** 新しく個人情報のカラムを足すときも暗号化する。",
            ),
        ),
    ),
)

KIZUNA = Theme(
    key="kizuna",
    project="Kizuna",
    domain="kizuna.corp",
    parts=(
        S(
            "portal-web",
            "ポータル画面",
            ("ポータルのフロント", "portal-web"),
            ("ポータル画面", "ポータルのフロント"),
            role="web",
        ),
        S("portal-api", "ポータル API", ("portal-api", "ポータル API"), ("ポータル API",), role="service"),
        S("auth-proxy", "認証プロキシ", ("認証プロキシ", "auth-proxy"), ("認証プロキシ",), role="service"),
        S("search", "全文検索", ("Elasticsearch",), ("検索クラスタ", "Elasticsearch"), ("9200", "9201", "9243"), "db"),
        S(
            "portal-db",
            "ポータル DB",
            ("ポータルの MySQL", "portal-db"),
            ("ポータル DB",),
            ("3306", "3307", "13306"),
            "db",
        ),
        S("session-redis", "セッション Redis", ("セッション用 Redis",), ("セッションの Redis",), role="cache"),
    ),
    envs=(DEV, STG, PROD),
    people=("中村", "小林", "吉田", "山田", "佐々木", "松本", "井上"),
    subjects={
        "scope": (
            S("r1", "リリース1", ("新ポータルのリリース1",), ("リリース1", "最初のリリース"), ("お知らせと社員検索",)),
            S(
                "r2",
                "リリース2",
                ("新ポータルのリリース2",),
                ("リリース2",),
                ("申請ワークフロー", "申請ワークフローと会議室予約"),
            ),
            S("r3", "リリース3", ("新ポータルのリリース3",), ("リリース3",), ("ナレッジ共有",)),
        ),
        "date": (
            S("sso-switch", "SSO 切り替え", ("SSO の切り替え",), ("SSO 切り替え",)),
            S("new-portal", "新ポータル公開", ("新ポータルの公開",), ("新ポータルの公開",)),
            S("intranet-off", "旧イントラ停止", ("旧イントラの停止",), ("旧イントラの停止",)),
        ),
        "tool": (
            S("auth", "認証基盤", ("社内認証",), ("ログインの仕組み", "認証基盤"), ("社内 LDAP", "Okta")),
            S("news-cms", "お知らせ管理", ("お知らせ記事の管理",), ("お知らせの入稿",), ("自前の管理画面", "microCMS")),
            S("styling", "スタイリング", ("スタイリング",), ("CSS の書き方",), ("CSS Modules", "Tailwind CSS")),
            S(
                "front-test",
                "フロントのテスト",
                ("フロントのユニットテスト",),
                ("フロントのテスト",),
                ("Jest", "Vitest"),
            ),
            S("monorepo", "モノレポ管理", ("モノレポ管理",), ("モノレポのビルド管理",), ("Turborepo",)),
        ),
        "version": (
            S("node", "Node.js", ("Node.js",), ("Node",), ("18", "20")),
            S("nextjs", "Next.js", ("Next.js",), ("Next.js",), ("13", "14")),
            S("go", "Go", ("Go",), ("Go",), ("1.22",)),
        ),
        "metric": (
            S("lcp", "トップの LCP", ("トップページの LCP",), ("トップページの表示速度",), ("3.4 秒", "1.7 秒")),
            S(
                "search-time",
                "検索応答時間",
                ("社内検索の応答時間",),
                ("社内検索の速さ",),
                ("900 ミリ秒", "250 ミリ秒"),
            ),
            S("mau", "月間利用者数", ("ポータルの月間利用者数",), ("月に何人使っているか",), ("2,100 人", "3,400 人")),
            S(
                "a11y",
                "アクセシビリティ指摘数",
                ("アクセシビリティ監査の指摘数",),
                ("アクセシビリティの指摘件数",),
                ("37 件", "6 件"),
            ),
        ),
        "limit": (
            S("upload", "添付上限", ("添付ファイルの上限サイズ",), ("添付できるファイルの大きさ",), ("10MB", "50MB")),
            S(
                "session",
                "セッション有効期限",
                ("セッションの有効期限",),
                ("ログインが切れるまでの時間",),
                ("8 時間", "12 時間"),
            ),
            S("search-results", "検索結果件数", ("検索結果の最大件数",), ("検索結果の上限",), ("100 件",)),
            S("api-timeout", "API タイムアウト", ("ポータル API のタイムアウト",), ("API のタイムアウト",), ("5 秒",)),
        ),
        "schedule": (
            S(
                "employee-sync",
                "社員マスタ同期",
                ("社員マスタの同期",),
                ("人事データの同期",),
                ("毎日 6:00", "1 時間ごと"),
            ),
            S(
                "index-rebuild",
                "検索インデックス再構築",
                ("検索インデックスの再構築",),
                ("インデックスの作り直し",),
                ("毎週日曜 2:00",),
            ),
        ),
        "flag": (
            S("new-search", "新検索画面", ("新しい検索画面",), ("新しい検索画面",), ("情シスのみ", "全社員")),
            S("dark-mode", "ダークモード", ("ダークモード",), ("ダークモード",), ("開発メンバーのみ",)),
        ),
        "tracker": (
            S(
                "portal-bugs",
                "ポータル不具合",
                ("ポータルの不具合",),
                ("ポータルのバグ",),
                ("GitHub Issues", "Jira の PORTAL プロジェクト"),
            ),
            S("access-requests", "権限申請", ("権限申請",), ("権限の申請",), ("ServiceNow の申請フォーム",)),
        ),
        "channel": (
            S(
                "announce",
                "リリースのお知らせ",
                ("リリースのお知らせ",),
                ("リリースのお知らせ",),
                ("#portal-announce",),
            ),
            S("dev-talk", "開発の相談", ("開発の相談",), ("開発の相談ごと",), ("#portal-dev", "#kizuna-dev")),
        ),
    },
    items=(
        _item(
            "permission-model",
            P,
            ("ポータルの権限ってどういう単位で付いてる？",),
            V(
                "権限モデル",
                "permission-model",
                "権限は「部署 × ロール」で付与、個人への直接付与はしない",
                "権限は部署とロールの組み合わせで付与する。個人に直接権限を付けるのは禁止。\n"
                "**Why:** 異動のたびに個別権限が残って監査で指摘された。\n"
                "**How to apply:** 例外が必要なら専用ロールを作る。",
            ),
        ),
        _item(
            "retired-accounts",
            P,
            ("退職した人のアカウントはいつ止まる？",),
            V(
                "退職者アカウント",
                "retired-accounts",
                "退職者のアカウントは人事データ同期で退職日の翌日に無効化",
                "退職者は社員マスタ同期で退職日の翌日 0 時に無効化される。投稿は残す。\n"
                "**Why:** 情報セキュリティ規程。\n"
                "**How to apply:** 手動で消さない。同期を待つか、急ぎなら情シスに依頼。",
            ),
        ),
        _item(
            "design-system",
            R,
            ("デザインシステムってどこにある？",),
            V(
                "デザインシステム",
                "design-system",
                "UI コンポーネントの仕様は Figma の「Kizuna DS」ファイル",
                "ボタンやフォームの仕様は Figma の「Kizuna DS」ファイルにある。実装は `packages/ui` 。",
            ),
        ),
        _item(
            "read-status",
            P,
            ("お知らせの既読ってどこで管理してる？",),
            V(
                "既読管理",
                "read-status-redis",
                "お知らせの既読は Redis のセットで管理",
                "お知らせの既読はユーザーごとに Redis の SET（`read:{user_id}`）で持っている。\n"
                "**Why:** 書き込みが多く DB に載せたくなかった。\n"
                "**How to apply:** 既読数の集計は Redis から取る。",
            ),
            V(
                "既読管理を DB に移行",
                "read-status-db",
                "既読管理を MySQL の news_reads テーブルに移した",
                "既読は MySQL の `news_reads` テーブルに移した。Redis のセットは廃止。\n"
                "**Why:** Redis のフェイルオーバーで既読が消えて問い合わせが来た。\n"
                "**How to apply:** 既読の集計は `news_reads` から。書き込みはバッチでまとめる。",
            ),
        ),
    ),
)

KAZAMI = Theme(
    key="kazami",
    project="風見",
    domain="kazami-iot.jp",
    slugged=True,
    parts=(
        S(
            "mqtt-broker",
            "MQTT ブローカー",
            ("MQTT ブローカー", "mqtt-broker"),
            ("MQTT ブローカー", "ブローカー"),
            ("1883", "8883", "1884"),
            "broker",
        ),
        S("ingest", "取り込みサービス", ("取り込みサービス", "ingest"), ("取り込みサービス", "ingest"), role="service"),
        S("tsdb", "TimescaleDB", ("TimescaleDB",), ("時系列 DB", "TimescaleDB"), ("5432", "5433", "6432"), "db"),
        S(
            "alert-worker",
            "アラート判定ワーカー",
            ("アラート判定ワーカー",),
            ("アラート判定", "アラートのワーカー"),
            role="worker",
        ),
        S("console", "管理コンソール", ("管理コンソール", "console"), ("管理コンソール", "管理画面"), role="web"),
        S("redis", "Redis", ("デバイス状態の Redis",), ("Redis", "デバイス状態キャッシュ"), role="cache"),
    ),
    envs=(S("verify", "検証", ("検証",), ("検証環境",)), PROD),
    people=("松田", "石井", "木村", "林", "清水", "山口", "森田"),
    subjects={
        "scope": (
            S(
                "step-1",
                "ステップ1",
                ("B 工場展開のステップ1",),
                ("展開ステップ1", "B 工場のステップ1"),
                ("1 ラインだけで試験運用",),
            ),
            S(
                "step-2",
                "ステップ2",
                ("B 工場展開のステップ2",),
                ("展開ステップ2", "B 工場のステップ2"),
                ("全ラインの温度センサー", "全ラインの温度と振動センサー"),
            ),
            S(
                "step-3",
                "ステップ3",
                ("B 工場展開のステップ3",),
                ("展開ステップ3", "B 工場のステップ3"),
                ("アラートの本番運用開始",),
            ),
        ),
        "date": (
            S("firmware-2", "ファーム 2.0 配布", ("ファームウェア 2.0 の配布",), ("ファーム 2.0 の配布",)),
            S("factory-b", "B 工場展開", ("B 工場への展開",), ("B 工場への展開",)),
            S("lte-switch", "LTE 切り替え", ("LTE 回線の切り替え",), ("LTE 回線の切り替え",)),
        ),
        "tool": (
            S(
                "broker-impl",
                "MQTT ブローカー",
                ("MQTT ブローカーの実装",),
                ("ブローカーのソフト",),
                ("Mosquitto", "EMQX"),
            ),
            S(
                "ota",
                "ファーム配布",
                ("ファームウェアの配布",),
                ("ファームの配り方",),
                ("自前スクリプト", "AWS IoT Jobs"),
            ),
            S(
                "downsample",
                "ダウンサンプリング",
                ("ダウンサンプリング",),
                ("データの間引き",),
                ("cron の SQL", "continuous aggregates"),
            ),
            S("loadtest", "負荷試験", ("負荷試験",), ("負荷試験",), ("k6",)),
        ),
        "version": (
            S("go", "Go", ("Go",), ("Go",), ("1.21", "1.22")),
            S("timescale", "TimescaleDB", ("TimescaleDB",), ("TimescaleDB",), ("2.11", "2.14")),
        ),
        "metric": (
            S(
                "ingest-rate",
                "取り込み件数",
                ("取り込み件数",),
                ("1 秒あたりの取り込み件数",),
                ("毎秒 4,000 件", "毎秒 11,000 件"),
            ),
            S("ingest-lag", "取り込み遅延", ("取り込み遅延",), ("データが届くまでの遅れ",), ("12 秒", "2 秒")),
            S("daily-volume", "1 日のデータ量", ("1 日あたりのデータ量",), ("毎日のデータ量",), ("38GB", "14GB")),
            S("devices", "接続デバイス数", ("接続デバイス数",), ("つながっている機器の数",), ("1,250 台",)),
        ),
        "limit": (
            S("retention", "生データ保持期間", ("生データの保持期間",), ("生データを何日残すか",), ("90 日", "30 日")),
            S("qos", "QoS", ("MQTT の QoS",), ("MQTT の QoS",), ("1",)),
            S(
                "batch",
                "書き込みバッチ",
                ("DB 書き込みのバッチサイズ",),
                ("書き込みのバッチサイズ",),
                ("500 行", "2,000 行"),
            ),
            S("keepalive", "keepalive", ("MQTT の keepalive",), ("MQTT の keepalive",), ("60 秒", "30 秒")),
        ),
        "schedule": (
            S("hourly-agg", "時間集計", ("時間集計",), ("時間ごとの集計",), ("毎時 5 分",)),
            S(
                "health-report",
                "ヘルスレポート",
                ("機器ヘルスレポート",),
                ("機器のヘルスレポート",),
                ("毎朝 7:00", "毎朝 6:30"),
            ),
        ),
        "flag": (S("anomaly", "異常検知アラート", ("異常検知アラート",), ("異常検知",), ("A 工場のみ", "全工場")),),
        "tracker": (
            S(
                "device-issues",
                "機器の不具合",
                ("機器の不具合",),
                ("センサーの故障報告",),
                ("Redmine の KZM プロジェクト", "Jira の KZM プロジェクト"),
            ),
        ),
        "channel": (
            S(
                "sensor-alerts",
                "センサー異常通知",
                ("センサー異常の通知",),
                ("センサー異常の通知",),
                ("#kazami-alerts",),
            ),
            S(
                "factory-contact",
                "工場との連絡",
                ("工場との連絡",),
                ("工場とのやりとり",),
                ("Teams の「風見-工場連絡」",),
            ),
        ),
    },
    items=(
        _item(
            "topic-design",
            P,
            ("MQTT のトピックってどういう構成？",),
            V(
                "トピック設計",
                "mqtt-topic-design",
                "トピックは factory/{line}/{device}/{metric} の4階層",
                "MQTT トピックは `factory/{line}/{device}/{metric}`。ワイルドカード購読はライン単位まで。\n"
                "**Why:** 全工場を # で購読してブローカーが詰まったことがある。\n"
                "**How to apply:** 新しいメトリクスは4階層目に足す。",
            ),
        ),
        _item(
            "clock-skew",
            P,
            ("センサーのタイムスタンプがずれてたのはなぜ？",),
            V(
                "時刻ずれの件",
                "device-clock-skew",
                "一部デバイスの RTC がずれていたので、サーバー受信時刻を正とする",
                "古いゲートウェイの RTC が数分ずれていて、グラフが前後した。今はサーバーの受信時刻を正とし、"
                "デバイス時刻は `device_ts` として別カラムに残す。\n"
                "**Why:** デバイス時刻は信用できない。\n"
                "**How to apply:** 集計は必ず `received_at` で。",
            ),
        ),
        _item(
            "temperature-unit",
            P,
            ("温度ってどの単位で保存してる？",),
            V(
                "温度の単位",
                "temperature-unit",
                "温度は 0.1℃ 単位の整数で保存",
                "温度は 0.1℃ 単位の整数（235 = 23.5℃）で保存している。\n"
                "**Why:** float だと集計で誤差が出た。\n"
                "**How to apply:** 表示するときだけ 10 で割る。",
            ),
        ),
        _item(
            "device-cert",
            P,
            ("デバイス証明書の有効期限ってどれくらい？",),
            V(
                "デバイス証明書",
                "device-cert-validity",
                "デバイス証明書の有効期限は 1 年、更新は OTA で",
                "デバイスの X.509 証明書は有効期限 1 年。期限の 30 日前に OTA で更新する。\n"
                "**Why:** 工場に人を送らずに更新したい。\n"
                "**How to apply:** 期限切れ間近のデバイス一覧をヘルスレポートに出す。",
            ),
            V(
                "デバイス証明書の期限延長",
                "device-cert-3y",
                "デバイス証明書の有効期限を 3 年に延長",
                "オフラインの時間が長い機器で更新が間に合わなかったので、デバイス証明書は 3 年有効に変えた。\n"
                "**Why:** 1 年だと更新失敗で接続断が出た。\n"
                "**How to apply:** 更新は期限の 90 日前から試行する。",
            ),
        ),
    ),
)

RUNE = Theme(
    key="rune",
    project="Rune Arena",
    domain="rune-arena.net",
    parts=(
        S(
            "game-server",
            "ゲームサーバー",
            ("ゲームサーバー", "game-server"),
            ("ゲームサーバー", "対戦サーバー"),
            ("7777", "7778", "9000"),
            "service",
        ),
        S(
            "matchmaker",
            "マッチメイカー",
            ("マッチメイカー", "matchmaker"),
            ("マッチメイカー", "マッチング"),
            role="service",
        ),
        S("lobby-api", "ロビー API", ("ロビー API", "lobby-api"), ("ロビー API",), role="service"),
        S("ranking-redis", "ランキング Redis", ("ランキング用 Redis",), ("ランキングの Redis",), role="cache"),
        S(
            "player-db",
            "プレイヤー DB",
            ("プレイヤー DB", "player-db"),
            ("プレイヤー DB", "ユーザー DB"),
            ("3306", "3307", "13306"),
            "db",
        ),
        S("nats", "NATS", ("NATS",), ("NATS", "メッセージバス"), role="broker"),
    ),
    envs=(STG, PROD, S("loadtest", "負荷試験", ("負荷試験",), ("負荷試験環境",))),
    people=("藤田", "岡田", "後藤", "長谷川", "村上", "近藤", "石川"),
    subjects={
        "scope": (
            S(
                "ver-1-4",
                "Ver.1.4",
                ("Ver.1.4 アップデート",),
                ("Ver.1.4", "1.4 のアップデート"),
                ("新キャラ2体とランクマッチ",),
            ),
            S(
                "ver-1-5",
                "Ver.1.5",
                ("Ver.1.5 アップデート",),
                ("Ver.1.5", "1.5 のアップデート"),
                ("ギルド機能", "ギルド機能とギルド戦"),
            ),
            S("ver-1-6", "Ver.1.6", ("Ver.1.6 アップデート",), ("Ver.1.6", "1.6 のアップデート"), ("観戦モード",)),
        ),
        "date": (
            S("season3", "シーズン3 開始", ("シーズン3 の開始",), ("シーズン3 の開始",)),
            S("collab", "コラボイベント", ("コラボイベントの開始",), ("コラボイベント",)),
            S("store-review", "ストア審査提出", ("ストア審査への提出",), ("ストア審査の提出",)),
        ),
        "tool": (
            S(
                "protocol",
                "通信プロトコル",
                ("クライアントとの通信",),
                ("通信の形式", "プロトコル"),
                ("JSON over WebSocket", "Protocol Buffers over WebSocket"),
            ),
            S("profiling", "プロファイリング", ("プロファイリング",), ("プロファイリング",), ("pprof",)),
            S("bot-load", "負荷試験ツール", ("負荷試験",), ("負荷試験のツール",), ("自作 bot", "Locust")),
            S(
                "master-data",
                "マスターデータ管理",
                ("マスターデータの管理",),
                ("マスタの管理",),
                ("スプレッドシート + 変換スクリプト", "マスタ管理ツール"),
            ),
        ),
        "version": (
            S("go", "Go", ("Go",), ("Go",), ("1.21", "1.22")),
            S("unity", "Unity", ("Unity",), ("Unity",), ("2022.3",)),
        ),
        "metric": (
            S("ccu", "同時接続ピーク", ("同時接続数のピーク",), ("同接のピーク",), ("1.8 万", "3.1 万")),
            S(
                "match-wait",
                "マッチング待ち時間",
                ("マッチング待ち時間の中央値",),
                ("マッチングの待ち時間",),
                ("42 秒", "18 秒"),
            ),
            S(
                "tick-time",
                "tick 処理時間",
                ("サーバーの tick 処理時間",),
                ("1 tick の処理時間",),
                ("9 ミリ秒", "4 ミリ秒"),
            ),
            S("crash", "クラッシュ率", ("クライアントのクラッシュ率",), ("クラッシュ率",), ("0.6%",)),
        ),
        "limit": (
            S("room-size", "ルーム最大人数", ("1 ルームの最大人数",), ("1 部屋に何人入れるか",), ("8 人", "12 人")),
            S(
                "lobby-rate",
                "ロビー API レート制限",
                ("ロビー API のレート制限",),
                ("ロビー API のレートリミット",),
                ("1 ユーザー毎秒 10 回",),
            ),
            S("tickrate", "tick レート", ("サーバーの tick レート",), ("tick レート",), ("30Hz", "60Hz")),
            S("mmr-range", "MMR 許容幅", ("マッチングの MMR 許容幅",), ("MMR の許容幅",), ("±150", "±250")),
        ),
        "schedule": (
            S("ranking", "ランキング集計", ("週間ランキングの集計",), ("ランキング集計",), ("毎週月曜 4:00",)),
            S(
                "login-bonus",
                "ログインボーナス",
                ("ログインボーナスの付与",),
                ("ログボの付与",),
                ("毎日 5:00", "毎日 4:00"),
            ),
        ),
        "flag": (
            S("crossplay", "クロスプレイ", ("クロスプレイ",), ("クロスプレイ",), ("社内のみ", "全プレイヤー")),
            S(
                "new-mm",
                "新マッチング",
                ("新しいマッチングロジック",),
                ("新マッチング",),
                ("10% のプレイヤー", "50% のプレイヤー"),
            ),
        ),
        "tracker": (
            S("game-bugs", "不具合", ("ゲームの不具合",), ("ゲームのバグ",), ("Jira の RUNE プロジェクト",)),
            S("inquiries", "問い合わせ", ("ユーザーからの問い合わせ",), ("ユーザーの問い合わせ",), ("Zendesk",)),
        ),
        "channel": (
            S("incident", "障害連絡", ("障害連絡",), ("障害の連絡",), ("#rune-incident",)),
            S("release", "リリース告知", ("リリース告知",), ("リリースの告知",), ("#rune-release", "#rune-ops")),
        ),
    },
    items=(
        _item(
            "server-authority",
            P,
            ("移動の判定ってクライアント側でやってもいい？",),
            V(
                "サーバー権威",
                "server-authoritative",
                "当たり判定と移動はサーバー権威。クライアントの値は信用しない",
                "移動・当たり判定・ダメージ計算はすべてサーバー側で行う。クライアントからは入力だけ受け取る。\n"
                "**Why:** β でスピードハックが出回った。\n"
                "**How to apply:** 新しいスキルもサーバーで判定を書く。",
            ),
        ),
        _item(
            "double-grant",
            P,
            ("課金アイテムが二重に付与された件の原因は？",),
            V(
                "課金二重付与",
                "purchase-double-grant",
                "レシート検証のリトライで二重付与。トランザクション ID で冪等化した",
                "ストアのレシート検証がタイムアウトしてクライアントがリトライし、アイテムが二重付与された。"
                "`transaction_id` のユニーク制約で冪等にした。\n"
                "**Why:** 返金対応が大変だった。\n"
                "**How to apply:** 付与処理は必ずトランザクション ID で冪等に。",
            ),
        ),
        _item(
            "ranking-ties",
            P,
            ("ランキングで同点のときの順位はどう決めてる？",),
            V(
                "ランキングの同点処理",
                "ranking-ties",
                "同点のときはスコア到達が早い方を上位にする",
                "同点は先にそのスコアに到達したプレイヤーを上位にする（Redis のスコアに到達時刻を小数部で埋め込む）。\n"
                "**Why:** 企画からの指定。\n"
                "**How to apply:** スコア更新時に小数部も更新する。",
            ),
            V(
                "ランキングの同点は同順位に",
                "ranking-ties-shared",
                "同点は同順位扱いに変更、報酬も同じ",
                "企画の方針変更で、同点のプレイヤーは同順位にして報酬も同じにする。到達時刻の埋め込みはやめた。\n"
                "**Why:** 到達時刻で差がつくのが不公平だと問い合わせが多かった。\n"
                "**How to apply:** 順位は「自分より高いスコアの人数 + 1」で出す。",
            ),
        ),
        _item(
            "balance-approver",
            R,
            ("バランス調整のパラメータ変更は誰の承認が要る？",),
            V(
                "バランス調整の承認",
                "balance-approval",
                "バランス調整のマスタ変更はゲームデザイナーの藤田さんの承認が必要",
                "キャラやスキルの数値変更は、ゲームデザイン担当の藤田さんが承認してからマスタに入れる。"
                "承認は Jira のチケット上で。",
            ),
        ),
    ),
)

TSUMUGI = Theme(
    key="tsumugi",
    project="つむぎ会計",
    domain="tsumugi.jp",
    slugged=True,
    parts=(
        S("journal-api", "仕訳 API", ("仕訳 API", "journal-api"), ("仕訳 API",), role="service"),
        S(
            "invoice-service",
            "請求書サービス",
            ("請求書サービス", "invoice-service"),
            ("請求書サービス", "請求書の発行"),
            role="service",
        ),
        S("batch", "バッチ", ("バッチ基盤", "batch"), ("バッチ", "バッチ処理"), role="worker"),
        S(
            "acct-db",
            "会計 DB",
            ("会計 DB", "acct-db"),
            ("会計 DB", "会計の PostgreSQL"),
            ("5432", "5433", "6432"),
            "db",
        ),
        S("kafka", "Kafka", ("Kafka",), ("Kafka", "イベント基盤"), role="broker"),
        S("admin-web", "管理画面", ("管理画面", "admin-web"), ("管理画面",), role="web"),
    ),
    envs=(STG, PROD),
    people=("西村", "福田", "太田", "三浦", "藤井", "岡本", "中島"),
    subjects={
        "scope": (
            S(
                "sprint-31",
                "スプリント31",
                ("スプリント31",),
                ("スプリント31", "31 スプリント"),
                ("適格請求書の登録番号チェック",),
            ),
            S(
                "sprint-32",
                "スプリント32",
                ("スプリント32",),
                ("スプリント32", "32 スプリント"),
                ("請求書の一括送付", "一括送付と送付履歴"),
            ),
            S(
                "sprint-33",
                "スプリント33",
                ("スプリント33",),
                ("スプリント33", "33 スプリント"),
                ("銀行明細の自動消込",),
            ),
        ),
        "date": (
            S(
                "invoice-system",
                "インボイス対応リリース",
                ("インボイス制度対応のリリース",),
                ("インボイス対応のリリース",),
            ),
            S("e-book", "電帳法対応", ("電子帳簿保存法対応のリリース",), ("電帳法対応",)),
            S("java21", "Java 21 移行", ("Java 21 への移行",), ("Java 21 移行",)),
        ),
        "tool": (
            S("build", "ビルドツール", ("ビルド",), ("ビルドツール",), ("Maven", "Gradle (Kotlin DSL)")),
            S("db-migration", "DB マイグレーション", ("DB マイグレーション",), ("スキーマ変更",), ("Flyway",)),
            S(
                "pdf",
                "請求書 PDF 生成",
                ("請求書 PDF の生成",),
                ("請求書の PDF 作成",),
                ("JasperReports", "Chromium による HTML → PDF"),
            ),
            S(
                "contract-test",
                "契約テスト",
                ("API の契約テスト",),
                ("API の契約テスト",),
                ("Spring Cloud Contract", "Pact"),
            ),
        ),
        "version": (
            S("kotlin", "Kotlin", ("Kotlin",), ("Kotlin",), ("1.9", "2.0")),
            S("spring-boot", "Spring Boot", ("Spring Boot",), ("Spring Boot",), ("3.1", "3.2", "3.3")),
            S("java", "Java", ("Java",), ("Java",), ("17",)),
        ),
        "metric": (
            S(
                "month-end",
                "月次締め所要時間",
                ("月次締め処理の所要時間",),
                ("月次締めにかかる時間",),
                ("47 分", "19 分"),
            ),
            S(
                "api-p99",
                "仕訳 API p99",
                ("仕訳 API の p99",),
                ("仕訳 API のレイテンシ",),
                ("780 ミリ秒", "210 ミリ秒"),
            ),
            S(
                "pdf-time",
                "PDF 生成時間",
                ("請求書 PDF 1 枚の生成時間",),
                ("PDF 1 枚の生成時間",),
                ("2.5 秒", "0.8 秒"),
            ),
            S("uptime", "月間稼働率", ("月間稼働率",), ("稼働率",), ("99.97%",)),
        ),
        "limit": (
            S(
                "bulk-import",
                "一括取込上限",
                ("仕訳一括取込の上限",),
                ("仕訳インポートの上限",),
                ("1 回 1 万行", "1 回 5 万行"),
            ),
            S(
                "api-rate",
                "公開 API レート制限",
                ("公開 API のレート制限",),
                ("公開 API のレートリミット",),
                ("1 テナント毎分 300 回",),
            ),
            S(
                "db-pool",
                "コネクションプール",
                ("DB のコネクションプール数",),
                ("コネクションプールのサイズ",),
                ("30", "50"),
            ),
            S("pdf-parallel", "PDF 並列数", ("PDF 生成の並列数",), ("PDF をいくつ並列で作るか",), ("4",)),
        ),
        "schedule": (
            S("month-close", "月次締めバッチ", ("月次締めバッチ",), ("月次締め",), ("毎月 1 日 2:00",)),
            S("bank-sync", "銀行明細取得", ("銀行明細の取得",), ("銀行明細の取り込み",), ("1 日 4 回", "1 時間ごと")),
        ),
        "flag": (
            S(
                "ai-journal",
                "AI 仕訳サジェスト",
                ("AI 仕訳サジェスト",),
                ("AI 仕訳",),
                ("β テナントのみ", "有償プランの全テナント"),
            ),
        ),
        "tracker": (
            S("tsg-bugs", "不具合", ("不具合",), ("不具合",), ("Jira の TSG プロジェクト",)),
            S(
                "vuln",
                "脆弱性報告",
                ("脆弱性の報告",),
                ("脆弱性の報告",),
                ("security@tsumugi.jp", "HackerOne のプログラム"),
            ),
        ),
        "channel": (
            S("deploy", "デプロイ通知", ("デプロイ通知",), ("デプロイの通知",), ("#tsumugi-deploy",)),
            S(
                "cs-escalation",
                "CS エスカレーション",
                ("CS からのエスカレーション",),
                ("サポートからのエスカレーション",),
                ("#cs-escalation", "#tsumugi-support"),
            ),
        ),
    },
    items=(
        _item(
            "tax-rounding",
            P,
            ("消費税の端数ってどう処理してる？",),
            V(
                "消費税の端数処理",
                "consumption-tax-rounding",
                "消費税は請求書単位・税率ごとに切り捨て",
                "消費税は明細ごとではなく、請求書単位で税率ごとに集計して切り捨てる（インボイス制度の要件）。\n"
                "**Why:** 明細ごとの端数処理は適格請求書として認められない。\n"
                "**How to apply:** `TaxCalculator` 以外で税額を計算しない。",
            ),
        ),
        _item(
            "bigdecimal",
            F,
            ("金額の計算に Double 使っていい？",),
            V(
                "金額は BigDecimal",
                "money-bigdecimal",
                "金額は必ず BigDecimal。Double / Float は禁止",
                "金額の計算と保持は `BigDecimal`（scale 0、円単位）で行う。Double は使わない。\n"
                "**Why:** ユーザーが過去に Double の丸め誤差で 1 円ずれる不具合を踏んだ。\n"
                "**How to apply:** レビューで Double の金額を見たら差し戻す。",
            ),
        ),
        _item(
            "fiscal-year",
            P,
            ("会計年度の開始月ってどこで決まる？",),
            V(
                "会計年度",
                "fiscal-year",
                "期首月はテナントごとの設定。4 月固定ではない",
                "期首月はテナント設定 `fiscal_start_month` で決まる。4 月決算前提のコードを書かない。\n"
                "**Why:** 12 月決算の顧客で年度集計がずれた。\n"
                "**How to apply:** 年度の計算は `FiscalYear.of(tenant, date)` を使う。",
            ),
        ),
        _item(
            "audit-log",
            P,
            ("監査ログは何年残す必要がある？",),
            V(
                "監査ログの保持期間",
                "audit-log-retention",
                "監査ログは 7 年保持",
                "仕訳の変更履歴（監査ログ）は 7 年保持する。期限を過ぎたものは S3 Glacier に移してから削除。\n"
                "**Why:** 法人税法の帳簿保存期間。\n"
                "**How to apply:** ログテーブルに削除処理を書かない。",
            ),
            V(
                "監査ログの保持期間延長",
                "audit-log-retention-10y",
                "監査ログの保持期間を 10 年に延長",
                "欠損金の繰越に合わせて、監査ログは 10 年保持に延ばした。Glacier への移行も 10 年後。\n"
                "**Why:** 税理士事務所のお客さんから要望があった。\n"
                "**How to apply:** ライフサイクルルールの日数を変更済み。",
            ),
        ),
    ),
)

MIKIWAME = Theme(
    key="mikiwame",
    project="見極め",
    domain="mikiwame.ai",
    parts=(
        S(
            "inference-server",
            "推論サーバー",
            ("推論サーバー", "inference-server"),
            ("推論サーバー", "推論 API"),
            role="service",
        ),
        S("trainer", "学習ジョブ", ("学習ジョブ", "trainer"), ("学習ジョブ",), role="worker"),
        S(
            "cvat",
            "CVAT",
            ("アノテーション用の CVAT",),
            ("CVAT", "アノテーションツール"),
            ("8080", "8081", "8443"),
            "web",
        ),
        S("dataset-db", "データセット DB", ("データセット管理 DB",), ("データセット DB",), role="db"),
        S("mlflow", "MLflow", ("MLflow サーバー",), ("MLflow",), ("5000", "5001", "8080"), "service"),
        S("minio", "MinIO", ("画像置き場の MinIO",), ("MinIO", "画像ストレージ"), ("9000", "9001", "9100"), "db"),
    ),
    envs=(S("verify", "検証", ("検証",), ("検証環境", "検証用 GPU")), PROD),
    people=("坂本", "青木", "横山", "宮崎", "内田", "高木"),
    subjects={
        "scope": (
            S("exp-07", "実験 07", ("実験 07",), ("実験 07", "7 番の実験"), ("入力解像度を 768 に上げる",)),
            S(
                "exp-08",
                "実験 08",
                ("実験 08",),
                ("実験 08", "8 番の実験"),
                ("Focal Loss の導入", "Focal Loss とクラス重み"),
            ),
            S("exp-09", "実験 09", ("実験 09",), ("実験 09", "9 番の実験"), ("半教師あり学習",)),
        ),
        "date": (
            S("line3", "3 号ライン導入", ("3 号ラインへの導入",), ("3 号ラインへの導入",)),
            S("dataset-freeze", "データセット凍結", ("データセットの凍結",), ("データセットの凍結",)),
            S("customer-review", "顧客レビュー会", ("顧客とのレビュー会",), ("顧客レビュー会",)),
        ),
        "tool": (
            S("tracking", "実験管理", ("実験管理",), ("実験の記録",), ("スプレッドシート", "MLflow")),
            S("augment", "データ拡張", ("データ拡張",), ("データ拡張",), ("torchvision", "Albumentations")),
            S(
                "export",
                "モデル書き出し",
                ("モデルの書き出し",),
                ("モデルのエクスポート",),
                ("TorchScript", "ONNX + TensorRT"),
            ),
            S("labeling", "アノテーション", ("アノテーション作業",), ("ラベル付け",), ("CVAT",)),
        ),
        "version": (
            S("pytorch", "PyTorch", ("PyTorch",), ("PyTorch",), ("2.0", "2.2")),
            S("cuda", "CUDA", ("CUDA",), ("CUDA",), ("11.8", "12.1")),
            S("python", "Python", ("Python",), ("Python",), ("3.10",)),
        ),
        "metric": (
            S(
                "defect-recall",
                "不良検出率",
                ("不良品の検出率",),
                ("不良の見逃しの少なさ", "検出率"),
                ("94.1%", "96.8%", "97.9%"),
            ),
            S("false-alarm", "過検出率", ("過検出率",), ("良品を不良と判定する割合",), ("3.5%", "1.2%")),
            S(
                "latency",
                "推論時間",
                ("1 枚あたりの推論時間",),
                ("1 枚の推論にかかる時間",),
                ("85 ミリ秒", "28 ミリ秒"),
            ),
            S("images", "学習画像枚数", ("学習画像の枚数",), ("学習データの枚数",), ("4.2 万枚", "6.8 万枚")),
        ),
        "limit": (
            S("threshold", "判定しきい値", ("不良判定のしきい値",), ("判定のしきい値",), ("0.5", "0.35")),
            S("batch-size", "バッチサイズ", ("学習のバッチサイズ",), ("バッチサイズ",), ("32",)),
            S("input-size", "入力解像度", ("入力解像度",), ("入力画像のサイズ",), ("512×512", "768×768")),
            S("gpu", "使える GPU", ("使える GPU",), ("学習に使える GPU",), ("A100 2 枚", "A100 4 枚")),
        ),
        "schedule": (
            S("retrain", "定期再学習", ("定期再学習",), ("再学習",), ("毎週土曜 22:00", "隔週土曜 22:00")),
            S("drift", "ドリフト検知", ("ドリフト検知",), ("ドリフトのチェック",), ("毎朝 6:00",)),
        ),
        "flag": (S("new-model", "新モデル適用", ("新モデル",), ("新モデル",), ("3 号ラインのみ", "全ライン")),),
        "tracker": (
            S("misjudge", "誤判定報告", ("誤判定の報告",), ("誤判定の報告",), ("Redmine の「誤判定」トラッカー",)),
        ),
        "channel": (
            S(
                "training",
                "学習完了通知",
                ("学習完了の通知",),
                ("学習が終わった通知",),
                ("#mikiwame-train", "#ml-train"),
            ),
        ),
    },
    items=(
        _item(
            "test-set",
            F,
            ("しきい値をテストセットで調整してもいい？",),
            V(
                "テストセットでチューニングしない",
                "no-tuning-on-test",
                "顧客提供のテストセットは評価専用。しきい値調整にも使わない",
                "顧客から受け取ったテストセットは最終評価にだけ使う。しきい値もハイパラも検証セットで決める。\n"
                "**Why:** ユーザーは顧客に出す数字を信用できるものにしたい。\n"
                "**How to apply:** テストセットを読むのはリリース用スクリプトだけ。",
            ),
        ),
        _item(
            "lot-leak",
            P,
            ("再分割したら精度が落ちたのはなぜ？",),
            V(
                "ロットのリーク",
                "lot-leakage",
                "同じロットの画像が学習と検証にまたがってリークしていた",
                "以前の分割ではランダムに切っていたため、同じ製品ロットの画像が学習と検証の両方に入っていた。"
                "ロット単位で分割し直したら検出率が 3 ポイント下がった。それが本当の値。\n"
                "**Why:** 同じロットは見た目がほぼ同じ。\n"
                "**How to apply:** 新しいデータもロット ID でグループ分割する。",
            ),
        ),
        _item(
            "defect-classes",
            R,
            ("不良のクラス定義ってどこにまとまってる？",),
            V(
                "不良クラスの定義",
                "defect-class-definitions",
                "不良クラス（キズ・打痕・異物など 12 種）の定義は docs/defects.md",
                "不良クラス 12 種の定義と判定例の画像は `docs/defects.md` にある。クラス ID は並べ替えない。",
            ),
        ),
        _item(
            "pipeline",
            P,
            ("判定は何段階のモデルでやってる？",),
            V(
                "判定パイプライン",
                "two-stage-pipeline",
                "判定は分類モデル → セグメンテーションの 2 段階",
                "まず分類モデルで良否を判定し、不良のときだけセグメンテーションで位置を出す。\n"
                "**Why:** セグメンテーションは重いので全数にかけられなかった。\n"
                "**How to apply:** 分類のしきい値を変えるとセグメンテーションの件数も変わる。",
            ),
            V(
                "判定を 1 段階に統合",
                "single-stage-pipeline",
                "TensorRT 化で速くなったので、セグメンテーション 1 段で判定する",
                "TensorRT 化でセグメンテーションが全数にかけられる速さになったので、"
                "分類モデルをやめて 1 段で判定する。\n"
                "**Why:** 2 段だと分類の見逃しがそのまま残った。\n"
                "**How to apply:** 良否は不良領域の面積としきい値で決める。",
            ),
        ),
    ),
)

THEMES = (MINATO, KIZUNA, KAZAMI, RUNE, TSUMUGI, MIKIWAME)
