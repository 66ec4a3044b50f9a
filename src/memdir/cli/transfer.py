"""``memdir export | import``: the whole memory directory as one file, and back, byte for byte.

An export holds every regular file of the directory (memories, ``MEMORY.md`` indexes, team
files, daily logs) except memdir's hidden bookkeeping (the lock, temp files), with each file's
modification time, since recency orders recall. Two formats: JSON Lines (one file per line,
readable, diffable) and tar. An import checks every name with the same containment rule as
every other write, accepts only plain files, and never overwrites a different file unless
``--on-conflict replace`` says so; with no ``--on-conflict`` a conflict stops the import before
anything is written. An index (``MEMORY.md``) is never overwritten: the imported memories get
their lines added to the one already there.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import os
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import click

from memdir.cli.main import CliState, cli, echo_json, fail, pass_state
from memdir.errors import MemoryFormatError
from memdir.model.entrypoint import ENTRYPOINT_NAME
from memdir.model.text import counted
from memdir.store.directory import TEAM_DIRNAME, MemoryDir
from memdir.store.files import MAX_MEMORY_FILE_BYTES, atomic_write, lock_directory, read_bytes_limited
from memdir.store.provenance import recorded_as
from memdir.store.scan import LOGS_DIRNAME, MemoryHeader
from memdir.writes.near import Similarity

__all__ = ["export", "import_"]

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Entry:
    """One file of an export: its name relative to the memory directory, its bytes and mtime."""

    file: str
    data: bytes
    mtime_ns: int


def _exported_files(directory: MemoryDir) -> Iterator[str]:
    for base, dirnames, filenames in os.walk(directory.root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(base, d)))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = os.path.join(base, name)
            if os.path.islink(path):
                click.echo(f"skipped {directory.relative(path)}: a symlink (export its target instead)", err=True)
                continue
            yield directory.relative(path)


def _entries(directory: MemoryDir) -> Iterator[Entry]:
    for rel in _exported_files(directory):
        path = directory.resolve(rel)
        try:
            data = read_bytes_limited(path)
        except MemoryFormatError as exc:
            click.echo(f"skipped {rel}: {exc.message}", err=True)
            continue
        yield Entry(rel, data, os.stat(path).st_mtime_ns)


def _jsonl_line(entry: Entry) -> str:
    record: dict[str, object] = {"file": entry.file, "mtime_ns": entry.mtime_ns}
    try:
        record["text"] = entry.data.decode("utf-8")
    except UnicodeDecodeError:  # kept exactly all the same; doctor reports it
        record["base64"] = base64.b64encode(entry.data).decode("ascii")
    return json.dumps(record, ensure_ascii=False)


@cli.command(
    epilog="""\b
Examples:
  memdir export -o memories.jsonl
  memdir export --format tar -o memories.tar
  memdir --project ~/code/app export | memdir --project ~/code/fork import -
