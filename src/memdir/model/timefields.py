"""The two dates a memory's frontmatter may carry: when it last changed, and when it stops applying.

``modified:`` is the ISO time a Claude Code release (2.1.214 on) stamps on every write; it is a
better clock than the file's mtime, which a checkout, a copy or a team sync resets. ``expires:``
(``YYYY-MM-DD``) is the last day a memory applies ("until the 12th", "for this sprint"); from the
day after, recall and the manifest leave it out, and nothing deletes it. Both keys sit at the top
level in the flat layout and inside ``metadata:`` in the nested one, like the other keys of that
layout; the top level wins when both are present.

Dates are parsed by hand rather than with :mod:`datetime`: the prompt hook reads every header, and
importing ``datetime`` there costs more than parsing a few hundred dates.
"""

from __future__ import annotations

from collections.abc import Mapping

from memdir.model.memory_type import METADATA_KEY
from memdir.model.patterns import LazyPattern

__all__ = [
    "civil_from_days",
    "days_from_civil",
    "expiry_date",
    "frontmatter_value",
    "is_expired",
    "iso_mtime",
    "modified_ms",
    "parse_iso_ms",
]

_ISO = LazyPattern(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?"
)
_DATE = LazyPattern(r"(\d{4})-(\d{2})-(\d{2})")
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def frontmatter_value(frontmatter: Mapping[str, object], key: str) -> object | None:
    """``key`` at the top level, else inside ``metadata:`` (the nested layout), else None."""
    if key in frontmatter:
        return frontmatter[key]
    metadata = frontmatter.get(METADATA_KEY)
    return metadata.get(key) if isinstance(metadata, Mapping) else None


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _valid(year: int, month: int, day: int) -> bool:
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS_IN_MONTH[month - 1]:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return not (month == 2 and day == 29 and not leap)


def parse_iso_ms(value: object) -> float | None:
    """Milliseconds since the epoch of an ISO date or time (``2026-03-01``, ``2026-03-01T10:00:00Z``,
    with an offset or fraction); a time without a zone is read as UTC. None for anything else."""
    if not isinstance(value, str):
        return None
    match = _ISO.fullmatch(value.strip())
    if match is None:
        return None
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    hour, minute, second = int(match[4] or 0), int(match[5] or 0), int(match[6] or 0)
    if not _valid(year, month, day) or hour > 23 or minute > 59 or second > 60:
        return None
    fraction = float(f"0.{match[7]}") if match[7] else 0.0
    offset = 0
    zone = match[8]
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        offset = (int(digits[:2]) * 60 + int(digits[2:])) * (1 if zone[0] == "+" else -1)
    seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset * 60
    return (seconds + fraction) * 1000.0


def modified_ms(frontmatter: Mapping[str, object]) -> float | None:
    """The ``modified:`` time of a memory in milliseconds, when it has a readable one."""
    return parse_iso_ms(frontmatter_value(frontmatter, "modified"))


def expiry_date(frontmatter: Mapping[str, object]) -> str | None:
    """The ``expires:`` date as ``YYYY-MM-DD``, when the memory has a valid one (a time after the
    date is ignored: a memory applies through its last day)."""
    value = frontmatter_value(frontmatter, "expires")
    if not isinstance(value, str):
        return None
    match = _DATE.match(value.strip())
    if match is None or not _valid(int(match[1]), int(match[2]), int(match[3])):
        return None
    return match.group(0)


def is_expired(expires: str | None, today: str) -> bool:
    """Whether a memory whose last day is ``expires`` no longer applies on ``today`` (both
    ``YYYY-MM-DD``, which compare as strings)."""
    return expires is not None and today > expires


def civil_from_days(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian date ``days`` after 1970-01-01: the inverse of :func:`days_from_civil`."""
    days += 719468
    era = (days if days >= 0 else days - 146096) // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day


def iso_mtime(mtime_ms: float) -> str:
    """JS ``Date.toISOString``: UTC, milliseconds, ``Z`` (by hand, like the parsing above)."""
    whole = int(mtime_ms)
    seconds, millis = divmod(whole, 1000)
    days, rest = divmod(seconds, 86400)
    year, month, day = civil_from_days(days)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"
