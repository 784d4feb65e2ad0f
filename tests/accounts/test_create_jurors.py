"""manage.py create_jurors: accounts from a CSV, each username with its link on stdout."""

from __future__ import annotations

import io
import logging

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from tests.accounts.conftest import link_use

pytestmark = pytest.mark.django_db
User = get_user_model()
CSV = "username,name,email,role\nj1,Jo One,j1@example.org,juror\nc1,Cy Two,,chair\n"


def _run(path, *args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("create_jurors", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_prints_each_username_with_a_working_link_and_logs_none(tmp_path, caplog):
    path = tmp_path / "jury.csv"
    path.write_text("\ufeff" + CSV, encoding="utf-8")  # a spreadsheet's byte-order mark
    with caplog.at_level(logging.DEBUG):
        out, err = _run(path, "--base-url", "https://jury.example.org/")
    lines = [line.split("\t") for line in out.splitlines()]
    assert [name for name, _ in lines] == ["j1", "c1"]
    assert all(link.startswith("https://jury.example.org/reset/") for _, link in lines)
    assert "2 accounts created" in err
    # No password anywhere: the accounts have none until their holders set one.
    assert not any(u.has_usable_password() for u in User.objects.all())
    for _, link in lines:
        token = link.rstrip("/").rsplit("/", 1)[-1]
        assert token not in caplog.text
    assert all(link_use(link) for _, link in lines)
    assert all(User.objects.get(username=n).has_usable_password() for n in ("j1", "c1"))


def test_default_base_url_comes_from_the_settings(tmp_path, settings):
    settings.IOLEVAL_BASE_URL = "https://ioleval.example.org"
    path = tmp_path / "jury.csv"
    path.write_text(CSV, encoding="utf-8")
    out, _ = _run(path)
    assert out.splitlines()[0].startswith("j1\thttps://ioleval.example.org/reset/")


def test_dry_run_checks_and_creates_nothing(tmp_path):
    path = tmp_path / "jury.csv"
    path.write_text(CSV, encoding="utf-8")
    out, err = _run(path, "--dry-run")
    assert "j1\tjuror\twould be created" in out
    assert "reset/" not in out
    assert "nothing created" in err
    assert not User.objects.exists()


def test_an_error_names_file_line_and_field_and_creates_nothing(tmp_path):
    path = tmp_path / "jury.csv"
    path.write_text(CSV + "x1,,,jury\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        _run(path)
    assert str(caught.value).startswith(f"{path}, line 4, field 'role': unknown role 'jury'")
    assert not User.objects.exists()
    with pytest.raises(CommandError, match="No such file"):
        _run(tmp_path / "missing.csv")


@pytest.mark.parametrize("dry_run", [(), ("--dry-run",)])
def test_a_nul_in_a_name_is_refused_with_line_and_field(tmp_path, dry_run):
    path = tmp_path / "jury.csv"
    path.write_text(CSV + "x1,Ex\x00Machina,,juror\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        _run(path, *dry_run)
    assert str(caught.value) == (
        f"{path}, line 4, field 'name': the name holds the control character U+0000; remove it"
    )
    assert not User.objects.exists()


def test_text_that_is_not_utf8_is_refused_with_its_line(tmp_path):
    path = tmp_path / "jury.csv"
    path.write_bytes(CSV.encode() + b"x1,Ren\xe9,,juror\n")
    with pytest.raises(CommandError) as caught:
        _run(path)
    assert str(caught.value) == f"{path}, line 4: not UTF-8 text"
    assert not User.objects.exists()