"""
)
@click.option("--format", "format_", type=click.Choice(["jsonl", "tar"]), default="jsonl", show_default=True)
@click.option("-o", "--output", default="-", help="File to write (default: standard output).")
@pass_state
def export(state: CliState, format_: str, output: str) -> None:
    """Write every file of the memory directory, with its modification time, to one file."""
    directory = state.memory_dir
    if format_ == "tar" and output == "-" and sys.stdout.isatty():
        fail("a tar export is binary: give -o FILE or redirect standard output")
    count = 0
    with click.open_file(output, "wb", atomic=output != "-") as sink:
        if format_ == "jsonl":
            header = {"memdir_export": FORMAT_VERSION, "memory_dir": directory.root}
            sink.write((json.dumps(header, ensure_ascii=False) + "\n").encode("utf-8"))
            for entry in _entries(directory):
                sink.write((_jsonl_line(entry) + "\n").encode("utf-8"))
                count += 1
        else:
            with tarfile.open(fileobj=sink, mode="w|", format=tarfile.PAX_FORMAT) as archive:
                for entry in _entries(directory):
                    info = tarfile.TarInfo(entry.file)
                    info.size = len(entry.data)
                    info.mode = 0o600
                    info.mtime = entry.mtime_ns / 1e9
                    seconds, nanos = divmod(entry.mtime_ns, 1_000_000_000)
                    info.pax_headers = {"mtime": f"{seconds}.{nanos:09d}"}  # exact: no float on the way
                    archive.addfile(info, io.BytesIO(entry.data))
                    count += 1
    where = "standard output" if output == "-" else output
    click.echo(f"exported {count} files from {directory.root} to {where}", err=output == "-")


def _read_jsonl(source: IO[bytes], name: str) -> Iterator[Entry]:
    for number, raw in enumerate(source, start=1):
        try:
            record = json.loads(raw)
        except ValueError as exc:
            raise MemoryFormatError(f"{name} line {number} is not JSON ({exc}); is it a memdir export?") from exc
        if not isinstance(record, dict):
            raise MemoryFormatError(f"{name} line {number} is not a JSON object; is it a memdir export?")
        if number == 1 and "memdir_export" in record:
            continue
        file, mtime = record.get("file"), record.get("mtime_ns")
        if not isinstance(file, str) or not isinstance(mtime, int):
            raise MemoryFormatError(f"{name} line {number} needs a text 'file' and an integer 'mtime_ns'")
        if isinstance(record.get("text"), str):
            data = record["text"].encode("utf-8")
        elif isinstance(record.get("base64"), str):
            try:
                data = base64.b64decode(record["base64"], validate=True)
            except binascii.Error as exc:
                raise MemoryFormatError(f"{name} line {number}: 'base64' is not base64") from exc
        else:
            raise MemoryFormatError(f"{name} line {number} has neither 'text' nor 'base64'")
        yield Entry(file, data, mtime)


def _read_tar(source: IO[bytes], name: str) -> Iterator[Entry]:
    with tarfile.open(fileobj=source, mode="r|*") as archive:
        for member in archive:
            if member.isdir():
                continue
            if not member.isfile():
                raise MemoryFormatError(
                    f"{name}: {member.name!r} is not a plain file (a link or device); an import holds files only"
                )
            if member.size > MAX_MEMORY_FILE_BYTES:
                raise MemoryFormatError(f"{name}: {member.name!r} is {member.size} bytes, over the limit of a file")
            handle = archive.extractfile(member)
            data = handle.read() if handle is not None else b""
            yield Entry(member.name, data, _mtime_ns(member))


def _mtime_ns(member: tarfile.TarInfo) -> int:
    """The member's mtime in nanoseconds, exactly, from its PAX header when it has one."""
    text = member.pax_headers.get("mtime", "")
    whole, _, fraction = text.partition(".")
    if whole.lstrip("-").isdigit() and (not fraction or fraction.isdigit()):
        return int(whole) * 1_000_000_000 + int((fraction + "0" * 9)[:9] or 0)
    return int(member.mtime * 1_000_000_000)


def _load(source: IO[bytes], name: str) -> list[Entry]:
    head = source.read(512)
    rest = source.read()
    blob = io.BytesIO(head + rest)
    is_tar = len(head) >= 262 and head[257:262] == b"ustar"
    entries = list(_read_tar(blob, name) if is_tar else _read_jsonl(blob, name))
    seen: set[str] = set()
    for entry in entries:
        if entry.file in seen:
            raise MemoryFormatError(f"{name} holds {entry.file!r} twice; nothing was imported")
        seen.add(entry.file)
    return entries


def _free_name(directory: MemoryDir, rel: str, taken: set[str]) -> str:
    stem, dot, ext = rel.rpartition(".") if "." in os.path.basename(rel) else (rel, "", "")
    for n in range(1, 10_000):
        candidate = f"{stem}.imported{'' if n == 1 else f'-{n}'}{dot}{ext}"
        if candidate not in taken and not os.path.lexists(directory.resolve(candidate)):
            return candidate
    raise MemoryFormatError(f"no free name for {rel}")


def _is_topic(rel: str) -> bool:
    return rel.endswith(".md") and os.path.basename(rel) != ENTRYPOINT_NAME and not rel.startswith(f"{LOGS_DIRNAME}/")


