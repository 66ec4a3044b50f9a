"""The shapes the held-out sessions set is written in (see ``truth_sessions.py``).

A language module (``sessions_en.py``, ``sessions_zh.py``, ``sessions_ja.py``) holds hand-written
sentences only: frames for the attributes a coding agent notes about many things alike (a port, an
owner, a date), the rules and user facts it notes once, and the projects. The builder turns them
into stores; nothing here decides anything.

Frames are ``str.format`` templates. The slots a frame may use:

- a component and an environment (ports, hosts, replica counts, owners, dashboards): ``{C}`` its
  title, ``{c}`` how a memory names it, ``{cq}`` how the user names it, ``{cs}`` its slug, and
  ``{E}``, ``{e}``, ``{eq}``, ``{es}`` for the environment;
- any other subject (a milestone, a purpose, a runtime, a figure, a setting, a job, a flag, a
  tracker's area, a channel's purpose): ``{X}``, ``{x}``, ``{xq}``, ``{xs}``;
- everywhere: ``{v}`` the value the memory states, ``{old}`` the value before it (in a later
  memory), ``{day}`` the date the memory was written, ``{p}`` the project.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from memdir.model.memory_type import MemoryType

__all__ = ["SLUGS", "Item", "Kind", "Language", "Subject", "Theme", "Version", "frames"]

# The kebab-case names Claude Code 2.1.330 gives memories, by kind: ASCII in every language, so
# one table serves all (first memory of a fact, then a later one). Slots as in the frames.
SLUGS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "port": (("{es}-{cs}-port", "{cs}-port-{es}"), ("{es}-{cs}-port-change", "{cs}-{es}-new-port")),
    "host": (("{es}-{cs}-host", "{cs}-{es}-hostname"), ("{es}-{cs}-host-moved", "{cs}-{es}-new-host")),
    "replicas": (("{es}-{cs}-replicas", "{cs}-replica-count-{es}"), ("{es}-{cs}-scaled", "{cs}-{es}-replicas-update")),
    "owner": (("{cs}-owner", "{cs}-ownership"), ("{cs}-new-owner", "{cs}-owner-handover")),
    "dashboard": (("{cs}-dashboard", "grafana-{cs}"), ("{cs}-dashboard-moved", "{cs}-new-dashboard")),
    "date": (("{xs}-date", "{xs}-schedule"), ("{xs}-moved", "{xs}-new-date")),
    "tool": (("{xs}-tool", "{xs}-tooling"), ("{xs}-switch", "{xs}-tool-change")),
    "version": (("{xs}-version", "{xs}-pin"), ("{xs}-upgrade", "{xs}-version-bump")),
    "metric": (("{xs}", "{xs}-baseline"), ("{xs}-improved", "{xs}-remeasured")),
    "limit": (("{xs}", "{xs}-setting"), ("{xs}-changed", "{xs}-update")),
    "schedule": (("{xs}-schedule", "{xs}-cron"), ("{xs}-schedule-change", "{xs}-rescheduled")),
    "flag": (("{xs}-rollout", "flag-{xs}"), ("{xs}-rollout-update", "flag-{xs}-update")),
    "tracker": (("{xs}-tracker", "{xs}-tickets"), ("{xs}-tracker-moved", "{xs}-new-board")),
    "scope": (("{xs}-scope", "{xs}-plan"), ("{xs}-rescoped", "{xs}-scope-change")),
    "channel": (("{xs}-channel", "slack-{xs}"), ("{xs}-channel-moved", "{xs}-new-channel")),
}


@dataclass(frozen=True)
class Kind:
    """One attribute a store states about many subjects alike, as frames (see the module docstring).

    ``re*`` frames are for a later memory of the same fact, written by an agent that did not edit
    the first one; a later memory also draws from the first frames now and then (worded close).
    For ``reference`` and ``user`` memories ``whys`` and ``hows`` are plain context sentences; for
    ``project`` and ``feedback`` memories they fill the ``**Why:**`` and ``**How to apply:**`` lines.
    """

    type: MemoryType
    names: tuple[str, ...]
    renames: tuple[str, ...]
    descriptions: tuple[str, ...]
    redescriptions: tuple[str, ...]
    states: tuple[str, ...]
    restates: tuple[str, ...]
    whys: tuple[str, ...]
    rewhys: tuple[str, ...]
    hows: tuple[str, ...]
    questions: tuple[str, ...]


def frames(memory_type: MemoryType, text: str) -> Kind:
    """A :class:`Kind` written as text: each field's name on a line of its own, then its frames,
    one per line after ``- `` (text keeps the sentences readable and free of Python punctuation)."""
    fields: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("- ") and current is not None:
            current.append(line[2:])
        elif line:
            current = fields.setdefault(line, [])
    return Kind(memory_type, **{name: tuple(items) for name, items in fields.items()})


@dataclass(frozen=True)
class Subject:
    """A thing memories state an attribute of: a component, an environment, a milestone, a tool's
    purpose, a figure. ``values``: what the attribute is over time, first as first written (one
    value: stated once); empty where the builder draws values (ports, hosts, owners, dates)."""

    slug: str
    title: str
    names: tuple[str, ...]
    asked: tuple[str, ...]
    values: tuple[str, ...] = ()
    role: str = ""  # a component's role: service, web, worker, db, cache, broker


@dataclass(frozen=True)
class Version:
    """One memory of a hand-written fact, as written: name (title), slug (a kebab-case name, as
    Claude Code 2.1.330 writes them), description and body."""

    name: str
    slug: str
    description: str
    body: str


@dataclass(frozen=True)
class Item:
    """A fact written by hand: its memories oldest first (one: stated once) and the questions a
    user asks about it later."""

    key: str
    type: MemoryType
    versions: tuple[Version, ...]
    questions: tuple[str, ...]


@dataclass(frozen=True)
class Theme:
    """One project a coding agent worked on for weeks: its parts, environments, people, the
    subjects of each attribute (by kind), and the facts written by hand for it alone.
    ``slugged``: names are kebab-case slugs and the frontmatter is 2.1.330's nested layout."""

    key: str
    project: str
    domain: str
    parts: tuple[Subject, ...]
    envs: tuple[Subject, ...]
    people: tuple[str, ...]
    subjects: Mapping[str, tuple[Subject, ...]]
    items: tuple[Item, ...]
    slugged: bool = False


@dataclass(frozen=True)
class Language:
    """Everything one language contributes: frames by kind, the banks of feedback rules and user
    facts the stores draw from, the projects, questions about nothing in any store, and how a
    memory in this language writes a date (``date(year, month, day)``)."""

    code: str
    kinds: Mapping[str, Kind]
    rules: tuple[Item, ...]
    users: tuple[Item, ...]
    themes: tuple[Theme, ...]
    offtopic: tuple[str, ...]
    date: Callable[[int, int, int], str]
    capitalize: bool = False  # start sentences with a capital letter (a frame may open with a slot)
    spaced: bool = True  # words are separated by spaces (else: no space between two CJK characters)
    utc_offset: int = 0  # hours: the agent's sessions fall in the working day of this timezone
