"""docker/compose.yaml's reverse proxy: nginx (docker/nginx.conf) is the only way in and writes
the one X-Forwarded-For entry the app trusts (DJANGO_PROXY_COUNT), so a client cannot choose the
address its failed logins count against. The last test runs that nginx file in front of a real
gunicorn started as the compose file starts it, on PostgreSQL."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
import yaml
from axes.models import AccessAttempt
from django.db.models import Sum

from tests.concurrency import run_concurrently
from tests.grading.factories import JurorFactory
from tests.test_celery_worker import _database_url

REPO = Path(__file__).resolve().parent.parent
DOCKER = REPO / "docker"
COMPOSE = yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))
NGINX = (DOCKER / "nginx.conf").read_text(encoding="utf-8")
# Each location that passes requests to gunicorn, with its body.
PROXIED = [
    body
    for body in re.findall(r"location\s+\S+\s*\{(.*?)\n    \}", NGINX, re.DOTALL)
    if "proxy_pass" in body
]
PASSWORD = "pw-for-tests"


def _environment(service: str) -> dict[str, str]:
    return {k: str(v) for k, v in COMPOSE["services"][service]["environment"].items()}


def test_only_the_proxy_is_published_and_it_runs_the_shipped_config():
    services = COMPOSE["services"]
    assert {name for name, service in services.items() if service.get("ports")} == {"proxy"}
    assert "./nginx.conf:/etc/nginx/conf.d/default.conf:ro" in services["proxy"]["volumes"]
    assert "8000" in [str(p) for p in services["web"].get("expose", [])]
    # Plain HTTP only redirects: every request the app gets came through the TLS server.
    plain = re.search(r"server\s*\{\s*listen 80 .*?\n\}", NGINX, re.DOTALL).group(0)
    assert "return 301 https://" in plain and "proxy_pass" not in plain


def test_the_app_trusts_exactly_the_entry_the_proxy_writes():
    # One proxy in front of the app, so one entry trusted, for every process of the image.
    for service in ("web", "worker"):
        assert _environment(service)["DJANGO_PROXY_COUNT"] == "1"
    assert "DJANGO_PROXY_COUNT" not in (DOCKER / ".env.example").read_text(encoding="utf-8")
    # The proxy replaces whatever the client sent with the address that connected to it.
    assert len(PROXIED) == 1
    for body in PROXIED:
        assert "proxy_pass http://web:8000;" in body
        assert re.search(r"proxy_set_header X-Forwarded-For \$remote_addr;", body)
        assert re.search(r"proxy_set_header X-Forwarded-Proto \$scheme;", body)
    assert "$proxy_add_x_forwarded_for" not in NGINX
    assert "real_ip_header" not in NGINX  # nothing in front of nginx is trusted


def _gunicorn_options() -> list[str]:
    """Return the compose file's gunicorn options that shape its workers."""
    command = COMPOSE["services"]["web"]["command"]
    options = []
    for name in ("--workers", "--threads", "--worker-class"):
        found = re.search(rf"{name}[ =](\S+)", command)
        if found:
            options += [name, found.group(1).rstrip('"')]
    assert options[:1] == ["--workers"]
    return options


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen, name: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{name} exited: {process.stderr.read().decode()}"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.2)
    raise AssertionError(f"{name} did not start")


