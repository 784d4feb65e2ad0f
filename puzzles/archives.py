"""Extracting an uploaded zip within limits, naming members rather than server paths.

The central directory is checked before anything is written (member count, declared
sizes, compression ratio, names, links, encryption), and every member is then streamed
with a byte counter, since the sizes a zip declares can lie. Refusals are ImportFailure
naming the archive and the member, e.g. `upload.zip: task/test.csv: ...`.
"""

from __future__ import annotations

import lzma
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from .errors import ImportFailure

CHUNK = 1024 * 1024
SUPPORTED = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
# Folders some archivers add beside the content (macOS resource forks); never extracted.
SKIPPED = ("__MACOSX/",)
_DRIVE = re.compile(r"^[A-Za-z]:$")


@dataclass(frozen=True)
class ZipLimits:
    """How much an uploaded zip may hold once extracted."""

    max_bytes: int  # total uncompressed size
    max_members: int  # entries, folders included
    max_ratio: int  # uncompressed / compressed size of one member
    ratio_floor: int = CHUNK  # members smaller than this are never refused for their ratio


@dataclass(frozen=True)
class _Member:
    info: zipfile.ZipInfo
    path: str  # normalized: relative, "/"-separated, no "." or ".." parts


def zip_extract(source: BinaryIO, *, name: str, dest: Path, limits: ZipLimits) -> list[str]:
    """Extract the zip's files under dest, or raise ImportFailure; return the paths written.

    Nothing is written unless the whole central directory passes the checks; a member that
    turns out damaged or larger than declared stops the extraction (the caller removes dest).
    """
    try:
        archive = zipfile.ZipFile(source)
    except zipfile.BadZipFile:
        raise ImportFailure("not a zip archive", file=name) from None
    except (ValueError, EOFError, OSError, NotImplementedError) as exc:
        raise ImportFailure(f"not a readable zip archive ({_reason(exc)})", file=name) from None
    with archive:
        members = _plan(archive.infolist(), name=name, limits=limits)
        return _write(archive, members, dest=dest, name=name, limits=limits)


def _plan(infos: list[zipfile.ZipInfo], *, name: str, limits: ZipLimits) -> list[_Member]:
    """Check the central directory; return the members to extract."""
    if len(infos) > limits.max_members:
        raise ImportFailure(
            f"{len(infos)} members; the limit is {limits.max_members} (IOLEVAL_ZIP_MAX_MEMBERS)",
            file=name,
        )
    total = sum(info.file_size for info in infos)
    if total > limits.max_bytes:
        raise ImportFailure(
            f"expands to {_size(total)}; the limit is {_size(limits.max_bytes)}"
            " (IOLEVAL_ZIP_MAX_BYTES)",
            file=name,
        )
    members: list[_Member] = []
    seen: dict[str, bool] = {}  # path -> is a folder
    for info in infos:
        where = f"{name}: {info.filename}"
        path = _member_path(info.filename, where=where)
        if path is None or path.startswith(SKIPPED):
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ImportFailure(
                "a symbolic link; the archive must hold the files themselves", file=where
            )
        if info.flag_bits & 0x1:
            raise ImportFailure("encrypted; upload it without a password", file=where)
        if info.compress_type not in SUPPORTED:
            raise ImportFailure(
                f"compressed with method {info.compress_type}, which cannot be read; "
                "use deflate (the default of zip tools)",
                file=where,
            )
        if path in seen:
            twice = "appears twice" if seen[path] == info.is_dir() else "both a file and a folder"
            raise ImportFailure(f"{twice} in the archive", file=where)
        seen[path] = info.is_dir()
        if info.file_size > limits.ratio_floor and info.file_size > limits.max_ratio * max(
            info.compress_size, 1
        ):
            ratio = info.file_size // max(info.compress_size, 1)
            raise ImportFailure(
                f"expands {ratio} times ({_size(info.compress_size)} to {_size(info.file_size)});"
                f" the limit is {limits.max_ratio} (IOLEVAL_ZIP_MAX_RATIO)",
                file=where,
            )
        members.append(_Member(info=info, path=path))
    folders = {str(parent) for m in members for parent in PurePosixPath(m.path).parents}
    folders |= {m.path for m in members if m.info.is_dir()}
    for member in members:
        if not member.info.is_dir() and member.path in folders:
            raise ImportFailure(
                "both a file and a folder in the archive", file=f"{name}: {member.info.filename}"
            )
    return members


def _member_path(filename: str, *, where: str) -> str | None:
    """Return the member's relative path, None for the top folder, or refuse an unsafe name."""
    parts = [p for p in filename.replace("\\", "/").split("/") if p not in ("", ".")]
    if filename.startswith(("/", "\\")) or (parts and _DRIVE.match(parts[0])):
        raise ImportFailure("an absolute path; the archive must hold relative paths", file=where)
    if ".." in parts:
        raise ImportFailure("a path that leaves the archive's folder (..)", file=where)
    return "/".join(parts) or None


def _write(
    archive: zipfile.ZipFile, members: list[_Member], *, dest: Path, name: str, limits: ZipLimits
) -> list[str]:
    written: list[str] = []
    budget = limits.max_bytes
    for member in members:
        where = f"{name}: {member.info.filename}"
        target = dest.joinpath(*member.path.split("/"))
        try:
            if member.info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member.info) as stream, target.open("xb") as out:
                budget -= member_copy(
                    stream,
                    out,
                    declared=member.info.file_size,
                    budget=budget,
                    where=where,
                    limits=limits,
                )
        except ImportFailure:
            raise
        except (
            zipfile.BadZipFile,
            zlib.error,
            lzma.LZMAError,
            EOFError,
            OSError,
            ValueError,
            NotImplementedError,
        ) as exc:
            # A damaged stream (bzip2's is an OSError), a zip feature zipfile lacks, or a
            # name the disk refuses.
            raise ImportFailure(f"cannot be extracted ({_reason(exc)})", file=where) from None
        written.append(member.path)
    return written


def member_copy(
    stream: BinaryIO, out: BinaryIO, *, declared: int, budget: int, where: str, limits: ZipLimits
) -> int:
    """Copy one member, stopping once it passes its declared size or the archive's budget."""
    copied = 0
    while chunk := stream.read(CHUNK):
        copied += len(chunk)
        if copied > declared:
            raise ImportFailure(
                f"holds more than the {_size(declared)} its header declares", file=where
            )
        if copied > budget:
            raise ImportFailure(
                f"the archive expands past {_size(limits.max_bytes)} (IOLEVAL_ZIP_MAX_BYTES)",
                file=where,
            )
        out.write(chunk)
    return copied


def _reason(exc: BaseException) -> str:
    # An OSError's text names the server's path; its strerror does not.
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _size(n: float) -> str:
    if n < 1024:
        return f"{int(n)} bytes"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if n < 1024 or unit == "GiB":
            break
    return f"{n:.1f} {unit}"
