"""The six English projects of the held-out sessions set (see ``truth_sessions.py``).

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


STAGING = S("staging", "Staging", ("staging",), ("staging",))
PROD = S("prod", "Prod", ("prod", "production"), ("prod", "production"))

PAYHIVE = Theme(
    key="payhive",
    project="Payhive",
    domain="payhive.net",
    parts=(
        S(
            "billing-api",
            "Billing API",
            ("billing-api", "billing API"),
            ("billing API", "billing service"),
            role="service",
        ),
        S(
            "invoice-worker",
            "Invoice worker",
            ("invoice-worker",),
            ("invoice worker", "invoicing worker"),
            role="worker",
        ),
        S(
            "ledger-db",
            "Ledger DB",
            ("ledger-db", "ledger Postgres"),
            ("ledger database", "ledger db", "Postgres for the ledger"),
            ("5432", "5433", "6432", "15432"),
            "db",
        ),
        S(
            "webhook-gateway",
            "Webhook gateway",
            ("webhook-gateway",),
            ("webhook gateway", "webhooks service"),
            role="service",
        ),
        S(
            "session-cache",
            "Session cache",
            ("session-cache", "Redis session cache"),
            ("session Redis", "session cache"),
            role="cache",
        ),
        S(
            "events-kafka",
            "Events Kafka",
            ("events-kafka", "payment-events Kafka"),
            ("Kafka cluster", "payment events Kafka"),
            role="broker",
        ),
        S(
            "merchant-dashboard",
            "Merchant dashboard",
            ("merchant-dashboard",),
            ("merchant dashboard", "dashboard frontend"),
            role="web",
        ),
    ),
    envs=(STAGING, PROD, S("sandbox", "Sandbox", ("sandbox",), ("sandbox", "public sandbox"))),
    people=("Priya", "Marcus", "Jun", "Elena", "Tomasz", "Aisha", "Ben", "Carla"),
    subjects={
        "scope": (
            S(
                "v3-phase-1",
                "Cutover phase 1",
                ("phase 1 of the v3 cutover",),
                ("phase 1 of the v3 cutover", "v3 phase 1"),
                ("dual-writing ledger entries to v3",),
            ),
            S(
                "v3-phase-2",
                "Cutover phase 2",
                ("phase 2 of the v3 cutover",),
                ("phase 2 of the v3 cutover", "v3 phase 2"),
                ("backfilling 2023 entries into v3", "backfilling every entry since 2022 into v3"),
            ),
            S(
                "v3-phase-3",
                "Cutover phase 3",
                ("phase 3 of the v3 cutover",),
                ("phase 3 of the v3 cutover", "the last cutover phase"),
                ("switching reads to v3 and dropping the old tables",),
            ),
        ),
        "date": (
            S("pci-audit", "PCI audit", ("the PCI audit", "the PCI DSS audit"), ("the PCI audit", "our PCI audit")),
            S(
                "v3-cutover",
                "Ledger v3 cutover",
                ("the ledger v3 cutover",),
                ("the v3 cutover", "the ledger v3 switch"),
            ),
            S("sandbox-sunset", "Old sandbox shutdown", ("the old sandbox shutdown",), ("the old sandbox shutdown",)),
        ),
        "tool": (
            S(
                "migrations",
                "DB migrations",
                ("database migrations", "schema migrations"),
                ("database migrations", "schema changes"),
                ("yoyo-migrations", "Alembic"),
            ),
            S(
                "e2e",
                "E2E tests",
                ("end-to-end tests of the dashboard",),
                ("end-to-end tests", "e2e testing the dashboard"),
                ("Cypress", "Playwright"),
            ),
            S(
                "python-deps",
                "Python deps",
                ("Python dependency management", "locking Python deps"),
                ("managing Python dependencies", "adding a Python package"),
                ("pip-tools", "Poetry", "uv"),
            ),
            S("lint", "Linting", ("linting", "Python linting"), ("linting", "lint checks"), ("flake8 + isort", "Ruff")),
            S("secrets", "Secrets", ("secret storage",), ("keeping API keys and secrets",), ("AWS Secrets Manager",)),
        ),
        "version": (
            S("python", "Python", ("Python",), ("Python",), ("3.11", "3.12")),
            S("postgres", "Postgres", ("Postgres",), ("Postgres",), ("14", "16")),
            S("node", "Node.js", ("Node.js",), ("Node",), ("20",)),
        ),
        "metric": (
            S(
                "charges-p95",
                "Charges p95",
                ("p95 latency of POST /v1/charges", "the charges endpoint p95"),
                ("the p95 for creating a charge", "charge creation latency"),
                ("840 ms", "410 ms", "260 ms"),
            ),
            S(
                "ci-duration",
                "CI duration",
                ("the full CI run", "CI wall time"),
                ("how long CI takes", "the CI duration"),
                ("23 min", "14 min"),
            ),
            S(
                "billing-coverage",
                "billing-api coverage",
                ("test coverage of billing-api",),
                ("billing API test coverage",),
                ("71%", "78%"),
            ),
            S(
                "webhook-success",
                "Webhook success rate",
                ("the webhook first-attempt success rate",),
                ("the webhook first-try success rate",),
                ("97.2%",),
            ),
        ),
        "limit": (
            S(
                "charge-rate-limit",
                "Charge rate limit",
                ("the rate limit on /v1/charges",),
                ("the rate limit for creating charges", "the per-merchant charge limit"),
                ("25 req/s per merchant", "50 req/s per merchant"),
            ),
            S(
                "webhook-retries",
                "Webhook retries",
                ("the webhook retry policy",),
                ("the webhook retry count",),
                ("5 retries with exponential backoff", "8 retries spread over 24 hours"),
            ),
            S(
                "ledger-pool",
                "ledger-db pool size",
                ("the ledger-db connection pool",),
                ("the DB connection pool size",),
                ("20 connections per pod",),
            ),
            S(
                "idempotency-ttl",
                "Idempotency key TTL",
                ("the idempotency key TTL",),
                ("the idempotency key expiry",),
                ("24 hours",),
            ),
        ),
        "schedule": (
            S(
                "settlement",
                "Settlement job",
                ("the nightly settlement job",),
                ("the settlement job",),
                ("every night at 01:30 UTC", "every night at 03:00 UTC"),
            ),
            S(
                "invoice-run",
                "Invoice run",
                ("the monthly invoice run",),
                ("the invoice run", "monthly invoicing"),
                ("on the 1st of each month at 06:00 UTC",),
            ),
            S(
                "payout-recon",
                "Payout reconciliation",
                ("payout reconciliation",),
                ("the payout reconciliation",),
                ("every hour at :15",),
            ),
        ),
        "flag": (
            S(
                "instant-payouts",
                "Instant payouts",
                ("instant payouts",),
                ("instant payouts",),
                ("internal accounts only", "10% of merchants", "all merchants"),
            ),
            S("new-checkout", "New checkout", ("new checkout page",), ("new checkout",), ("5% of traffic",)),
        ),
        "tracker": (
            S(
                "payment-bugs",
                "Payment bugs",
                ("payment bugs",),
                ("payment bugs", "a bug in payments"),
                ("Linear project PAY", "Linear project LEDGER"),
            ),
            S(
                "dashboard-issues",
                "Dashboard issues",
                ("merchant dashboard issues",),
                ("dashboard UI issues",),
                ("Jira board MD",),
            ),
        ),
        "channel": (
            S(
                "deploys",
                "Deploy announcements",
                ("deploy announcements",),
                ("deploy announcements",),
                ("#deploys", "#payhive-releases"),
            ),
            S("pager", "Pager alerts", ("pager alerts for billing",), ("billing alerts",), ("#billing-alerts",)),
        ),
    },
    items=(
        _item(
            "adr-7",
            P,
            ("how are amounts stored in the ledger, decimals?", "what did ADR 7 decide?"),
            V(
                "ADR-7: money as integer minor units",
                "adr-7-minor-units",
                "ADR-7 decided amounts are stored as integer minor units, never floats or decimals",
                "ADR-7 (accepted): every amount is an integer count of minor units (cents) plus an ISO currency code.\n"
                "**Why:** float rounding produced one-cent ledger mismatches.\n"
                "**How to apply:** never introduce Decimal or float amounts in models or API payloads.",
            ),
        ),
        _item(
            "adr-11",
            P,
            ("can I fix a wrong ledger entry by updating it in place?", "what does ADR-11 say?"),
            V(
                "ADR-11: append-only ledger",
                "adr-11-append-only-ledger",
                "ADR-11: ledger entries are never updated or deleted; corrections are reversal entries",
                "ADR-11 (accepted): the ledger is append-only. A mistake is corrected by a reversal entry plus a new "
                "entry, both pointing at the original.\n"
                "**Why:** auditors need to see every change.\n"
                "**How to apply:** no UPDATE or DELETE on `ledger_entries`, not even in a data fix script.",
            ),
        ),
        _item(
            "inc-231",
            P,
            ("what caused the webhook outage in INC-231?",),
            V(
                "INC-231 webhook outage",
                "inc-231-webhook-outage",
                "INC-231: webhooks failed for 3 hours because the gateway's TLS certificate expired",
                "INC-231: webhook deliveries failed for about three hours. Root cause: the webhook-gateway TLS "
                "certificate expired; cert-manager was not watching that namespace.\n"
                "**Why:** recorded so the cause is not rediscovered.\n"
                "**How to apply:** new namespaces must be added to cert-manager's watch list.",
            ),
        ),
        _item(
            "inc-240",
            P,
            ("why did some merchants get charged twice last month?",),
            V(
                "INC-240 duplicate charges",
                "inc-240-duplicate-charges",
                "INC-240: double charges came from client retries without an Idempotency-Key header",
                "INC-240: a few merchants saw duplicate charges. Their SDK retried on timeouts without an "
                "Idempotency-Key, so each retry created a new charge. Fix: the API now rejects POST /v1/charges "
                "without the header.\n"
                "**Why:** the header was optional.\n"
                "**How to apply:** any new mutating endpoint requires an idempotency key.",
            ),
        ),
        _item(
            "refund-approval",
            P,
            (
                "above what amount does a refund need a second approver?",
                "do I need someone else to sign off a big refund?",
            ),
            V(
                "Refund approvals",
                "refund-second-approver",
                "Refunds above $500 need a second approver in the admin tool",
                "Refunds over $500 require a second person to approve them in the admin tool.\n"
                "**Why:** finance control after a fraud attempt.\n"
                "**How to apply:** the refund endpoint must return `pending_approval` above the threshold.",
            ),
            V(
                "Refund approval threshold raised",
                "refund-threshold-1000",
                "Second approval now only for refunds above $1,000",
                "Finance raised the second-approver threshold for refunds to $1,000.\n"
                "**Why:** the $500 limit created a queue of small approvals nobody had time for.\n"
                "**How to apply:** update the threshold constant and the admin tool copy together.",
            ),
        ),
        _item(
            "sandbox-cards",
            R,
            ("which test card gives a decline in the sandbox?",),
            V(
                "Sandbox test cards",
                "sandbox-test-cards",
                "Test card numbers for the sandbox: success, decline, 3DS challenge",
                "Sandbox test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, "
                "4000 0027 6000 3184 triggers a 3DS challenge. Full list in the public API docs under Testing.",
            ),
        ),
    ),
)

TRAILHEAD = Theme(
    key="trailhead",
    project="Trailhead",
    domain="trailhead.app",
    parts=(
        S("trails-api", "Trails API", ("trails-api", "trails API"), ("trails API", "backend API"), role="service"),
        S(
            "tile-server",
            "Tile server",
            ("tile-server", "map tile server"),
            ("tile server", "map tiles service"),
            role="service",
        ),
        S(
            "push-worker",
            "Push worker",
            ("push-worker", "push notification worker"),
            ("push worker", "push notification worker"),
            role="worker",
        ),
        S(
            "trails-db",
            "Trails DB",
            ("trails-db", "PostGIS database"),
            ("trails database", "PostGIS db"),
            ("5432", "5433", "5434", "6432"),
            "db",
        ),
        S("geo-cache", "Geo cache", ("geo-cache", "Redis geo cache"), ("geo cache", "Redis cache"), role="cache"),
        S("admin-web", "Admin web", ("admin-web", "admin console"), ("admin console", "admin site"), role="web"),
    ),
    envs=(STAGING, PROD),
    people=("Hannah", "Diego", "Wei", "Olivia", "Kwame", "Sofia", "Ravi"),
    subjects={
        "scope": (
            S(
                "release-4-2",
                "Release 4.2",
                ("release 4.2",),
                ("4.2", "the 4.2 release"),
                ("the offline maps beta and the new trail card",),
            ),
            S(
                "release-4-3",
                "Release 4.3",
                ("release 4.3",),
                ("4.3", "the 4.3 release"),
                ("GPX import and Android widgets", "GPX import only (widgets moved to 4.4)"),
            ),
            S(
                "release-4-4",
                "Release 4.4",
                ("release 4.4",),
                ("4.4", "the 4.4 release"),
                ("the Apple Watch companion app",),
            ),
        ),
        "date": (
            S(
                "store-submission",
                "App Store submission 4.2",
                ("the App Store submission of 4.2",),
                ("the 4.2 App Store submission", "the App Store submission for 4.2"),
            ),
            S(
                "android-target",
                "Android target SDK deadline",
                ("the Google Play target SDK deadline",),
                ("the Play Store target SDK deadline",),
            ),
            S("offline-beta", "Offline maps beta", ("the offline maps beta",), ("the offline maps beta launch",)),
            S("trail-season", "Summer trail season launch", ("the summer season launch",), ("the summer launch",)),
        ),
        "tool": (
            S(
                "crash-reporting",
                "Crash reporting",
                ("crash reporting",),
                ("crash reporting", "collecting crash reports"),
                ("Crashlytics", "Sentry"),
            ),
            S(
                "ota",
                "OTA updates",
                ("over-the-air updates",),
                ("shipping an OTA update", "over-the-air updates"),
                ("CodePush", "EAS Update"),
            ),
            S(
                "state",
                "State management",
                ("app state management",),
                ("state management in the app",),
                ("Redux Toolkit", "Zustand"),
            ),
            S(
                "mobile-e2e",
                "Mobile E2E",
                ("mobile end-to-end tests",),
                ("e2e tests on the phone", "mobile e2e tests"),
                ("Detox",),
            ),
            S("maps-sdk", "Maps SDK", ("the map rendering SDK",), ("the map SDK",), ("Mapbox GL", "MapLibre")),
        ),
        "version": (
            S("react-native", "React Native", ("React Native",), ("React Native",), ("0.72", "0.73", "0.74")),
            S(
                "ios-target",
                "iOS deployment target",
                ("the iOS deployment target",),
                ("the minimum iOS",),
                ("15.0", "16.0"),
            ),
        ),
        "metric": (
            S(
                "crash-free",
                "Crash-free sessions",
                ("crash-free sessions",),
                ("the crash-free rate", "crash-free sessions"),
                ("99.1%", "99.6%"),
            ),
            S(
                "cold-start",
                "Cold start on Pixel 6",
                ("cold start time on a Pixel 6",),
                ("app startup time on Android",),
                ("2.8 s", "1.9 s"),
            ),
            S(
                "bundle-size",
                "iOS download size",
                ("the iOS download size",),
                ("the iPhone app download size",),
                ("48 MB", "41 MB"),
            ),
            S(
                "tile-hit",
                "Tile cache hit ratio",
                ("the tile cache hit ratio",),
                ("the tile cache hit rate",),
                ("83%",),
            ),
        ),
        "limit": (
            S(
                "offline-cap",
                "Offline download cap",
                ("the offline map download cap",),
                ("the offline download limit",),
                ("2 GB per device", "4 GB per device"),
            ),
            S(
                "api-timeout",
                "Mobile API timeout",
                ("the client-side API timeout",),
                ("the app's request timeout",),
                ("15 s",),
            ),
            S(
                "gpx-size",
                "GPX upload limit",
                ("the GPX upload size limit",),
                ("the max GPX file size",),
                ("20 MB", "50 MB"),
            ),
            S(
                "push-cap",
                "Push cap",
                ("the push notification cap",),
                ("the daily push limit per user",),
                ("3 per user per day",),
            ),
        ),
        "schedule": (
            S(
                "conditions-sync",
                "Trail conditions sync",
                ("the trail conditions sync",),
                ("the trail conditions refresh",),
                ("every 30 minutes", "every 10 minutes"),
            ),
            S(
                "weekly-digest",
                "Weekly digest",
                ("the weekly digest email",),
                ("the weekly digest",),
                ("Mondays at 07:00 in the user's timezone",),
            ),
        ),
        "flag": (
            S(
                "offline-routing",
                "Offline routing",
                ("offline routing",),
                ("offline routing",),
                ("10% of Android users", "50% of users", "everyone"),
            ),
            S("social-feed", "Social feed", ("social feed",), ("social feed",), ("staff accounts only",)),
        ),
        "tracker": (
            S(
                "mobile-crashes",
                "Mobile crash tickets",
                ("mobile crash tickets",),
                ("app crash tickets",),
                ("Linear project MOB",),
            ),
            S(
                "map-data",
                "Map data issues",
                ("map data problems",),
                ("wrong trail data reports",),
                ("GitHub issues in trailhead-data", "Linear project GEO"),
            ),
        ),
        "channel": (
            S(
                "releases",
                "Release announcements",
                ("mobile release announcements",),
                ("release announcements",),
                ("#mobile-releases",),
            ),
            S(
                "crash-alerts",
                "Crash alerts",
                ("crash spike alerts",),
                ("crash alerts",),
                ("#trailhead-crashes", "#mobile-oncall"),
            ),
        ),
    },
    items=(
        _item(
            "store-rejection",
            P,
            ("why did Apple reject the last build?",),
            V(
                "App Store rejection 4.1.2",
                "app-store-rejection-4-1-2",
                "Apple rejected 4.1.2 for asking for background location without a clear purpose string",
                "Build 4.1.2 was rejected under guideline 5.1.1: the background location purpose string did not say "
                "why. Fixed by rewording NSLocationAlwaysAndWhenInUseUsageDescription to mention track recording.\n"
                "**Why:** review will check it again on every release.\n"
                "**How to apply:** any new permission needs a specific purpose string before submission.",
            ),
        ),
        _item(
            "offline-sqlite",
            P,
            ("where does the app keep downloaded trails for offline use?",),
            V(
                "Offline storage decision",
                "offline-storage-sqlite",
                "Offline trails and tiles are stored in SQLite (op-sqlite), not AsyncStorage",
                "Decided to keep offline trails and vector tiles in SQLite via op-sqlite.\n"
                "**Why:** AsyncStorage choked on anything over a few MB.\n"
                "**How to apply:** new offline data goes through the `offlineStore` module.",
            ),
        ),
        _item(
            "test-accounts",
            R,
            ("where are the test login accounts for the app?",),
            V(
                "QA test accounts",
                "qa-test-accounts",
                "QA test accounts for staging are in the 1Password vault 'Trailhead QA'",
                'Staging test accounts (free, premium, expired premium) live in the 1Password vault "Trailhead QA". '
                "Don't create new ones; the premium flag has to be set by hand in admin-web.",
            ),
        ),
        _item(
            "jdk",
            P,
            ("Android build fails with a Gradle error about the Java version, what JDK do I need?",),
            V(
                "Android build JDK",
                "android-build-jdk",
                "Android builds need JDK 17; JDK 21 breaks the Gradle plugin",
                "Use JDK 17 for Android builds.\n"
                "**Why:** the current Android Gradle plugin fails on JDK 21 with an obscure jlink error.\n"
                "**How to apply:** `JAVA_HOME` must point to 17 before `./gradlew`.",
            ),
            V(
                "Android builds on JDK 21 now",
                "android-jdk-21",
                "After the Gradle plugin upgrade, Android builds run on JDK 21",
                "The AGP upgrade fixed the jlink problem: Android builds now use JDK 21 and CI images were switched.\n"
                "**Why:** keeping 17 around only for Android was a pain.\n"
                "**How to apply:** point `JAVA_HOME` at 21; 17 still works but is not tested.",
            ),
        ),
        _item(
            "elevation-units",
            P,
            ("are elevations in the API in feet or meters?",),
            V(
                "Elevation units",
                "elevation-units-meters",
                "All elevations in the API and DB are meters; feet only in the UI",
                "Elevation values are stored and sent in meters; the app converts to feet for US locales.\n"
                "**Why:** mixed units caused a bug where climbs looked ten times steeper.\n"
                "**How to apply:** name fields `*_m` and never convert on the server.",
            ),
        ),
    ),
)

GRAINLINE = Theme(
    key="grainline",
    project="Grainline",
    domain="grainline.io",
    parts=(
        S(
            "airflow",
            "Airflow",
            ("Airflow webserver", "Airflow"),
            ("Airflow", "Airflow UI"),
            ("8080", "8081", "8793"),
            "service",
        ),
        S(
            "ingest-worker",
            "Ingest worker",
            ("ingest-worker", "ingestion workers"),
            ("ingest workers", "ingestion worker"),
            role="worker",
        ),
        S("events-kafka", "Kafka", ("events Kafka", "Kafka"), ("Kafka cluster", "event stream Kafka"), role="broker"),
        S(
            "meta-db",
            "Metadata DB",
            ("Airflow metadata DB", "meta-db"),
            ("Airflow metadata database", "meta db"),
            role="db",
        ),
        S(
            "spark-history",
            "Spark history server",
            ("Spark history server",),
            ("Spark history UI", "Spark history server"),
            ("18080", "18081", "4040"),
            "service",
        ),
        S("dbt-docs", "dbt docs", ("dbt docs site",), ("dbt docs",), role="web"),
        S("celery-redis", "Celery Redis", ("Celery broker Redis",), ("Celery Redis", "task queue Redis"), role="cache"),
    ),
    envs=(S("dev", "Dev", ("dev",), ("dev",)), PROD),
    people=("Grace", "Anton", "Mei", "Lukas", "Nadia", "Omar", "Ines", "Felix"),
    subjects={
        "scope": (
            S(
                "wave-1",
                "Migration wave 1",
                ("wave 1 of the Snowflake migration",),
                ("migration wave 1", "the first migration wave"),
                ("the orders and payments marts",),
            ),
            S(
                "wave-2",
                "Migration wave 2",
                ("wave 2 of the Snowflake migration",),
                ("migration wave 2", "the second wave"),
                ("the marketing and attribution models", "the marketing models only"),
            ),
            S(
                "wave-3",
                "Migration wave 3",
                ("wave 3 of the Snowflake migration",),
                ("migration wave 3", "the last wave"),
                ("finance reporting and the exec dashboards",),
            ),
        ),
        "date": (
            S(
                "redshift-off",
                "Redshift shutdown",
                ("the Redshift shutdown",),
                ("the Redshift shutdown", "the Redshift decommission"),
            ),
            S(
                "snowflake-renewal",
                "Snowflake renewal",
                ("the Snowflake contract renewal",),
                ("the Snowflake renewal",),
            ),
            S("q3-freeze", "Q3 data freeze", ("the Q3 reporting freeze",), ("the quarter-end data freeze",)),
        ),
        "tool": (
            S(
                "data-quality",
                "Data quality checks",
                ("data quality checks",),
                ("data quality tests", "checking data quality"),
                ("Great Expectations", "Soda Core"),
            ),
            S(
                "dbt-ci",
                "dbt CI",
                ("running dbt in CI",),
                ("dbt CI runs",),
                ("dbt Cloud jobs", "GitHub Actions with slim CI"),
            ),
            S("notebooks", "Notebooks", ("shared notebooks",), ("notebooks for analysis",), ("JupyterHub", "Hex")),
            S("orchestration", "Orchestration", ("pipeline orchestration",), ("scheduling pipelines",), ("Airflow",)),
        ),
        "version": (
            S("airflow-v", "Airflow", ("Airflow",), ("Airflow",), ("2.7", "2.9")),
            S("spark", "Spark", ("Spark",), ("Spark",), ("3.4", "3.5")),
            S("dbt-core", "dbt-core", ("dbt-core",), ("dbt",), ("1.7",)),
        ),
        "metric": (
            S(
                "nightly-duration",
                "Nightly DAG duration",
                ("the nightly DAG run time",),
                ("the nightly run time",),
                ("3 h 10 min", "2 h 05 min", "1 h 40 min"),
            ),
            S(
                "credits",
                "Warehouse spend",
                ("monthly Snowflake credit spend",),
                ("our warehouse spend",),
                ("4,100 credits", "2,900 credits"),
            ),
            S(
                "freshness",
                "Data freshness",
                ("data freshness lag on orders",),
                ("the orders data lag",),
                ("6 hours", "2 hours"),
            ),
            S(
                "failed-tasks",
                "Failed task rate",
                ("the weekly failed task rate",),
                ("the task failure rate",),
                ("1.8%",),
            ),
        ),
        "limit": (
            S(
                "parallelism",
                "Airflow parallelism",
                ("Airflow parallelism",),
                ("Airflow's task parallelism",),
                ("32", "64"),
            ),
            S(
                "executor-memory",
                "Spark executor memory",
                ("spark.executor.memory",),
                ("the Spark executor memory",),
                ("8g", "12g"),
            ),
            S(
                "kafka-retention",
                "Kafka retention",
                ("retention on the raw events topic",),
                ("the raw events retention",),
                ("7 days", "3 days"),
            ),
            S("dbt-threads", "dbt threads", ("dbt threads in prod",), ("the number of dbt threads",), ("8",)),
        ),
        "schedule": (
            S(
                "orders-dag",
                "Orders DAG",
                ("the orders DAG",),
                ("the orders pipeline",),
                ("daily at 04:00 UTC", "daily at 02:00 UTC"),
            ),
            S(
                "marketing-export",
                "Marketing export",
                ("the marketing export",),
                ("the export to marketing",),
                ("every hour at :20",),
            ),
            S(
                "vacuum",
                "Meta DB cleanup",
                ("the metadata DB cleanup",),
                ("the Airflow db clean job",),
                ("Sundays at 05:00 UTC",),
            ),
        ),
        "flag": (
            S(
                "attribution-v2",
                "Attribution v2",
                ("attribution v2",),
                ("new attribution model",),
                ("the growth team only", "all dashboards"),
            ),
        ),
        "tracker": (
            S(
                "data-issues",
                "Data quality tickets",
                ("data quality tickets",),
                ("bad data reports",),
                ("Jira project DATA",),
            ),
            S(
                "pipeline-bugs",
                "Pipeline bugs",
                ("pipeline bugs",),
                ("a broken DAG",),
                ("GitHub issues on grainline-dags", "Jira project PIPE"),
            ),
        ),
        "channel": (
            S(
                "data-alerts",
                "Data alerts",
                ("failed DAG alerts",),
                ("DAG failure alerts",),
                ("#data-alerts", "#grainline-alerts"),
            ),
            S(
                "data-requests",
                "Data requests",
                ("ad-hoc data requests",),
                ("data requests from other teams",),
                ("#ask-data",),
            ),
        ),
    },
    items=(
        _item(
            "pii-columns",
            P,
            ("can I copy the customers table with emails into the sandbox schema?",),
            V(
                "PII columns",
                "pii-columns-hashed",
                "Email, phone and address columns must be hashed before leaving the raw schema",
                "PII (email, phone, street address) stays in `raw`; every model downstream gets the salted hash.\n"
                "**Why:** GDPR review found emails in a marketing export.\n"
                "**How to apply:** use the `hash_pii()` macro; the CI check fails on unhashed PII columns.",
            ),
        ),
        _item(
            "revenue-source",
            P,
            ("which table is the source of truth for revenue?",),
            V(
                "Revenue source of truth",
                "revenue-source-of-truth",
                "fct_revenue is the only source of truth for revenue; stg_payments is not",
                "Revenue numbers come from `fct_revenue` only. `stg_payments` includes failed and refunded payments.\n"
                "**Why:** two dashboards disagreed by 4% because one used the staging model.\n"
                "**How to apply:** point every new revenue metric at `fct_revenue`.",
            ),
        ),
        _item(
            "backfill",
            P,
            ("how do I backfill a month of the orders DAG safely?",),
            V(
                "Backfills",
                "backfill-procedure",
                "Backfills run with max_active_runs=1 and --reset-dagruns off, one month at a time",
                "Backfill in one-month chunks with `max_active_runs=1`, never with `--reset-dagruns`.\n"
                "**Why:** a parallel backfill once overloaded the warehouse and blocked the nightly run.\n"
                "**How to apply:** post in the data alerts channel before starting.",
            ),
        ),
        _item(
            "dup-events",
            P,
            ("why were there duplicate events in the clickstream last sprint?",),
            V(
                "Duplicate clickstream events",
                "duplicate-clickstream-events",
                "Duplicates in clickstream came from the producer retrying after a Kafka leader change",
                "The duplicate clickstream events were producer retries during a Kafka leader election; the producer "
                "was not idempotent. Fixed by `enable.idempotence=true` and a dedup on `event_id` in staging.\n"
                "**Why:** counts were 2% high for a week.\n"
                "**How to apply:** dedup on `event_id` in every new event model.",
            ),
        ),
        _item(
            "warehouse-role",
            R,
            ("which Snowflake role should the DAGs use?",),
            V(
                "Snowflake roles",
                "snowflake-roles",
                "DAGs use the TRANSFORMER role; analysts use REPORTER; never SYSADMIN",
                "Snowflake roles: pipelines run as TRANSFORMER, BI tools as REPORTER, people as their personal role. "
                "SYSADMIN is for the platform team only.",
            ),
            V(
                "Snowflake roles reworked",
                "snowflake-roles-reworked",
                "DAGs now run as PIPELINE_RW; TRANSFORMER is deprecated",
                "The platform team split roles: DAGs run as PIPELINE_RW, dbt as DBT_RW, BI tools still REPORTER. "
                "TRANSFORMER will be dropped at the end of the quarter.",
            ),
        ),
    ),
)

QUILL = Theme(
    key="quill",
    project="Quill",
    domain="quillcms.dev",
    parts=(
        S(
            "cms-api",
            "CMS API",
            ("cms-api", "Django API"),
            ("CMS API", "Django backend"),
            ("8000", "8001", "8002"),
            "service",
        ),
        S(
            "web-frontend",
            "Web frontend",
            ("web-frontend", "Next.js site"),
            ("Next.js frontend", "public site"),
            role="web",
        ),
        S(
            "media-service",
            "Media service",
            ("media-service", "image pipeline"),
            ("media service", "image service"),
            role="service",
        ),
        S(
            "search",
            "Search",
            ("OpenSearch cluster", "search"),
            ("search cluster", "OpenSearch cluster"),
            ("9200", "9201", "9243"),
            "db",
        ),
        S("cms-db", "CMS database", ("cms-db", "content Postgres"), ("content database", "CMS Postgres"), role="db"),
        S("redis", "Redis", ("Redis cache",), ("Redis cache",), role="cache"),
        S("celery", "Celery workers", ("Celery workers",), ("Celery workers", "background workers"), role="worker"),
    ),
    envs=(STAGING, PROD, S("preview", "Preview", ("preview",), ("preview",))),
    people=("Zoe", "Arjun", "Lena", "Marco", "Fatima", "George", "Yuki"),
    subjects={
        "scope": (
            S("sprint-14", "Sprint 14", ("sprint 14",), ("sprint 14",), ("the TipTap editor migration",)),
            S(
                "sprint-15",
                "Sprint 15",
                ("sprint 15",),
                ("sprint 15", "this sprint, 15"),
                ("search relevance tuning and the sitemap fix", "the sitemap fix and live blog embeds"),
            ),
            S(
                "sprint-16",
                "Sprint 16",
                ("sprint 16",),
                ("sprint 16", "next sprint (16)"),
                ("the publisher's paywall integration",),
            ),
        ),
        "date": (
            S(
                "redesign-launch",
                "Redesign launch",
                ("the site redesign launch",),
                ("the redesign going live", "the redesign launch"),
            ),
            S("client-demo", "Client demo", ("the demo for the publisher",), ("the publisher demo",)),
            S(
                "django-upgrade",
                "Django upgrade deadline",
                ("the Django upgrade deadline",),
                ("the Django upgrade deadline",),
            ),
        ),
        "tool": (
            S(
                "editor",
                "Rich text editor",
                ("the rich text editor",),
                ("the editor component", "rich text editing"),
                ("Draft.js", "TipTap"),
            ),
            S(
                "image-cdn",
                "Image CDN",
                ("image resizing and CDN",),
                ("serving images", "the image CDN"),
                ("Imgix", "Cloudflare Images"),
            ),
            S(
                "css",
                "Styling",
                ("styling the frontend",),
                ("CSS in the frontend", "styling"),
                ("Sass modules", "Tailwind"),
            ),
            S("task-queue", "Task queue", ("background jobs",), ("background jobs",), ("Celery",)),
        ),
        "version": (
            S("django", "Django", ("Django",), ("Django",), ("4.2", "5.0")),
            S("nextjs", "Next.js", ("Next.js",), ("Next",), ("13", "14")),
            S("node", "Node.js", ("Node.js",), ("Node",), ("18", "20")),
        ),
        "metric": (
            S(
                "lighthouse",
                "Lighthouse score",
                ("the Lighthouse performance score on the home page",),
                ("our Lighthouse score",),
                ("62", "81", "88"),
            ),
            S(
                "ttfb",
                "Home page TTFB",
                ("time to first byte on the home page",),
                ("the home page TTFB",),
                ("620 ms", "240 ms"),
            ),
            S("reindex-time", "Full reindex time", ("a full search reindex",), ("the full reindex time",), ("52 min",)),
        ),
        "limit": (
            S(
                "upload-size",
                "Upload limit",
                ("the media upload limit",),
                ("the maximum upload size",),
                ("10 MB", "25 MB"),
            ),
            S("page-size", "API page size", ("the default API page size",), ("the default page size",), ("50",)),
            S(
                "preview-ttl",
                "Preview token lifetime",
                ("the preview token lifetime",),
                ("the preview link lifetime",),
                ("1 hour", "8 hours"),
            ),
            S(
                "resize-concurrency",
                "Resize concurrency",
                ("image resize concurrency",),
                ("the resize concurrency",),
                ("4",),
            ),
        ),
        "schedule": (
            S(
                "sitemap",
                "Sitemap regeneration",
                ("the sitemap regeneration",),
                ("the sitemap rebuild",),
                ("nightly at 00:30 UTC", "every 4 hours"),
            ),
            S(
                "scheduled-publish",
                "Scheduled publishing",
                ("the scheduled-publish sweep",),
                ("scheduled publishing",),
                ("every minute",),
            ),
        ),
        "flag": (
            S("new-editor", "New editor", ("new editor",), ("new editor",), ("internal editors", "all newsrooms")),
            S("ai-summaries", "AI summaries", ("AI-generated summaries",), ("AI summaries",), ("off",)),
        ),
        "tracker": (
            S(
                "client-requests",
                "Client requests",
                ("client feature requests",),
                ("requests from the publisher",),
                ("the Notion board 'Publisher asks'",),
            ),
            S("bugs", "Bugs", ("bugs",), ("a bug",), ("GitHub issues", "Linear project QUILL")),
        ),
        "channel": (
            S(
                "client-channel",
                "Client channel",
                ("messages with the publisher",),
                ("talking to the client",),
                ("the shared Slack channel #quill-publisher",),
            ),
            S("alerts", "Alerts", ("uptime alerts",), ("uptime alerts",), ("#quill-ops",)),
        ),
    },
    items=(
        _item(
            "slugs-immutable",
            P,
            ("can editors change an article's URL slug after publishing?",),
            V(
                "Slugs are immutable after publish",
                "slugs-immutable",
                "Once an article is published its slug never changes; old slugs get redirects",
                "Published slugs are frozen. Renaming creates a new slug plus a 301 from the old one.\n"
                "**Why:** the publisher lost search traffic after a batch of renames.\n"
                "**How to apply:** the API refuses slug edits on published content.",
            ),
        ),
        _item(
            "content-model",
            P,
            ("how do articles and live blogs relate in the content model?",),
            V(
                "Content model: live blogs",
                "content-model-live-blogs",
                "A live blog is an Article with entries as child blocks, not a separate type",
                "Live blogs are Articles with `format=live` and a list of timestamped entry blocks.\n"
                "**Why:** the publisher wanted them in the same listings and search.\n"
                "**How to apply:** don't add a LiveBlog model; extend the block types.",
            ),
        ),
        _item(
            "publisher-contact",
            R,
            ("who is our contact at the publisher?",),
            V(
                "Publisher contact",
                "publisher-contact",
                "Main contact at the publisher: Ruth Adler, head of digital",
                "Ruth Adler (head of digital) signs off scope; for day-to-day editor questions ask Tom in the "
                "shared channel.",
            ),
            V(
                "New publisher contact",
                "publisher-contact-new",
                "Ruth left the publisher; Kemal Aydin is the new head of digital and signs off scope",
                "Ruth Adler has left. Kemal Aydin took over as head of digital and approves scope; Tom still answers "
                "editor questions.",
            ),
        ),
        _item(
            "cache-purge",
            P,
            ("an edited article still shows old text on the site, how do I clear it?",),
            V(
                "Cache purge on publish",
                "cache-purge-on-publish",
                "Publishing purges the CDN by surrogate key; manual purges go through the admin action",
                "Every publish purges the article's surrogate key at the CDN. For a stuck page use the admin action "
                '"Purge cache", never a full purge.\n'
                "**Why:** a full purge took the origin down once.\n"
                "**How to apply:** new content types must set surrogate keys.",
            ),
        ),
    ),
)

FLEET = Theme(
    key="fleet",
    project="fleetctl",
    domain="fleetctl.dev",
    slugged=True,
    parts=(
        S(
            "operator",
            "Operator",
            ("fleet operator", "fleet-operator"),
            ("operator", "controller manager"),
            ("8080", "8081", "9443"),
            "service",
        ),
        S(
            "admission-webhook",
            "Admission webhook",
            ("admission webhook",),
            ("admission webhook", "validating webhook"),
            ("9443", "8443", "10250"),
            "service",
        ),
        S("fleet-api", "Fleet API", ("fleet-api", "REST API"), ("fleet API", "REST API"), role="service"),
        S("etcd", "etcd", ("test etcd",), ("etcd",), ("2379", "2381", "12379"), "db"),
        S(
            "registry",
            "Registry",
            ("image registry",),
            ("registry", "image registry"),
            ("5000", "5001", "443"),
            "service",
        ),
        S("docs-site", "Docs site", ("docs site",), ("docs site", "documentation site"), role="web"),
        S("nats", "NATS", ("NATS bus",), ("NATS", "message bus"), role="broker"),
    ),
    envs=(S("kind", "Kind", ("kind",), ("kind", "the local kind")), STAGING, PROD),
    people=("Alex", "Bruno", "Chen", "Dmitri", "Eva", "Farah", "Gus"),
    subjects={
        "scope": (
            S("fep-3", "FEP-3", ("FEP-3",), ("FEP-3", "proposal 3"), ("multi-cluster status aggregation",)),
            S(
                "fep-5",
                "FEP-5",
                ("FEP-5",),
                ("FEP-5", "proposal 5"),
                ("pluggable placement policies", "placement policies written as CEL expressions"),
            ),
            S("fep-8", "FEP-8", ("FEP-8",), ("FEP-8", "proposal 8"), ("drift detection for member clusters",)),
        ),
        "date": (
            S("ga", "v1.0 GA", ("the v1.0 GA release",), ("the 1.0 GA", "the GA release")),
            S("kubecon-demo", "KubeCon demo", ("the KubeCon demo",), ("the KubeCon demo",)),
            S(
                "sandbox-application",
                "CNCF sandbox application",
                ("the CNCF sandbox application",),
                ("the CNCF sandbox application",),
            ),
        ),
        "tool": (
            S("release", "Releases", ("cutting releases",), ("making a release",), ("goreleaser",)),
            S("e2e-clusters", "E2E clusters", ("e2e test clusters",), ("clusters for e2e tests",), ("kind", "k3d")),
            S("docs", "Docs generator", ("the docs site generator",), ("building the docs",), ("Hugo", "Docusaurus")),
            S("go-lint", "Go linting", ("Go linting",), ("linting Go code",), ("golangci-lint",)),
            S(
                "crd-gen",
                "CRD generation",
                ("CRD and deepcopy generation",),
                ("generating CRDs",),
                ("controller-gen", "controller-gen via make generate"),
            ),
        ),
        "version": (
            S("go", "Go", ("Go",), ("Go",), ("1.21", "1.22", "1.23")),
            S(
                "min-k8s",
                "Minimum Kubernetes",
                ("the minimum supported Kubernetes",),
                ("the oldest Kubernetes we support",),
                ("1.27", "1.28"),
            ),
            S(
                "controller-runtime",
                "controller-runtime",
                ("controller-runtime",),
                ("controller-runtime",),
                ("0.16", "0.17"),
            ),
        ),
        "metric": (
            S(
                "reconcile-p99",
                "Reconcile p99",
                ("reconcile p99 latency",),
                ("the reconcile p99",),
                ("1.2 s", "300 ms"),
            ),
            S(
                "binary-size",
                "CLI binary size",
                ("the fleetctl binary size",),
                ("the CLI binary size",),
                ("48 MB", "31 MB"),
            ),
            S("e2e-time", "E2E suite time", ("the e2e suite run time",), ("the e2e run time",), ("38 min", "22 min")),
            S("stars", "GitHub stars", ("GitHub stars",), ("our GitHub star count",), ("1.9k",)),
        ),
        "limit": (
            S(
                "max-reconciles",
                "Max concurrent reconciles",
                ("MaxConcurrentReconciles",),
                ("the reconcile concurrency",),
                ("4", "10"),
            ),
            S(
                "webhook-timeout",
                "Webhook timeout",
                ("the admission webhook timeout",),
                ("the webhook timeout",),
                ("10 s",),
            ),
            S(
                "lease",
                "Leader election lease",
                ("the leader election lease duration",),
                ("the leader lease",),
                ("15 s", "30 s"),
            ),
        ),
        "schedule": (
            S(
                "nightly-e2e",
                "Nightly e2e",
                ("the nightly e2e run on main",),
                ("the nightly e2e job",),
                ("every night at 02:00 UTC",),
            ),
            S(
                "dep-bumps",
                "Dependency bumps",
                ("Renovate dependency PRs",),
                ("dependency update PRs",),
                ("Mondays before 06:00 UTC", "the first day of each month"),
            ),
        ),
        "flag": (
            S(
                "autoscaling",
                "AutoScaling gate",
                ("AutoScaling",),
                ("autoscaling",),
                ("alpha, off by default", "beta, on by default"),
            ),
        ),
        "tracker": (
            S(
                "operator-bugs",
                "Operator bugs",
                ("operator bugs",),
                ("an operator bug",),
                ("GitHub issues labelled area/operator",),
            ),
            S(
                "security",
                "Security reports",
                ("security reports",),
                ("a security problem",),
                ("security@fleetctl.dev", "GitHub private vulnerability reporting"),
            ),
        ),
        "channel": (
            S(
                "dev-chat",
                "Dev chat",
                ("contributor chat",),
                ("contributor discussions",),
                ("#fleetctl-dev on the Kubernetes Slack",),
            ),
            S(
                "ci-notices",
                "CI notices",
                ("CI failure notices",),
                ("CI failure notices",),
                ("#fleetctl-ci", "Discord #ci"),
            ),
        ),
    },
    items=(
        _item(
            "api-group",
            P,
            ("what API group do our CRDs use?",),
            V(
                "CRD API group",
                "crd-api-group",
                "CRDs live in fleet.fleetctl.dev; v1beta1 is served and stored",
                "All CRDs use the group `fleet.fleetctl.dev`; `v1beta1` is both served and the storage version.\n"
                "**Why:** v1alpha1 was dropped before the first release.\n"
                "**How to apply:** new kinds go in `api/v1beta1`.",
            ),
            V(
                "CRD storage version v1",
                "crd-storage-v1",
                "v1 is now the storage version; v1beta1 still served with a conversion webhook",
                "Promoted the API: `v1` is the storage version, `v1beta1` is still served through the conversion "
                "webhook.\n"
                "**Why:** GA needs a stable API.\n"
                "**How to apply:** new fields go into `api/v1` first; add conversion code for v1beta1.",
            ),
        ),
        _item(
            "dco",
            P,
            ("do commits need a sign-off line?",),
            V(
                "DCO sign-off",
                "dco-sign-off",
                "Every commit needs a DCO Signed-off-by line; the bot blocks PRs without it",
                "Commits must carry `Signed-off-by:` (use `git commit -s`).\n"
                "**Why:** the project follows the CNCF DCO.\n"
                "**How to apply:** amend with `-s` when the DCO check fails.",
            ),
        ),
        _item(
            "finalizer",
            P,
            ("why does deleting a Fleet object hang forever?",),
            V(
                "Finalizer hang",
                "finalizer-hang",
                "Fleet deletion hangs when the operator is down because of the cleanup finalizer",
                "Deleting a Fleet waits on the `fleet.fleetctl.dev/cleanup` finalizer; if the operator is not running "
                "nothing removes it.\n"
                "**Why:** the finalizer drains member clusters first.\n"
                "**How to apply:** start the operator, or remove the finalizer by hand only in test clusters.",
            ),
        ),
        _item(
            "maintainers",
            R,
            ("where's the list of maintainers?",),
            V(
                "Maintainers list",
                "maintainers-list",
                "MAINTAINERS.md in the repo root lists maintainers and their areas",
                "Maintainers and their areas are in MAINTAINERS.md; approvals from two maintainers are needed for "
                "API changes.",
            ),
        ),
    ),
)

SPROUT = Theme(
    key="sprout",
    project="Sprout",
    domain="sprout-ml.org",
    slugged=True,
    parts=(
        S(
            "inference-api",
            "Inference API",
            ("inference API", "inference-api"),
            ("inference API", "model server"),
            role="service",
        ),
        S(
            "mlflow",
            "MLflow",
            ("MLflow server",),
            ("MLflow", "the tracking server"),
            ("5000", "5001", "8080"),
            "service",
        ),
        S("feature-store", "Feature store", ("feature store DB",), ("feature store", "features database"), role="db"),
        S("trainer", "Trainer", ("training jobs", "trainer"), ("trainer", "training jobs"), role="worker"),
        S("eval-harness", "Eval harness", ("eval harness",), ("eval harness", "evaluation jobs"), role="worker"),
        S(
            "label-studio",
            "Label Studio",
            ("Label Studio instance",),
            ("Label Studio", "labelling tool"),
            ("8080", "8200", "8443"),
            "web",
        ),
        S("redis", "Redis", ("prediction cache",), ("prediction cache", "Redis"), role="cache"),
    ),
    envs=(S("gpu-dev", "GPU dev", ("gpu-dev",), ("gpu-dev", "dev")), PROD),
    people=("Amara", "Björn", "Camille", "Deepak", "Esther", "Hiro", "Isla"),
    subjects={
        "scope": (
            S(
                "exp-041",
                "exp-041",
                ("experiment exp-041",),
                ("exp-041", "experiment 41"),
                ("mixup augmentation on the v4 backbone",),
            ),
            S(
                "exp-042",
                "exp-042",
                ("experiment exp-042",),
                ("exp-042", "experiment 42"),
                ("a ViT-B/16 backbone instead of ConvNeXt", "ConvNeXt-S with label smoothing"),
            ),
            S(
                "exp-043",
                "exp-043",
                ("experiment exp-043",),
                ("exp-043", "experiment 43"),
                ("test-time augmentation with 8 crops",),
            ),
        ),
        "date": (
            S("v4-release", "Model v4 release", ("the v4 model release",), ("the model v4 release", "the v4 release")),
            S("dataset-freeze", "Dataset freeze", ("the dataset freeze for v4",), ("the dataset freeze",)),
            S("paper-deadline", "Workshop paper deadline", ("the workshop paper deadline",), ("the paper deadline",)),
        ),
        "tool": (
            S(
                "tracking",
                "Experiment tracking",
                ("experiment tracking",),
                ("tracking experiments", "logging runs"),
                ("Weights & Biases", "MLflow"),
            ),
            S("data-versioning", "Data versioning", ("dataset versioning",), ("versioning the datasets",), ("DVC",)),
            S("hpo", "Hyperparameter search", ("hyperparameter search",), ("tuning hyperparameters",), ("Optuna",)),
            S(
                "training-loop",
                "Training loop",
                ("the training loop",),
                ("the training loop code",),
                ("PyTorch Lightning", "plain PyTorch with accelerate"),
            ),
        ),
        "version": (
            S("pytorch", "PyTorch", ("PyTorch",), ("PyTorch", "torch"), ("2.1", "2.3")),
            S("cuda", "CUDA", ("CUDA",), ("CUDA",), ("11.8", "12.1")),
            S("python", "Python", ("Python",), ("Python",), ("3.10",)),
        ),
        "metric": (
            S(
                "val-top1",
                "Validation top-1",
                ("top-1 accuracy on the validation split",),
                ("validation accuracy", "top-1 on val"),
                ("87.4%", "89.1%", "90.3%"),
            ),
            S(
                "inference-p95",
                "Inference p95",
                ("p95 inference latency",),
                ("the p95 inference latency",),
                ("120 ms", "75 ms"),
            ),
            S("epoch-time", "Epoch time", ("time per training epoch",), ("the epoch time",), ("42 min", "27 min")),
            S(
                "dataset-size",
                "Dataset size",
                ("the labelled dataset",),
                ("the labelled dataset size",),
                ("180k images", "240k images"),
            ),
        ),
        "limit": (
            S("batch-size", "Batch size", ("the per-GPU batch size",), ("the batch size per GPU",), ("64", "48")),
            S("gpu-quota", "GPU quota", ("our GPU quota",), ("our GPU allowance",), ("8 A100s", "16 A100s")),
            S("lr", "Learning rate", ("the base learning rate",), ("the learning rate",), ("3e-4", "1e-4")),
            S("max-epochs", "Max epochs", ("max_epochs",), ("the epoch limit",), ("30",)),
        ),
        "schedule": (
            S(
                "nightly-eval",
                "Nightly eval",
                ("the nightly eval",),
                ("the nightly evaluation",),
                ("every night at 03:00 UTC",),
            ),
            S(
                "retrain",
                "Retraining",
                ("the scheduled retrain",),
                ("the automatic retrain",),
                ("every Sunday at 00:00 UTC", "every other Sunday at 00:00 UTC"),
            ),
        ),
        "flag": (
            S(
                "model-v4-canary",
                "Model v4 canary",
                ("model v4 canary",),
                ("model v4",),
                ("10% of requests", "50% of requests", "all requests"),
            ),
        ),
        "tracker": (
            S(
                "label-errors",
                "Label errors",
                ("label error reports",),
                ("mislabelled images",),
                ("the label-issues GitHub project",),
            ),
        ),
        "channel": (
            S(
                "training-runs",
                "Training run notices",
                ("finished training run notices",),
                ("training run notifications",),
                ("#sprout-runs", "#ml-training"),
            ),
        ),
    },
    items=(
        _item(
            "leakage",
            P,
            ("why did the accuracy drop when we re-split the data?",),
            V(
                "Data leakage in the old split",
                "data-leakage-old-split",
                "The old random split leaked: photos of the same plant were in train and val",
                "Accuracy before the re-split was inflated: the random split put photos of the same plant in both "
                "train and val. The split is now grouped by `plant_id`.\n"
                "**Why:** val accuracy fell 6 points after grouping; that is the honest number.\n"
                "**How to apply:** split by group for any new dataset.",
            ),
        ),
        _item(
            "test-split",
            F,
            ("can I tune the threshold on the test set?",),
            V(
                "Never touch the test split",
                "never-touch-test-split",
                "The test split is only evaluated at release time; no tuning or peeking",
                "Don't evaluate on or tune against `test/` during development; use `val/`.\n"
                "**Why:** the user wants the release number to be trustworthy.\n"
                "**How to apply:** the test split is read only by the release script.",
            ),
        ),
        _item(
            "seeds",
            F,
            ("how should I seed the training runs?",),
            V(
                "Three seeds per comparison",
                "three-seeds-per-comparison",
                "Any claimed improvement needs three seeds; report mean and spread",
                "Compare models over three seeds (0, 1, 2) and report mean ± std.\n"
                "**Why:** a single-seed gain of 0.5 points vanished on rerun.\n"
                "**How to apply:** launch the three runs together.",
            ),
            V(
                "Five seeds for headline numbers",
                "five-seeds-headline",
                "Headline results now need five seeds; three is fine for quick ablations",
                "Release and paper numbers need five seeds (0-4); ablations may keep three.\n"
                "**Why:** reviewers questioned the spread with only three runs.\n"
                "**How to apply:** tag headline runs `headline=true` so the report picks five.",
            ),
        ),
        _item(
            "class-list",
            R,
            ("where is the list of disease classes?",),
            V(
                "Class list",
                "class-list",
                "The 38 disease classes and their ids are in data/classes.yaml",
                "The canonical class list (38 classes, ids fixed) is `data/classes.yaml`. Never reorder it; add new "
                "classes at the end.",
            ),
        ),
    ),
)

THEMES = (PAYHIVE, TRAILHEAD, GRAINLINE, QUILL, FLEET, SPROUT)
