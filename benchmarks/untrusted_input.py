"""Benchmark: what refusing hostile uploads costs, and what the checks cost on real input.

    .venv/bin/python benchmarks/untrusted_input.py [--bomb-gib 2] [--repeats 5]

1. **Zip bomb.** Builds, in memory, a zip whose one member is --bomb-gib GiB of zeros
   (about 2 MB compressed per GiB), then hands it to `puzzles.archives.zip_extract` with the
   default limits (500 MiB, 10,000 members, ratio 100) in a fresh temporary folder, and
   prints how long the refusal took and how many bytes were written. The same with the
   member's declared size forged down to 1 MiB in the central directory (a lying header),
   which the extraction itself must catch.
2. **Checks on real input.** For every JSON file of ../shared/data/iolai-2026, the time of
   `json.loads` against `puzzles.untrusted.json_parse` (which adds the NUL, surrogate,
   depth and number checks), best of --repeats.

No database is needed; nothing is written outside the temporary folders.
"""

from __future__ import annotations

import argparse
import io
import json
import struct
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from puzzles.archives import ZipLimits, zip_extract  # noqa: E402
from puzzles.errors import ImportFailure  # noqa: E402
from puzzles.untrusted import json_parse  # noqa: E402

MiB = 1024 * 1024
DEFAULTS = ZipLimits(max_bytes=500 * MiB, max_members=10_000, max_ratio=100)
DATA = REPO.parent / "shared" / "data" / "iolai-2026"


def bomb(gib: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("task/test.csv", "w", force_zip64=True) as member:
            chunk = bytes(MiB)
            for _ in range(gib * 1024):
                member.write(chunk)
    return buffer.getvalue()


def forge_size(data: bytes, size: int) -> bytes:
    """Declare `size` bytes for the first member in the central directory (zip64 extra too)."""
    raw = bytearray(data)
    at = raw.find(b"PK\x01\x02")
    name_length, extra_length = struct.unpack_from("<HH", raw, at + 28)
    struct.pack_into("<I", raw, at + 24, size)
    extra = at + 46 + name_length
    end = extra + extra_length
    while extra < end:  # drop the zip64 sizes so the 32-bit field counts
        tag, length = struct.unpack_from("<HH", raw, extra)
        if tag == 0x0001:
            struct.pack_into("<H", raw, extra, 0xCAFE)
        extra += 4 + length
    return bytes(raw)


def refuse(data: bytes) -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory(prefix="ioleval-bench-") as tmp:
        start = time.perf_counter()
        try:
            zip_extract(io.BytesIO(data), name="bomb.zip", dest=Path(tmp), limits=DEFAULTS)
            outcome = "extracted (!)"
        except ImportFailure as exc:
            outcome = str(exc)
        elapsed = time.perf_counter() - start
        written = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
    return elapsed, written, outcome


def checks(repeats: int) -> tuple[int, int, float, float]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(DATA.rglob("*.json"))]
    plain = checked = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for text in texts:
            json.loads(text)
        plain = min(plain, time.perf_counter() - start)
        start = time.perf_counter()
        for text in texts:
            json_parse(text, file="x.json")
        checked = min(checked, time.perf_counter() - start)
    return len(texts), sum(len(t) for t in texts), plain, checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bomb-gib", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()

    start = time.perf_counter()
    data = bomb(options.bomb_gib)
    built = time.perf_counter() - start
    print(f"zip bomb: {len(data) / MiB:.1f} MiB expanding to {options.bomb_gib} GiB")
    print(f"  (built in {built:.1f} s, untimed)")
    for label, archive in (
        ("declared size", data),
        ("header forged to 1 MiB", forge_size(data, MiB)),
    ):
        elapsed, written, outcome = refuse(archive)
        print(f"  {label}: refused in {elapsed * 1000:.1f} ms, {written} bytes written")
        print(f"    {outcome}")
    files, size, plain, checked = checks(options.repeats)
    print(f"IOL-AI JSON files: {files} files, {size / MiB:.1f} MiB")
    print(
        f"  json.loads {plain * 1000:.1f} ms, json_parse {checked * 1000:.1f} ms (best of"
        f" {options.repeats})"
    )


if __name__ == "__main__":
    main()
