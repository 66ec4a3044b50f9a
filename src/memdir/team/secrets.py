"""Secret scanner for team memory, used by the sync client, the write guard and the sync server.

Team memory is shared with every collaborator of a repository, so content that looks like a
credential must never leave the machine (client) nor be stored (server). The rules are a fixed
subset of gitleaks' (see :mod:`memdir.team.secret_rules`); a finding names its rule and line,
never the matched text, so that reporting a secret cannot leak it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdir.errors import SecretDetected
from memdir.team.secret_rules import RULES

__all__ = [
    "RULE_IDS",
    "SecretFinding",
    "check_team_write",
    "redact_secrets",
    "rule_label",
    "scan_for_secrets",
]

RULE_IDS: tuple[str, ...] = tuple(rule.rule_id for rule in RULES)

_LABEL_WORDS = {
    "aws": "AWS",
    "gcp": "GCP",
    "api": "API",
    "pat": "PAT",
    "ad": "AD",
    "tf": "TF",
    "oauth": "OAuth",
    "npm": "NPM",
    "pypi": "PyPI",
    "jwt": "JWT",
    "github": "GitHub",
    "gitlab": "GitLab",
    "openai": "OpenAI",
    "digitalocean": "DigitalOcean",
    "huggingface": "HuggingFace",
    "hashicorp": "HashiCorp",
    "sendgrid": "SendGrid",
}

REDACTED = "[REDACTED]"


@dataclass(frozen=True)
class _CompiledRule:
    rule_id: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...]

    def may_match(self, lowered: str) -> bool:
        """gitleaks' keyword pre-filter: a rule whose keywords are all absent cannot match."""
        return not self.keywords or any(keyword in lowered for keyword in self.keywords)


_COMPILED: tuple[_CompiledRule, ...] = tuple(
    _CompiledRule(rule.rule_id, re.compile(rule.pattern, re.ASCII), rule.keywords) for rule in RULES
)


_ANY_KEYWORD = re.compile("|".join(sorted({re.escape(k) for rule in _COMPILED for k in rule.keywords})))
"""Found in a text's lower case when any rule's keyword is; most notes hold none, and one C-level
search is then all the pre-filter costs instead of a Python ``in`` per keyword per rule."""
_KEYWORDLESS = tuple(rule for rule in _COMPILED if not rule.keywords)


@dataclass(frozen=True)
class SecretFinding:
    """One rule that hit. Deliberately holds no part of the matched text."""

    rule_id: str
    label: str
    line: int


def rule_label(rule_id: str) -> str:
    """Human label of a rule id, e.g. ``github-pat`` -> ``GitHub PAT``."""
    return " ".join(_LABEL_WORDS.get(part, part[:1].upper() + part[1:]) for part in rule_id.split("-"))


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The secret itself: the first capture group when the rule has one, else the whole match."""
    if match.re.groups and match.group(1) is not None:
        return match.span(1)
    return match.span()


def scan_for_secrets(text: str) -> list[SecretFinding]:
    """Findings in rule order, at most one per rule; ``line`` is 1-based."""
    lowered = text.lower()
    findings: list[SecretFinding] = []
    for rule in _COMPILED if _ANY_KEYWORD.search(lowered) else _KEYWORDLESS:
        if not rule.may_match(lowered):
            continue
        match = rule.regex.search(text)
        if match is None:
            continue
        start, _ = _secret_span(match)
        findings.append(SecretFinding(rule.rule_id, rule_label(rule.rule_id), text.count("\n", 0, start) + 1))
    return findings


def redact_secrets(text: str) -> str:
    """Replace every secret (its capture group, or the whole match) with ``[REDACTED]``."""

    def replace(match: re.Match[str]) -> str:
        start, end = _secret_span(match)
        whole = match.group(0)
        offset = match.start()
        return whole[: start - offset] + REDACTED + whole[end - offset :]

    for rule in _COMPILED:
        if rule.may_match(text.lower()):
            text = rule.regex.sub(replace, text)
    return text


def check_team_write(content: str, *, path: str) -> None:
    """Refuse content bound for team memory when it holds a potential secret.

    Raises :class:`SecretDetected` naming the labels of every rule that hit and the file.
    """
    findings = scan_for_secrets(content)
    if not findings:
        return
    labels = [finding.label for finding in findings]
    raise SecretDetected(
        f"{path}: content contains potential secrets ({', '.join(labels)}) and cannot be written to "
        "team memory, because team memory is shared with all repository collaborators. "
        "Remove the sensitive content and try again.",
        labels=labels,
        path=path,
    )
