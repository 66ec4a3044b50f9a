"""How precise is "these two memories' names say one subject"? Labelled pairs of memory names.

Recall lets time order two memories only when a precise signal says they are versions of one
subject (docs/recall.md, "The current truth"): a recorded relation, or names that say the same
subject. This benchmark measures the name signal on pairs of memory names as a coding agent writes
them (a short title, or a kebab-case slug as Claude Code 2.1.330 asks for), in six languages, each
pair labelled:

- ``same``: the second is a later version of the first's fact, or the same fact saved again
  ("Dashboard API latency" / "Dashboard API latency after caching");
- ``different``: two facts, often written alike: the same attribute of another component
  ("Checkout timeout" / "Search timeout"), another attribute of the same component ("Checkout API"
  / "Checkout API timeout"), a general memory and a specific one, numbered topics ("Topic 1" /
  "Topic 2"), another environment ("Staging database port" / "Production database port").

Hard negatives are over-represented on purpose: a wrong "same subject" puts a note in front of the
model saying one memory has a newer version, which is worse than saying nothing.

Several rules are compared (the shipped one is :func:`memdir.recall.versions.same_subject_names`);
for each, precision and recall per language. Run: ``python bench/subject_pairs.py``; prints a
table and writes ``bench/results/subject_pairs.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from memdir.model.analysis import tokenize
from memdir.recall.versions import same_subject_names

RESULTS = Path(__file__).resolve().parent / "results"

S, D = "same", "different"

PAIRS: dict[str, list[tuple[str, str, str]]] = {
    "en": [
        # versions of one fact, or the same fact saved twice
        ("Dashboard API latency", "Dashboard API latency after caching", S),
        ("Checkout latency", "Checkout latency after the cache", S),
        ("Checkout API timeout", "Checkout API timeout", S),
        ("Staging database port", "Staging database port (updated)", S),
        ("On-call rotation", "On-call rotation", S),
        ("Billing service owner", "Billing service owner change", S),
        ("Preferred test runner", "Preferred test runner", S),
        ("payments-retry-policy", "payments-retry-policy-v2", S),
        ("Deploy schedule", "Deploy schedule", S),
        ("Cache TTL for the prices API", "Cache TTL for the prices API raised", S),
        ("Web bundle size", "Web bundle size after tree shaking", S),
        ("Flaky tests in the web suite", "Flaky tests in the web suite: 3 left", S),
        ("Primary datastore", "Primary datastore moved to CockroachDB", S),
        ("Python version for ml-service", "Python version for ml-service", S),
        ("Partner API rate limit", "Partner API rate limit increased", S),
        ("staging-url", "staging-url", S),
        ("Release freeze dates", "Release freeze dates moved", S),
        ("user-role", "user-role", S),
        ("Code review rules", "Code review rules", S),
        ("Mobile release freeze", "Mobile release freeze extended", S),
        ("CI provider", "CI provider switched to Buildkite", S),
        ("Node version for the frontend", "Node version for the frontend now 22", S),
        ("Search index rebuild schedule", "Search index rebuild schedule (weekly now)", S),
        ("feedback-no-mocks-in-integration-tests", "feedback-no-mocks-in-integration-tests", S),
        ("Error budget policy", "Error budget policy revised", S),
        ("Monorepo build tool", "Monorepo build tool migration to Bazel", S),
        # versions a name cannot show (written apart): a rule should miss them, not guess
        ("Who is on call", "Pager handover to Kenji", S),
        ("Bundle size", "Tree shaking results", S),
        ("Prod database", "Switched the primary datastore", S),
        ("Checkout p95", "Latency after the Redis cache", S),
        # two facts
        ("Checkout timeout", "Search timeout", D),
        ("Checkout API timeout", "Search API timeout", D),
        ("Billing service owner", "Search service owner", D),
        ("Staging database port", "Production database port", D),
        ("Topic 1", "Topic 2", D),
        ("Topic 2", "Topic 12", D),
        ("Web bundle size", "Mobile bundle size", D),
        ("Frontend Node version", "Backend Node version", D),
        ("Deploy day for web", "Deploy day for the API", D),
        ("Checkout API", "Checkout API timeout", D),
        ("Staging database", "Staging database port", D),
        ("API keys", "API keys rotation schedule", D),
        ("Search service", "Search service owner", D),
        ("Testing", "Testing strategy for payments", D),
        ("Release process", "Release process for hotfixes", D),
        ("Dashboard API latency", "Mobile dashboard API latency", D),
        ("Database port", "Staging database port", D),
        ("Code review", "Code review checklist for migrations", D),
        ("payments-api", "payments-api-owners", D),
        ("user-role", "user-role-permissions-matrix", D),
        ("On-call", "On-call escalation contacts", D),
        ("Mobile release freeze", "Payments incident tracker", D),
        ("User prefers pytest", "User prefers small PRs", D),
        ("Grafana dashboard for payments", "Grafana dashboard for search", D),
        ("Linear project for bugs", "Linear project for infra requests", D),
        ("Checkout feature flag", "Checkout feature flag owner", D),
        ("Cache TTL", "Cache TTL for the session store", D),
        ("Migration deadline for auth", "Migration deadline for billing", D),
        ("Python version", "Python version for the data pipeline", D),
        ("Style guide", "Style guide exceptions for generated code", D),
        ("Alerts", "Alerts routing for the search cluster", D),
        ("Weekly sync", "Weekly sync with the data team", D),
        ("Sprint goals Q3", "Sprint goals Q4", D),
        ("Incident 2041 postmortem", "Incident 2042 postmortem", D),
        ("Team members", "Team members' time zones", D),
        ("Build cache", "Build cache for CI runners", D),
        ("Staging URL", "Staging URL for the partner sandbox", D),
        ("Error handling", "Error handling in the payments worker", D),
        ("No force pushes", "No force pushes to release branches", D),
        ("Customer X contract", "Customer Y contract", D),
    ],
    "zh": [
        ("仪表盘接口延迟", "仪表盘接口延迟（缓存后）", S),
        ("结账接口超时", "结账接口超时", S),
        ("预发数据库端口", "预发数据库端口（已更新）", S),
        ("值班安排", "值班安排", S),
        ("计费服务负责人", "计费服务负责人变更", S),
        ("前端包体积", "前端包体积（摇树优化后）", S),
        ("发布冻结日期", "发布冻结日期顺延", S),
        ("缓存后的仪表盘接口延迟", "仪表盘接口延迟", S),
        ("测试规范", "测试规范", S),
        ("合作方接口限流", "合作方接口限流上调", S),
        ("主数据库", "主数据库迁移到TiDB", S),
        ("值班的人", "Kenji接手值班", S),
        ("包体积", "摇树优化结果", S),
        ("结账超时", "搜索超时", D),
        ("结账接口超时", "搜索接口超时", D),
        ("计费服务负责人", "搜索服务负责人", D),
        ("预发数据库端口", "生产数据库端口", D),
        ("话题1", "话题2", D),
        ("网页包体积", "移动端包体积", D),
        ("结账接口", "结账接口超时", D),
        ("预发数据库", "预发数据库端口", D),
        ("测试", "支付模块的测试策略", D),
        ("发布流程", "热修复的发布流程", D),
        ("仪表盘接口延迟", "移动端仪表盘接口延迟", D),
        ("密钥", "密钥轮换周期", D),
        ("值班", "值班升级联系人", D),
        ("认证服务迁移截止日期", "计费服务迁移截止日期", D),
        ("代码评审", "迁移脚本的代码评审清单", D),
        ("第三季度冲刺目标", "第四季度冲刺目标", D),
        ("用户偏好pytest", "用户偏好小的PR", D),
    ],
    "ja": [
        ("ダッシュボードAPIの遅延", "ダッシュボードAPIの遅延（キャッシュ後）", S),
        ("決済APIのタイムアウト", "決済APIのタイムアウト", S),
        ("ステージングDBのポート", "ステージングDBのポート（更新）", S),
        ("当番表", "当番表", S),
        ("請求サービスの担当者", "請求サービスの担当者の変更", S),
        ("Webバンドルサイズ", "Webバンドルサイズ（ツリーシェイキング後）", S),
        ("リリース凍結期間", "リリース凍結期間の延長", S),
        ("キャッシュ後のダッシュボードAPIの遅延", "ダッシュボードAPIの遅延", S),
        ("テストの方針", "テストの方針", S),
        ("主データベース", "主データベースをTiDBへ移行", S),
        ("当番の人", "Kenjiに当番を交代", S),
        ("決済のタイムアウト", "検索のタイムアウト", D),
        ("決済APIのタイムアウト", "検索APIのタイムアウト", D),
        ("請求サービスの担当者", "検索サービスの担当者", D),
        ("ステージングDBのポート", "本番DBのポート", D),
        ("トピック1", "トピック2", D),
        ("Webバンドルサイズ", "モバイルバンドルサイズ", D),
        ("決済API", "決済APIのタイムアウト", D),
        ("ステージングDB", "ステージングDBのポート", D),
        ("テスト", "決済モジュールのテスト戦略", D),
        ("リリース手順", "ホットフィックスのリリース手順", D),
        ("ダッシュボードAPIの遅延", "モバイルのダッシュボードAPIの遅延", D),
        ("APIキー", "APIキーのローテーション周期", D),
        ("認証サービスの移行期限", "請求サービスの移行期限", D),
        ("第3四半期のスプリント目標", "第4四半期のスプリント目標", D),
    ],
    "ko": [
        ("대시보드 API 지연 시간", "대시보드 API 지연 시간 (캐시 적용 후)", S),
        ("결제 API 타임아웃", "결제 API 타임아웃", S),
        ("스테이징 DB 포트", "스테이징 DB 포트 (변경됨)", S),
        ("당직 일정", "당직 일정", S),
        ("결제 서비스 담당자", "결제 서비스 담당자 변경", S),
        ("웹 번들 크기", "웹 번들 크기 (트리 셰이킹 후)", S),
        ("릴리스 동결 기간", "릴리스 동결 기간 연장", S),
        ("테스트 원칙", "테스트 원칙", S),
        ("당직자", "Kenji가 당직을 넘겨받음", S),
        ("결제 타임아웃", "검색 타임아웃", D),
        ("결제 API 타임아웃", "검색 API 타임아웃", D),
        ("결제 서비스 담당자", "검색 서비스 담당자", D),
        ("스테이징 DB 포트", "운영 DB 포트", D),
        ("주제 1", "주제 2", D),
        ("웹 번들 크기", "모바일 번들 크기", D),
        ("결제 API", "결제 API 타임아웃", D),
        ("스테이징 DB", "스테이징 DB 포트", D),
        ("테스트", "결제 모듈 테스트 전략", D),
        ("대시보드 API 지연 시간", "모바일 대시보드 API 지연 시간", D),
        ("인증 서비스 이전 마감일", "결제 서비스 이전 마감일", D),
    ],
    "es": [
        ("Latencia de la API del panel", "Latencia de la API del panel tras la caché", S),
        ("Tiempo de espera de la API de pago", "Tiempo de espera de la API de pago", S),
        ("Puerto de la base de datos de staging", "Puerto de la base de datos de staging (actualizado)", S),
        ("Guardias", "Guardias", S),
        ("Responsable del servicio de facturación", "Responsable del servicio de facturación: cambio", S),
        ("Tamaño del bundle web", "Tamaño del bundle web tras el tree shaking", S),
        ("Congelación de versiones", "Congelación de versiones ampliada", S),
        ("Quién está de guardia", "Kenji toma el relevo", S),
        ("Tiempo de espera del pago", "Tiempo de espera de la búsqueda", D),
        ("Responsable del servicio de facturación", "Responsable del servicio de búsqueda", D),
        ("Puerto de la base de datos de staging", "Puerto de la base de datos de producción", D),
        ("Tema 1", "Tema 2", D),
        ("Tamaño del bundle web", "Tamaño del bundle móvil", D),
        ("API de pago", "API de pago: tiempo de espera", D),
        ("Base de datos de staging", "Base de datos de staging: puerto", D),
        ("Pruebas", "Pruebas del módulo de pagos", D),
        ("Proceso de publicación", "Proceso de publicación de hotfixes", D),
        ("Fecha límite de migración de auth", "Fecha límite de migración de facturación", D),
    ],
    "de": [
        ("Latenz der Dashboard-API", "Latenz der Dashboard-API nach dem Caching", S),
        ("Timeout der Checkout-API", "Timeout der Checkout-API", S),
        ("Port der Staging-Datenbank", "Port der Staging-Datenbank (aktualisiert)", S),
        ("Rufbereitschaft", "Rufbereitschaft", S),
        ("Verantwortlicher für den Abrechnungsdienst", "Verantwortlicher für den Abrechnungsdienst: Wechsel", S),
        ("Größe des Web-Bundles", "Größe des Web-Bundles nach Tree Shaking", S),
        ("Release-Freeze", "Release-Freeze verlängert", S),
        ("Wer hat Bereitschaft", "Übergabe an Kenji", S),
        ("Timeout der Checkout-API", "Timeout der Such-API", D),
        ("Verantwortlicher für den Abrechnungsdienst", "Verantwortlicher für den Suchdienst", D),
        ("Port der Staging-Datenbank", "Port der Produktionsdatenbank", D),
        ("Thema 1", "Thema 2", D),
        ("Größe des Web-Bundles", "Größe des Mobile-Bundles", D),
        ("Checkout-API", "Checkout-API Timeout", D),
        ("Staging-Datenbank", "Staging-Datenbank Port", D),
        ("Tests", "Tests für das Zahlungsmodul", D),
        ("Release-Prozess", "Release-Prozess für Hotfixes", D),
        ("Migrationsfrist für Auth", "Migrationsfrist für die Abrechnung", D),
    ],
}


def _terms(name: str) -> list[str]:
    return tokenize(name)


def _run(shorter: list[str], longer: list[str]) -> int:
    """Where ``shorter`` occurs as a contiguous run of ``longer``, or -1."""
    for start in range(len(longer) - len(shorter) + 1):
        if longer[start : start + len(shorter)] == shorter:
            return start
    return -1


def _contained(a: str, b: str, *, least: int, prefix_only: bool) -> bool:
    x, y = _terms(a), _terms(b)
    if not x or not y:
        return False
    if x == y:
        return True
    shorter, longer = (x, y) if len(x) <= len(y) else (y, x)
    if len(shorter) < least:
        return False
    at = _run(shorter, longer)
    return at == 0 if prefix_only else at >= 0


RULES: dict[str, Callable[[str, str], bool]] = {
    "same terms": lambda a, b: bool(_terms(a)) and _terms(a) == _terms(b),
    "contained, 2+ terms": lambda a, b: _contained(a, b, least=2, prefix_only=False),
    "prefix, 2+ terms": lambda a, b: _contained(a, b, least=2, prefix_only=True),
    "contained, 3+ terms": lambda a, b: _contained(a, b, least=3, prefix_only=False),
    "prefix, 3+ terms": lambda a, b: _contained(a, b, least=3, prefix_only=True),
    "shipped": same_subject_names,
}


def measure(rule: Callable[[str, str], bool], pairs: list[tuple[str, str, str]]) -> dict[str, float]:
    tp = fp = fn = 0
    for a, b, label in pairs:
        said = rule(a, b)
        tp += said and label == S
        fp += said and label == D
        fn += (not said) and label == S
    return {
        "precision": 100.0 * tp / (tp + fp) if tp + fp else float("nan"),
        "recall": 100.0 * tp / (tp + fn) if tp + fn else float("nan"),
        "said same": float(tp + fp),
        "wrong": float(fp),
        "pairs": float(len(pairs)),
    }


def _cell(figures: dict[str, float]) -> str:
    return f"{figures['precision']:.0f} / {figures['recall']:.0f} ({figures['wrong']:.0f} wrong)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "subject_pairs.json")
    parser.add_argument("--show", action="store_true", help="list the pairs the shipped rule gets wrong")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, dict[str, float]]] = {}
    everything = [pair for pairs in PAIRS.values() for pair in pairs]
    for rule_name, rule in RULES.items():
        results[rule_name] = {language: measure(rule, pairs) for language, pairs in PAIRS.items()}
        results[rule_name]["all"] = measure(rule, everything)
    languages = [*PAIRS, "all"]
    print("| rule | " + " | ".join(languages) + " |")
    print("|---|" + "---|" * len(languages))
    for rule_name, by_language in results.items():
        cells = [_cell(by_language[lang]) for lang in languages]
        print(f"| {rule_name} | " + " | ".join(cells) + " |")
    print(
        "\n(precision / recall, %, of 'same subject'; pairs: "
        + ", ".join(f"{k} {len(v)}" for k, v in PAIRS.items())
        + ")"
    )
    if args.show:
        for language, pairs in PAIRS.items():
            for a, b, label in pairs:
                if same_subject_names(a, b) != (label == S):
                    print(f"{language}: {a!r} / {b!r}: labelled {label}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
