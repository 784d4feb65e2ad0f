"""Uploaded zips of the IOL-AI layout: limits on size, members and ratio, unsafe members,
messages that name the member (never the server's temporary path), and no leftovers.

The bombs are small: a member's declared size is forged in the central directory, or the
limit is lowered in the settings, so no test writes or compresses much.
"""

from __future__ import annotations

import io
import random
import stat
import struct
import tempfile
import warnings
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from puzzles.archives import ZipLimits, member_copy, zip_extract
from puzzles.demo import _write_layout
from puzzles.errors import ImportFailure
from puzzles.models import Competition, Output

MiB = 1024 * 1024
LIMITS = ZipLimits(max_bytes=10 * MiB, max_members=100, max_ratio=100)


@pytest.fixture
def scratch_tmp(tmp_path, monkeypatch) -> Path:
    """Send temporary folders to a folder of the test's own, to see what stays behind."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def layout(tmp_path) -> dict[str, bytes]:
    """Return the demo's IOL-AI layout as {member name: content}, inside a folder."""
    root = tmp_path / "layout"
    _write_layout(root)
    return {
        f"layout/{p.relative_to(root).as_posix()}": p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _zip(entries, compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Duplicate name", UserWarning)  # wanted here
        with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()


def _link(name: str, target: str) -> tuple[zipfile.ZipInfo, str]:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target


def _forge(data: bytes, name: str, **fields: int) -> bytes:
    """Rewrite fields of one member's central directory entry (what zipfile believes)."""
    offsets = {"flag_bits": (8, "<H"), "compress_type": (10, "<H"), "file_size": (24, "<I")}
    raw = bytearray(data)
    at = raw.find(b"PK\x01\x02")
    while at >= 0:
        name_length = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46 : at + 46 + name_length].decode() == name:
            for key, value in fields.items():
                offset, fmt = offsets[key]
                struct.pack_into(fmt, raw, at + offset, value)
            return bytes(raw)
        at = raw.find(b"PK\x01\x02", at + 46)
    raise AssertionError(f"no member {name}")


def _post(client, data: bytes, slug: str = "zipped"):
    upload = SimpleUploadedFile("upload.zip", data)
    return client.post(reverse("puzzles:import_iolai"), {"slug": slug, "archive": upload})


def _page_error(response) -> str:
    errors = response.context["form"].non_field_errors()
    assert len(errors) == 1, errors
    return errors[0]


# --- the upload page -------------------------------------------------------------------------


def test_a_good_archive_imports_and_leaves_no_temporary_folder(
    organizer_client, layout, scratch_tmp
):
    response = _post(organizer_client, _zip(layout.items()))
    assert response.status_code == 302
    assert Competition.objects.get(slug="zipped").systems.count() == 6
    assert list(scratch_tmp.iterdir()) == []


def test_a_bomb_declaring_2_gib_is_refused_before_anything_is_written(
    organizer_client, layout, scratch_tmp
):
    data = _forge(_zip(layout.items()), "layout/task/test.csv", file_size=2 * 1024**3)
    response = _post(organizer_client, data)
    assert response.status_code == 422  # the form again (ioleval.http.post_rerender)
    message = _page_error(response)
    assert message.startswith("upload.zip: expands to 2.0 GiB; the limit is 500.0 MiB")
    assert "IOLEVAL_ZIP_MAX_BYTES" in message
    assert not Competition.objects.exists()
    assert list(scratch_tmp.iterdir()) == []


def test_the_size_limit_is_a_setting(organizer_client, settings, scratch_tmp):
    settings.IOLEVAL_ZIP_MAX_BYTES = 4 * MiB
    data = _zip([("layout/task/test.csv", b"x" * (5 * MiB))], zipfile.ZIP_STORED)
    message = _page_error(_post(organizer_client, data))
    assert message.startswith("upload.zip: expands to 5.0 MiB; the limit is 4.0 MiB")
    assert list(scratch_tmp.iterdir()) == []


def test_a_member_that_expands_too_many_times_is_refused(organizer_client, layout, scratch_tmp):
    zeros = _zip([*layout.items(), ("layout/task/zeros.bin", bytes(8 * MiB))])
    assert len(zeros) < 100_000  # 8 MiB of zeros compress about a thousand times
    message = _page_error(_post(organizer_client, zeros))
    assert message.startswith("upload.zip: layout/task/zeros.bin: expands 1")
    assert "the limit is 100 (IOLEVAL_ZIP_MAX_RATIO)" in message
    assert not Competition.objects.exists()
    assert list(scratch_tmp.iterdir()) == []


def test_too_many_members_are_refused(organizer_client, layout, settings, scratch_tmp):
    settings.IOLEVAL_ZIP_MAX_MEMBERS = 5
    message = _page_error(_post(organizer_client, _zip(layout.items())))
    assert message == (
        f"upload.zip: {len(layout)} members; the limit is 5 (IOLEVAL_ZIP_MAX_MEMBERS)"
    )
    assert not Competition.objects.exists()


def test_a_member_larger_than_its_header_says_stops_the_extraction(
    organizer_client, layout, scratch_tmp
):
    # The header claims 100 bytes: zipfile reads that many, and the CRC then fails.
    data = _forge(_zip(layout.items()), "layout/task/test.csv", file_size=100)
    message = _page_error(_post(organizer_client, data))
    assert message.startswith("upload.zip: layout/task/test.csv: cannot be extracted (Bad CRC")
    assert not Competition.objects.exists()
    assert list(scratch_tmp.iterdir()) == []


def test_errors_in_the_layout_name_the_member_not_the_temporary_path(
    organizer_client, layout, scratch_tmp
):
    name = "layout/task/solution.csv"
    lines = layout[name].decode().splitlines(keepends=True)
    layout[name] = "".join([*lines[:2], lines[1], *lines[2:]]).encode()  # line 2 again on 3
    response = _post(organizer_client, _zip(layout.items()))
    message = _page_error(response)
    assert message.startswith(f"upload.zip: {name}, line 3, field 'id': duplicate task id")
    assert str(scratch_tmp) not in response.content.decode()
    assert "ioleval-import-" not in response.content.decode()
    assert list(scratch_tmp.iterdir()) == []


def test_json_errors_in_a_submission_name_the_member(organizer_client, layout, scratch_tmp):
    name = next(n for n in layout if n.endswith("predictions.json"))
    layout[name] = b'[{"id": "12026010100", "pred": "a\\u0000"}]'
    message = _page_error(_post(organizer_client, _zip(layout.items())))
    assert message.startswith(f"upload.zip: {name}, line 1, field '[1].pred': a NUL character")
    assert not Competition.objects.exists()


def test_a_missing_layout_is_reported_against_the_archive(organizer_client, scratch_tmp):
    message = _page_error(_post(organizer_client, _zip([("readme.txt", b"hi")])))
    assert message.startswith("upload.zip: the archive has no task/ folder")


@pytest.mark.parametrize(
    "extra,expected",
    [
        ([("../evil.csv", b"x")], "upload.zip: ../evil.csv: a path that leaves"),
        ([("layout/../../evil.csv", b"x")], "upload.zip: layout/../../evil.csv: a path that"),
        ([("/etc/evil.csv", b"x")], "upload.zip: /etc/evil.csv: an absolute path"),
        ([("C:\\evil.csv", b"x")], "upload.zip: C:\\evil.csv: an absolute path"),
        ([("layout/task/test.csv", b"id\n")], "upload.zip: layout/task/test.csv: appears twice"),
        ([("layout/task/x/", b"")], None),  # an empty folder is fine
        ([("layout/task", b"x")], "upload.zip: layout/task: both a file and a folder"),
        ([("layout/task/test.csv/", b"")], "upload.zip: layout/task/test.csv/: both a file and"),
        ([_link("layout/task", "/etc")], "upload.zip: layout/task: a symbolic link"),
        ([_link("layout/submissions/99_x", "../../..")], "upload.zip: layout/submissions/99_x: a"),
    ],
)
def test_unsafe_members_are_refused(organizer_client, layout, scratch_tmp, extra, expected):
    response = _post(organizer_client, _zip([*layout.items(), *extra]))
    assert response.status_code in (422, 302)
    if expected is None:
        assert response.status_code == 302
    else:
        assert _page_error(response).startswith(expected)
        assert not Competition.objects.exists()
        assert not Output.objects.exists()
    assert list(scratch_tmp.iterdir()) == []


def test_a_symlinked_folder_after_its_files_is_refused_not_a_500(
    organizer_client, layout, scratch_tmp
):
    # Before: zipfile wrote the link as a file over the extracted folder (IsADirectoryError).
    response = _post(organizer_client, _zip([*layout.items(), _link("layout/task", "real")]))
    assert response.status_code == 422
    assert "a symbolic link" in _page_error(response)


def test_backslashes_separate_folders_as_windows_tools_write_them(organizer_client, layout):
    windows = [(name.replace("/", "\\"), data) for name, data in layout.items()]
    assert _post(organizer_client, _zip(windows)).status_code == 302
    assert Competition.objects.get(slug="zipped").problems.count() == 3


def test_encrypted_and_unknown_methods_are_refused(organizer_client, layout, scratch_tmp):
    data = _zip(layout.items())
    encrypted = _forge(data, "layout/task/test.csv", flag_bits=0x1)
    assert _page_error(_post(organizer_client, encrypted)) == (
        "upload.zip: layout/task/test.csv: encrypted; upload it without a password"
    )
    unknown = _forge(data, "layout/task/test.csv", compress_type=99)
    assert "compressed with method 99" in _page_error(_post(organizer_client, unknown))
    assert not Competition.objects.exists()


# --- the extractor -----------------------------------------------------------------------------


def test_the_copy_stops_past_the_declared_size_and_the_budget(tmp_path):
    out = io.BytesIO()
    with pytest.raises(ImportFailure) as caught:
        member_copy(
            io.BytesIO(b"x" * 3000),
            out,
            declared=1000,
            budget=10**6,
            where="a.zip: m",
            limits=LIMITS,
        )
    assert str(caught.value) == "a.zip: m: holds more than the 1000 bytes its header declares"
    with pytest.raises(ImportFailure) as caught:
        member_copy(
            io.BytesIO(b"x" * (3 * MiB)),
            io.BytesIO(),
            declared=3 * MiB,
            budget=2 * MiB,
            where="a.zip: m",
            limits=LIMITS,
        )
    assert "the archive expands past 10.0 MiB" in str(caught.value)


def test_mangled_archives_are_refused_with_a_message(tmp_path):
    """Random damage to an archive of every method ends in ImportFailure, never a traceback."""
    good = io.BytesIO()
    with zipfile.ZipFile(good, "w") as archive:
        archive.writestr("a/deflated.csv", "id,x\n" + "1,y\n" * 400, zipfile.ZIP_DEFLATED)
        archive.writestr("a/bzip2.csv", "id,x\n" + "2,y\n" * 400, zipfile.ZIP_BZIP2)
        archive.writestr("a/lzma.json", "[1, 2]" * 400, zipfile.ZIP_LZMA)
        archive.writestr("a/stored.txt", "plain", zipfile.ZIP_STORED)
    rng = random.Random(2026)
    outcomes = set()
    for attempt in range(400):
        data = bytearray(good.getvalue())
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.8:
                data[rng.randrange(len(data))] = rng.randrange(256)
            else:
                data = data[: rng.randrange(1, len(data))]
        dest = tmp_path / str(attempt)
        dest.mkdir()
        try:
            zip_extract(io.BytesIO(bytes(data)), name="m.zip", dest=dest, limits=LIMITS)
            outcomes.add("extracted")
        except ImportFailure as exc:
            assert str(exc).startswith("m.zip")
            outcomes.add("refused")
    assert outcomes == {"extracted", "refused"}


def test_macos_resource_forks_are_not_extracted(tmp_path):
    data = _zip([("task/test.csv", b"id\n"), ("__MACOSX/task/._test.csv", b"\x00\x05")])
    written = zip_extract(io.BytesIO(data), name="m.zip", dest=tmp_path, limits=LIMITS)
    assert written == ["task/test.csv"]
    assert not (tmp_path / "__MACOSX").exists()