@contextlib.contextmanager
def _running(command: list[str], port: int, name: str, **kwargs):
    process = subprocess.Popen(command, stderr=subprocess.PIPE, **kwargs)
    try:
        _wait_for(port, process, name)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _nginx_config(folder: Path, *, http: int, https: int, app: int) -> Path:
    """Write docker/nginx.conf as nginx would load it, with local ports and a test certificate."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=localhost", "-keyout", str(folder / "privkey.pem")]
        + ["-out", str(folder / "fullchain.pem")],
        check=True,
        capture_output=True,
    )
    servers = NGINX
    for old, new in (
        ("listen 80 default_server;", f"listen 127.0.0.1:{http} default_server;"),
        ("listen 443 ssl default_server;", f"listen 127.0.0.1:{https} ssl default_server;"),
        ("http://web:8000", f"http://127.0.0.1:{app}"),
        ("/etc/nginx/tls/", f"{folder}/"),
    ):
        assert old in servers, old
        servers = servers.replace(old, new)
    servers = re.sub(r"\n\s*listen \[::\]:\d+.*;", "", servers)
    temp = "\n".join(
        f"    {kind}_temp_path {folder}/{kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # The nginx image's own nginx.conf, reduced to what a test needs, around the shipped file.
    config = folder / "nginx.conf"
    config.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"worker_processes 1;\nerror_log stderr warn;\npid {folder}/nginx.pid;\n"
        + f"events {{}}\nhttp {{\n    access_log off;\n{temp}\n{servers}\n}}\n",
        encoding="utf-8",
    )
    return config


def _nginx() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if not found:
        message = "needs nginx (apt-get install nginx; .ci/run installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


class Browser:
    """A client of the proxy's HTTPS port with its CSRF cookie, as a browser would have it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.context = ssl._create_unverified_context()  # the test's own certificate
        response, body = self.request("GET", "/login/")
        assert response.status == 200
        self.cookie = response.getheader("Set-Cookie").split(";")[0]
        self.token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1)

    def request(self, method: str, path: str, body: str = "", headers: dict | None = None):
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context)
        try:
            connection.request(method, path, body, headers or {})
            response = connection.getresponse()
            return response, response.read().decode()
        finally:
            connection.close()

    def login(self, username: str, password: str, *, forged: str) -> int:
        body = urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": self.token}
        )
        origin = f"https://127.0.0.1:{self.port}"
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": origin,
            "Referer": f"{origin}/login/",
            "Cookie": self.cookie,
            "X-Forwarded-For": forged,
        }
        return self.request("POST", "/login/", body, headers)[0].status


def _failures(**where) -> int:
    return AccessAttempt.objects.filter(**where).aggregate(n=Sum("failures_since_start"))["n"] or 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres_only")
def test_through_nginx_a_client_cannot_choose_its_address(tmp_path):
    nginx = _nginx()
    for n in range(1, 21):
        JurorFactory(username=f"juror{n}")
    app, http_port, https_port = _free_port(), _free_port(), _free_port()
    environment = dict(
        os.environ,
        DATABASE_URL=_database_url(),
        DJANGO_SETTINGS_MODULE="ioleval.settings.test",
        DJANGO_PROXY_COUNT=_environment("web")["DJANGO_PROXY_COUNT"],
        DJANGO_LOGIN_ADDRESS_FAILURE_LIMIT="10",
    )
    gunicorn = [sys.executable, "-m", "gunicorn", "ioleval.wsgi", "--bind", f"127.0.0.1:{app}"]
    config = _nginx_config(tmp_path, http=http_port, https=https_port, app=app)
    with (
        _running(gunicorn + _gunicorn_options(), app, "gunicorn", cwd=REPO, env=environment),
        _running([nginx, "-c", str(config), "-g", "daemon off;"], https_port, "nginx"),
    ):
        browser = Browser(https_port)
        # Plain HTTP is sent to HTTPS.
        plain = http.client.HTTPConnection("127.0.0.1", http_port)
        plain.request("GET", "/login/")
        assert plain.getresponse().status == 301
        # 40 simultaneous guesses at one account, each claiming another address: the account
        # takes 5 failures and no more, and then refuses the right password too.
        statuses: list[int] = []
        run_concurrently(
            [
                lambda n=n: statuses.append(
                    browser.login("juror1", "wrong", forged=f"203.0.113.{n}")
                )
                for n in range(40)
            ]
        )
        assert sorted(statuses) == [200] * 4 + [429] * 36
        assert _failures(username="juror1") == 5
        assert browser.login("juror1", PASSWORD, forged="203.0.113.99") == 429
        # A spray over other accounts, each guess under a new forged address, a victim's
        # among them: every failure counts against the one real address, which locks at 10.
        sprayed = [
            browser.login(f"juror{n}", "wrong", forged=f"198.51.100.{n}") for n in range(2, 21)
        ]
        assert sprayed == [200] * 4 + [429] * 15
        assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}
        assert _failures(ip_address="127.0.0.1") == 10
        assert browser.login("juror20", PASSWORD, forged="198.51.100.1") == 429
