"""The held-out sessions set: memory stores as a coding agent leaves them after weeks on one project.

Written after the recall design froze and never used to choose anything: it only judges. Each
store is one project (``Theme`` in ``sessions_<language>.py``) and holds 80 to 200 memories of the
four types, written over six to eleven weeks of sessions. Facts change in passing: a later memory
states a new value of an earlier fact (a new owner, a moved date, a changed port, a replaced tool,
a revised rule, a better figure) as a separate memory, by an agent that did not edit the first;
some facts change twice. Around them stand facts written alike that are different facts (the
same attribute of another component or environment, another attribute of the same component,
numbered items), facts stated once, old feedback rules that still hold and memories about the user.
In about a quarter of the updates the newer memory records ``replaces: <older file>``.

File names are neutral and drawn at random (``mem_0042.md``), so neither a name nor the order of
the files tells which version is newer; the write times (file mtimes, and the ``modified:`` stamp
in the 2.1.330 layout) are the only clock. Everything is deterministic: one seeded generator per
store. Every question is labelled with the file that holds its current answer, the stale versions
(oldest first) and the pairs the memories record.

``python bench/truth_sessions.py`` prints the size of the set; ``--dump DIR`` writes every store
and its labels there for reading.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memdir.model.memory import Memory
from memdir.model.memory_type import FrontmatterLayout, MemoryType
from memdir.store.directory import MemoryDir

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sessions_schema import SLUGS, Item, Kind, Language, Subject, Theme

__all__ = [
    "LANGUAGES",
    "NOW",
    "Note",
    "Question",
    "SessionStore",
    "build_stores",
    "write_store",
]

NOW = 1_780_315_200  # 2026-06-01 12:00 UTC: every store is read as of this moment
DAY = 86_400
LANGUAGES = ("en", "zh", "ja")
QUESTION_KINDS = ("updated", "once", "rule", "user", "offtopic")

# Which components each attribute is stated for, and how many such facts a store holds.
_PAIR_KINDS: Mapping[str, tuple[frozenset[str], tuple[int, int]]] = {
    "port": (frozenset({"service", "web", "db", "cache", "broker"}), (5, 8)),
    "host": (frozenset({"service", "db", "cache", "broker"}), (3, 5)),
    "replicas": (frozenset({"service", "web", "worker"}), (3, 5)),
}
_PART_KINDS: Mapping[str, tuple[frozenset[str], tuple[int, int]]] = {
    "owner": (frozenset({"service", "web", "worker", "db", "cache", "broker"}), (4, 6)),
    "dashboard": (frozenset({"service", "web", "worker", "db"}), (2, 4)),
}
_PORTS: Mapping[str, tuple[int, ...]] = {
    "service": (8080, 8081, 8000, 8001, 3000, 5000, 8443, 9000, 9090, 4000, 8088, 7070),
    "web": (3000, 3001, 8080, 4200, 5173, 8000, 8443),
    "db": (5432, 5433, 5434, 6432, 15432, 5532),
    "cache": (6379, 6380, 6381, 16379, 6390),
    "broker": (9092, 9093, 9094, 5672, 4222, 19092),
}
_UPDATE_ODDS = 0.38  # a drawn value (port, host, owner, date) changes once with these odds ...
_TWICE_ODDS = 0.3  # ... and, when it does, once more with these
_CLOSE_ODDS = 0.3  # a later memory worded close to the first
_SAME_NAME_ODDS = 0.2  # a later memory given the very name of the earlier one
_PLAIN_ODDS = 0.12  # a project or feedback memory written without its Why / How lines
_LONG_ODDS = 0.4  # a store kept longer, noting the same attributes of more components
_OFFTOPIC_PER_STORE = 8
_MIN_NOTES, _MAX_NOTES = 80, 200


@dataclass(frozen=True)
class Note:
    """One memory file as written: ``written`` is when (seconds), ``replaces`` the older file it
    records, ``session`` the Claude Code session id (2.1.330's nested layout records it)."""

    file: str
    name: str
    description: str
    type: MemoryType
    body: str
    written: int
    replaces: str | None = None
    session: str = ""


@dataclass(frozen=True)
class Question:
    """A user's question and its labels: ``current`` holds the answer today, ``stale`` the earlier
    versions of the same fact (oldest first), ``recorded`` the (newer, older) pairs of that fact
    whose newer memory says ``replaces``. Off-topic questions have no fact."""

    text: str
    kind: str  # one of QUESTION_KINDS
    family: str  # the attribute (port, owner, ...), or item / rule / user / offtopic
    fact: str | None
    current: str | None
    stale: tuple[str, ...] = ()
    recorded: tuple[tuple[str, str], ...] = ()

    @property
    def current_records(self) -> bool:
        """Whether the current memory itself records the version it replaces."""
        return any(newer == self.current for newer, _ in self.recorded)


@dataclass(frozen=True)
class SessionStore:
    """One project's memories and the questions asked of them."""

    key: str
    language: str
    project: str
    slugged: bool
    notes: tuple[Note, ...]
    questions: tuple[Question, ...]
    facts: Mapping[str, tuple[str, ...]]  # fact -> its files, oldest first
    _versions: dict[str, tuple[str, int]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for fact, files in self.facts.items():
            for index, file in enumerate(files):
                self._versions[file] = (fact, index)

    def is_newer_version(self, file: str, other: str) -> bool:
        """Whether ``other`` states a later value of the fact ``file`` states."""
        mine, theirs = self._versions.get(file), self._versions.get(other)
        return mine is not None and theirs is not None and mine[0] == theirs[0] and theirs[1] > mine[1]


@dataclass
class _Fact:
    """A fact being built: a kind's frames over one subject, or a hand-written item."""

    key: str
    family: str
    type: MemoryType
    count: int
    kind: Kind | None = None
    slots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    values: list[str] = field(default_factory=list)
    item: Item | None = None
    early: bool = False
    dated: bool = False  # the values are dates the builder draws from the write times
    times: list[int] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def language(code: str) -> Language:
    """The sentences of one language (``sessions_<code>.py``)."""
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}: choose from {', '.join(LANGUAGES)}")
    module = importlib.import_module(f"sessions_{code}")
    lang = module.LANGUAGE
    assert isinstance(lang, Language)
    return lang


def build_stores(code: str) -> list[SessionStore]:
    """Every store of one language, each built from its own seed."""
    lang = language(code)
    return [_build(lang, theme) for theme in lang.themes]


def write_store(store: SessionStore, root: str | os.PathLike[str]) -> MemoryDir:
    """Write ``store`` into the empty directory ``root``, each file's mtime set to when it was written."""
    directory = MemoryDir(root, scan_cap=None)
    for note in store.notes:
        extra: dict[str, object] = {}
        layout = FrontmatterLayout.FLAT
        if store.slugged:
            layout = FrontmatterLayout.NESTED
            stamp = dt.datetime.fromtimestamp(note.written, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            extra["metadata"] = {"node_type": "memory", "originSessionId": note.session, "modified": stamp}
        if note.replaces:
            extra["replaces"] = note.replaces
        memory = Memory(
            name=note.name,
            description=note.description,
            type=note.type,
            body=note.body,
            extra=extra,
            layout=layout,
        )
        result = directory.save(memory, file=note.file, index=False)
        os.utime(result.path, (note.written, note.written))
    return directory


# -- facts -------------------------------------------------------------------------------------


def _subject_slots(prefix: str, subject: Subject) -> dict[str, tuple[str, ...]]:
    return {
        prefix.upper(): (subject.title,),
        prefix: subject.names,
        prefix + "q": subject.asked,
        prefix + "s": (subject.slug,),
    }


def _drawn_count(rng: random.Random) -> int:
    if rng.random() >= _UPDATE_ODDS:
        return 1
    return 3 if rng.random() < _TWICE_ODDS else 2


def _port_values(rng: random.Random, part: Subject, count: int) -> list[str]:
    pool = [int(v) for v in part.values] if part.values else list(_PORTS[part.role])
    return [str(v) for v in rng.sample(pool, min(count, len(pool)))]


def _host_values(rng: random.Random, part: Subject, env: Subject, domain: str, count: int) -> list[str]:
    shapes = (
        "{c}.{e}.{d}",
        "{e}-{c}-{n:02d}.{d}",
        "{c}-{n}.{e}.{d}",
        "{c}-{e}.{d}",
        "{e}-{c}.internal.{d}",
    )
    picked = rng.sample(shapes, count)
    return [s.format(c=part.slug, e=env.slug, d=domain, n=rng.randint(1, 4)) for s in picked]


def _dashboard_values(rng: random.Random, part: Subject, domain: str, count: int) -> list[str]:
    hosts = [f"https://grafana.{domain}/d", f"https://metrics.{domain}/d", f"https://grafana.{domain}/dashboards/f"]
    values = []
    for host in rng.sample(hosts, count):
        code = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(6))
        values.append(f"{host}/{code}/{part.slug}")
    return values


def _pair_facts(rng: random.Random, lang: Language, theme: Theme, breadth: int) -> list[_Fact]:
    """Facts about components (and environments); a store kept longer (``breadth`` 2) notes the
    same attributes of more of them."""
    facts: list[_Fact] = []
    for key, (roles, (low, high)) in _PAIR_KINDS.items():
        pairs = [(p, e) for p in theme.parts if p.role in roles for e in theme.envs]
        for part, env in rng.sample(pairs, min(len(pairs), rng.randint(low * breadth, high * breadth))):
            count = _drawn_count(rng)
            if key == "port":
                values = _port_values(rng, part, count)
            elif key == "host":
                values = _host_values(rng, part, env, theme.domain, count)
            else:
                values = [str(v) for v in rng.sample(range(2, 17), count)]
            slots = {**_subject_slots("c", part), **_subject_slots("e", env)}
            kind = lang.kinds[key]
            facts.append(_Fact(f"{key}/{part.slug}/{env.slug}", key, kind.type, len(values), kind, slots, values))
    for key, (roles, (low, high)) in _PART_KINDS.items():
        parts = [p for p in theme.parts if p.role in roles]
        for part in rng.sample(parts, min(len(parts), rng.randint(low * breadth, high * breadth))):
            count = _drawn_count(rng)
            if key == "owner":
                values = rng.sample(list(theme.people), count)
            else:
                values = _dashboard_values(rng, part, theme.domain, count)
            slots = _subject_slots("c", part)
            facts.append(_Fact(f"{key}/{part.slug}", key, lang.kinds[key].type, count, lang.kinds[key], slots, values))
    return facts


def _subject_facts(rng: random.Random, lang: Language, theme: Theme) -> list[_Fact]:
    facts: list[_Fact] = []
    for key, subjects in theme.subjects.items():
        kind = lang.kinds[key]
        for subject in subjects:
            dated = not subject.values
            count = _drawn_count(rng) if dated else len(subject.values)
            slots = _subject_slots("x", subject)
            facts.append(
                _Fact(f"{key}/{subject.slug}", key, kind.type, count, kind, slots, list(subject.values), dated=dated)
            )
    return facts


def _item_facts(rng: random.Random, lang: Language, theme: Theme) -> list[_Fact]:
    facts = [_Fact(f"item/{i.key}", "item", i.type, len(i.versions), item=i) for i in theme.items]
    for family, bank, low, high in (("rule", lang.rules, 10, 14), ("user", lang.users, 5, 8)):
        for item in rng.sample(list(bank), min(len(bank), rng.randint(low, high))):
            facts.append(_Fact(f"{family}/{item.key}", family, item.type, len(item.versions), item=item, early=True))
    return facts


# -- time --------------------------------------------------------------------------------------


def _schedule(rng: random.Random, lang: Language, facts: Sequence[_Fact], breadth: int) -> dict[int, str]:
    """Give every version of every fact a write time inside the store's weeks of sessions (six to
    eleven weeks; up to sixteen for a store kept longer); returns the session id of each working day."""
    span = rng.randint(42, 80) if breadth == 1 else rng.randint(70, 112)
    start = NOW - NOW % DAY - span * DAY - lang.utc_offset * 3600  # local midnight, ``span`` days ago
    days = sorted(rng.sample(range(span), (span * 2) // 3))
    sessions = {d: _session_id(rng) for d in days}
    for fact in facts:
        gaps = [rng.randint(2, 30) for _ in range(fact.count - 1)]
        room = span - 2
        if sum(gaps) > room * 0.8:
            gaps = [max(1, int(g * room * 0.8 / sum(gaps))) for g in gaps]
        latest = room - sum(gaps)
        first = rng.uniform(0, latest * 0.35) if fact.early else rng.uniform(0, latest)
        points = [first]
        for gap in gaps:
            points.append(points[-1] + gap + rng.uniform(-0.3, 0.3))
        fact.times = []
        for point in points:
            day = next((d for d in days if d >= point), days[-1])
            moment = start + day * DAY + rng.randint(8 * 3600, 20 * 3600)
            if fact.times and moment <= fact.times[-1]:
                moment = fact.times[-1] + rng.randint(600, 7200)
            fact.times.append(min(moment, NOW - 1800))
    return {start + d * DAY: sid for d, sid in sessions.items()}


def _session_id(rng: random.Random) -> str:
    """A Claude Code session id (a version-4 UUID), drawn from the store's generator."""
    a, b, c, d, e = (rng.getrandbits(bits) for bits in (32, 16, 12, 12, 48))
    return f"{a:08x}-{b:04x}-4{c:03x}-a{d:03x}-{e:012x}"


def _session_of(sessions: Mapping[int, str], written: int) -> str:
    day_start = max(t for t in sessions if t <= written)
    return sessions[day_start]


def _date(lang: Language, when: int) -> str:
    day = dt.datetime.fromtimestamp(when, dt.UTC).date()
    return lang.date(day.year, day.month, day.day)


def _dated_values(rng: random.Random, lang: Language, fact: _Fact) -> None:
    """A milestone's dates: the first some weeks after it was noted, each later one moved."""
    moments: list[int] = []
    for index, written in enumerate(fact.times):
        if index == 0:
            moment = written + rng.randint(8, 40) * DAY
        else:
            moment = moments[-1] + rng.choice((-6, -3, 4, 7, 10, 14, 21, 28)) * DAY
            moment = max(moment, written + rng.randint(3, 12) * DAY)
        moments.append(moment)
    fact.values = [_date(lang, m) for m in moments]


# -- text --------------------------------------------------------------------------------------

_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(f"(?<=[{_CJK}]) +(?=[{_CJK}])")
_FIRST_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?(?=[\s,:;!?]|$)")


def _squeeze(lang: Language, text: str) -> str:
    """In a language written without spaces, drop a slot's spacing between two CJK characters."""
    return text if lang.spaced else _CJK_GAP.sub("", text)


def _sentence(lang: Language, text: str) -> str:
    """``text`` as a memory writes it: squeezed, and in a language with capitals, a frame that
    opens with a plain lower-case word gets a capital (an identifier such as ``ledger-db`` keeps
    its case)."""
    text = _squeeze(lang, text)
    if lang.capitalize and _FIRST_WORD.match(text):
        return text[0].upper() + text[1:]
    return text


def _fill(template: str, slots: Mapping[str, str]) -> str:
    return template.format_map(slots)


def _body(lang: Language, rng: random.Random, kind_type: MemoryType, state: str, why: str, how: str) -> str:
    state, why, how = (_sentence(lang, s) for s in (state, why, how))
    gap = " " if lang.spaced else ""
    if kind_type in (MemoryType.PROJECT, MemoryType.FEEDBACK):
        if rng.random() < _PLAIN_ODDS:
            return f"{state}{gap}{why}"
        return f"{state}\n**Why:** {why}\n**How to apply:** {how}"
    if rng.random() < 0.5:
        return f"{state}{gap}{why}\n{how}"
    return f"{state}\n{how}"


def _render_kind(
    lang: Language, rng: random.Random, theme: Theme, fact: _Fact, index: int, previous: tuple[str, str] | None
) -> tuple[str, str, str, str]:
    """(name, slug, description, body) of version ``index`` of a kind's fact."""
    kind = fact.kind
    assert kind is not None
    slots = {key: rng.choice(options) for key, options in fact.slots.items()}
    slots.update(p=theme.project, v=fact.values[index], day=_date(lang, fact.times[index]))
    slots["old"] = fact.values[index - 1] if index else fact.values[0]
    later = index > 0
    close = later and rng.random() < _CLOSE_ODDS
    if previous is not None and slots["old"] not in previous[0] and rng.random() < _SAME_NAME_ODDS:
        name, slug = previous
    else:
        name = _fill(rng.choice(kind.renames if later else kind.names), slots)
        slugs, reslugs = SLUGS[fact.family]
        slug = _fill(rng.choice(reslugs if later else slugs), slots)
    description = _fill(rng.choice(kind.redescriptions if later and not close else kind.descriptions), slots)
    state = _fill(rng.choice(kind.restates if later and not close else kind.states), slots)
    why = _fill(rng.choice(kind.rewhys if later else kind.whys), slots)
    how = _fill(rng.choice(kind.hows), slots)
    body = _body(lang, rng, kind.type, state, why, how)
    return _sentence(lang, name), slug, _sentence(lang, description), body


def _questions(rng: random.Random, lang: Language, fact: _Fact) -> list[str]:
    if fact.item is not None:
        options = list(fact.item.questions)
        return rng.sample(options, min(len(options), rng.choice((1, 2, 2))))
    assert fact.kind is not None
    texts = []
    for template in rng.sample(list(fact.kind.questions), rng.choice((1, 2, 2))):
        slots = {key: rng.choice(options) for key, options in fact.slots.items()}
        texts.append(_squeeze(lang, _fill(template, slots)))
    return texts


def _notes(
    lang: Language,
    rng: random.Random,
    theme: Theme,
    fact: _Fact,
    recorded: set[tuple[int, int]],
    sessions: Mapping[int, str],
) -> tuple[list[Note], tuple[tuple[str, str], ...]]:
    """The memories of one fact, oldest first, and the (newer, older) pairs among them that record
    ``replaces``."""
    notes: list[Note] = []
    pairs: list[tuple[str, str]] = []
    previous: tuple[str, str] | None = None
    for index, (file, written) in enumerate(zip(fact.files, fact.times, strict=True)):
        if fact.item is not None:
            version = fact.item.versions[index]
            name, slug, description, body = version.name, version.slug, version.description, version.body
        else:
            name, slug, description, body = _render_kind(lang, rng, theme, fact, index, previous)
        previous = (name, slug)
        replaces = fact.files[index - 1] if (id(fact), index) in recorded else None
        if replaces:
            pairs.append((file, replaces))
        notes.append(
            Note(
                file=file,
                name=slug if theme.slugged else name,
                description=description,
                type=fact.type,
                body=body,
                written=written,
                replaces=replaces,
                session=_session_of(sessions, written),
            )
        )
    return notes, tuple(pairs)


def _build(lang: Language, theme: Theme) -> SessionStore:
    rng = random.Random(f"memdir held-out sessions/{lang.code}/{theme.key}")
    breadth = 2 if rng.random() < _LONG_ODDS else 1
    facts = _pair_facts(rng, lang, theme, breadth) + _subject_facts(rng, lang, theme) + _item_facts(rng, lang, theme)
    sessions = _schedule(rng, lang, facts, breadth)
    total = sum(f.count for f in facts)
    if not _MIN_NOTES <= total <= _MAX_NOTES:
        raise ValueError(f"{lang.code}/{theme.key}: {total} memories, outside {_MIN_NOTES}..{_MAX_NOTES}")
    numbers = iter(rng.sample(range(1, 10_000), total))
    for fact in facts:
        fact.files = [f"mem_{next(numbers):04d}.md" for _ in range(fact.count)]
        if fact.dated:
            _dated_values(rng, lang, fact)
    updates = [(fact, i) for fact in facts for i in range(1, fact.count)]
    recorded = {(id(f), i) for f, i in rng.sample(updates, round(len(updates) / 4))}
    notes: list[Note] = []
    questions: list[Question] = []
    for fact in facts:
        written, pairs = _notes(lang, rng, theme, fact, recorded, sessions)
        notes.extend(written)
        kind = "updated" if fact.count > 1 else {"feedback": "rule", "user": "user"}.get(fact.type.value, "once")
        for text in _questions(rng, lang, fact):
            questions.append(Question(text, kind, fact.family, fact.key, fact.files[-1], tuple(fact.files[:-1]), pairs))
    for text in rng.sample(list(lang.offtopic), _OFFTOPIC_PER_STORE):
        questions.append(Question(text, "offtopic", "offtopic", None, None))
    notes.sort(key=lambda n: n.file)
    return SessionStore(
        theme.key,
        lang.code,
        theme.project,
        theme.slugged,
        tuple(notes),
        tuple(questions),
        {f.key: tuple(f.files) for f in facts},
    )


# -- the command -------------------------------------------------------------------------------


def sizes(stores: Sequence[SessionStore]) -> dict[str, int]:
    """Stores, memories, updated facts, recorded pairs and questions by kind, over ``stores``."""
    counts: Counter[str] = Counter()
    for store in stores:
        counts["stores"] += 1
        counts["memories"] += len(store.notes)
        counts["updated facts"] += sum(1 for files in store.facts.values() if len(files) > 1)
        counts["recorded pairs"] += sum(1 for note in store.notes if note.replaces)
        counts.update(f"q:{q.kind}" for q in store.questions)
    return {key: counts[key] for key in ("stores", "memories", "updated facts", "recorded pairs")} | {
        kind: counts[f"q:{kind}"] for kind in QUESTION_KINDS
    }


def _dump(stores: Sequence[SessionStore], target: Path) -> None:
    for store in stores:
        folder = target / store.language / store.key
        folder.mkdir(parents=True, exist_ok=False)
        write_store(store, folder / "memory")
        labels = {"project": store.project, "facts": store.facts, "questions": [asdict(q) for q in store.questions]}
        (folder / "truth.json").write_text(json.dumps(labels, ensure_ascii=False, indent=1), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated: en,zh,ja")
    parser.add_argument("--dump", type=Path, help="write every store and its labels under this new directory")
    args = parser.parse_args(argv)
    codes = [c.strip() for c in args.languages.split(",") if c.strip()]
    print("| language | " + " | ".join(sizes([]).keys()) + " |")
    print("|---" * (len(sizes([])) + 1) + "|")
    for code in codes:
        stores = build_stores(code)
        print(f"| {code} | " + " | ".join(str(v) for v in sizes(stores).values()) + " |")
        if args.dump:
            _dump(stores, args.dump)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