@cli.command(
    name="import",
    epilog="""\b
Examples:
  memdir import memories.jsonl
  memdir import memories.tar --on-conflict rename
  memdir import backup.jsonl --on-conflict replace --json
""",
)
@click.argument("file", type=click.File("rb"))
@click.option(
    "--on-conflict",
    type=click.Choice(["skip", "rename", "replace"]),
    default=None,
    help="When a file exists with other content: keep it (skip), import as NAME.imported.md (rename), or "
    "overwrite it (replace). Without this option a conflict stops the import before anything is written.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON: written, unchanged, skipped, renamed, replaced, merged, indexed, near.",
)
@pass_state
@recorded_as("import")
def import_(state: CliState, file: IO[bytes], on_conflict: str | None, as_json: bool) -> None:
    """Bring an export (JSON Lines or tar) into the memory directory, keeping MEMORY.md in step."""
    directory = state.memory_dir
    name = getattr(file, "name", "-")
    entries = _load(file, name)
    plan: list[tuple[Entry, str]] = []
    outcome: dict[str, list[str]] = {
        "written": [],
        "unchanged": [],
        "skipped": [],
        "renamed": [],
        "replaced": [],
        "merged": [],
    }
    conflicts: list[str] = []
    taken: set[str] = set()
    for entry in entries:
        rel = directory.relative(directory.resolve(entry.file))  # containment, on every name
        if any(part.startswith(".") for part in rel.split("/")):
            raise MemoryFormatError(f"{name}: {entry.file!r} is a hidden name; memdir keeps its own files there")
        path = directory.resolve(rel)
        if not os.path.lexists(path):
            plan.append((entry, rel))
            outcome["written"].append(rel)
            continue
        if os.path.isfile(path) and not os.path.islink(path) and read_bytes_limited(path) == entry.data:
            outcome["unchanged"].append(rel)
            continue
        if os.path.basename(rel) == ENTRYPOINT_NAME:
            # An index is never replaced or duplicated: the imported memories get their lines added
            # to the one here, and every line already here stays.
            outcome["merged"].append(rel)
            continue
        if on_conflict is None:
            conflicts.append(rel)
        elif on_conflict == "skip":
            outcome["skipped"].append(rel)
        elif on_conflict == "rename":
            new = _free_name(directory, rel, taken)
            taken.add(new)
            plan.append((entry, new))
            outcome["renamed"].append(f"{rel} -> {new}")
        else:
            plan.append((entry, rel))
            outcome["replaced"].append(rel)
    if conflicts:
        shown = ", ".join(conflicts[:5]) + (f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else "")
        fail(
            f"{counted(len(conflicts), 'file')} already {'exists' if len(conflicts) == 1 else 'exist'} "
            f"with other content ({shown}); nothing was imported. "
            "Choose --on-conflict skip, rename or replace"
        )
    directory.ensure()
    existing = directory.headers()  # before the import: what an imported memory may duplicate
    for entry, rel in plan:
        try:
            text = entry.data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        path = directory.write_text(rel, text) if text is not None else _write_bytes(directory, rel, entry.data)
        os.utime(path, ns=(entry.mtime_ns, entry.mtime_ns))
    # An index that came with the archive already lists its memories as the exporter had them;
    # the others (renamed files, or an index merged into the one here) get their missing lines.
    imported_indexes = {directory.resolve(rel) for _, rel in plan if os.path.basename(rel) == ENTRYPOINT_NAME}
    needing = [
        rel
        for entry, rel in plan
        if _is_topic(rel) and (rel != entry.file or directory.index_for(rel)[0] not in imported_indexes)
    ]
    indexed = directory.add_missing_index_lines(needing)
    outcome["indexed"] = list(indexed)
    outcome["near"] = _near_pairs(directory, plan, existing)
    if as_json:
        echo_json(outcome)
        return
    for line in outcome["renamed"]:
        click.echo(f"renamed {line}")
    for rel in outcome["skipped"]:
        click.echo(f"skipped {rel}: exists with other content", err=True)
    for pair in outcome["near"]:
        click.echo(f"imported {pair}; combine them with memdir merge", err=True)
    click.echo(
        f"imported {len(outcome['written'])} new, {len(outcome['replaced'])} replaced, "
        f"{len(outcome['renamed'])} renamed, {len(outcome['skipped'])} skipped, "
        f"{len(outcome['unchanged'])} unchanged; {counted(len(indexed), 'index line')} added"
    )


def _near_pairs(directory: MemoryDir, plan: list[tuple[Entry, str]], existing: list[MemoryHeader]) -> list[str]:
    """Imported memories that say nearly word for word what a memory already here says: everything
    is imported (an import never drops data), and these are named so the two can be merged."""
    imported = {rel for _, rel in plan if _is_topic(rel)}
    before = {header.filename for header in existing} - {rel for _, rel in plan}
    found: list[str] = []
    for cluster in Similarity(directory.headers()).clusters():
        files = [header.filename for header in cluster]
        kept = [file for file in files if file in before]
        found += [f"{file} says nearly what {kept[0]} says" for file in files if file in imported and kept]
    return found


def _write_bytes(directory: MemoryDir, rel: str, data: bytes) -> str:
    """A file that is not UTF-8 (doctor reports it) comes back exactly as it left; never into
    team memory, whose secret scanner reads text."""
    if rel.split("/", 1)[0] == TEAM_DIRNAME:
        raise MemoryFormatError(f"{rel} is not UTF-8 text; team memory takes text files only")
    path = directory.resolve(rel)
    with lock_directory(directory.root, timeout=directory.lock_timeout):
        atomic_write(path, data)
    return path
